package agents

import "time"

// EventType names a progress event of a run.
type EventType string

// Run events. Deltas may be dropped by subscribers under load; done and
// failed are the terminal events of a run and are sent after the run is
// committed.
const (
	EventStart      EventType = "start"      // the run was created
	EventStep       EventType = "step"       // a model call starts
	EventDelta      EventType = "delta"      // streamed model text (droppable)
	EventToolCall   EventType = "toolCall"   // a tool is about to run
	EventToolResult EventType = "toolResult" // a tool finished (Status, TraceID)
	EventFeedback   EventType = "feedback"   // a malformed reply was sent back to the model
	EventReflect    EventType = "reflect"    // forced reasoning was injected
	EventCompress   EventType = "compress"   // the history was compressed
	EventProgress   EventType = "progress"   // the run's progress estimate after a tool call (Progress)
	EventFit        EventType = "fit"        // the prompt was trimmed to fit the model's context
	EventEscalate   EventType = "escalate"   // the run moved up a tier
	EventTextMode   EventType = "textMode"   // the model has no native tools: text ReAct
	EventApproval   EventType = "approval"   // an approval was answered (Status approved|denied)
	// EventCheck: a configured check on the staged changes starts (Status
	// running, Text "running check: go test ./...") or ended (Status
	// passed|failed, or error when the checks could not run); Args is the
	// command.
	EventCheck  EventType = "check"
	EventDone   EventType = "done"   // terminal: the run succeeded (Run set)
	EventFailed EventType = "failed" // terminal: the run failed or was canceled (Run set)
)

// Event is one progress report of a run, delivered through
// RunOptions.OnEvent on the run's goroutine.
type Event struct {
	Type    EventType `json:"type"`
	RunID   uint64    `json:"runId"`
	Agent   string    `json:"agent"`
	Step    int       `json:"step,omitempty"`
	Tool    string    `json:"tool,omitempty"`
	Args    string    `json:"args,omitempty"`
	Status  string    `json:"status,omitempty"`
	Text    string    `json:"text,omitempty"`
	TraceID uint64    `json:"traceId,omitempty"`
	Tier    string    `json:"tier,omitempty"`
	Model   string    `json:"model,omitempty"`
	// Reset (on a delta) means: discard the text streamed for this step so
	// far, the model call is being retried.
	Reset bool `json:"reset,omitempty"`
	// Progress is the estimate of a progress event.
	Progress *Progress `json:"progress,omitempty"`
	// Run is the final record, on done and failed.
	Run  *Run      `json:"run,omitempty"`
	Time time.Time `json:"time"`
}

// Droppable reports whether the event may be dropped under load.
func (e Event) Droppable() bool { return e.Type == EventDelta }

// Terminal reports whether the event ends its run.
func (e Event) Terminal() bool { return e.Type == EventDone || e.Type == EventFailed }
