package facts

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/nova-dev/nova/engine/secrets"
)

// Sentinel errors callers branch on (besides ErrInvalid).
var (
	// ErrNotFound: no fact has this id.
	ErrNotFound = errors.New("fact not found")
	// ErrAlreadyInvalidated: the fact was already corrected or invalidated.
	ErrAlreadyInvalidated = errors.New("fact is already invalidated")
	// ErrUserUnavailable: the user-level file could not be used (locked,
	// damaged, no home directory); workspace scopes keep working.
	ErrUserUnavailable = errors.New("user-level facts unavailable")
	// ErrNotAllowed: the caller may not do this (an agent correcting a
	// user-level fact).
	ErrNotAllowed = errors.New("not allowed")
)

// Limits on what a fact may hold.
const (
	MaxContentChars = 2000
	MaxTags         = 12
	MaxTagChars     = 40
	MaxReasonChars  = 500
	maxFiles        = 5
)

// SourceType says where a fact came from.
type SourceType string

// Source types.
const (
	SourceUser     SourceType = "user"     // added by the user
	SourceBuild    SourceType = "build"    // extracted from a build's results
	SourceAgent    SourceType = "agent"    // an agent's remember (or correct)
	SourcePromoted SourceType = "promoted" // a promotion to a broader scope
	SourceTeam     SourceType = "team"     // a version of a team fact chain (engine/team)
)

// Source is a fact's origin.
type Source struct {
	Type    SourceType `json:"type"`
	BuildID string     `json:"buildId,omitempty"`
	TaskID  string     `json:"taskId,omitempty"`
	Agent   string     `json:"agent,omitempty"`
	// FromFactID is the fact a promotion copied.
	FromFactID string `json:"fromFactId,omitempty"`
	// TeamSubject and TeamID name a team fact's chain and the record of
	// this version (facts at the team scope; Author is then the short
	// name of the author's key).
	TeamSubject string `json:"teamSubject,omitempty"`
	TeamID      string `json:"teamId,omitempty"`
}

// Category is what kind of knowledge a fact is (the seed's FAQ entries).
type Category string

// Categories. A fact without one is knowledge.
const (
	// CategoryKnowledge: a fact about the code ("the handlers live in api/").
	CategoryKnowledge Category = "knowledge"
	// CategoryExperience: how tasks were done ("tests mock the clock").
	CategoryExperience Category = "experience"
	// CategoryTroubleshooting: a problem and what solves it.
	CategoryTroubleshooting Category = "troubleshooting"
)

// Categories lists the categories, in search order for a problem.
func Categories() []Category {
	return []Category{CategoryTroubleshooting, CategoryExperience, CategoryKnowledge}
}

// ParseCategory reads a category ("" is knowledge).
func ParseCategory(s string) (Category, error) {
	switch c := Category(strings.ToLower(strings.TrimSpace(s))); c {
	case "", CategoryKnowledge:
		return CategoryKnowledge, nil
	case CategoryExperience, CategoryTroubleshooting:
		return c, nil
	}
	return "", fmt.Errorf("%w: category %q (want knowledge, experience or troubleshooting)", ErrInvalid, s)
}

// rank orders categories for ties and problem-like queries.
func (c Category) rank() int {
	switch c {
	case CategoryTroubleshooting:
		return 0
	case CategoryExperience:
		return 1
	}
	return 2
}

// Text is the fact as an agent reads it: "problem → solution" for an
// entry with a problem, else its content.
func (f Fact) Text() string {
	if f.Problem == "" {
		return f.Content
	}
	return "Problem: " + f.Problem + " → Solution: " + f.Content
}

// Status is where a fact stands on its timeline.
type Status string

// Statuses.
const (
	StatusValid       Status = "valid"       // holds
	StatusSuperseded  Status = "superseded"  // corrected with a replacement (or promoted)
	StatusInvalidated Status = "invalidated" // corrected without a replacement
	StatusArchived    Status = "archived"    // unhelpful or unused; kept, hidden from searches
)

// FileRef is a workspace file a fact names, with its hash when recorded:
// a fact whose file changed is flagged for review.
type FileRef struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// Fact is one scoped, temporal, correctable piece of knowledge.
type Fact struct {
	// ID is "f<n>" for facts in the workspace file, "u<n>" for user-level
	// facts.
	ID         string    `json:"id"`
	Content    string    `json:"content"`
	Scope      Scope     `json:"scope"`
	Source     Source    `json:"source"`
	Confidence float64   `json:"confidence"`
	Tags       []string  `json:"tags"`
	Files      []FileRef `json:"files,omitempty"`
	// Author is the workspace identity that recorded it (config userId).
	Author    string    `json:"author,omitempty"`
	ValidFrom time.Time `json:"validFrom"`
	// ValidUntil is set when the fact is corrected or invalidated, with
	// the Reason.
	ValidUntil   time.Time `json:"validUntil,omitzero"`
	Reason       string    `json:"reason,omitempty"`
	Supersedes   string    `json:"supersedes,omitempty"`
	SupersededBy string    `json:"supersededBy,omitempty"`
	// Usefulness: how often it was handed to an agent, and how often the
	// task that used it passed (helpful) or failed (notHelpful).
	Retrievals int       `json:"retrievals"`
	Helpful    int       `json:"helpful"`
	NotHelpful int       `json:"notHelpful"`
	LastUsedAt time.Time `json:"lastUsedAt,omitzero"`
	// Archived facts are hidden from searches (never deleted).
	Archived      bool      `json:"archived,omitempty"`
	ArchivedAt    time.Time `json:"archivedAt,omitzero"`
	ArchiveReason string    `json:"archiveReason,omitempty"`
	// Review says why the fact should be checked (a file it names changed).
	Review string `json:"review,omitempty"`
	// Category orders searches (troubleshooting first for a problem);
	// Problem is the problem an entry answers: Content is then its
	// solution ("" for a plain statement).
	Category Category `json:"category,omitempty"`
	Problem  string   `json:"problem,omitempty"`
	// Status is derived (valid, superseded, invalidated, archived).
	Status Status `json:"status"`
}

// derive fills Status from the other fields.
func (f *Fact) derive() {
	switch {
	case f.SupersededBy != "":
		f.Status = StatusSuperseded
	case !f.ValidUntil.IsZero():
		f.Status = StatusInvalidated
	case f.Archived:
		f.Status = StatusArchived
	default:
		f.Status = StatusValid
	}
}

// Valid reports whether the fact holds (not closed; archived facts still
// hold but are hidden).
func (f Fact) Valid() bool { return f.ValidUntil.IsZero() }

// HelpRate is helpful / (helpful + notHelpful), and the number of uses.
func (f Fact) HelpRate() (float64, int) {
	uses := f.Helpful + f.NotHelpful
	if uses == 0 {
		return 0, 0
	}
	return float64(f.Helpful) / float64(uses), uses
}

// ID prefixes.
const (
	prefixWorkspace = 'f'
	prefixUser      = 'u'
)

// factID is a parsed fact id: which file and the sequence number.
type factID struct {
	user bool
	n    uint64
}

func (id factID) String() string {
	if id.user {
		return "u" + strconv.FormatUint(id.n, 10)
	}
	return "f" + strconv.FormatUint(id.n, 10)
}

// ParseID reads "f12" (workspace file), "u3" (user file) or a bare number
// (workspace).
func ParseID(s string) (string, error) {
	id, err := parseID(s)
	if err != nil {
		return "", err
	}
	return id.String(), nil
}

func parseID(s string) (factID, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	t = strings.TrimPrefix(t, "fact:")
	id := factID{}
	switch {
	case t == "":
		return id, fmt.Errorf("%w: empty fact id", ErrInvalid)
	case t[0] == prefixWorkspace:
		t = t[1:]
	case t[0] == prefixUser:
		id.user, t = true, t[1:]
	}
	n, err := strconv.ParseUint(t, 10, 64)
	if err != nil || n == 0 {
		return id, fmt.Errorf("%w: %q is not a fact id (like f12 or u3)", ErrInvalid, clip(s, 40))
	}
	id.n = n
	return id, nil
}

// checkConfidence refuses NaN and values outside 0–1.
func checkConfidence(c float64) error {
	if math.IsNaN(c) || c < 0 || c > 1 {
		return fmt.Errorf("%w: confidence %v is outside 0–1", ErrInvalid, c)
	}
	return nil
}

// cleanContent normalises fact text: valid UTF-8, no control characters
// but newlines and tabs, trimmed; empty or too long is ErrInvalid.
// Secrets in it are redacted (secrets.Redact).
func cleanContent(s, what string, limit int) (string, error) {
	s = strings.ToValidUTF8(s, "")
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
	s = strings.TrimSpace(s)
	if s == "" {
		return "", fmt.Errorf("%w: %s is empty", ErrInvalid, what)
	}
	if n := utf8.RuneCountInString(s); n > limit {
		return "", fmt.Errorf("%w: %s is %d characters long (at most %d)", ErrInvalid, what, n, limit)
	}
	// A key an agent read is never stored verbatim (nor served by
	// `knowledge search` in other workspaces once promoted).
	return secrets.Redact(s), nil
}

// cleanTags lower-cases, trims and de-duplicates tags (a leading # is
// dropped); too many or too long tags are ErrInvalid.
func cleanTags(tags []string) ([]string, error) {
	out := []string{}
	seen := map[string]bool{}
	for _, t := range tags {
		t = strings.ToLower(strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(t), "#")))
		t = strings.Join(strings.FieldsFunc(t, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) || r == ',' }), "-")
		if t == "" || seen[t] || secrets.Redact(t) != t {
			continue // a tag that carries a secret is dropped
		}
		if utf8.RuneCountInString(t) > MaxTagChars {
			return nil, fmt.Errorf("%w: tag %q is longer than %d characters", ErrInvalid, clip(t, 50), MaxTagChars)
		}
		seen[t] = true
		out = append(out, t)
	}
	if len(out) > MaxTags {
		return nil, fmt.Errorf("%w: %d tags (at most %d)", ErrInvalid, len(out), MaxTags)
	}
	return out, nil
}
