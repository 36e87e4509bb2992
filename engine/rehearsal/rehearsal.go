// Package rehearsal generates two or three alternative implementations of a
// risky task ("branches"), scores them, stores them as a session (bucket
// rehearsals) and applies the one the user (or, at autonomy ≥ 3, the score)
// chooses through the changeset path. Every decision is learned by the taste
// vault as a Preference.
//
// The flow of Service.Rehearse:
//
//  1. Generate: one structured model call per approach (minimal, idiomatic,
//     defensive), run concurrently but never more than Config.Concurrency at
//     once. Each reply is validated against a JSON schema and then by nova:
//     paths must stay inside the workspace (tools.Confine), be unique,
//     relative, UTF-8 and at most MaxFileBytes. Original contents are read
//     from the workspace, never taken from the model. Invalid branches are
//     skipped with a recorded reason; zero valid branches is an error that
//     lists every reason.
//  2. Score: typeCheck (0.35; the real configured checks on a temporary copy
//     of the workspace with the branch applied, else a heuristic), lineDelta
//     (0.15), selfAssessment (0.25) and tasteAlignment (0.25).
//  3. Decide: at autonomy ≥ 3 the best branch is selected automatically
//     (Session.Auto); below that the session waits for Approve or Reject.
package rehearsal

import (
	"errors"
	"fmt"
	"time"

	"github.com/nova-dev/nova/engine/failure"
)

// Approach is the strategy one branch is asked to follow.
type Approach string

// The approaches, in branch order.
const (
	Minimal   Approach = "minimal"
	Idiomatic Approach = "idiomatic"
	Defensive Approach = "defensive"
)

// Approaches lists the approaches in branch order.
func Approaches() []Approach { return []Approach{Minimal, Idiomatic, Defensive} }

// Limits.
const (
	DefaultBranches = 2
	MaxBranches     = 3
	// MaxFileBytes bounds one proposed file.
	MaxFileBytes = 1 << 20
	// PreviewChars bounds Result.Preview.
	PreviewChars = 300
	// AutoAutonomy is the autonomy level from which the best branch is
	// selected without asking.
	AutoAutonomy = 3
)

// Status is a session's state.
type Status string

// Session states.
const (
	StatusPending  Status = "pending"  // waiting for the user
	StatusApproved Status = "approved" // a branch was chosen and applied
	StatusRejected Status = "rejected" // every branch was rejected (task blocked)
	StatusFailed   Status = "failed"   // no valid branch
)

// Sentinel errors callers branch on.
var (
	ErrNotFound     = errors.New("rehearsal session not found")
	ErrNotPending   = errors.New("rehearsal session is not pending")
	ErrNoBranch     = errors.New("no such branch")
	ErrNoValid      = errors.New("no valid rehearsal branch")
	ErrTier         = errors.New("rehearsal needs the premium tier")
	ErrNoModel      = errors.New("rehearsal: no model configured")
	ErrReasonNeeded = errors.New("a reason is required")
)

// File is one file of a branch.
type File struct {
	// Path is slash-separated, relative to the workspace root.
	Path string `json:"path"`
	// OriginalContent is read from the workspace by nova ("" for a new file).
	OriginalContent string `json:"originalContent"`
	ProposedContent string `json:"proposedContent"`
	// New is true when the file does not exist yet.
	New bool `json:"new,omitempty"`
}

// Branch is one alternative implementation.
type Branch struct {
	ID          string   `json:"id"`
	Round       int      `json:"round"`
	Approach    Approach `json:"approach"`
	Description string   `json:"description"`
	Files       []File   `json:"files"`
	AgentNotes  string   `json:"agentNotes"`
	// VaultNodeIDs and WisdomIDs were injected into this branch's prompt;
	// RuleIDs are playbook rules (provenance, the "why" view).
	VaultNodeIDs []uint64 `json:"vaultNodeIds"`
	WisdomIDs    []uint64 `json:"wisdomIds,omitempty"`
	RuleIDs      []string `json:"ruleIds,omitempty"`
	Tokens       int      `json:"tokens,omitempty"`
}

// Skipped is a branch that could not be used, with the reason.
type Skipped struct {
	Approach Approach `json:"approach"`
	Reason   string   `json:"reason"`
	// Kind classifies why (engine/failure): a model server that is down is
	// not the branch's fault.
	Kind failure.Kind `json:"kind,omitempty"`
}

// Dimension is one scored dimension with its evidence.
type Dimension struct {
	Score    float64 `json:"score"`
	Weight   float64 `json:"weight"`
	Evidence string  `json:"evidence"`
	// NotChecked: nothing measured this dimension (typeCheckPass when no
	// check command ran): it has no score, is left out of the composite
	// mean and is shown as "not checked", never as a score.
	NotChecked bool `json:"notChecked,omitempty"`
}

// NotCheckedText is how a dimension nothing measured is shown.
const NotCheckedText = "not checked"

// ScoreText is the dimension's score as shown ("0.85"), or "not checked".
func (d Dimension) ScoreText() string {
	if d.NotChecked {
		return NotCheckedText
	}
	return fmt.Sprintf("%.2f", d.Score)
}

// Band is a quality band.
type Band string

// Bands.
const (
	BandHigh   Band = "high"
	BandMedium Band = "medium"
	BandLow    Band = "low"
)

// Result is the score of one branch.
type Result struct {
	BranchID       string    `json:"branchId"`
	Score          float64   `json:"score"`
	Band           Band      `json:"band"`
	TypeCheck      Dimension `json:"typeCheckPass"`
	LineDelta      Dimension `json:"lineDelta"`
	SelfAssessment Dimension `json:"agentSelfAssessment"`
	TasteAlignment Dimension `json:"tasteAlignment"`
	// CheckRan is true when TypeCheck came from running the configured
	// checks; CheckOutput is their combined output (trimmed).
	CheckRan    bool   `json:"checkRan"`
	CheckPassed bool   `json:"checkPassed,omitempty"`
	CheckOutput string `json:"checkOutput,omitempty"`
	// Reflected are the vault patterns the branch reflects (learning).
	Reflected []uint64 `json:"reflectedPatterns,omitempty"`
	Adds      int      `json:"adds"`
	Dels      int      `json:"dels"`
	Preview   string   `json:"preview"`
}

// Round is one generation of branches (regenerate adds a round).
type Round struct {
	N        int       `json:"n"`
	Branches []Branch  `json:"branches"`
	Results  []Result  `json:"results"`
	Skipped  []Skipped `json:"skipped"`
	// Trimmed says what gave way when the branch prompts were fitted into
	// the model's context ("" when nothing did).
	Trimmed   string    `json:"trimmed,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
}

// Trimmed is what the latest round's prompts lost to fit the model's
// context ("" when nothing).
func (s Session) Trimmed() string {
	if len(s.Rounds) == 0 {
		return ""
	}
	return s.Rounds[len(s.Rounds)-1].Trimmed
}

// Session is one rehearsal of one task. Branches and Results are those of
// the latest round; Rounds keeps every round.
type Session struct {
	ID          uint64   `json:"id"`
	TaskID      string   `json:"taskId"`
	TaskTitle   string   `json:"taskTitle"`
	TaskType    string   `json:"taskType"`
	Description string   `json:"description"`
	AgentName   string   `json:"agentName"`
	BuildID     string   `json:"buildId,omitempty"`
	Status      Status   `json:"status"`
	Branches    []Branch `json:"branches"`
	Results     []Result `json:"results"`
	Rounds      []Round  `json:"rounds"`
	// Winner is the chosen branch id ("" while pending).
	Winner string `json:"winner"`
	// UserApproved is nil when the winner was selected automatically.
	UserApproved *bool `json:"userApproved"`
	Auto         bool  `json:"auto"`
	// Reason is the user's reason (a rejection, or a note on approval).
	Reason       string   `json:"reason,omitempty"`
	Failure      string   `json:"failure,omitempty"`
	ChangesetID  uint64   `json:"changesetId,omitempty"`
	Written      []string `json:"written,omitempty"`
	PreferenceID uint64   `json:"preferenceId,omitempty"`
	Context      []string `json:"context,omitempty"`
	// KnowledgeIDs are the facts, docs and patterns injected into every
	// branch's prompt (provenance: the "why" panel links to them).
	KnowledgeIDs []string  `json:"knowledgeIds,omitempty"`
	Autonomy     int       `json:"autonomy"`
	CreatedAt    time.Time `json:"createdAt"`
	UpdatedAt    time.Time `json:"updatedAt"`
	DecidedAt    time.Time `json:"decidedAt,omitzero"`
}

// Branch returns the branch with id, or by 1-based number ("2") among the
// latest round's branches.
func (s Session) Branch(ref string) (Branch, bool) {
	for _, b := range s.Branches {
		if b.ID == ref {
			return b, true
		}
	}
	n := 0
	for _, r := range ref {
		if r < '0' || r > '9' {
			return Branch{}, false
		}
		n = n*10 + int(r-'0')
		if n > 100 {
			return Branch{}, false
		}
	}
	if ref != "" && n >= 1 && n <= len(s.Branches) {
		return s.Branches[n-1], true
	}
	return Branch{}, false
}

// Result returns the score of a branch.
func (s Session) Result(branchID string) (Result, bool) {
	for _, r := range s.Results {
		if r.BranchID == branchID {
			return r, true
		}
	}
	return Result{}, false
}

// Ranked returns the latest results, best first (ties keep branch order).
func (s Session) Ranked() []Result {
	out := append([]Result(nil), s.Results...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Score > out[j-1].Score; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// Pending reports whether the session waits for a decision.
func (s Session) Pending() bool { return s.Status == StatusPending }

// Brief is a copy of the session without file contents (events, listings).
func Brief(s Session) Session {
	s.Branches = briefBranches(s.Branches)
	s.Rounds = nil
	return s
}

func briefBranches(bs []Branch) []Branch {
	out := make([]Branch, len(bs))
	for i, b := range bs {
		b.Files = append([]File(nil), b.Files...)
		for j := range b.Files {
			b.Files[j].OriginalContent, b.Files[j].ProposedContent = "", ""
		}
		out[i] = b
	}
	return out
}
