package vault

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/nova-dev/nova/storage"
)

// Sentinel errors callers branch on (errors.Is).
var (
	// ErrNotFound means the node, edge or wisdom pattern does not exist. It
	// is storage.ErrNotFound, so either sentinel matches.
	ErrNotFound = storage.ErrNotFound
	// ErrInvalid marks bad input: unknown type or relation, empty content,
	// confidence outside 0–1, an edge to itself, malformed JSONL, …
	ErrInvalid = errors.New("invalid input")
	// ErrRateLimited means a user already promoted the weekly maximum of
	// patterns to global wisdom.
	ErrRateLimited = errors.New("promotion limit reached")
	// ErrNotEligible means a node cannot be promoted to global wisdom (low
	// confidence, or its user has not opted in).
	ErrNotEligible = errors.New("not eligible for global wisdom")
)

func invalidf(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, a...))
}

// NodeType is the kind of a node.
type NodeType string

// Node types.
const (
	Strategy   NodeType = "Strategy"
	Mistake    NodeType = "Mistake"
	Preference NodeType = "Preference"
	Pattern    NodeType = "Pattern"
	Decision   NodeType = "Decision"
)

// NodeTypes lists every node type in display order.
func NodeTypes() []NodeType { return []NodeType{Strategy, Mistake, Preference, Pattern, Decision} }

// ParseNodeType accepts a type name in any case ("pattern", "Pattern",
// "PATTERNS").
func ParseNodeType(s string) (NodeType, error) {
	k := strings.ToLower(strings.TrimSpace(s))
	for _, t := range NodeTypes() {
		lt := strings.ToLower(string(t))
		if k == lt || k == lt+"s" || (t == Strategy && k == "strategies") {
			return t, nil
		}
	}
	return "", invalidf("unknown node type %q (want Strategy, Mistake, Preference, Pattern or Decision)", s)
}

// Valid reports whether t is one of NodeTypes.
func (t NodeType) Valid() bool { return slices.Contains(NodeTypes(), t) }

// Relation is the kind of a directed edge.
type Relation string

// Relations.
const (
	Supports    Relation = "supports"
	Contradicts Relation = "contradicts"
	Refines     Relation = "refines"
	Replaces    Relation = "replaces"
	DependsOn   Relation = "depends_on"
)

// Relations lists every relation in display order.
func Relations() []Relation {
	return []Relation{Supports, Contradicts, Refines, Replaces, DependsOn}
}

// ParseRelation accepts a relation name in any case; "depends-on" and
// "dependsOn" are accepted for depends_on.
func ParseRelation(s string) (Relation, error) {
	k := strings.ToLower(strings.TrimSpace(s))
	k = strings.ReplaceAll(k, "-", "_")
	if k == "dependson" {
		k = string(DependsOn)
	}
	for _, r := range Relations() {
		if k == string(r) {
			return r, nil
		}
	}
	return "", invalidf("unknown relation %q (want supports, contradicts, refines, replaces or depends_on)", s)
}

// Valid reports whether r is one of Relations.
func (r Relation) Valid() bool { return slices.Contains(Relations(), r) }

// Defaults and limits.
const (
	// DefaultConfidence is given to a node added without a confidence.
	DefaultConfidence = 0.7
	// DefaultStrength is given to an edge linked without a strength.
	DefaultStrength = 0.5
	// HighConfidence is the default threshold of HighConfidence queries.
	HighConfidence = 0.8
	// ReinforceStep and DemoteStep are the confidence changes of Reinforce
	// and Demote.
	ReinforceStep = 0.05
	DemoteStep    = 0.1

	// MaxContentLen, MaxTitleLen, MaxBodyLen bound a node's text (bytes).
	MaxContentLen = 16 << 10
	MaxTitleLen   = 512
	MaxBodyLen    = 1 << 20
	// MaxTags bounds the tags of a node; MaxTagLen a tag's length.
	MaxTags   = 32
	MaxTagLen = 64
	// MaxMeta bounds the entries of Node.Meta.
	MaxMeta = 32
)

// Node is one memory of the vault. Body is loaded only by calls that say so
// (Get, Export, Traverse with bodies); listings leave it empty and set
// HasBody.
type Node struct {
	ID                 uint64    `json:"id"`
	Type               NodeType  `json:"type"`
	Title              string    `json:"title,omitempty"`
	Content            string    `json:"content"`
	Body               string    `json:"body,omitempty"`
	HasBody            bool      `json:"hasBody,omitempty"`
	Confidence         float64   `json:"confidence"`
	HelpfulCount       int       `json:"helpfulCount"`
	UserID             string    `json:"userId"`
	IsGlobal           bool      `json:"isGlobal"`
	GlobalSuccessCount int       `json:"globalSuccessCount"`
	Language           string    `json:"language,omitempty"`
	Tags               []string  `json:"tags"`
	Source             string    `json:"source"`
	CreatedAt          time.Time `json:"createdAt"`
	UpdatedAt          time.Time `json:"updatedAt"`
	// Meta holds small extra facts (an importer's category, priority or
	// content hash). Keys and values are free text.
	Meta map[string]string `json:"meta,omitempty"`
}

// Edge is a directed, typed link between two nodes.
type Edge struct {
	ID        uint64    `json:"id"`
	From      uint64    `json:"from"`
	To        uint64    `json:"to"`
	Relation  Relation  `json:"relation"`
	Strength  float64   `json:"strength"`
	CreatedAt time.Time `json:"createdAt"`
}

// Patch changes the fields that are set (non-nil) and bumps UpdatedAt.
type Patch struct {
	Type               *NodeType
	Title              *string
	Content            *string
	Body               *string
	Confidence         *float64
	HelpfulCount       *int
	UserID             *string
	IsGlobal           *bool
	GlobalSuccessCount *int
	Language           *string
	Tags               *[]string
	Source             *string
	Meta               *map[string]string
}

// Ptr returns a pointer to v (for Patch literals).
func Ptr[T any](v T) *T { return &v }

// cleanText trims s, drops NUL and other control characters except newline
// and tab, and repairs invalid UTF-8.
func cleanText(s string) string {
	if printableASCII(s, true) || cleanUnicode(s) { // the common cases, in one pass
		return strings.TrimSpace(s)
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	if strings.IndexFunc(s, badRune) >= 0 {
		s = strings.Map(func(r rune) rune {
			if badRune(r) {
				return -1
			}
			return r
		}, s)
	}
	return strings.TrimSpace(s)
}

// printableASCII reports whether s is printable ASCII (and newlines, tabs and carriage
// returns when lines is set): text that cleanText (lines) or cleanKey only trims.
func printableASCII(s string, lines bool) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			if !lines || (c != '\n' && c != '\t' && c != '\r') {
				return false
			}
		}
	}
	return true
}

// cleanUnicode reports whether s is valid UTF-8 without a rune that cleanText drops (text
// with non-ASCII letters, which printableASCII turns down): then cleanText only trims it,
// without ToValidUTF8's and IndexFunc's scans.
func cleanUnicode(s string) bool {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if (c < 0x20 || c == 0x7f) && c != '\n' && c != '\t' && c != '\r' {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || badRune(r) {
			return false
		}
		i += size
	}
	return true
}

func badRune(r rune) bool {
	return r != '\n' && r != '\t' && r != '\r' && unicode.IsControl(r)
}

// cleanKey cleans a value that goes into an index key (tag, user, type): one
// line, no control characters.
func cleanKey(s string) string {
	if printableASCII(s, false) {
		return strings.TrimSpace(s)
	}
	s = strings.ToValidUTF8(s, "")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
	return strings.TrimSpace(s)
}

// NormalizeTags lowercases, trims and deduplicates tags, keeping their order
// and dropping empty ones; "#go" becomes "go".
func NormalizeTags(tags []string) []string {
	out := make([]string, 0, len(tags))
	for _, t := range tags {
		t = strings.ToLower(cleanKey(t))
		t = strings.TrimLeft(t, "#")
		t = strings.TrimSpace(t)
		if t == "" || slices.Contains(out, t) {
			continue
		}
		out = append(out, t)
	}
	return out
}

func checkConfidence(c float64, what string) error {
	if math.IsNaN(c) || c < 0 || c > 1 {
		return invalidf("%s %v is outside 0–1", what, c)
	}
	return nil
}

// normalize validates n in place for storage. It fills defaults only for
// fields the caller may leave out (confidence when fill is set, user).
func (n *Node) normalize(defaultUser string, fillConfidence bool) error {
	if n.Type == "" {
		n.Type = Pattern
	}
	if !n.Type.Valid() {
		t, err := ParseNodeType(string(n.Type))
		if err != nil {
			return err
		}
		n.Type = t
	}
	n.Content = cleanText(n.Content)
	if n.Content == "" {
		return invalidf("content is empty")
	}
	if len(n.Content) > MaxContentLen {
		return invalidf("content is %d bytes, at most %d (put long text in the body)", len(n.Content), MaxContentLen)
	}
	n.Title = cleanText(strings.ReplaceAll(n.Title, "\n", " "))
	if len(n.Title) > MaxTitleLen {
		return invalidf("title is %d bytes, at most %d", len(n.Title), MaxTitleLen)
	}
	body := strings.ReplaceAll(n.Body, "\x00", "")
	if !utf8.ValidString(body) { // the check is several times faster than ToValidUTF8's scan
		body = strings.ToValidUTF8(body, "\uFFFD")
	}
	n.Body = strings.TrimSpace(body)
	if len(n.Body) > MaxBodyLen {
		return invalidf("body is %d bytes, at most %d", len(n.Body), MaxBodyLen)
	}
	n.HasBody = n.Body != ""
	if fillConfidence && n.Confidence == 0 {
		n.Confidence = DefaultConfidence
	}
	if err := checkConfidence(n.Confidence, "confidence"); err != nil {
		return err
	}
	if n.HelpfulCount < 0 || n.GlobalSuccessCount < 0 {
		return invalidf("counts must not be negative")
	}
	n.UserID = cleanKey(n.UserID)
	if n.UserID == "" {
		n.UserID = defaultUser
	}
	n.Language = strings.ToLower(cleanKey(n.Language))
	n.Source = cleanKey(n.Source)
	if n.Source == "" {
		n.Source = SourceManual
	}
	n.Tags = NormalizeTags(n.Tags)
	if len(n.Tags) > MaxTags {
		return invalidf("%d tags, at most %d", len(n.Tags), MaxTags)
	}
	for _, t := range n.Tags {
		if len(t) > MaxTagLen {
			return invalidf("tag %q is longer than %d bytes", t, MaxTagLen)
		}
	}
	if len(n.Meta) > MaxMeta {
		return invalidf("%d meta entries, at most %d", len(n.Meta), MaxMeta)
	}
	if len(n.Meta) == 0 {
		n.Meta = nil
	}
	if utf8.RuneCountInString(n.UserID) > 128 {
		return invalidf("user id is too long")
	}
	return nil
}

// SourceManual is the source of nodes added by hand.
const SourceManual = "manual"

// BuildSource is the source of nodes learned from a build task.
func BuildSource(buildID, taskID string) string {
	switch {
	case buildID == "" && taskID == "":
		return "build"
	case buildID == "":
		return "task:" + taskID
	}
	return "build:" + buildID + "/task:" + taskID
}

// clone returns a deep copy of n.
func (n Node) clone() Node {
	n.Tags = slices.Clone(n.Tags)
	if n.Tags == nil {
		n.Tags = []string{}
	}
	if n.Meta != nil {
		m := make(map[string]string, len(n.Meta))
		for k, v := range n.Meta {
			m[k] = v
		}
		n.Meta = m
	}
	return n
}

// Text returns the node's searchable text: title, content, tags and body.
func (n Node) Text() string {
	var b strings.Builder
	b.WriteString(n.Title)
	b.WriteByte('\n')
	b.WriteString(n.Content)
	b.WriteByte('\n')
	b.WriteString(strings.Join(n.Tags, " "))
	b.WriteByte('\n')
	b.WriteString(n.Body)
	return b.String()
}

// applyPatch applies p to n (validation happens afterwards).
func (n *Node) applyPatch(p Patch) {
	if p.Type != nil {
		n.Type = *p.Type
	}
	if p.Title != nil {
		n.Title = *p.Title
	}
	if p.Content != nil {
		n.Content = *p.Content
	}
	if p.Body != nil {
		n.Body = *p.Body
	}
	if p.Confidence != nil {
		n.Confidence = *p.Confidence
	}
	if p.HelpfulCount != nil {
		n.HelpfulCount = *p.HelpfulCount
	}
	if p.UserID != nil {
		n.UserID = *p.UserID
	}
	if p.IsGlobal != nil {
		n.IsGlobal = *p.IsGlobal
	}
	if p.GlobalSuccessCount != nil {
		n.GlobalSuccessCount = *p.GlobalSuccessCount
	}
	if p.Language != nil {
		n.Language = *p.Language
	}
	if p.Tags != nil {
		n.Tags = slices.Clone(*p.Tags)
	}
	if p.Source != nil {
		n.Source = *p.Source
	}
	if p.Meta != nil {
		n.Meta = *p.Meta
	}
}

// round6 keeps confidences readable (0.75, not 0.7500000000000001).
func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }

func clamp01(x float64) float64 {
	if math.IsNaN(x) {
		return 0
	}
	return min(1, max(0, x))
}

// Meta keys the importer sets that mark a node as imported from a pattern
// library (engine/importer uses the same names).
const (
	MetaImportUser = "importUser"
	MetaLibrary    = "library"
)

// Imported reports whether n came from a pattern library (the shipped
// starter patterns or one the user imported) rather than from the user's
// own work: such a node is shared knowledge, not this user's taste.
func (n Node) Imported() bool {
	return n.Meta[MetaImportUser] != "" || n.Meta[MetaLibrary] != ""
}
