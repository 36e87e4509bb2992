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
	"github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/engine/tools"
)

// Agent, run and changeset verbs of the Workspace facade (engine/runtime.go
// wires the agent runtime).

// ListAgents implements Workspace.
func (l *Local) ListAgents(ctx context.Context) (Roster, error) {
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

// ListRuns implements Workspace.
func (l *Local) ListRuns(ctx context.Context, f agents.RunFilter) ([]agents.Run, error) {
	return l.Runs().List(ctx, f)
}

// GetRunTrace implements Workspace.
func (l *Local) GetRunTrace(ctx context.Context, runID uint64) (RunTrace, error) {
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

// ListChanges implements Workspace.
func (l *Local) ListChanges(ctx context.Context, f changes.Filter) ([]changes.Changeset, error) {
	return l.Changes().List(ctx, f)
}

// GetChange implements Workspace.
func (l *Local) GetChange(ctx context.Context, id uint64) (changes.Changeset, error) {
	return l.Changes().Get(ctx, id)
}
