package build

import (
	"context"
	"time"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/ace"
	"github.com/nova-dev/nova/engine/agents"
	eb "github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/knowledge"
	engvault "github.com/nova-dev/nova/engine/vault"
)

// Source is what the Build page needs from the engine: a subset of
// engine.Workspace's verbs. The page talks to it only from tea.Cmds (Info
// does no I/O); data.go turns its values into the page's view model below.
type Source interface {
	Info() engine.Info
	ListPlans(ctx context.Context) ([]engine.PlanFile, error)
	ListBuilds(ctx context.Context) ([]eb.Build, error)
	GetBuild(ctx context.Context, id uint64) (eb.Build, error)
	BuildTasks(ctx context.Context, id uint64) ([]eb.Task, error)
	CreateBuild(ctx context.Context, prdPath string, o engine.BuildOptions) (eb.Build, error)
	// RunBuild blocks until the build ends or pauses (the page runs it in a
	// tea.Cmd); its progress arrives as events.
	RunBuild(ctx context.Context, id uint64, o engine.RunBuildOptions) (eb.Build, error)
	PauseBuild(ctx context.Context, id uint64) error
	CancelBuild(ctx context.Context, id uint64) error
	AnswerApproval(ctx context.Context, id string, approve bool) error
	// AnswerTask answers a task that asks the user (the ask dialog).
	AnswerTask(ctx context.Context, buildID uint64, taskID, text string) (resumed bool, err error)
	// GetNodes and GetPlaybook resolve a task's provenance (the vault nodes
	// and playbook rules its prompt was given) to their text.
	GetNodes(ctx context.Context, ids []uint64, withBody bool) ([]engvault.Node, error)
	GetPlaybook(ctx context.Context, agent string) (ace.Playbook, error)
	// KnowledgeItem resolves the facts, docs and patterns a task's prompt
	// was given (its knowledge ids) to their titles.
	KnowledgeItem(ctx context.Context, ref string) (knowledge.Item, error)
}

// Build and task states as the page shows them.
const (
	StatusPending  = "pending"
	StatusReady    = "ready"
	StatusRunning  = "running"
	StatusDone     = "done"
	StatusFailed   = "failed"
	StatusBlocked  = "blocked"
	StatusWaiting  = "waiting" // waiting for approval, the model server or an answer
	StatusPaused   = "paused"
	StatusCanceled = "canceled"
	// StatusInterrupted: stopped by a quit or a crash; p resumes it.
	StatusInterrupted = "interrupted"
)

// What a waiting task waits for (Task.WaitFor).
const (
	WaitOllama    = "ollama"
	WaitUser      = "user"
	WaitRehearsal = "rehearsal"
)

// Summary is one build in the builds list.
type Summary struct {
	ID       string
	Name     string // the PRD's name
	PRD      string // the PRD's path
	Status   string
	Started  time.Time
	Finished time.Time
	Done     int
	Total    int
	Reason   string // why a build paused, stopped or failed
	Tokens   int
	Active   bool // this process runs it
}

// Detail is a build with its tasks.
type Detail struct {
	Summary
	Tasks []Task
}

// Gate is one gate result of a task.
type Gate struct {
	Name   string
	Passed bool
	Score  float64
	Detail string
}

// Task is one build task as the page shows it.
type Task struct {
	ID, Title, Agent string
	Description      string
	Phase            int
	Status           string
	Deps             []string
	Attempts         int
	Started          time.Time
	Finished         time.Time
	Elapsed          time.Duration // stored duration of the finished attempts
	Rehearsed        bool
	Tokens           int
	GateScore        float64
	Gates            []Gate
	History          []Attempt // finished attempts, oldest first
	Reason           string
	Output           string
	ChangesetID      uint64
	// WaitFor says what a waiting task waits for (WaitOllama, WaitUser,
	// WaitRehearsal); Question is what it asks the user.
	WaitFor, Question string
	// Verdict is the verifier's verdict on the last attempt (nil: none
	// yet); Warning is set when the task was marked done unverified.
	Verdict *Verdict
	Warning string
	// Verified says something executed the task's changed code and it
	// passed (a configured check, or a command run after the last write).
	Verified bool
	// Provenance: what went into the task's prompt.
	VaultNodes []VaultRef
	Rules      []RuleRef
	Knowledge  []KnowledgeRef
	// CodeMap are the files the repository map block showed (most
	// relevant first).
	CodeMap []string
}

// Shown is the task's status for people: "done (unverified)" for a done
// task that staged changes nothing executed.
func (t Task) Shown() string {
	changed := 0
	if t.ChangesetID != 0 {
		changed = 1 // the task's changeset holds its staged files
	}
	return agents.DisplayStatus(t.Status, changed, t.Verified)
}

// Unverified says Shown is "done (unverified)".
func (t Task) Unverified() bool { return t.Shown() != t.Status }

// Verdict is the verifier's verdict on a task's work: passed, failed or
// inconclusive, with the evidence lines of the checks that did not pass.
type Verdict struct {
	Status   string
	Checks   int      // how many checks it ran
	Problems []string // one line per check that did not pass
}

// Attempt is one finished attempt of a task (retries show here).
type Attempt struct {
	N        int
	Passed   bool
	Score    float64
	Reason   string
	Tokens   int
	Duration time.Duration
}

// VaultRef is one injected vault node.
type VaultRef struct {
	ID      uint64
	Type    string
	Content string
}

// KnowledgeRef is one injected fact, docs entry or pattern: its reference
// ("fact:f3", "docs:local:…", "vault:12"), source and title.
type KnowledgeRef struct {
	Ref    string
	Source string
	Title  string
}

// RuleRef is one injected playbook rule.
type RuleRef struct {
	ID      string
	Agent   string
	Content string
}

// Duration is how long the task ran (until now when it still runs): the
// finished attempts plus the one under way while it runs, and once it is
// over the same wall clock up to its end, so the figure never drops when the
// task finishes (an attempt's stored time stops before its learning step,
// which the live figure counted).
func (t Task) Duration(now time.Time) time.Duration {
	switch {
	case t.Started.IsZero():
		return t.Elapsed
	case t.Status == StatusRunning:
		return t.Elapsed + max(0, now.Sub(t.Started))
	case !t.Finished.IsZero() && !t.Finished.Before(t.Started):
		prior := t.Elapsed
		if n := len(t.History); n > 0 && t.History[n-1].Duration <= prior {
			prior -= t.History[n-1].Duration // the last attempt counts by the wall clock
		}
		return max(t.Elapsed, prior+t.Finished.Sub(t.Started))
	case t.Elapsed > 0:
		return t.Elapsed
	}
	return max(0, now.Sub(t.Started))
}

// Live reports whether a build still runs (or is paused).
func (s Summary) Live() bool {
	switch s.Status {
	case StatusRunning, StatusPaused, StatusPending, StatusWaiting:
		return true
	}
	return false
}
