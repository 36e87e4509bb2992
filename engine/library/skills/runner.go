package skills

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/nova-dev/nova/engine/library/params"
	"github.com/nova-dev/nova/engine/library/tmpl"
	"github.com/nova-dev/nova/engine/tools"
)

// MaxPromptChars bounds FormatForPrompt's output.
const MaxPromptChars = 1000

// stepPreviewChars is how much of each step's result the prompt shows.
const stepPreviewChars = 200

// Context is what a caller gives a skill run.
type Context struct {
	// Agent runs the skill; its permissions apply to every step.
	Agent string
	// Task is the task the agent is working on (templates may read it).
	Task string
	// WorkingDir is the directory, relative to the workspace root, that
	// templates see as workingDir ("." when empty).
	WorkingDir string
	// Inputs are the caller's values (text or typed).
	Inputs map[string]any
}

// StepResult is one step as it ran.
type StepResult struct {
	Name     string           `json:"name"`
	Tool     string           `json:"tool"`
	Args     string           `json:"args"` // canonical JSON
	Status   tools.Status     `json:"status"`
	Output   string           `json:"output"`
	Error    string           `json:"error,omitempty"`
	Duration time.Duration    `json:"duration"`
	Evidence []tools.Evidence `json:"evidence,omitempty"`
}

// Result is a finished skill run. It is never an error: a failure is
// described by Success, FailedStep and Error.
type Result struct {
	Skill          string       `json:"skill"`
	Version        string       `json:"version,omitempty"`
	Agent          string       `json:"agent,omitempty"`
	Success        bool         `json:"success"`
	StepsCompleted int          `json:"stepsCompleted"`
	TotalSteps     int          `json:"totalSteps"`
	Steps          []StepResult `json:"steps"`
	// StepResults maps step name → output of the steps that completed.
	StepResults map[string]string `json:"stepResults"`
	FailedStep  string            `json:"failedStep,omitempty"`
	Error       string            `json:"error,omitempty"`
	// MissingTools lists required tools the registry lacks or the agent
	// may not use (reported before any step runs).
	MissingTools []string `json:"missingTools,omitempty"`
	DurationMs   int64    `json:"durationMs"`
}

// Evidence gathers the steps' evidence, in order.
func (r Result) Evidence() []tools.Evidence {
	var out []tools.Evidence
	for _, s := range r.Steps {
		out = append(out, s.Evidence...)
	}
	return out
}

// Runner runs skills through a tool registry.
type Runner struct {
	// Skills finds skills by name.
	Skills *Registry
	// Tools executes the steps (with the caller's Env: same confinement,
	// permissions and staging as the agent).
	Tools *tools.Registry
	// OnStep, when set, receives each step after it ran (traces).
	OnStep func(StepResult)
}

// Execute runs a skill. It checks, before the first step, that the skill
// exists, that the agent may use it, that every tool it needs is
// registered and permitted to the agent, and that the inputs are valid;
// then it runs the steps in order and stops at the first that fails,
// naming it. It never panics and never returns an error.
func (r *Runner) Execute(ctx context.Context, name string, env *tools.Env, sc Context) (res Result) {
	start := time.Now()
	res = Result{Skill: name, Agent: sc.Agent, StepResults: map[string]string{}, Steps: []StepResult{}}
	failed := false
	fail := func(step, format string, args ...any) Result {
		res.Success, res.FailedStep, res.Error = false, step, fmt.Sprintf(format, args...)
		failed = true
		return res
	}
	defer func() {
		if p := recover(); p != nil {
			res.Success = false
			res.Error = fmt.Sprintf("skill crashed: %v", p)
		}
		if failed || !res.Success {
			res.Success = false
		}
		if res.StepsCompleted > 0 || res.FailedStep != "" {
			res.DurationMs = max(time.Since(start).Milliseconds(), 1)
		}
	}()
	if env == nil {
		env = &tools.Env{}
	}
	if sc.Agent == "" {
		sc.Agent = env.Agent
	}
	res.Agent = sc.Agent
	if r.Skills == nil || r.Tools == nil {
		return fail("", "skill runner is not configured")
	}
	s, ok := r.Skills.Get(name)
	if !ok {
		var names []string
		for _, k := range r.Skills.ListForAgent(sc.Agent) {
			names = append(names, k.Name)
		}
		return fail("", "%v: %q (available: %s)", ErrNotFound, name, strings.Join(names, ", "))
	}
	res.Version, res.TotalSteps = s.Version, len(s.Steps)
	if !s.For(sc.Agent) {
		return fail("", "skill %s is for %s, not %s", s.Name, strings.Join(s.Agents, ", "), sc.Agent)
	}
	var missing, denied []string
	for _, t := range s.Tools() {
		err := r.Tools.Permit(env.Agent, env.Tools, t)
		switch {
		case err == nil:
		case errors.Is(err, tools.ErrUnknownTool):
			missing = append(missing, t)
		default:
			denied = append(denied, t)
		}
	}
	if len(missing)+len(denied) > 0 {
		res.MissingTools = append(append([]string{}, missing...), denied...)
		var why []string
		if len(missing) > 0 {
			why = append(why, "tools not registered: "+strings.Join(missing, ", "))
		}
		if len(denied) > 0 {
			why = append(why, fmt.Sprintf("tools %s may not use: %s", sc.Agent, strings.Join(denied, ", ")))
		}
		return fail("", "skill %s cannot run: %s", s.Name, strings.Join(why, "; "))
	}
	inputs, err := params.Resolve(s.Inputs, sc.Inputs)
	if err != nil {
		return fail("", "skill %s: input %s", s.Name, strings.TrimPrefix(err.Error(), "parameter "))
	}
	workDir := sc.WorkingDir
	if workDir == "" {
		workDir = "."
	}
	outputs := map[string]any{}
	data := map[string]any{"inputs": inputs, "steps": outputs, "agent": sc.Agent, "task": sc.Task, "workingDir": workDir}
	for _, st := range s.Steps {
		if err := ctx.Err(); err != nil {
			return fail(st.Name, "canceled before this step")
		}
		sr := StepResult{Name: st.Name, Tool: st.Tool}
		t, _ := r.Tools.Get(st.Tool)
		args, err := renderArgs(ctx, st, parseSchema(t.Schema), data)
		if err != nil {
			sr.Status, sr.Error = tools.StatusInvalid, err.Error()
			res.Steps = append(res.Steps, sr)
			r.onStep(sr)
			return fail(st.Name, "%v", err)
		}
		out := r.Tools.Execute(ctx, env, tools.Call{Name: st.Tool, Args: args})
		sr.Args, sr.Status, sr.Output, sr.Duration, sr.Evidence = out.Args, out.Status, out.Output, out.Duration, out.Evidence
		if !out.OK() {
			sr.Error = out.Output
			res.Steps = append(res.Steps, sr)
			r.onStep(sr)
			return fail(st.Name, "%s %s: %s", st.Tool, out.Status, firstLine(out.Output))
		}
		if msg := check(st.Validate, out.Output); msg != "" {
			sr.Status, sr.Error = tools.StatusFailed, msg
			res.Steps = append(res.Steps, sr)
			r.onStep(sr)
			return fail(st.Name, "%s", msg)
		}
		res.Steps = append(res.Steps, sr)
		r.onStep(sr)
		res.StepResults[st.Name] = out.Output
		outputs[st.Name] = out.Output
		res.StepsCompleted++
	}
	res.Success = true
	return res
}

func (r *Runner) onStep(sr StepResult) {
	if r.OnStep != nil {
		r.OnStep(sr)
	}
}

// renderArgs renders a step's arguments. A rendered string becomes a
// number or a boolean only where the tool's schema says so; a string that
// renders empty is left out (the tool's default applies, or its schema
// reports a missing required argument).
func renderArgs(ctx context.Context, st Step, schema toolSchema, data map[string]any) (json.RawMessage, error) {
	out := map[string]any{}
	for _, name := range sortedKeys(st.Args) {
		v, err := renderValue(ctx, st.Args[name], data)
		if err != nil {
			return nil, fmt.Errorf("argument %s: %w", name, err)
		}
		s, isString := v.(string)
		if isString && tmpl.Has(fmt.Sprint(st.Args[name])) {
			if strings.TrimSpace(s) == "" && !slices.Contains(schema.required, name) {
				continue
			}
			c, err := coerce(s, schema.props[name])
			if err != nil {
				return nil, fmt.Errorf("argument %s: %w", name, err)
			}
			v = c
		}
		out[name] = v
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("arguments: %w", err)
	}
	return b, nil
}

func renderValue(ctx context.Context, v any, data map[string]any) (any, error) {
	switch x := v.(type) {
	case string:
		if !tmpl.Has(x) {
			return x, nil
		}
		return tmpl.Render(ctx, x, data)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			r, err := renderValue(ctx, e, data)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			r, err := renderValue(ctx, e, data)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	}
	return v, nil
}

func coerce(s, typ string) (any, error) {
	t := strings.TrimSpace(s)
	switch typ {
	case "integer":
		n, err := strconv.ParseInt(t, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a whole number", s)
		}
		return n, nil
	case "number":
		f, err := strconv.ParseFloat(t, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", s)
		}
		return f, nil
	case "boolean":
		b, err := strconv.ParseBool(strings.ToLower(t))
		if err != nil {
			return nil, fmt.Errorf("%q is not true or false", s)
		}
		return b, nil
	}
	return s, nil
}

// check applies a step's validation; "" means it passed.
func check(c *Check, out string) string {
	why := func(def string) string {
		if c != nil && c.Message != "" {
			return c.Message
		}
		return def
	}
	if (c == nil || c.NonEmpty == nil || *c.NonEmpty) && strings.TrimSpace(out) == "" {
		return why("the step returned nothing")
	}
	if c == nil {
		return ""
	}
	if c.Contains != "" && !strings.Contains(out, c.Contains) {
		return why(fmt.Sprintf("the result does not contain %q", c.Contains))
	}
	if c.NotContains != "" && strings.Contains(out, c.NotContains) {
		return why(fmt.Sprintf("the result contains %q", c.NotContains))
	}
	if c.Matches != "" {
		if re, err := regexp.Compile(c.Matches); err != nil || !re.MatchString(out) {
			return why(fmt.Sprintf("the result does not match %q", c.Matches))
		}
	}
	if c.NotMatches != "" {
		if re, err := regexp.Compile(c.NotMatches); err != nil || re.MatchString(out) {
			return why(fmt.Sprintf("the result matches %q", c.NotMatches))
		}
	}
	return ""
}

// FormatForPrompt renders a result for an agent's prompt in at most
// MaxPromptChars characters:
//
//	Skill: debug-root-cause (3/3 steps)
//	read-error-context: <first 200 characters>
//	…
//	Failed at step "search-for-source": <error>
func FormatForPrompt(res Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Skill: %s (%d/%d steps)\n", res.Skill, res.StepsCompleted, res.TotalSteps)
	for _, s := range res.Steps {
		if out, ok := res.StepResults[s.Name]; ok {
			fmt.Fprintf(&b, "%s: %s\n", s.Name, indent(clip(strings.TrimSpace(out), stepPreviewChars)))
		}
	}
	if !res.Success {
		if res.FailedStep != "" {
			fmt.Fprintf(&b, "Failed at step %q: %s\n", res.FailedStep, res.Error)
		} else {
			fmt.Fprintf(&b, "Failed before the first step: %s\n", res.Error)
		}
	}
	return truncate(strings.TrimRight(b.String(), "\n"), MaxPromptChars)
}

const truncMark = "...[truncated]"

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	keep := n - utf8.RuneCountInString(truncMark)
	i := 0
	for pos := range s {
		if i == keep {
			return s[:pos] + truncMark
		}
		i++
	}
	return s
}

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos] + "…"
		}
		i++
	}
	return s
}

func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n  ") }

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return clip(s, 300)
}
