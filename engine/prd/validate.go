package prd

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/nova-dev/nova/engine/checks"
)

// Problem is one reason a PRD cannot run.
type Problem struct {
	// TaskID is the task's id, "tasks[i]" when the task has no id, or ""
	// for a problem with the PRD as a whole.
	TaskID string `json:"taskId,omitempty"`
	// Field is the offending field, e.g. "dependencies" or "agent".
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

// String formats as "task ID: field: message".
func (p Problem) String() string {
	var b strings.Builder
	if p.TaskID != "" {
		b.WriteString("task " + p.TaskID + ": ")
	}
	if p.Field != "" {
		b.WriteString(p.Field + ": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// ValidationError lists every problem found in a PRD. errors.Is(err,
// ErrInvalid) holds for it.
type ValidationError struct {
	Name     string // the PRD's source or meta name
	Problems []Problem
}

// Error names the PRD and each problem on its own line.
func (e *ValidationError) Error() string {
	name := cmpOr(e.Name, "prd")
	switch len(e.Problems) {
	case 0:
		return name + ": invalid"
	case 1:
		return name + ": " + e.Problems[0].String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d problems:", name, len(e.Problems))
	for _, p := range e.Problems {
		b.WriteString("\n  - ")
		b.WriteString(p.String())
	}
	return b.String()
}

// Unwrap makes errors.Is(err, ErrInvalid) hold.
func (e *ValidationError) Unwrap() error { return ErrInvalid }

// Validate checks a parsed PRD and returns nil or a *ValidationError naming
// every problem: empty or duplicate ids, empty titles, missing or unknown
// agents (knownAgents may be nil to skip that check), unknown statuses,
// negative phases or attempts, a task placed in an earlier phase than one of
// its dependencies, blank check commands, dangling dependencies and dependency cycles (printed as
// "cycle: a → b → c → a", read "a depends on b, …").
func Validate(p *PRD, knownAgents func(string) bool) error {
	if p == nil {
		return &ValidationError{Problems: []Problem{{Message: "no PRD"}}}
	}
	var probs []Problem
	add := func(task, field, format string, args ...any) {
		probs = append(probs, Problem{TaskID: task, Field: field, Message: fmt.Sprintf(format, args...)})
	}
	if len(p.Tasks) == 0 {
		add("", "tasks", "the PRD has no tasks")
	}

	first := make(map[string]int, len(p.Tasks)) // id -> index of its first task
	for i, t := range p.Tasks {
		if t.ID != "" {
			if _, dup := first[t.ID]; !dup {
				first[t.ID] = i
			}
		}
	}

	for i, t := range p.Tasks {
		label := t.ID
		if label == "" {
			label = fmt.Sprintf("tasks[%d]", i)
		}
		switch {
		case t.ID == "":
			add(label, "id", "is required")
		case strings.IndexFunc(t.ID, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0:
			add(label, "id", "%q must not contain spaces or control characters", t.ID)
		case first[t.ID] != i:
			add(label, "id", "duplicate id: tasks[%d] reuses the id of tasks[%d]", i, first[t.ID])
		}
		if strings.TrimSpace(t.Title) == "" {
			add(label, "title", "is empty")
		}
		switch {
		case strings.TrimSpace(t.Agent) == "":
			add(label, "agent", "is required")
		case knownAgents != nil && !knownAgents(t.Agent):
			add(label, "agent", "unknown agent %q", t.Agent)
		}
		if !t.Status.Valid() {
			add(label, "status", "unknown status %q (want pending, ready, running, done, failed or blocked)", t.Status)
		}
		if t.Phase < 0 {
			add(label, "phase", "must be 0 or more, got %d", t.Phase)
		}
		if t.Attempts < 0 {
			add(label, "attempts", "must be 0 or more, got %d", t.Attempts)
		}
		for _, d := range t.Dependencies {
			j, ok := first[d]
			switch {
			case d == "":
				add(label, "dependencies", "has an empty entry")
			case !ok:
				add(label, "dependencies", "unknown task %q", d)
			case j != i && p.Tasks[j].Phase > t.Phase:
				add(label, "phase", "phase %d comes before phase %d of its dependency %q", t.Phase, p.Tasks[j].Phase, d)
			}
		}
		for j, c := range t.Checks {
			if msg := checks.LineProblem(c); msg != "" {
				add(label, fmt.Sprintf("checks[%d]", j), "%s", msg)
			}
		}
	}

	for _, c := range cycles(p, first) {
		add(c[0], "dependencies", "cycle: %s", strings.Join(c, " → "))
	}

	// A task that lists the same bad dependency twice has one problem.
	probs = uniqueProblems(probs)
	if len(probs) == 0 {
		return nil
	}
	return &ValidationError{Name: cmpOr(p.Source, p.Meta.Name), Problems: probs}
}

// cycles reports one cycle for every group of tasks that depend on each
// other (a strongly connected component of the dependency graph, or a task
// that depends on itself). Each cycle is the shortest one through the
// group's task that comes first in the file, written as a path that starts
// and ends with that task's id. Groups are reported in file order.
//
// Tarjan's algorithm runs with an explicit stack so that a very long
// dependency chain cannot overflow the goroutine stack.
func cycles(p *PRD, first map[string]int) [][]string {
	n := len(p.Tasks)
	deps := make([][]int, n) // i -> tasks i depends on (unique, existing)
	for i, t := range p.Tasks {
		if first[t.ID] != i { // duplicates and empty ids stay out of the graph
			continue
		}
		seen := map[int]bool{}
		for _, d := range t.Dependencies {
			if j, ok := first[d]; ok && !seen[j] {
				seen[j] = true
				deps[i] = append(deps[i], j)
			}
		}
	}

	index := make([]int, n)
	low := make([]int, n)
	onStack := make([]bool, n)
	for i := range index {
		index[i] = -1
	}
	var (
		stack  []int
		groups [][]int
		next   int
	)
	type frame struct{ v, edge int }
	visit := func(v int) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
	}
	for root := range n {
		if index[root] >= 0 {
			continue
		}
		visit(root)
		call := []frame{{v: root}}
		for len(call) > 0 {
			top := len(call) - 1
			v := call[top].v
			if e := call[top].edge; e < len(deps[v]) {
				call[top].edge++
				w := deps[v][e]
				switch {
				case index[w] < 0:
					visit(w)
					call = append(call, frame{v: w})
				case onStack[w]:
					low[v] = min(low[v], index[w])
				}
				continue
			}
			call = call[:top]
			if top > 0 {
				parent := call[top-1].v
				low[parent] = min(low[parent], low[v])
			}
			if low[v] != index[v] {
				continue
			}
			var group []int
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				group = append(group, w)
				if w == v {
					break
				}
			}
			groups = append(groups, group)
		}
	}

	var out [][]int
	for _, g := range groups {
		start := slices.Min(g)
		if len(g) == 1 && !slices.Contains(deps[start], start) {
			continue // a single task that is not its own dependency
		}
		out = append(out, shortestCycle(deps, g, start))
	}
	slices.SortFunc(out, func(a, b []int) int { return cmp.Compare(a[0], b[0]) })

	paths := make([][]string, len(out))
	for k, c := range out {
		for _, i := range c {
			paths[k] = append(paths[k], p.Tasks[i].ID)
		}
	}
	return paths
}

// shortestCycle finds, by breadth-first search inside one strongly connected
// group, the shortest path from start back to start.
func shortestCycle(deps [][]int, group []int, start int) []int {
	in := make(map[int]bool, len(group))
	for _, v := range group {
		in[v] = true
	}
	parent := map[int]int{start: -1}
	queue := []int{start}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for _, w := range deps[u] {
			if w == start {
				var path []int
				for x := u; x != -1; x = parent[x] {
					path = append(path, x)
				}
				slices.Reverse(path)
				return append(path, start)
			}
			if _, seen := parent[w]; !seen && in[w] {
				parent[w] = u
				queue = append(queue, w)
			}
		}
	}
	return []int{start, start} // unreachable for a real group; keeps callers safe
}

func uniqueProblems(probs []Problem) []Problem {
	seen := make(map[Problem]bool, len(probs))
	out := probs[:0]
	for _, p := range probs {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// DropUnknownDependencies removes from every task the dependency ids that
// name no task of the PRD, blank entries and repeats, and returns one
// warning for each id it dropped (naming the tasks that listed it), in the
// order first seen. A planner that cites a task it did not write leaves a
// plan that still runs; the cycle and phase checks of Validate see what is
// left.
func DropUnknownDependencies(p *PRD) []string {
	if p == nil {
		return nil
	}
	ids := make(map[string]bool, len(p.Tasks))
	for _, t := range p.Tasks {
		if t.ID != "" {
			ids[t.ID] = true
		}
	}
	var order []string
	byID := map[string][]string{} // dropped id -> tasks that listed it
	blank := 0
	for i := range p.Tasks {
		t := &p.Tasks[i]
		if len(t.Dependencies) == 0 {
			continue
		}
		kept := make([]string, 0, len(t.Dependencies))
		for _, d := range t.Dependencies {
			d = strings.TrimSpace(d)
			switch {
			case d == "":
				blank++
			case !ids[d]:
				if _, ok := byID[d]; !ok {
					order = append(order, d)
				}
				label := cmp.Or(t.ID, fmt.Sprintf("tasks[%d]", i))
				if !slices.Contains(byID[d], label) {
					byID[d] = append(byID[d], label)
				}
			case !slices.Contains(kept, d):
				kept = append(kept, d)
			}
		}
		t.Dependencies = kept
	}
	var warns []string
	for _, d := range order {
		warns = append(warns, fmt.Sprintf("dropped dependency %q: no task has that id (listed by %s)", d, strings.Join(byID[d], ", ")))
	}
	if blank > 0 {
		warns = append(warns, fmt.Sprintf("dropped %d blank dependency %s", blank, map[bool]string{true: "entry", false: "entries"}[blank == 1]))
	}
	return warns
}
