package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/board"
	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/changes"
)

func newBuildCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{Use: "build", Short: "Run PRDs through the agent team (the build loop)"}
	cmd.AddCommand(newBuildRunCmd(env, nil), newBuildResumeCmd(env, nil), newBuildListCmd(env, nil), newBuildShowCmd(env, nil),
		newBuildAnswerCmd(env, nil), newBuildBoardCmd(env, nil), newBoardResolveCmd(env, board.KindBuild, nil))
	return cmd
}

func buildID(s string) (uint64, error) {
	id, err := build.ParseID(s)
	if err != nil {
		return 0, usagef("%q is not a build id (a positive number, see `nova build list`)", s)
	}
	return id, nil
}

// buildRunOptions is `nova build run PRD`.
type buildRunOptions struct {
	*Env
	PRD      string
	Build    engine.BuildOptions
	Headless bool
	JSON     bool
}

func newBuildRunCmd(env *Env, runF func(context.Context, *buildRunOptions) error) *cobra.Command {
	opts := &buildRunOptions{Env: env}
	var autonomy int
	cmd := &cobra.Command{
		Use:   "run PRD",
		Short: "Validate a PRD and run it to the end (exit 0 when every task is done)",
		Long: "Runs every task of the PRD (JSON or YAML; a bare name is also looked up in .nova/prds/).\n" +
			"Progress lines go to stdout; with --json, one event per line {type,taskId,status,time,...}.\n" +
			"ctrl+c leaves a resumable build (`nova build resume ID`). The interactive path is the TUI's Build page;\n" +
			"without --headless this command runs headless too.",
		Args: exactArgs(1, "a PRD file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Build.Autonomy = nil
			if cmd.Flags().Changed("autonomy") {
				if autonomy < 0 || autonomy > 5 {
					return usagef("--autonomy must be between 0 and 5, got %d", autonomy)
				}
				opts.Build.Autonomy = &autonomy
			}
			opts.PRD = args[0]
			return pick(runF, runBuildRun)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Headless, "headless", false, "no TUI: print progress lines (the default for this command)")
	cmd.Flags().IntVar(&autonomy, "autonomy", 0, "autonomy level 0-5 for this build (default: config); ≥ 3 applies changesets")
	cmd.Flags().BoolVar(&opts.Build.Rehearse, "rehearse", false, "rehearse every task (premium tier)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "one JSON event per line")
	return cmd
}

func runBuildRun(ctx context.Context, opts *buildRunOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		path := resolvePRD(ws.Info().Dir, opts.Env, opts.PRD)
		b, err := ws.CreateBuild(ctx, path, opts.Build)
		if err != nil {
			return err
		}
		if !opts.JSON {
			opts.IO.Printf("build %d: %s (%s, autonomy %d, tier %s)\n", b.ID, b.Name, plural(b.Total, "task", "tasks"), b.Autonomy, b.Tier)
		}
		return followBuild(ctx, opts.Env, ws, b.ID, opts.JSON)
	})
}

// buildResumeOptions is `nova build resume ID`.
type buildResumeOptions struct {
	*Env
	ID       uint64
	JSON     bool
	Headless bool // accepted as for `build run`: resume always runs headless
}

func newBuildResumeCmd(env *Env, runF func(context.Context, *buildResumeOptions) error) *cobra.Command {
	opts := &buildResumeOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "resume ID",
		Short: "Finish a paused, interrupted, canceled or failed build (done tasks are not re-run)",
		Args:  exactArgs(1, "a build id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := buildID(args[0])
			if err != nil {
				return err
			}
			opts.ID = id
			return pick(runF, runBuildResume)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "one JSON event per line")
	cmd.Flags().BoolVar(&opts.Headless, "headless", false, "no TUI: print progress lines (the default for this command, as for `build run`)")
	return cmd
}

func runBuildResume(ctx context.Context, opts *buildResumeOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		b, err := ws.GetBuild(ctx, opts.ID)
		if err != nil {
			return err
		}
		if b.Status == build.StatusDone {
			if opts.JSON {
				return opts.IO.PrintJSON(b.Summary())
			}
			opts.IO.Printf("build %d is already done (%d/%d tasks)\n", b.ID, b.Counts[build.TaskDone], b.Total)
			return nil
		}
		if b.Led {
			// A goal run's build holds the lead's delegations: run on its
			// own it has nothing to do and would "finish" an unfinished run.
			return usagef("build %d carries the delegations of %s: resume the goal run with `nova run resume %s`",
				b.ID, goalRunOf(ctx, ws, b.ID, "a goal run"), goalRunOf(ctx, ws, b.ID, "ID"))
		}
		if !opts.JSON {
			opts.IO.Printf("resuming build %d: %s (%d/%d done)\n", b.ID, b.Name, b.Counts[build.TaskDone], b.Total)
		}
		return followBuild(ctx, opts.Env, ws, opts.ID, opts.JSON)
	})
}

// buildListOptions is `nova build list`.
type buildListOptions struct {
	*Env
	JSON bool
}

func newBuildListCmd(env *Env, runF func(context.Context, *buildListOptions) error) *cobra.Command {
	opts := &buildListOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List builds, newest first",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return pick(runF, runBuildList)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

func runBuildList(ctx context.Context, opts *buildListOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		bs, err := ws.ListBuilds(ctx)
		if err != nil {
			return err
		}
		if opts.JSON {
			if bs == nil {
				bs = []build.Build{}
			}
			return opts.IO.PrintJSON(bs)
		}
		if len(bs) == 0 {
			opts.IO.Printf("no builds (start one with `nova build run PRD`)\n")
			return nil
		}
		opts.IO.Printf("%-5s %-11s %-7s %-8s %-17s %s\n", "ID", "STATUS", "DONE", "TOKENS", "CREATED", "NAME")
		for _, b := range bs {
			name := clipLine(b.Name, 50)
			if n := unverifiedTasks(ctx, ws, b); n > 0 {
				name += fmt.Sprintf("  (%d done (unverified))", n)
			}
			opts.IO.Printf("%-5d %-11s %-7s %-8d %-17s %s\n", b.ID, b.Status, fmt.Sprintf("%d/%d", b.Counts[build.TaskDone], b.Total),
				b.Tokens, b.CreatedAt.Local().Format("2006-01-02 15:04"), name)
		}
		return nil
	})
}

// buildShowOptions is `nova build show ID`.
type buildShowOptions struct {
	*Env
	ID   uint64
	JSON bool
}

func newBuildShowCmd(env *Env, runF func(context.Context, *buildShowOptions) error) *cobra.Command {
	opts := &buildShowOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Show a build and its tasks by phase",
		Args:  exactArgs(1, "a build id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := buildID(args[0])
			if err != nil {
				return err
			}
			opts.ID = id
			return pick(runF, runBuildShow)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

func runBuildShow(ctx context.Context, opts *buildShowOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		b, err := ws.GetBuild(ctx, opts.ID)
		if err != nil {
			return err
		}
		tasks, err := ws.BuildTasks(ctx, opts.ID)
		if err != nil {
			return err
		}
		v, err := ws.GetBoard(ctx, b.BoardKey())
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(struct {
				build.Build
				Phases []build.Phase    `json:"phases"`
				Board  engine.BoardView `json:"board"`
			}{Build: b.Summary(), Phases: build.GroupByPhase(tasks), Board: v})
		}
		printBuild(opts.IO, b, tasks, changesetStates(ctx, ws, tasks))
		bd := v.Board
		opts.IO.Printf("\nboard %s: %s, %s, %s, %s (nova build board %d)\n", bd.Key,
			plural(len(bd.Decisions), "key decision", "key decisions"), plural(len(bd.Blockers), "open blocker", "open blockers"),
			plural(bd.ArtifactCount, "artifact", "artifacts"), plural(bd.Handoffs, "handoff", "handoffs"), b.ID)
		return nil
	})
}

// resolvePRD finds a PRD argument: as given (against the command's
// directory), else under .nova/prds/. The result is absolute.
func resolvePRD(novaDir string, env *Env, arg string) string {
	given := env.abs(arg)
	if _, err := os.Stat(given); err == nil {
		return given
	}
	for _, cand := range []string{arg, arg + ".json", arg + ".yaml", "prd-" + arg + ".json"} {
		p := filepath.Join(novaDir, "prds", cand)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return given
}

// isBuildEnd reports the last event of a build's run: done, failed, or the
// "build paused: …" / "build canceled: …" change published when it stops.
func isBuildEnd(ev engine.Event, id string) bool {
	if ev.Topic != engine.TopicBuild || ev.BuildID != id {
		return false
	}
	switch ev.Type {
	case engine.EventDone, engine.EventFailed:
		return true
	case engine.EventChanged:
		return strings.HasPrefix(ev.Text, "build "+ev.Status+":")
	}
	return false
}

// followBuild runs a build (blocking) while it prints the build's events,
// and maps the end state to the exit code (0 only when every task is done).
// Nobody can answer a command approval here: the build denies them
// (headless), which the events report.
func followBuild(ctx context.Context, env *Env, ws engine.Workspace, id uint64, asJSON bool) error {
	subCtx, stopSub := context.WithCancel(context.WithoutCancel(ctx))
	defer stopSub()
	events := followEvents(subCtx, ws)
	sid := strconv.FormatUint(id, 10)
	// show prints one event the way this command does; true for the
	// build's last event.
	show := func(ev engine.Event) bool {
		if ev.Topic == engine.TopicAgent && ev.BuildID == sid && !asJSON && ev.Agent != nil && ev.Agent.Type == agents.EventFit {
			// A task's prompt was trimmed to fit the model's context.
			env.IO.Printf("%s %s: %s\n", ev.Time.Local().Format("15:04:05"), ev.TaskID, ev.Agent.Text)
			return false
		}
		if ev.Topic != engine.TopicBuild || ev.BuildID != sid {
			return false
		}
		if asJSON {
			printEventJSON(env, ev)
		} else if ev.Type != engine.EventTaskWaiting { // the task's own line says why it waits
			printTimed(env, ev, eventLine(ev))
			if ev.Type == engine.EventTaskAsking {
				env.IO.Printf("         answer with: nova build answer %s %s \"…\"   (then `nova build resume %s`)\n", sid, ev.TaskID, sid)
			}
		}
		return isBuildEnd(ev, sid)
	}
	printed, sawEnd := printEvents(events, show)
	f := buildFollower(ws, id)
	b, err := ws.RunBuild(ctx, id, engine.RunBuildOptions{Approvals: engine.ApproveNone})
	if b, err = f.settle(ctx, env, printed, stopSub, b, err); err != nil {
		return err
	}
	f.showEnd(b, printed, stopSub, sawEnd, show)
	if b.Status == build.StatusDone {
		return nil
	}
	if asJSON {
		return &reportedError{msg: string(b.Status)}
	}
	return fmt.Errorf("build %d %s: %s", b.ID, b.Status, b.Reason)
}

func eventLine(ev engine.Event) string {
	switch ev.Type {
	case engine.EventTask:
		return fmt.Sprintf("[%d/%d] %s", ev.Done, ev.Total, ev.Text)
	case engine.EventTaskAsking:
		return fmt.Sprintf("%s asks you: %s", ev.TaskID, ev.Text)
	case engine.EventBudgetWarning:
		return fmt.Sprintf("budget: %s", ev.Text)
	default:
		return ev.Text
	}
}

// goalRunOf names the goal run whose delegations build id carries ("goal
// run 3", or just "3" when unknown is "ID"), or unknown when none is found.
func goalRunOf(ctx context.Context, ws engine.Workspace, id uint64, unknown string) string {
	runs, err := ws.ListGoalRuns(ctx)
	if err != nil {
		return unknown
	}
	for _, r := range runs {
		if r.BuildID == id {
			if unknown == "ID" {
				return strconv.FormatUint(r.ID, 10)
			}
			return fmt.Sprintf("goal run %d", r.ID)
		}
	}
	return unknown
}

// changesetStates reads the status of each task's changeset as it is now
// (applied, reverted, discarded since the task ended); one that cannot be
// read is left out.
func changesetStates(ctx context.Context, ws engine.Workspace, tasks []build.Task) map[uint64]changes.Status {
	out := map[uint64]changes.Status{}
	for _, t := range tasks {
		if t.ChangesetID == 0 {
			continue
		}
		if cs, err := ws.GetChange(ctx, t.ChangesetID); err == nil {
			out[t.ChangesetID] = cs.Status
		}
	}
	return out
}

// printBuild prints a build and its tasks; states are the tasks'
// changesets' statuses now (changesetStates), the task's record otherwise.
func printBuild(io *IOStreams, b build.Build, tasks []build.Task, states map[uint64]changes.Status) {
	p := io.Printf
	p("build %d: %s\n", b.ID, b.Name)
	p("status:   %s", b.Status)
	if b.Reason != "" {
		p(" — %s", b.Reason)
	}
	p("\nprd:      %s\nautonomy: %d   tier: %s   tokens: %d", b.PRDPath, b.Autonomy, b.Tier, b.Tokens)
	if b.TokenBudget > 0 {
		p(" / %d", b.TokenBudget)
	}
	p("\ntasks:    %d/%d done\nwisdom:   %d learned, %d strengthened, %d reinforced, %d mistakes\n",
		b.Counts[build.TaskDone], b.Total, b.Wisdom.Learned, b.Wisdom.Strengthened, b.Wisdom.Reinforced, b.Wisdom.Mistakes)
	for _, ph := range build.GroupByPhase(tasks) {
		p("\nphase %d (%d/%d done)\n", ph.Phase, ph.Done, len(ph.Tasks))
		for _, t := range ph.Tasks {
			line := fmt.Sprintf("  %-10s %-8s %-11s att %d  score %.2f  %6s", t.ID, t.Agent, taskStatus(t), t.Attempts, t.Score,
				t.Duration.Round(time.Millisecond))
			if t.ChangesetID != 0 {
				state := "pending"
				if t.Applied {
					state = "applied"
				}
				if st, ok := states[t.ChangesetID]; ok {
					state = string(st)
				}
				line += fmt.Sprintf("  changeset %d (%s)", t.ChangesetID, state)
			}
			p("%s  %s\n", line, clipLine(t.Title, 40))
			if t.Reason != "" && t.Status != build.TaskDone && t.Status != build.TaskWaiting { // a wait says why below
				p("             reason: %s\n", clipLine(t.Reason, 100))
			}
			printTaskTrust(io, b.ID, t)
			if len(t.KnowledgeIDs) > 0 {
				p("             knowledge: %s\n", clipLine(strings.Join(t.KnowledgeIDs, ", "), 100))
			}
		}
	}
}

// unverifiedTasks counts a build's done tasks that are "done (unverified)"
// (0 when the build has no done task or its tasks cannot be read: the list
// still prints).
func unverifiedTasks(ctx context.Context, ws engine.Workspace, b build.Build) int {
	if b.Counts[build.TaskDone] == 0 {
		return 0
	}
	tasks, err := ws.BuildTasks(ctx, b.ID)
	if err != nil {
		return 0
	}
	n := 0
	for _, t := range tasks {
		if taskStatus(t) != string(t.Status) {
			n++
		}
	}
	return n
}

// taskStatus is a build task's status for people: "done (unverified)" for
// a done task that staged changes nothing executed.
func taskStatus(t build.Task) string {
	changed := 0
	if t.ChangesetID != 0 {
		changed = 1 // a task's changeset holds its staged files
	}
	return agents.DisplayStatus(string(t.Status), changed, t.Verified)
}

// printTaskTrust prints what `build show` says beyond the task line: the
// verifier's verdict with its problem lines, the warning of a task marked
// done without proof, and what a waiting task waits for.
func printTaskTrust(io *IOStreams, buildID uint64, t build.Task) {
	const pad = "             "
	if v := t.Verdict; v != nil && v.Status != "" {
		io.Printf("%sverdict: %s\n", pad, v.Status)
		for _, l := range v.ProblemLines() {
			io.Printf("%s  %s\n", pad, clipLine(l, 200))
		}
	}
	if t.Warning != "" {
		io.Printf("%swarning: %s\n", pad, clipLine(t.Warning, 200))
	}
	if t.Status != build.TaskWaiting {
		return
	}
	switch {
	case t.WaitFor == build.WaitUser:
		io.Printf("%swaiting for your answer: %s\n", pad, clipLine(t.Question, 200))
		io.Printf("%s  answer with: nova build answer %d %s \"…\"\n", pad, buildID, t.ID)
	case t.Reason != "":
		io.Printf("%s%s\n", pad, clipLine(t.Reason, 200))
	case t.WaitFor != "":
		io.Printf("%swaiting for %s\n", pad, t.WaitFor)
	}
}

// buildAnswerOptions is `nova build answer ID TASK TEXT`.
type buildAnswerOptions struct {
	*Env
	ID           uint64
	Task, Answer string
	JSON         bool
}

func newBuildAnswerCmd(env *Env, runF func(context.Context, *buildAnswerOptions) error) *cobra.Command {
	opts := &buildAnswerOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "answer ID TASK TEXT",
		Short: "Answer a build task that asks you (its next attempt gets the answer)",
		Long: "A task whose agent asked for help (recovery hint ask_user) waits for your answer; `nova build\n" +
			"show ID` shows the question. The answer goes into the task's next attempt. When the build\n" +
			"runs in the workspace's owner (the TUI) it continues at once; otherwise `nova build resume ID`\n" +
			"continues it.",
		Args: exactArgs(3, "a build id, a task id and the answer"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := buildID(args[0])
			if err != nil {
				return err
			}
			opts.ID, opts.Task, opts.Answer = id, strings.TrimSpace(args[1]), strings.TrimSpace(args[2])
			if opts.Task == "" {
				return usagef("the task id is empty (see `nova build show %d`)", id)
			}
			if opts.Answer == "" {
				return usagef("the answer is empty: write what the task should know, in quotes")
			}
			return pick(runF, runBuildAnswer)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {buildId,taskId,resumed}")
	return cmd
}

func runBuildAnswer(ctx context.Context, opts *buildAnswerOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		resumed, err := ws.AnswerTask(ctx, opts.ID, opts.Task, opts.Answer)
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(map[string]any{"buildId": opts.ID, "taskId": opts.Task, "resumed": resumed})
		}
		if resumed {
			opts.IO.Printf("answered %s; build %d continues\n", opts.Task, opts.ID)
			return nil
		}
		opts.IO.Printf("answered %s; `nova build resume %d` continues the build\n", opts.Task, opts.ID)
		return nil
	})
}

// planOptions is `nova plan GOAL`.
type planOptions struct {
	*Env
	Goal, Output string
	JSON         bool
}

func newPlanCmd(env *Env, runF func(context.Context, *planOptions) error) *cobra.Command {
	opts := &planOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "plan GOAL",
		Short: "Ask SUN for a PRD for a goal, validate it and save it to .nova/prds/ for review",
		Args:  exactArgs(1, "a goal (quote it)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Goal = strings.TrimSpace(args[0])
			if opts.Goal == "" {
				return usagef("the goal is empty")
			}
			return pick(runF, runPlan)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {path, prd} as JSON")
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "", "write the PRD to this file instead of .nova/prds/")
	return cmd
}

func runPlan(ctx context.Context, opts *planOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		if !opts.JSON {
			opts.IO.Logf("asking SUN (%s) for a plan…\n", engine.PlannerModel(ws.Config()))
		}
		wp, err := ws.WritePlan(ctx, opts.Goal, opts.abs(opts.Output))
		if err != nil {
			return err
		}
		for _, w := range wp.Warnings {
			opts.IO.Logf("warning: %s\n", w)
		}
		if opts.JSON {
			return opts.IO.PrintJSON(wp)
		}
		p := wp.PRD
		opts.IO.Printf("saved %s (%s in %s)\n", wp.Path, plural(len(p.Tasks), "task", "tasks"), plural(len(p.Phases()), "phase", "phases"))
		for _, t := range p.Tasks {
			opts.IO.Printf("  %-8s phase %d  %-8s %s\n", t.ID, t.Phase, t.Agent, clipLine(t.Title, 60))
		}
		opts.IO.Printf("review it, then: nova build run %s\n", wp.Path)
		return nil
	})
}
