package engine

import "time"

// EventType names what happened. Types marked droppable may be lost under
// load; every other event is always delivered.
type EventType string

// Event types.
const (
	// EventDelta is a streamed token delta (droppable).
	EventDelta EventType = "delta"
	// EventProgress reports progress of long work (droppable).
	EventProgress EventType = "progress"
	// EventChanged says stored state changed (counts, lists); screens refresh.
	EventChanged EventType = "changed"
	// EventOllama reports a new Ollama status.
	EventOllama EventType = "ollama"
	// EventThemeChanged says the configured theme changed.
	EventThemeChanged EventType = "theme"
	// EventTask reports a build task transition.
	EventTask EventType = "task"
	// EventDone, EventFailed and EventNeedsApproval are terminal events of a run.
	EventDone          EventType = "done"
	EventFailed        EventType = "failed"
	EventNeedsApproval EventType = "needsApproval"
	// EventLog is a human-readable line for activity views.
	EventLog EventType = "log"

	// EventNodesArchived: the tier cap moved vault nodes to the archive to
	// make room for learned ones, reported once per write: Done is the count,
	// Text says how to see and restore them; Payload is the vault.Change.
	EventNodesArchived EventType = "nodesArchived"
	// EventNodesNotStored: learned nodes were left out because the vault is
	// at its tier's cap and every stored node is at least as confident;
	// Done is the count.
	EventNodesNotStored EventType = "nodesNotStored"
	// EventTaskWaiting: a build task waits for something outside the work
	// (the model server, a rehearsal choice, the user's answer); Text is the
	// reason ("waiting for ollama at HOST"). Topic "build".
	EventTaskWaiting EventType = "taskWaiting"
	// EventTaskAsking: a build task asks the user (recovery hint ask_user);
	// Text is the question; answer with Local.AnswerTask. Topic "build".
	EventTaskAsking EventType = "taskAsking"
	// EventTaskEscalated: a task is retried on a larger model tier or with
	// another agent (recovery hints escalate_model, switch_specialist).
	EventTaskEscalated EventType = "taskEscalated"
	// EventBudgetWarning: a build used half of its token budget (once per
	// build run). Done and Total are the tokens used and the budget.
	EventBudgetWarning EventType = "budgetWarning"
)

// Event is what the engine publishes. Field names follow the CLI's JSON
// contract (lowerCamelCase).
type Event struct {
	Type    EventType `json:"type"`
	Time    time.Time `json:"time"`
	Topic   string    `json:"topic,omitempty"` // e.g. "vault", "build", "import"
	BuildID string    `json:"buildId,omitempty"`
	TaskID  string    `json:"taskId,omitempty"`
	RunID   string    `json:"runId,omitempty"`
	Status  string    `json:"status,omitempty"`
	Text    string    `json:"text,omitempty"`
	Done    int       `json:"done,omitempty"`
	Total   int       `json:"total,omitempty"`
	// Payload carries a typed value for in-process subscribers.
	Payload any `json:"-"`
}

// Droppable reports whether the event may be dropped for a slow subscriber.
func (e Event) Droppable() bool { return e.Type == EventDelta || e.Type == EventProgress }
