package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/tools"
)

// AgentVerbs are the verbs of agents, their runs and the approvals they wait for.
type AgentVerbs interface {
	// ListAgents loads the roster from .nova/agents: the agents that load and
	// the problems of the files that do not.
	//rpc:idempotent
	ListAgents(ctx context.Context) (Roster, error)
	// RunAgent runs one task through an agent (blocking). Progress:
	// TopicAgent events carrying o.Op and the run's id; a command the agent
	// wants to run follows o.Approvals. Writes are staged in a changeset. A
	// run that fails is not an error: see RunResult.Outcome.
	RunAgent(ctx context.Context, agentID, task string, o RunOptions) (RunResult, error)
	// ListRuns lists stored agent runs, newest first.
	//rpc:idempotent
	ListRuns(ctx context.Context, f agents.RunFilter) ([]agents.Run, error)
	// GetRunTrace returns one stored agent run with its tool calls in order
	// (an error wrapping agents.ErrRunNotFound for an unknown id).
	//rpc:idempotent
	GetRunTrace(ctx context.Context, runID uint64) (RunTrace, error)
	// RunEvents replays the recent events (no deltas) of a run this engine
	// started; empty for other runs.
	//rpc:idempotent
	RunEvents(ctx context.Context, runID uint64) ([]agents.Event, error)
	// PendingApprovals lists the approval requests waiting for an answer.
	//rpc:idempotent
	PendingApprovals(ctx context.Context) ([]tools.ApprovalRequest, error)
	// AnswerApproval answers an EventNeedsApproval request by its id.
	AnswerApproval(ctx context.Context, id string, approve bool) error
}

// agentArea implements AgentVerbs over the workspace's services.
type agentArea struct{ *core }

var _ AgentVerbs = agentArea{}

// RunAgent runs one task through an agent of the roster. Progress is
// published as events with TopicAgent, the run's id and opts.Op (token
// deltas as droppable EventDelta, tool calls and the like as EventLog with
// the agents.Event in Agent, the end as EventDone or EventFailed after the
// run is committed). Writes are staged in a changeset
// (RunResult.ChangesetID). A run that fails is not an error: see
// RunResult.Outcome.
func (l agentArea) RunAgent(ctx context.Context, agentID, task string, opts RunOptions) (RunResult, error) {
	return l.runAgent(ctx, agentID, task, runRequest{RunOptions: opts})
}

// AnswerApproval answers a waiting EventNeedsApproval request (its id is in
// the event's Status and Approval).
func (l agentArea) AnswerApproval(ctx context.Context, id string, approve bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	rt := l.runtime()
	rt.mu.Lock()
	p, ok := rt.approvals[id]
	if ok {
		delete(rt.approvals, id)
	}
	rt.mu.Unlock()
	if !ok {
		return fmt.Errorf("%w: %s", ErrNoSuchApproval, id)
	}
	p.answer <- approve
	return nil
}

// PendingApprovals implements AgentVerbs: the approval requests waiting for
// an answer.
func (l agentArea) PendingApprovals(ctx context.Context) ([]tools.ApprovalRequest, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return l.pendingApprovalRequests(), nil
}

// RunEvents returns the events (without token deltas) of a run started by
// this process, oldest first; empty for other runs. A screen opened in the
// middle of a run replays them, then follows Subscribe.
func (l agentArea) RunEvents(ctx context.Context, runID uint64) ([]agents.Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rt := l.runtime()
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return append([]agents.Event{}, rt.logs[runID]...), nil
}

// ListAgents implements AgentVerbs.
func (l agentArea) ListAgents(ctx context.Context) (Roster, error) {
	if err := ctx.Err(); err != nil {
		return Roster{}, err
	}
	r, err := LoadRoster(l.ws.Path("agents"))
	if err != nil {
		return r, err
	}
	r.ImplicitTools = implicitTools(l.Tools(), r.Agents)
	return r, nil
}

// ListRuns implements AgentVerbs.
func (l agentArea) ListRuns(ctx context.Context, f agents.RunFilter) ([]agents.Run, error) {
	return l.Runs().List(ctx, f)
}

// GetRunTrace implements AgentVerbs.
func (l agentArea) GetRunTrace(ctx context.Context, runID uint64) (RunTrace, error) {
	r, err := l.Runs().Get(ctx, runID)
	if err != nil {
		return RunTrace{}, err
	}
	ts, err := l.Runs().Traces(ctx, runID)
	if err != nil {
		return RunTrace{}, err
	}
	return RunTrace{Run: r, Traces: ts, Lines: agents.TraceLines(ts, 0)}, nil
}

// implicitTools lists, per agent, the AllAgents tools it may call that its
// spec does not list.
func implicitTools(reg *tools.Registry, specs []agents.Spec) map[string][]string {
	out := map[string][]string{}
	for _, s := range specs {
		offered := s.Tools
		if offered == nil {
			offered = []string{} // no list: answers only, plus what every agent gets
		}
		for _, name := range reg.Names() {
			t, _ := reg.Get(name)
			if t.AllAgents && !slices.Contains(s.Tools, name) && reg.Permit(s.ID, offered, name) == nil {
				out[s.ID] = append(out[s.ID], name)
			}
		}
	}
	return out
}

// LoadRoster reads the agent files of dir (any directory: `nova agents
// validate DIR` checks one outside a workspace). It reads files only; a
// directory that cannot be read is an error, a bad file is a problem in the
// roster.
func LoadRoster(dir string) (Roster, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return Roster{Dir: dir}, fmt.Errorf("agents directory: %w", err)
	}
	if !fi.IsDir() {
		return Roster{Dir: dir}, fmt.Errorf("agents directory: %s is not a directory", dir)
	}
	r, errs := agents.Load(dir)
	out := Roster{Dir: dir, Files: countSpecFiles(dir), Agents: r.List(), Problems: []AgentProblem{}}
	if out.Agents == nil {
		out.Agents = []agents.Spec{}
	}
	for _, e := range errs {
		p := AgentProblem{Message: e.Error(), Text: e.Error()}
		var se *agents.SpecError
		if errors.As(e, &se) {
			p.File, p.Line, p.Field, p.Message = se.File, se.Line, se.Field, se.Msg
		}
		out.Problems = append(out.Problems, p)
	}
	return out, nil
}

func countSpecFiles(dir string) int {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if !e.IsDir() && !strings.HasPrefix(e.Name(), ".") && (ext == ".yaml" || ext == ".yml") {
			n++
		}
	}
	return n
}
