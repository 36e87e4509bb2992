package build

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/nova-dev/nova/engine/ace"
	eb "github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/failure"
	"github.com/nova-dev/nova/engine/knowledge"
)

// Adapters: the page's view model (source.go) built from the
// engine values its Source returns. They run inside tea.Cmds.

func parseID(id string) (uint64, error) {
	n, err := strconv.ParseUint(id, 10, 64)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("build id %q: want a number", id)
	}
	return n, nil
}

func summaryOf(b eb.Build) Summary {
	st := string(b.Status)
	return Summary{ID: strconv.FormatUint(b.ID, 10), Name: b.Name, PRD: b.PRDPath, Status: st,
		Started: b.CreatedAt, Finished: b.FinishedAt, Done: b.Counts[eb.TaskDone], Total: b.Total,
		Reason: b.Reason, Tokens: b.Tokens, Active: b.Active}
}

// listBuilds returns the builds, newest first.
func listBuilds(ctx context.Context, src Source) ([]Summary, error) {
	bs, err := src.ListBuilds(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Summary, 0, len(bs))
	for _, b := range bs {
		out = append(out, summaryOf(b))
	}
	return out, nil
}

// getBuild returns one build with its tasks in plan order, their
// provenance resolved to text.
func getBuild(ctx context.Context, src Source, id string) (Detail, error) {
	n, err := parseID(id)
	if err != nil {
		return Detail{}, err
	}
	b, err := src.GetBuild(ctx, n)
	if err != nil {
		return Detail{}, err
	}
	tasks, err := src.BuildTasks(ctx, n)
	if err != nil {
		return Detail{}, err
	}
	d := Detail{Summary: summaryOf(b)}
	status := map[string]eb.TaskStatus{}
	for _, t := range tasks {
		status[t.ID] = t.Status
	}
	nodes := vaultRefs(ctx, src, tasks)
	rules := ruleRefs(ctx, src, tasks)
	known := knowledgeRefs(ctx, src, tasks)
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
			ChangesetID: t.ChangesetID, Rehearsed: t.Rehearsed, WaitFor: t.WaitFor, Question: t.Question, Warning: t.Warning, Verified: t.Verified}
		if v := t.Verdict; v != nil && v.Status != "" {
			task.Verdict = &Verdict{Status: string(v.Status), Checks: len(v.Checks), Problems: v.ProblemLines()}
		}
		if t.Status == eb.TaskRunning {
			task.Attempts = t.Attempts + 1 // the attempt under way
		}
		for _, a := range t.History {
			if a.Interrupted || a.Kind == failure.Unreachable {
				continue // a stop or a wait for the model server, not an attempt at the work
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
		for _, id := range t.KnowledgeIDs {
			task.Knowledge = append(task.Knowledge, known[id])
		}
		task.CodeMap = append([]string(nil), t.CodeMapPaths...)
		d.Tasks = append(d.Tasks, task)
	}
	return d, nil
}

// vaultRefs loads the injected vault nodes of every task at once.
func vaultRefs(ctx context.Context, src Source, tasks []eb.Task) map[uint64]VaultRef {
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
	nodes, err := src.GetNodes(ctx, ids, false)
	if err != nil {
		return out // shown as "no longer in the vault"; the build itself loaded
	}
	for _, n := range nodes {
		out[n.ID] = VaultRef{ID: n.ID, Type: string(n.Type), Content: n.Content}
	}
	return out
}

// maxKnowledgeRefs bounds how many injected items a build's detail
// resolves to titles (the rest show their reference).
const maxKnowledgeRefs = 200

// knowledgeRefs resolves the injected knowledge ids of every task to
// titles; a missing item keeps its reference and says it is gone.
func knowledgeRefs(ctx context.Context, src Source, tasks []eb.Task) map[string]KnowledgeRef {
	out := map[string]KnowledgeRef{}
	for _, t := range tasks {
		for _, ref := range t.KnowledgeIDs {
			if _, ok := out[ref]; ok {
				continue
			}
			kr := KnowledgeRef{Ref: ref, Source: knowledgeSource(ref), Title: ref}
			if len(out) < maxKnowledgeRefs {
				if it, err := src.KnowledgeItem(ctx, ref); err == nil {
					kr.Source, kr.Title = it.Source, it.Title
				} else {
					kr.Title = "(no longer available)"
				}
			}
			out[ref] = kr
		}
	}
	return out
}

// knowledgeSource is the source a reference names.
func knowledgeSource(ref string) string {
	kind, _, _ := strings.Cut(ref, ":")
	switch kind {
	case "fact":
		return knowledge.SourceFacts
	case "docs":
		return knowledge.SourceDocs
	}
	return knowledge.SourceVault
}

// ruleRefs loads the injected playbook rules, keyed AGENT/ruleID.
func ruleRefs(ctx context.Context, src Source, tasks []eb.Task) map[string]RuleRef {
	out := map[string]RuleRef{}
	books := map[string]*ace.Playbook{}
	for _, t := range tasks {
		if len(t.RuleIDs) == 0 {
			continue
		}
		pb, seen := books[t.Agent]
		if !seen {
			if p, err := src.GetPlaybook(ctx, t.Agent); err == nil {
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
