package board

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/nova-dev/nova/storage"
)

// Limits of a board.
const (
	// MaxDecisions key decisions are kept (the oldest goes first).
	MaxDecisions = 5
	// MaxBlockers blockers may be open at once; a fourth is refused until
	// one is resolved.
	MaxBlockers = 3
	// MaxResolved resolved blockers are kept for display.
	MaxResolved = 5
	// PreviewChars is the length of an artifact's preview.
	PreviewChars = 200
	// InlineTokens bounds the inline part of a board (Inline), always.
	InlineTokens = 1200
	// SummaryTokens bounds the history summary; past it the summary is
	// compressed (small tier) or its oldest lines dropped.
	SummaryTokens = 400
	// MaxRefs artifact references are kept on the board record (the newest);
	// older artifacts stay readable by id.
	MaxRefs = 40
	// MaxTextChars bounds one decision, blocker or goal.
	MaxTextChars = 240
)

// Sentinel errors callers branch on.
var (
	// ErrNotFound: no artifact (or blocker) has this id.
	ErrNotFound = errors.New("not found on the board")
	// ErrFull: the board already holds MaxBlockers open blockers.
	ErrFull = errors.New("the board is full")
	// ErrInvalid: empty or malformed input (an empty decision, a bad key).
	ErrInvalid = errors.New("invalid board input")
)

// Kind is what owns a board.
type Kind string

// Board owners.
const (
	KindRun   Kind = "run"   // a goal run (`nova run`)
	KindBuild Kind = "build" // a build of a PRD
)

// Key names a board: "run:3", "build:12".
type Key struct {
	Kind Kind
	ID   uint64
}

// RunKey is the board of goal run id.
func RunKey(id uint64) Key { return Key{Kind: KindRun, ID: id} }

// BuildKey is the board of build id.
func BuildKey(id uint64) Key { return Key{Kind: KindBuild, ID: id} }

func (k Key) String() string { return string(k.Kind) + ":" + strconv.FormatUint(k.ID, 10) }

// Valid reports whether k names a board.
func (k Key) Valid() bool { return (k.Kind == KindRun || k.Kind == KindBuild) && k.ID > 0 }

// ParseKey parses "run:3" or "build:12".
func ParseKey(s string) (Key, error) {
	kind, id, ok := strings.Cut(strings.TrimSpace(s), ":")
	n, err := strconv.ParseUint(id, 10, 64)
	k := Key{Kind: Kind(kind), ID: n}
	if !ok || err != nil || !k.Valid() {
		return Key{}, fmt.Errorf("%w: board %q: want run:ID or build:ID", ErrInvalid, s)
	}
	return k, nil
}

// bytes is the storage key: 'r' or 'b', then the id (8 bytes, big-endian).
func (k Key) bytes() []byte {
	prefix := byte('r')
	if k.Kind == KindBuild {
		prefix = 'b'
	}
	return append([]byte{prefix}, storage.Key(k.ID)...)
}

// Board is one session board. The zero value of a board nobody wrote yet is
// a valid, empty board.
type Board struct {
	Key  string `json:"key"`
	Goal string `json:"goal"`
	// GoalBy is who set the goal (an agent id, "lead", "user").
	GoalBy    string     `json:"goalBy,omitempty"`
	Decisions []Decision `json:"decisions"`
	// Blockers are the open blockers (at most MaxBlockers); Resolved the
	// most recently resolved ones (at most MaxResolved), newest last.
	Blockers []Blocker `json:"blockers"`
	Resolved []Blocker `json:"resolved"`
	// Summary is the compressed history of the run or build.
	Summary string `json:"summary"`
	// Artifacts are the newest references (at most MaxRefs), oldest first;
	// ArtifactCount counts every artifact ever registered.
	Artifacts     []ArtifactRef `json:"artifacts"`
	ArtifactCount int           `json:"artifactCount"`
	// Handoffs counts the handoffs stored for the board.
	Handoffs int `json:"handoffs"`
	// DecisionCount counts every decision ever added (older ones fall off).
	DecisionCount int `json:"decisionCount"`
	// NextBlocker numbers blockers ("b1", "b2", …).
	NextBlocker int       `json:"nextBlocker"`
	CreatedAt   time.Time `json:"createdAt,omitzero"`
	UpdatedAt   time.Time `json:"updatedAt,omitzero"`
}

// Decision is a key decision.
type Decision struct {
	Text string `json:"text"`
	// By is the agent (or "lead", "user") that took it; Task the task it
	// was taken in.
	By   string    `json:"by"`
	Task string    `json:"task,omitempty"`
	At   time.Time `json:"at"`
}

// Blocker is something that stops progress until it is resolved.
type Blocker struct {
	ID   string    `json:"id"` // "b1"
	Text string    `json:"text"`
	By   string    `json:"by"`
	Task string    `json:"task,omitempty"`
	At   time.Time `json:"at"`
	// ResolvedBy, ResolvedAt and Resolution are set once it is resolved.
	ResolvedBy string    `json:"resolvedBy,omitempty"`
	ResolvedAt time.Time `json:"resolvedAt,omitzero"`
	Resolution string    `json:"resolution,omitempty"`
}

// ArtifactType says what an artifact is.
type ArtifactType string

// Artifact types.
const (
	// TypeOutput is a task's final answer.
	TypeOutput ArtifactType = "output"
	// TypeFile is a file a task staged (its proposed content).
	TypeFile ArtifactType = "file"
	// TypeErrorLog is why a task failed (the gates' and verifier's evidence).
	TypeErrorLog ArtifactType = "errorLog"
	// TypeNote is text an agent or the user put on the board.
	TypeNote ArtifactType = "note"
)

// ArtifactRef is what a board shows of an artifact: the full content stays
// in bbolt until it is asked for.
type ArtifactRef struct {
	ID   uint64       `json:"id"`
	Type ArtifactType `json:"type"`
	// Name is a path (files) or a short title.
	Name string `json:"name"`
	// Preview is the first PreviewChars characters of the content.
	Preview string `json:"preview"`
	// Tokens is the content's size (ceil(chars/4)).
	Tokens int `json:"tokens"`
	// By is the agent that produced it; Task the task.
	By   string `json:"by"`
	Task string `json:"task,omitempty"`
	// ChangesetID is the changeset a file artifact was staged in.
	ChangesetID uint64    `json:"changesetId,omitempty"`
	CreatedAt   time.Time `json:"createdAt"`
}

// Ref is the artifact's printed id: "a12".
func (r ArtifactRef) Ref() string { return ArtifactRefID(r.ID) }

// ArtifactRefID prints an artifact id: "a12".
func ArtifactRefID(id uint64) string { return "a" + strconv.FormatUint(id, 10) }

// ParseArtifactID accepts "a12", "#12" or "12".
func ParseArtifactID(s string) (uint64, error) {
	t := strings.TrimSpace(s)
	t = strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(t, "#"), "a"), "A")
	n, err := strconv.ParseUint(t, 10, 64)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("%w: artifact id %q: want a12", ErrInvalid, s)
	}
	return n, nil
}

// Artifact is an artifact with its full content (bucket board_artifacts).
type Artifact struct {
	ArtifactRef
	// Board is the key of the board it belongs to.
	Board   string `json:"board"`
	Content string `json:"content"`
}

// HasBlocker reports whether an open blocker has this id.
func (b Board) HasBlocker(id string) bool {
	for _, x := range b.Blockers {
		if x.ID == id {
			return true
		}
	}
	return false
}

// BlockersOf returns the open blockers raised in a task.
func (b Board) BlockersOf(task string) []Blocker {
	var out []Blocker
	for _, x := range b.Blockers {
		if x.Task == task && task != "" {
			out = append(out, x)
		}
	}
	return out
}

// Ref returns the reference of an artifact kept on the board.
func (b Board) Ref(id uint64) (ArtifactRef, bool) {
	for _, r := range b.Artifacts {
		if r.ID == id {
			return r, true
		}
	}
	return ArtifactRef{}, false
}

// EstimateTokens estimates tokens as ceil(runes/4), nova's rule.
func EstimateTokens(s string) int { return (utf8.RuneCountInString(s) + 3) / 4 }

// oneLine cleans model or user text for the board: valid UTF-8, no control
// characters, whitespace runs (newlines included) folded to one space, at
// most n runes.
func oneLine(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return clip(b.String(), n)
}

// cleanText keeps newlines and tabs but drops other control characters.
func cleanText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Map(func(r rune) rune {
		if r != '\n' && r != '\t' && unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
}

// clip cuts s to at most n runes, with an ellipsis when it cut.
func clip(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// preview is the first PreviewChars characters of content, one line.
func preview(content string) string { return oneLine(content, PreviewChars) }
