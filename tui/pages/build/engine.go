package build

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/ace"
	eb "github.com/nova-dev/nova/engine/build"
)

// errNoBuilds: the workspace has no build engine.
var errNoBuilds = errors.New("this workspace has no build engine")

// wsSource adapts the engine facade (Builds, StartBuild, ResumeBuild) to
// Source, resolving provenance ids to the nodes' and rules' text.
type wsSource struct{ ws engine.Workspace }

func sourceFor(ws engine.Workspace) Source { return wsSource{ws: ws} }

func parseID(id string) (uint64, error) {
	n, err := strconv.ParseUint(id, 10, 64)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("build id %q: want a number", id)
	}
	return n, nil
}

func (s wsSource) engine() (*eb.Engine, error) {
	if s.ws == nil {
		return nil, errNoBuilds
	}
	e := s.ws.Builds()
	if e == nil {
		return nil, errNoBuilds
	}
	return e, nil
}

func summaryOf(b eb.Build) Summary {
	st := string(b.Status)
	return Summary{ID: strconv.FormatUint(b.ID, 10), Name: b.Name, PRD: b.PRDPath, Status: st,
		Started: b.CreatedAt, Finished: b.FinishedAt, Done: b.Counts[eb.TaskDone], Total: b.Total,
		Reason: b.Reason, Tokens: b.Tokens, Active: b.Active}
}

func (s wsSource) List(ctx context.Context) ([]Summary, error) {
	e, err := s.engine()
	if err != nil {
		return nil, err
	}
	bs, err := e.List(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Summary, 0, len(bs))
	for _, b := range bs {
		out = append(out, summaryOf(b))
	}
	return out, nil
}

func (s wsSource) Get(ctx context.Context, id string) (Detail, error) {
	e, err := s.engine()
	if err != nil {
		return Detail{}, err
	}
	n, err := parseID(id)
	if err != nil {
		return Detail{}, err
	}
	b, err := e.Get(ctx, n)
	if err != nil {
		return Detail{}, err
	}
	tasks, err := e.Tasks(ctx, n)
	if err != nil {
		return Detail{}, err
	}
	d := Detail{Summary: summaryOf(b)}
	status := map[string]eb.TaskStatus{}
	for _, t := range tasks {
		status[t.ID] = t.Status
	}
	nodes := s.vaultRefs(ctx, tasks)
	rules := s.ruleRefs(ctx, tasks)
	for _, t := range tasks {
		st := string(t.Status)
		if t.Status == eb.TaskPending {
			ready := true
			for _, dep := range t.Dependencies {
				if status[dep] != eb.TaskDone {
					ready = false
				}
			}
			if ready {
				st = StatusReady
			}
		}
		task := Task{ID: t.ID, Title: t.Title, Agent: t.Agent, Description: t.Description, Phase: t.Phase,
			Status: st, Deps: t.Dependencies, Attempts: t.Attempts, Started: t.StartedAt, Finished: t.FinishedAt,
			Elapsed: t.Duration, Tokens: t.Tokens, GateScore: t.Score, Reason: t.Reason, Output: t.Output,
			ChangesetID: t.ChangesetID, Rehearsed: t.Rehearsed}
		if t.Status == eb.TaskRunning {
			task.Attempts = t.Attempts + 1 // the attempt under way
		}
		for _, a := range t.History {
			if a.Interrupted {
				continue
			}
			task.History = append(task.History, Attempt{N: a.N, Passed: a.Passed, Score: a.Score, Reason: a.Reason, Tokens: a.Tokens, Duration: a.Duration})
		}
		gates := t.Gates
		if len(gates) == 0 && len(t.History) > 0 {
			gates = t.History[len(t.History)-1].Gates
		}
		for _, g := range gates {
			name := g.Name
			if g.Skipped {
				name += " (skipped)"
			}
			task.Gates = append(task.Gates, Gate{Name: name, Passed: g.Passed || g.Skipped, Score: g.Score, Detail: g.Detail})
		}
		for _, id := range append(append([]uint64(nil), t.VaultNodeIDs...), t.WisdomIDs...) {
			ref, ok := nodes[id]
			if !ok {
				ref = VaultRef{ID: id, Content: "(node no longer in the vault)"}
			}
			task.VaultNodes = append(task.VaultNodes, ref)
		}
		for _, id := range t.RuleIDs {
			ref, ok := rules[t.Agent+"/"+id]
			if !ok {
				ref = RuleRef{ID: id, Agent: t.Agent}
			}
			task.Rules = append(task.Rules, ref)
		}
		d.Tasks = append(d.Tasks, task)
	}
	return d, nil
}

// vaultRefs loads the injected vault nodes of every task at once.
func (s wsSource) vaultRefs(ctx context.Context, tasks []eb.Task) map[uint64]VaultRef {
	var ids []uint64
	seen := map[uint64]bool{}
	for _, t := range tasks {
		for _, id := range append(append([]uint64(nil), t.VaultNodeIDs...), t.WisdomIDs...) {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	out := map[uint64]VaultRef{}
	if len(ids) == 0 {
		return out
	}
	v := s.ws.Vault()
	if v == nil {
		return out
	}
	nodes, err := v.GetMany(ctx, ids, false)
	if err != nil {
		return out
	}
	for _, n := range nodes {
		out[n.ID] = VaultRef{ID: n.ID, Type: string(n.Type), Content: n.Content}
	}
	return out
}

// ruleRefs loads the injected playbook rules, keyed AGENT/ruleID.
func (s wsSource) ruleRefs(ctx context.Context, tasks []eb.Task) map[string]RuleRef {
	out := map[string]RuleRef{}
	w, ok := s.ws.(interface{ ACE() *ace.System })
	if !ok || w.ACE() == nil {
		return out
	}
	m := w.ACE().Playbooks()
	books := map[string]*ace.Playbook{}
	for _, t := range tasks {
		if len(t.RuleIDs) == 0 {
			continue
		}
		pb, seen := books[t.Agent]
		if !seen {
			if p, err := m.GetPlaybook(ctx, t.Agent); err == nil {
				pb = &p
			}
			books[t.Agent] = pb
		}
		if pb == nil {
			continue
		}
		for _, id := range t.RuleIDs {
			if r, ok := pb.Rule(id); ok {
				out[t.Agent+"/"+id] = RuleRef{ID: id, Agent: pb.Agent, Content: r.Content}
			}
		}
	}
	return out
}

func (s wsSource) Start(ctx context.Context, path string) (string, error) {
	b, err := s.ws.StartBuild(ctx, path, eb.Options{})
	if err != nil {
		return "", err
	}
	return strconv.FormatUint(b.ID, 10), nil
}

func (s wsSource) Pause(_ context.Context, id string) error {
	e, err := s.engine()
	if err != nil {
		return err
	}
	n, err := parseID(id)
	if err != nil {
		return err
	}
	return e.Pause(n)
}

func (s wsSource) Resume(_ context.Context, id string) error {
	n, err := parseID(id)
	if err != nil {
		return err
	}
	e, err := s.engine()
	if err != nil {
		return err
	}
	return e.Go(n, nil)
}

func (s wsSource) Cancel(_ context.Context, id string) error {
	e, err := s.engine()
	if err != nil {
		return err
	}
	n, err := parseID(id)
	if err != nil {
		return err
	}
	return e.Cancel(n)
}
