package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/library/workflow"
)

func newWorkflowCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "workflow",
		Short: "Run multi-step workflows (add-feature, fix-bug, add-test, refactor, review, yours)",
		Long: "A workflow is a parameterised sequence of agent and skill steps; a step may run only when a\n" +
			"condition holds (a debug step only when the tests failed) and may use earlier steps' output.\n" +
			"Agent steps run as one-task builds (staging, gates, verification, learning). Runs are stored\n" +
			"and resumable. Your own workflows are YAML files in .nova/workflows/.",
	}
	cmd.AddCommand(newWorkflowListCmd(env, nil), newWorkflowShowCmd(env, nil), newWorkflowRunCmd(env, nil),
		newWorkflowMatchCmd(env, nil), newWorkflowRunsCmd(env, nil), newWorkflowStatusCmd(env, nil),
		newWorkflowResumeCmd(env, nil))
	return cmd
}

// workflowListOptions is `nova workflow list`.
type workflowListOptions struct {
	*Env
	JSON bool
}

func newWorkflowListCmd(env *Env, runF func(context.Context, *workflowListOptions) error) *cobra.Command {
	opts := &workflowListOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the workflows",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return pick(runF, runWorkflowList)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {workflows, problems} as JSON")
	return cmd
}

func runWorkflowList(ctx context.Context, opts *workflowListOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		list, err := ws.ListWorkflows(ctx)
		if err != nil {
			return err
		}
		printProblems(opts.IO, "workflow", list.Problems)
		if opts.JSON {
			return opts.IO.PrintJSON(list)
		}
		if len(list.Workflows) == 0 {
			opts.IO.Printf("no workflows (add one in .nova/workflows/)\n")
			return nil
		}
		tw := tabwriter.NewWriter(opts.IO.Human(), 0, 0, 2, ' ', 0)
		_, _ = fmt.Fprintln(tw, "ID\tNAME\tSTEPS\tTRIGGERS")
		for _, w := range list.Workflows {
			_, _ = fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", w.ID, clipLine(w.Name, 30), len(w.Steps), clipLine(strings.Join(w.Triggers, ", "), 60))
		}
		return tw.Flush()
	})
}

// workflowShowOptions is `nova workflow show ID`.
type workflowShowOptions struct {
	*Env
	ID   string
	JSON bool
}

func newWorkflowShowCmd(env *Env, runF func(context.Context, *workflowShowOptions) error) *cobra.Command {
	opts := &workflowShowOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Show a workflow: its parameters and steps",
		Args:  exactArgs(1, "a workflow id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			return pick(runF, runWorkflowShow)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {workflow, builtin, yaml} as JSON")
	return cmd
}

func runWorkflowShow(ctx context.Context, opts *workflowShowOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		d, err := ws.GetWorkflow(ctx, opts.ID)
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(d)
		}
		w := d.Workflow
		p := opts.IO.Printf
		p("%s — %s\n", w.ID, w.Name)
		if w.Description != "" {
			p("%s\n", strings.TrimSpace(w.Description))
		}
		p("\nsource:   %s\n", sourceLabel(w.Source, opts.Env))
		if len(w.Triggers) > 0 {
			p("triggers: %s\n", strings.Join(w.Triggers, ", "))
		}
		if len(w.Params) > 0 {
			p("\nparameters (* required):\n")
			for _, prm := range w.Params {
				p("  %s\n", paramLine(prm))
			}
		}
		p("\nsteps:\n")
		for i, st := range w.Steps {
			what := st.Agent
			if st.Skill != "" {
				what = "skill " + st.Skill + " as " + st.Agent
			}
			p("  %d. %s  (%s)", i+1, st.ID, what)
			if st.Condition != "" {
				p("  only if %s", st.Condition)
			}
			if st.ContinueOnFailure {
				p("  continues on failure")
			}
			p("\n")
			if st.Task != "" {
				p("       %s\n", clipLine(strings.TrimSpace(st.Task), 110))
			}
			for _, k := range sortedKeys(st.Input) {
				p("       input %s: %s\n", k, clipLine(st.Input[k], 90))
			}
			for _, k := range sortedKeys(st.With) {
				p("       with %s: %s\n", k, clipLine(fmt.Sprint(st.With[k]), 90))
			}
		}
		return nil
	})
}

// workflowMatchOptions is `nova workflow match "TEXT"`.
type workflowMatchOptions struct {
	*Env
	Text string
	JSON bool
}

func newWorkflowMatchCmd(env *Env, runF func(context.Context, *workflowMatchOptions) error) *cobra.Command {
	opts := &workflowMatchOptions{Env: env}
	cmd := &cobra.Command{
		Use:   `match "TEXT"`,
		Short: "Show which workflows a request triggers, best first",
		Args:  minArgs(1, `a request ("add tests for parse.go")`),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Text = strings.Join(args, " ")
			if strings.TrimSpace(opts.Text) == "" {
				return usagef("the request is empty")
			}
			return pick(runF, runWorkflowMatch)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print an array of matches as JSON")
	return cmd
}

func runWorkflowMatch(ctx context.Context, opts *workflowMatchOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		ms, err := ws.MatchWorkflows(ctx, opts.Text)
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(ms)
		}
		if len(ms) == 0 {
			opts.IO.Printf("No workflow matches; see `nova workflow list`\n")
			return nil
		}
		tw := tabwriter.NewWriter(opts.IO.Human(), 0, 0, 2, ' ', 0)
		for _, m := range ms {
			trigger := "its name"
			if m.Trigger != "" {
				trigger = fmt.Sprintf("trigger %q", m.Trigger)
			}
			_, _ = fmt.Fprintf(tw, "%s\t(%s, %.2f)\t%s\n", m.ID, trigger, m.Score, runCommandFor(m))
		}
		return tw.Flush()
	})
}

// runCommandFor is the command line that runs a match with its suggested
// parameters.
func runCommandFor(m workflow.Match) string {
	var b strings.Builder
	b.WriteString("nova workflow run " + m.ID)
	for _, k := range sortedKeys(m.Params) {
		v := m.Params[k]
		if strings.ContainsAny(v, " \t'\"$`\\") {
			v = strconv.Quote(v)
		}
		fmt.Fprintf(&b, " --set %s=%s", k, v)
	}
	return b.String()
}

// workflowRunOptions is `nova workflow run ID`.
type workflowRunOptions struct {
	*Env
	ID       string
	Sets     []string
	Autonomy *int
	Headless bool
	JSON     bool
}

func newWorkflowRunCmd(env *Env, runF func(context.Context, *workflowRunOptions) error) *cobra.Command {
	opts := &workflowRunOptions{Env: env}
	var autonomy int
	cmd := &cobra.Command{
		Use:   "run ID",
		Short: "Run a workflow to its end (exit 0 when it is done)",
		Long: "Runs the workflow's steps in order; a step whose condition is false is skipped with the reason.\n" +
			"A required parameter you did not pass with --set is asked for on a terminal; with --headless,\n" +
			"--json or off a terminal the command exits 2 naming it. Progress lines go to stdout; with --json,\n" +
			"one event per line (the workflow's events and its steps' build events). ctrl+c pauses the run:\n" +
			"`nova workflow resume RUN` continues it.",
		Args: exactArgs(1, "a workflow id (see `nova workflow list`)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Autonomy = nil
			if cmd.Flags().Changed("autonomy") {
				if autonomy < 0 || autonomy > 5 {
					return usagef("--autonomy must be between 0 and 5, got %d", autonomy)
				}
				opts.Autonomy = &autonomy
			}
			opts.ID = args[0]
			return pick(runF, runWorkflowRun)(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringArrayVar(&opts.Sets, "set", nil, "a parameter as name=value (repeatable)")
	cmd.Flags().IntVar(&autonomy, "autonomy", 0, "autonomy level 0-5 for the steps' builds (default: config); ≥ 3 applies changesets")
	cmd.Flags().BoolVar(&opts.Headless, "headless", false, "never ask: a missing parameter exits 2")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "one JSON event per line")
	return cmd
}

func runWorkflowRun(ctx context.Context, opts *workflowRunOptions) error {
	sets, err := parseSets(opts.Sets, "--set")
	if err != nil {
		return err
	}
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		d, err := ws.GetWorkflow(ctx, opts.ID)
		if err != nil {
			return err
		}
		if err := opts.fillParams(ctx, d.Workflow.Params, sets, "--set", "parameter", !opts.Headless && !opts.JSON); err != nil {
			return err
		}
		r, err := ws.CreateWorkflowRun(ctx, opts.ID, engine.WorkflowOptions{Params: sets, Autonomy: opts.Autonomy})
		if err != nil {
			return libraryErr(err)
		}
		if !opts.JSON {
			opts.IO.Printf("workflow %s: run %d (%d steps)\n", r.Workflow, r.ID, len(r.Steps))
		}
		return followWorkflow(ctx, opts.Env, ws, r.ID, opts.JSON)
	})
}

func workflowRunID(s string) (uint64, error) { return parseID(s, "workflow run", "nova workflow runs") }

// workflowResumeOptions is `nova workflow resume RUN`.
type workflowResumeOptions struct {
	*Env
	ID   uint64
	JSON bool
}

func newWorkflowResumeCmd(env *Env, runF func(context.Context, *workflowResumeOptions) error) *cobra.Command {
	opts := &workflowResumeOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "resume RUN",
		Short: "Continue a paused, failed or interrupted workflow run (done steps are not re-run)",
		Args:  exactArgs(1, "a workflow run id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := workflowRunID(args[0])
			if err != nil {
				return err
			}
			opts.ID = id
			return pick(runF, runWorkflowResume)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "one JSON event per line")
	return cmd
}

func runWorkflowResume(ctx context.Context, opts *workflowResumeOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		r, err := ws.GetWorkflowRun(ctx, opts.ID)
		if err != nil {
			return err
		}
		if r.Status == workflow.RunDone {
			if opts.JSON {
				return opts.IO.PrintJSON(r)
			}
			opts.IO.Printf("workflow run %d is already done\n", r.ID)
			return nil
		}
		if !opts.JSON {
			done, total := r.Counts()
			opts.IO.Printf("resuming workflow %s run %d (%d/%d steps finished)\n", r.Workflow, r.ID, done, total)
		}
		return followWorkflow(ctx, opts.Env, ws, r.ID, opts.JSON)
	})
}

// isWorkflowEnd reports the last event of a workflow run: done, failed, or
// the "paused" change.
func isWorkflowEnd(ev engine.Event, runID string) bool {
	if ev.Topic != engine.TopicWorkflow || ev.RunID != runID || ev.TaskID != "" {
		return false
	}
	switch ev.Type {
	case engine.EventDone, engine.EventFailed:
		return true
	case engine.EventChanged:
		return ev.Status == string(workflow.RunPaused)
	}
	return false
}

// followWorkflow runs a workflow run (blocking) while it prints its events
// and those of its steps' builds, then a summary; the exit code is 0 only
// when the run is done. Nobody can answer a command approval here: the
// steps' builds deny them (headless), as `nova build run` does.
func followWorkflow(ctx context.Context, env *Env, ws engine.Workspace, id uint64, asJSON bool) error {
	subCtx, stopSub := context.WithCancel(context.WithoutCancel(ctx))
	defer stopSub()
	events := followEvents(subCtx, ws)
	sid := strconv.FormatUint(id, 10)
	op := engine.NewOp()
	var mu sync.Mutex
	builds := map[string]string{} // build id → step id
	// show prints one event the way this command does; true for the
	// run's last event.
	show := func(ev engine.Event) bool {
		switch {
		case ev.Topic == engine.TopicWorkflow && ev.RunID == sid:
			if ev.BuildID != "" && ev.TaskID != "" {
				mu.Lock()
				builds[ev.BuildID] = ev.TaskID
				mu.Unlock()
			}
		case ev.Topic == engine.TopicBuild:
			mu.Lock()
			_, ours := builds[ev.BuildID]
			mu.Unlock()
			if !ours {
				return false
			}
		default:
			return false
		}
		if asJSON {
			printEventJSON(env, ev)
		} else if line := workflowEventLine(ev); line != "" {
			printTimed(env, ev, line)
		}
		return isWorkflowEnd(ev, sid)
	}
	printed, sawEnd := printEvents(events, show)
	f := workflowFollower(ws, id)
	r, err := ws.RunWorkflow(ctx, id, engine.RunWorkflowOptions{Approvals: engine.ApproveNone, Op: op})
	if r, err = f.settle(ctx, env, printed, stopSub, r, err); err != nil {
		if engine.IsCanceled(err) { // ctrl+c, and the run's state could not be read
			env.IO.Logf("paused; `nova workflow resume %d` continues it\n", id)
			return &reportedError{msg: "canceled"}
		}
		if errors.Is(err, workflow.ErrFinished) {
			return fmt.Errorf("workflow run %d is already done: %w", id, err)
		}
		return err
	}
	f.showEnd(r, printed, stopSub, sawEnd, show)
	if asJSON {
		if r.Status == workflow.RunDone {
			return nil
		}
		return &reportedError{msg: string(r.Status)}
	}
	env.IO.Printf("\n")
	printWorkflowRun(env.IO, r, false)
	switch r.Status {
	case workflow.RunDone:
		return nil
	case workflow.RunPaused:
		return fmt.Errorf("workflow run %d paused: %s", r.ID, r.Reason)
	default:
		return fmt.Errorf("workflow run %d %s: %s", r.ID, r.Status, r.Reason)
	}
}

// workflowEventLine is one progress line, or "" for events text mode
// leaves out (the build's own task transitions: the step lines say it).
func workflowEventLine(ev engine.Event) string {
	if ev.Topic == engine.TopicBuild {
		switch ev.Type {
		case engine.EventTaskAsking:
			return fmt.Sprintf("  %s asks you: %s\n         answer with: nova build answer %s %s \"…\"   (then `nova workflow resume`)",
				ev.TaskID, ev.Text, ev.BuildID, ev.TaskID)
		case engine.EventTaskWaiting, engine.EventTaskEscalated, engine.EventBudgetWarning:
			return "  " + ev.Text
		}
		return ""
	}
	switch ev.Type {
	case engine.EventStep:
		return stepGlyph(workflow.StepStatus(ev.Status)) + " " + ev.Text
	case engine.EventChanged:
		if ev.TaskID != "" {
			return "  ↳ " + ev.Text
		}
		return ""
	default:
		return ev.Text
	}
}

func stepGlyph(s workflow.StepStatus) string {
	switch s {
	case workflow.StepRunning:
		return "●"
	case workflow.StepDone:
		return "✓"
	case workflow.StepFailed:
		return "✗"
	case workflow.StepSkipped:
		return "–"
	default:
		return "·"
	}
}

// runStatus is how a run is shown: a run stored as running that no process
// runs was interrupted.
func runStatus(r workflow.Run) string {
	if r.Status == workflow.RunRunning && !r.Active {
		return "interrupted"
	}
	return string(r.Status)
}

// printWorkflowRun writes a run and its steps; outputs adds a preview of
// each step's output.
func printWorkflowRun(io *IOStreams, r workflow.Run, outputs bool) {
	p := io.Printf
	done, total := r.Counts()
	p("workflow %s run %d %s: %d/%d steps finished", r.Workflow, r.ID, runStatus(r), done, total)
	if r.Reason != "" {
		p(" — %s", r.Reason)
	}
	p("\n")
	if len(r.Params) > 0 {
		var kv []string
		for _, k := range sortedKeys(r.Params) {
			kv = append(kv, fmt.Sprintf("%s=%v", k, r.Params[k]))
		}
		p("params: %s\n", clipLine(strings.Join(kv, " "), 120))
	}
	var pending []uint64
	for _, s := range r.Steps {
		who := s.Agent
		if s.Skill != "" {
			who = "skill " + s.Skill
		}
		line := fmt.Sprintf("  %s %-14s %-8s %-22s", stepGlyph(s.Status), s.ID, s.Status, who)
		switch {
		case s.BuildID != 0:
			line += fmt.Sprintf(" build %d", s.BuildID)
		case s.AgentRunID != 0:
			line += fmt.Sprintf(" run #%d", s.AgentRunID)
		}
		if s.ChangesetID != 0 {
			state := "pending"
			if s.Applied {
				state = "applied"
			} else {
				pending = append(pending, s.ChangesetID)
			}
			line += fmt.Sprintf(" changeset %d (%s)", s.ChangesetID, state)
		}
		p("%s\n", strings.TrimRight(line, " "))
		if s.Reason != "" && s.Status != workflow.StepDone {
			p("      %s\n", clipLine(s.Reason, 110))
		}
		if outputs && strings.TrimSpace(s.Output) != "" {
			text, cut := firstLines(s.Output, 6)
			p("%s\n", indent(text, "      │ "))
			if cut {
				p("      │ …\n")
			}
		}
	}
	for _, id := range pending {
		p("changeset %d waits for your approval: `nova changes show %d`, then `nova changes apply %d`\n", id, id, id)
	}
}

// workflowRunsOptions is `nova workflow runs`.
type workflowRunsOptions struct {
	*Env
	JSON bool
}

func newWorkflowRunsCmd(env *Env, runF func(context.Context, *workflowRunsOptions) error) *cobra.Command {
	opts := &workflowRunsOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "List workflow runs, newest first",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return pick(runF, runWorkflowRuns)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print a JSON array of runs")
	return cmd
}

func runWorkflowRuns(ctx context.Context, opts *workflowRunsOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		rs, err := ws.ListWorkflowRuns(ctx, 0)
		if err != nil {
			return err
		}
		if opts.JSON {
			if rs == nil {
				rs = []workflow.Run{}
			}
			return opts.IO.PrintJSON(rs)
		}
		if len(rs) == 0 {
			opts.IO.Printf("no workflow runs (start one with `nova workflow run ID`)\n")
			return nil
		}
		opts.IO.Printf("%-5s %-14s %-11s %-6s %-17s %s\n", "ID", "WORKFLOW", "STATUS", "STEPS", "CREATED", "PARAMS")
		for _, r := range rs {
			done, total := r.Counts()
			var kv []string
			for _, k := range sortedKeys(r.Params) {
				kv = append(kv, fmt.Sprintf("%s=%v", k, r.Params[k]))
			}
			opts.IO.Printf("%-5d %-14s %-11s %-6s %-17s %s\n", r.ID, clipLine(r.Workflow, 14), runStatus(r), fmt.Sprintf("%d/%d", done, total),
				r.CreatedAt.Local().Format("2006-01-02 15:04"), clipLine(strings.Join(kv, " "), 50))
		}
		return nil
	})
}

// workflowStatusOptions is `nova workflow status RUN`.
type workflowStatusOptions struct {
	*Env
	ID   uint64
	JSON bool
}

func newWorkflowStatusCmd(env *Env, runF func(context.Context, *workflowStatusOptions) error) *cobra.Command {
	opts := &workflowStatusOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "status RUN",
		Short: "Show a workflow run: its steps, their builds and outputs",
		Args:  exactArgs(1, "a workflow run id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := workflowRunID(args[0])
			if err != nil {
				return err
			}
			opts.ID = id
			return pick(runF, runWorkflowStatus)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the run as JSON")
	return cmd
}

func runWorkflowStatus(ctx context.Context, opts *workflowStatusOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		r, err := ws.GetWorkflowRun(ctx, opts.ID)
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(r)
		}
		printWorkflowRun(opts.IO, r, true)
		if r.Status != workflow.RunDone {
			opts.IO.Printf("`nova workflow resume %d` continues it\n", r.ID)
		}
		return nil
	})
}
