// Package chat is nova's conversation with its team: sessions of turns,
// each turn an agent run (run.KindChat in the one run registry) whose
// prompt carries the session's history, the files the user mentions and
// the workspace's context blocks. A router picks the agent; `/` commands
// act on the session. Sessions, turns, their changesets and provenance are
// stored in bbolt (chat_sessions, chat_turns).
package chat

import (
	"errors"
	"time"

	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/promptctx"
	"github.com/nova-dev/nova/engine/run"
)

// Sentinel errors callers branch on.
var (
	// ErrNotFound: no session (or turn) with this id.
	ErrNotFound = errors.New("no such chat session")
	// ErrNothingToUndo: /undo found no applied change in the session.
	ErrNothingToUndo = errors.New("nothing to undo")
	// ErrNothingToResume: the session's last turn finished.
	ErrNothingToResume = errors.New("nothing to resume")
	// ErrEmptyMessage: the message holds nothing to send.
	ErrEmptyMessage = errors.New("the message is empty")
	// ErrNoAgent: the roster has no agent that can take the turn.
	ErrNoAgent = errors.New("no agent can take this turn")
)

// MaxMessageBytes bounds one message: a longer paste is cut there, with a
// note in the turn saying so.
const MaxMessageBytes = 64 << 10

// Session is one conversation.
type Session struct {
	ID    uint64 `json:"id"`
	Title string `json:"title"`
	// Agent and Tier are the session's choices (/agent, /tier); empty lets
	// the router and the agent decide.
	Agent string `json:"agent,omitempty"`
	Tier  string `json:"tier,omitempty"`
	// Summary is the visible summary of the turns compacted out of the
	// prompt (1..SummaryUpTo); the turns themselves are kept.
	Summary     string    `json:"summary,omitempty"`
	SummaryUpTo int       `json:"summaryUpTo,omitempty"`
	Turns       int       `json:"turns"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

// Attachment is a file a message mentions (@path) that the turn carries.
type Attachment struct {
	Path   string `json:"path"`
	Bytes  int    `json:"bytes"`
	Tokens int    `json:"tokens"`
}

// Refusal is a mention that was not attached, and why.
type Refusal struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// ToolCall is one tool call of a turn, shown as one line that expands.
type ToolCall struct {
	Tool   string `json:"tool"`
	Args   string `json:"args"`
	Status string `json:"status,omitempty"`
	Result string `json:"result,omitempty"`
}

// Turn is one request and what came of it.
type Turn struct {
	Session uint64 `json:"session"`
	N       int    `json:"n"`
	// RunKey is the turn's id in the run registry (run.KindChat); RunID the
	// agent run's id in the run store.
	RunKey  uint64 `json:"runKey"`
	Request string `json:"request"`
	// Notes say what was done to the request (a paste cut to size).
	Notes       []string     `json:"notes,omitempty"`
	Attachments []Attachment `json:"attachments,omitempty"`
	Refused     []Refusal    `json:"refused,omitempty"`
	Agent       string       `json:"agent"`
	// Route says why the agent took the turn.
	Route  string     `json:"route"`
	Tier   string     `json:"tier,omitempty"`
	Status run.Status `json:"status"`
	// Display is the run's status as people read it (agents.DisplayStatus).
	Display     string     `json:"display,omitempty"`
	RunID       uint64     `json:"runId,omitempty"`
	Answer      string     `json:"answer"`
	Tools       []ToolCall `json:"tools,omitempty"`
	ChangesetID uint64     `json:"changesetId,omitempty"`
	Files       []string   `json:"files,omitempty"`
	Verified    bool       `json:"verified"`
	// Change is the changeset's status as last seen (pending, applied,
	// discarded, reverted).
	Change string `json:"change,omitempty"`
	// Provenance lists what the prompt's context blocks carried.
	Provenance []promptctx.Item `json:"provenance,omitempty"`
	// HistoryTokens is the size of the session history the prompt carried;
	// Compacted is set when this turn compacted older turns.
	HistoryTokens int `json:"historyTokens"`
	// Progress is the run's last progress estimate (tool-using turns).
	Progress   *agents.Progress `json:"progress,omitempty"`
	Compacted  bool             `json:"compacted,omitempty"`
	Error      string           `json:"error,omitempty"`
	StartedAt  time.Time        `json:"startedAt"`
	FinishedAt time.Time        `json:"finishedAt,omitzero"`
}

// Finished reports whether the turn has ended.
func (t Turn) Finished() bool {
	return t.Status.Finished() || t.Status == run.Canceled || t.Status == run.Interrupted
}

// Transcript is a session with its turns, oldest first.
type Transcript struct {
	Session Session `json:"session"`
	Turns   []Turn  `json:"turns"`
}

// EventType names a chat event.
type EventType string

// Chat events.
const (
	// EventTurn: a turn started, changed state or ended (Turn is set).
	EventTurn EventType = "turn"
	// EventDelta: streamed answer text.
	EventDelta EventType = "delta"
	// EventTool: a tool call (Tool is set).
	EventTool EventType = "tool"
	// EventWaiting: the model server went away; the turn waits for it.
	EventWaiting EventType = "waiting"
	// EventCompacted: older turns were compacted into the session summary.
	EventCompacted EventType = "compacted"
	// EventSession: the session changed (agent, tier, title, summary).
	EventSession EventType = "session"
	// EventProgress: the turn's progress estimate after a tool call
	// (Progress is set).
	EventProgress EventType = "progress"
)

// Event is what a chat session publishes while a turn runs.
type Event struct {
	Type    EventType `json:"type"`
	Session uint64    `json:"session"`
	N       int       `json:"n,omitempty"`
	Text    string    `json:"text,omitempty"`
	Tool    *ToolCall `json:"tool,omitempty"`
	Turn    *Turn     `json:"turn,omitempty"`
	// Progress is the estimate an EventProgress carries.
	Progress *agents.Progress `json:"progress,omitempty"`
	// Op is the Op of the call that runs the turn.
	Op string `json:"op,omitempty"`
}
