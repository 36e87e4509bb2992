package importer

import (
	"fmt"
	"strings"
	"time"

	"github.com/nova-dev/nova/engine/vault"
)

// Action says what an import does (or, in a dry run, would do) with one file or section.
type Action string

// Actions.
const (
	// ActionNew: a node is created.
	ActionNew Action = "new"
	// ActionUpdated: the file changed since its last import; its node is replaced in place.
	ActionUpdated Action = "updated"
	// ActionDuplicate: a near-duplicate of a node in the vault or of an earlier file of the
	// batch; nothing is written.
	ActionDuplicate Action = "duplicate"
	// ActionSkipped: unchanged since the last import, a meta file, or excluded by the caller.
	ActionSkipped Action = "skipped"
	// ActionError: the file could not be parsed or its node is invalid.
	ActionError Action = "error"
)

// NodeReport is one file (or, in split mode, one section) of an import.
type NodeReport struct {
	Title        string `json:"title"`
	Category     string `json:"category"`
	Type         string `json:"type"`
	Priority     string `json:"priority"`
	Reusability  int    `json:"reusability"`
	CodeExamples int    `json:"codeExamples"`
	// SourceFile is the path relative to the import root ("file#anchor" for a section).
	SourceFile string `json:"sourceFile"`
	Action     Action `json:"action"`
	// Reason explains skipped, duplicate and error actions.
	Reason string `json:"reason,omitempty"`
	// ID is the node: the existing one for updated and unchanged files, the new one after a
	// committed import, 0 in a dry run of a new file.
	ID         uint64   `json:"id,omitempty"`
	Confidence float64  `json:"confidence,omitempty"`
	Language   string   `json:"language,omitempty"`
	Tags       []string `json:"tags,omitempty"`
	// Summary is the node's content: the file's description (at most 500 runes).
	Summary string `json:"summary,omitempty"`
	// DuplicateOf names what a duplicate duplicates: a source file of this batch or "node N".
	DuplicateOf string  `json:"duplicateOf,omitempty"`
	Similarity  float64 `json:"similarity,omitempty"`
	// Sections counts the split sections of a file; ParentSource is set on a section.
	Sections     int      `json:"sections,omitempty"`
	ParentSource string   `json:"parentSource,omitempty"`
	Warnings     []string `json:"warnings,omitempty"`
	// Skip says why a skipped file was skipped: unchanged, meta or excluded
	// (Result's counts tally it).
	Skip SkipKind `json:"skip,omitempty"`
}

// detach copies the report's text out of the file it was parsed from: a title or summary
// that is a piece of the file's text would keep the whole file in memory.
func (r *NodeReport) detach() {
	for _, f := range []*string{&r.Title, &r.Category, &r.Type, &r.Priority, &r.SourceFile, &r.Reason,
		&r.Language, &r.Summary, &r.DuplicateOf, &r.ParentSource} {
		*f = strings.Clone(*f)
	}
	for i := range r.Tags {
		r.Tags[i] = strings.Clone(r.Tags[i])
	}
	for i := range r.Warnings {
		r.Warnings[i] = strings.Clone(r.Warnings[i])
	}
}

// SkipKind tells skipped files apart for the counts ("" when not skipped).
type SkipKind string

const (
	skipUnchanged SkipKind = "unchanged"
	skipMeta      SkipKind = "meta"
	skipExcluded  SkipKind = "excluded"
	skipForgotten SkipKind = "forgotten" // the user forgot the node imported from this source (a tombstone)
	skipArchived  SkipKind = "archived"  // the node is in the vault's archive (tier cap)
)

// FileError is a file that could not be imported.
type FileError struct {
	Path   string `json:"path"`
	Line   int    `json:"line,omitempty"`
	Reason string `json:"reason"`
}

// Result is the outcome of an import or a dry run. Files = Loaded + Skipped + Errors.
type Result struct {
	// Batch is the committed batch id; 0 in a dry run and when nothing changed.
	Batch  uint64 `json:"batch"`
	DryRun bool   `json:"dryRun"`
	Source string `json:"source"`
	User   string `json:"user"`
	Split  bool   `json:"split"`
	// BaseConfidence and DedupThreshold are the values used.
	BaseConfidence float64 `json:"baseConfidence"`
	DedupThreshold float64 `json:"dedupThreshold"`

	// Files counts every *.md file found.
	Files int `json:"files"`
	// Loaded counts files written (would be written): new and updated.
	Loaded int `json:"loaded"`
	// Skipped counts meta, unchanged, excluded and duplicate files.
	Skipped int `json:"skipped"`
	// Errors counts files that failed; ErrorDetails says why.
	Errors       int         `json:"errors"`
	ErrorDetails []FileError `json:"errorDetails"`

	New        int `json:"new"`
	Updated    int `json:"updated"`
	Unchanged  int `json:"unchanged"`
	Duplicates int `json:"duplicates"`
	Meta       int `json:"meta"`
	Excluded   int `json:"excluded"`
	// Forgotten counts files whose node the user forgot (never re-imported);
	// Archived files whose node the tier cap moved to the archive (restore
	// it instead of importing it twice).
	Forgotten int `json:"forgotten"`
	Archived  int `json:"archived"`

	// Node and edge counts, sections included.
	NodesAdded   int `json:"nodesAdded"`
	NodesUpdated int `json:"nodesUpdated"`
	NodesRemoved int `json:"nodesRemoved"`
	EdgesAdded   int `json:"edgesAdded"`
	EdgesRemoved int `json:"edgesRemoved"`

	Nodes []NodeReport `json:"nodes"`
	// Warnings are problems that did not stop the import (an embedding call that failed).
	Warnings []string `json:"warnings,omitempty"`
	// TookMs is the wall time of the import in milliseconds.
	TookMs int64 `json:"tookMs"`
	// OverCap is set when the import would take the vault over its tier's
	// node cap: a real import is refused with this error and writes nothing;
	// a dry run returns it beside the report.
	OverCap *vault.CapError `json:"overCap,omitempty"`
}

// Changed reports whether the import writes anything.
func (r *Result) Changed() bool {
	return r.NodesAdded+r.NodesUpdated+r.NodesRemoved+r.EdgesAdded+r.EdgesRemoved > 0
}

func (r *Result) finish(start time.Time) {
	r.TookMs = time.Since(start).Milliseconds()
	if r.ErrorDetails == nil {
		r.ErrorDetails = []FileError{}
	}
	if r.Nodes == nil {
		r.Nodes = []NodeReport{}
	}
}

// count tallies the file-level reports (sections are not files).
func (r *Result) count() {
	r.Loaded, r.Skipped, r.Errors = 0, 0, 0
	r.New, r.Updated, r.Unchanged, r.Duplicates, r.Meta, r.Excluded = 0, 0, 0, 0, 0, 0
	r.Forgotten, r.Archived = 0, 0
	r.ErrorDetails = r.ErrorDetails[:0]
	for _, n := range r.Nodes {
		if n.ParentSource != "" {
			continue
		}
		switch n.Action {
		case ActionNew:
			r.New++
			r.Loaded++
		case ActionUpdated:
			r.Updated++
			r.Loaded++
		case ActionDuplicate:
			r.Duplicates++
			r.Skipped++
		case ActionSkipped:
			r.Skipped++
			switch n.Skip {
			case skipMeta:
				r.Meta++
			case skipExcluded:
				r.Excluded++
			case skipForgotten:
				r.Forgotten++
			case skipArchived:
				r.Archived++
			default:
				r.Unchanged++
			}
		case ActionError:
			r.Errors++
			r.ErrorDetails = append(r.ErrorDetails, FileError{Path: n.SourceFile, Reason: n.Reason})
		}
	}
	r.Files = r.Loaded + r.Skipped + r.Errors
}

// Reasons of skipped files.
const (
	reasonMeta     = "meta file (README, INDEX, KIRO-*, EXTRACTION-*), not a pattern"
	reasonExcluded = "excluded"
)

func errorf(sentinel error, format string, a ...any) error {
	return fmt.Errorf("%w: %s", sentinel, fmt.Sprintf(format, a...))
}
