package engine

import (
	"fmt"
	"time"

	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/chat"
	"github.com/nova-dev/nova/engine/tools"
)

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
	// EventDropped is the last event of a subscription that fell
	// MaxEventBacklog events behind (a reader that stopped reading): its
	// queue was freed and its channel closes after this event. Done is how
	// many events it was behind; Text says so. Subscribe again and reload
	// what is shown: the events in between are lost.
	EventDropped EventType = "dropped"
	// EventTeamRecord: a teammate's record arrived (Op: its kind, Status:
	// the author's short key name, Text: what it says, clipped).
	EventTeamRecord EventType = "teamRecord"

	// EventNodesArchived: the tier cap moved vault nodes to the archive to
	// make room for learned ones, reported once per write: Done is the count,
	// Text says how to see and restore them; Nodes are the archived ids.
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
	// Text is the question; answer with AnswerTask. Topic "build".
	EventTaskAsking EventType = "taskAsking"
	// EventTaskEscalated: a task is retried on a larger model tier or with
	// another agent (recovery hints escalate_model, switch_specialist).
	EventTaskEscalated EventType = "taskEscalated"
	// EventBudgetWarning: a build used half of its token budget (once per
	// build run). Done and Total are the tokens used and the budget.
	EventBudgetWarning EventType = "budgetWarning"

	// Goal runs (TopicGoal; GoalRunID set, Done is the turn number).

	// EventLeadDecision: the lead's decision passed validation and is acted
	// on. Status is the action (delegate, complete, escalate), TaskID the
	// delegation's task, Text the decision and the lead's reasoning.
	EventLeadDecision EventType = "leadDecision"
	// EventDecisionRejected: a decision was refused before anything ran (an
	// unknown agent or artifact, an empty or oversized task, a stuck loop),
	// or the reply was no decision at all; Text says why (the lead is told).
	EventDecisionRejected EventType = "decisionRejected"
	// EventDelegation: a delegated task starts (or goes on after a resume);
	// TaskID, Text the task.
	EventDelegation EventType = "delegation"
	// EventDelegationOutcome: a delegated task ended; Status is the task's
	// status, Text its outcome (verdict, failure kind, hints, handoff).
	EventDelegationOutcome EventType = "delegationOutcome"
	// EventGoalWaiting: the run waits for the model server; Text the reason.
	EventGoalWaiting EventType = "goalWaiting"
	// EventGoalAsking: the lead escalates to the user; Text is the question
	// (answer with AnswerGoalRun).
	EventGoalAsking EventType = "goalAsking"
)

// Topic names the area an event is about. Subscribers switch on it; the
// list below is the whole set (the package doc, "Events", describes each).
type Topic string

// Event topics.
const (
	// TopicWorkspace: the workspace itself (EventThemeChanged, EventOllama).
	TopicWorkspace Topic = "workspace"
	// TopicVault: EventChanged after every committed vault or wisdom write
	// (Text is the operation: add, update, remove, link, ...).
	TopicVault Topic = "vault"
	// TopicImport: EventChanged and an EventLog line after a committed import
	// batch or undo; EventProgress while a scan, preview or import runs (Op
	// is the caller's ImportOptions.Op, Status the phase, Done of Total).
	TopicImport Topic = "import"
	// TopicAgent: a run's progress (RunID set; Agent carries the
	// agents.Event; Op is the caller's RunOptions.Op; BuildID and TaskID are
	// set for the runs of build tasks). EventNeedsApproval also uses it
	// (Approval is the request; answer with AnswerApproval).
	TopicAgent Topic = "agent"
	// TopicChanges: a changeset was staged, applied or discarded (Status is
	// its new state, Text says what happened).
	TopicChanges Topic = "changes"
	// TopicBuild: EventTask for each task transition (BuildID, TaskID,
	// Status), EventDone / EventFailed when a build ends, EventChanged when it
	// is created, paused, canceled or resumed, EventLog for notes (a command
	// denied by a headless build, ...). A task's live stream is the
	// TopicAgent events carrying the same BuildID and TaskID.
	TopicBuild Topic = "build"
	// TopicPlaybooks: EventChanged after every committed playbook or
	// pending-queue write (Text is "playbook" or "pending", Status the agent),
	// EventLog for the playbook system's diagnostics.
	TopicPlaybooks Topic = "playbooks"
	// TopicRehearsal: EventChanged when a session changes, EventNeedsApproval
	// when one waits for the user (TaskID, BuildID, Status), EventLog notes.
	TopicRehearsal Topic = "rehearsal"
	// TopicKnowledge: EventChanged after a committed facts or docs-cache
	// write (Text "facts" or "docs"; agents' remember/correct and the facts
	// learned after a build included), EventLog for diagnostics (facts
	// extracted after a build, a knowledge source that failed).
	TopicKnowledge Topic = "knowledge"
	// TopicBoard: EventChanged after every committed session-board write
	// (Text is the board key "run:3" / "build:7", Status what changed:
	// decision, blocker, resolved, goal, artifact, handoff, summary; BuildID
	// or GoalRunID names the owner).
	TopicBoard Topic = "board"
	// TopicTeam: the team share (engine/team): records that arrived, sync
	// notices.
	TopicTeam Topic = "team"
	// TopicGoal: a goal run's progress (GoalRunID set): the lead's
	// decisions and rejections, delegations and their outcomes, waits,
	// escalations, the end (see the goal run event types).
	TopicGoal Topic = "goal"
)

// Topics lists every topic, in the order of the constants above.
func Topics() []Topic {
	return append([]Topic{TopicWorkspace, TopicVault, TopicImport, TopicAgent, TopicChanges, TopicBuild, TopicPlaybooks, TopicRehearsal,
		TopicKnowledge, TopicBoard, TopicGoal, TopicTeam},
		append(LibraryTopics(), TopicChat)...) // skill, workflow, blueprint (library.go); chat (area_chat.go)
}

// Event is what the engine publishes. Field names follow the CLI's JSON
// contract (lowerCamelCase). Every field is plain data, so events cross a
// process boundary unchanged (the NDJSON event stream of a remote
// workspace).
type Event struct {
	Type    EventType `json:"type"`
	Time    time.Time `json:"time"`
	Topic   Topic     `json:"topic,omitempty"`
	BuildID string    `json:"buildId,omitempty"`
	TaskID  string    `json:"taskId,omitempty"`
	RunID   string    `json:"runId,omitempty"`
	// GoalRunID is the goal run (`nova run`) an event is about: its own
	// events (TopicGoal), its board's, and those of its delegations' build
	// tasks and agent runs.
	GoalRunID string `json:"goalRunId,omitempty"`
	// Op is the operation id a caller chose for long work (RunOptions.Op,
	// ImportOptions.Op): the events of that work carry it, so a caller can
	// follow its own work among everybody's events.
	Op     string `json:"op,omitempty"`
	Status string `json:"status,omitempty"`
	Text   string `json:"text,omitempty"`
	Done   int    `json:"done,omitempty"`
	Total  int    `json:"total,omitempty"`
	// Agent is the agent-loop event behind a TopicAgent event.
	Agent *agents.Event `json:"agent,omitempty"`
	// Approval is the request of an EventNeedsApproval of TopicAgent.
	Approval *tools.ApprovalRequest `json:"approval,omitempty"`
	// Nodes are the vault node ids an event is about (EventNodesArchived:
	// the nodes moved to the archive).
	Nodes []uint64 `json:"nodes,omitempty"`
	// Chat is a chat session's event (TopicChat, area_chat.go).
	Chat *chat.Event `json:"chat,omitempty"`
}

// MaxEventBacklog is how many events may wait for one subscriber before it
// is dropped with EventDropped (a few hundred KB of queued events).
const MaxEventBacklog = 1024

// droppedEvent is a dropped subscriber's last event.
func droppedEvent(behind int) Event {
	return Event{Type: EventDropped, Time: time.Now(), Done: behind,
		Text: fmt.Sprintf("dropped: you fell %d events behind; reconnect", behind)}
}

// Droppable reports whether the event may be dropped for a slow subscriber.
func (e Event) Droppable() bool { return e.Type == EventDelta || e.Type == EventProgress }
