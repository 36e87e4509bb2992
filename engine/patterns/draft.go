package patterns

import "math"

// Draft defaults.
const (
	// DefaultUser owns imported pattern nodes unless DraftOptions.User says otherwise.
	DefaultUser = "bistrolens-import"
	// DefaultBaseConfidence is the base of the confidence formula.
	DefaultBaseConfidence = 0.85
	// DefaultAdaptationConfidence is the fixed confidence of the adaptations folder.
	DefaultAdaptationConfidence = 0.95
	// MaxConfidence caps every imported node's confidence.
	MaxConfidence = 0.99
	// RelationRefines is the edge an importer draws from a section node to its file node.
	RelationRefines = "refines"
)

// DraftOptions tunes Doc.Draft and Doc.SectionDrafts.
type DraftOptions struct {
	// User is the owner of the nodes; "" means DefaultUser.
	User string
	// BaseConfidence is the formula's base; 0 means DefaultBaseConfidence.
	BaseConfidence float64
	// AdaptationConfidence applies to categories containing "adaptation"; 0 means
	// DefaultAdaptationConfidence.
	AdaptationConfidence float64
}

// NodeDraft is what an importer needs to create one vault node. Section drafts carry
// ParentSource and Anchor so the importer can link them to the file's node with a
// RelationRefines edge.
type NodeDraft struct {
	Type  string `json:"type"`
	Title string `json:"title"`
	// Content is the short summary (the description, or the title when there is none).
	Content          string   `json:"content"`
	Body             string   `json:"body"`
	Tags             []string `json:"tags"`
	Confidence       float64  `json:"confidence"`
	Language         string   `json:"language,omitempty"`
	Source           string   `json:"source"`
	Priority         string   `json:"priority"`
	Reusability      int      `json:"reusability"`
	Category         string   `json:"category"`
	CodeExampleCount int      `json:"codeExampleCount"`
	IsGlobal         bool     `json:"isGlobal"`
	UserID           string   `json:"userId"`
	ContentHash      string   `json:"contentHash"`
	// ParentSource is the Source of the file node a section refines ("" for file drafts).
	ParentSource string `json:"parentSource,omitempty"`
	// Anchor is the section's heading anchor ("" for file drafts).
	Anchor string `json:"anchor,omitempty"`
}

// Confidence is min(0.99, base + reusability×0.01), base 0.85 by default; categories containing
// "adaptation" get a fixed 0.95 instead. The result is kept in [0, 0.99].
func Confidence(category string, reusability int, opts DraftOptions) float64 {
	var c float64
	if isAdaptation(category) {
		c = opts.AdaptationConfidence
		if c == 0 {
			c = DefaultAdaptationConfidence
		}
	} else {
		base := opts.BaseConfidence
		if base == 0 {
			base = DefaultBaseConfidence
		}
		c = base + float64(reusability)*0.01
	}
	if math.IsNaN(c) || c < 0 {
		return 0
	}
	c = math.Min(MaxConfidence, c)
	return math.Round(c*1e6) / 1e6 // 0.85+0.09 prints as 0.94, not 0.9400000000000001
}

func (o DraftOptions) user() string {
	if o.User == "" {
		return DefaultUser
	}
	return o.User
}

// Draft turns the file into one node draft (global, owned by opts.User or DefaultUser).
func (d Doc) Draft(opts DraftOptions) NodeDraft {
	content := d.Description
	if content == "" {
		content = d.Title
	}
	return NodeDraft{
		Type:             d.Type,
		Title:            d.Title,
		Content:          content,
		Body:             d.Body,
		Tags:             append([]string(nil), d.Tags...),
		Confidence:       Confidence(d.Category, d.Reusability, opts),
		Language:         d.Language,
		Source:           d.SourceFile,
		Priority:         d.Priority,
		Reusability:      d.Reusability,
		Category:         d.Category,
		CodeExampleCount: len(d.CodeExamples),
		IsGlobal:         true,
		UserID:           opts.user(),
		ContentHash:      d.ContentHash,
	}
}

// SectionDrafts returns one draft per split section (nil unless the file was parsed with
// ParseOptions.Split and has two or more "## Pattern…" sections). Each has Source
// "<file>#<anchor>", ParentSource = the file's Source, and the file's type and category.
func (d Doc) SectionDrafts(opts DraftOptions) []NodeDraft {
	if len(d.Sections) == 0 {
		return nil
	}
	out := make([]NodeDraft, 0, len(d.Sections))
	for _, s := range d.Sections {
		content := s.Description
		if content == "" {
			content = s.Title
		}
		out = append(out, NodeDraft{
			Type:             d.Type,
			Title:            s.Title,
			Content:          content,
			Body:             s.Body,
			Tags:             append([]string(nil), s.Tags...),
			Confidence:       Confidence(d.Category, s.Reusability, opts),
			Language:         s.Language,
			Source:           s.SourceFile,
			Priority:         s.Priority,
			Reusability:      s.Reusability,
			Category:         d.Category,
			CodeExampleCount: len(s.CodeExamples),
			IsGlobal:         true,
			UserID:           opts.user(),
			ContentHash:      d.ContentHash,
			ParentSource:     d.SourceFile,
			Anchor:           s.Anchor,
		})
	}
	return out
}
