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
