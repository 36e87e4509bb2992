package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/board"
	"github.com/nova-dev/nova/engine/goal"
)

// runLimits are the limit flags of `nova run` and `nova run resume`.
type runLimits struct {
	MaxTurns    int
	MaxTokens   int
	MaxDuration time.Duration
}

func (l *runLimits) flags(cmd *cobra.Command) {
	cmd.Flags().IntVar(&l.MaxTurns, "max-turns", 0, "at most this many decisions of the lead (default: orchestrator.maxTurns)")
	cmd.Flags().IntVar(&l.MaxTokens, "max-tokens", 0, "at most this many tokens, lead and delegations (default: orchestrator.maxTokens)")
	cmd.Flags().DurationVar(&l.MaxDuration, "max-duration", 0, "at most this much active time, e.g. 45m (default: orchestrator.maxDuration)")
}

func (l *runLimits) check() error {
	switch {
	case l.MaxTurns < 0 || l.MaxTurns > 200:
		return usagef("--max-turns must be between 1 and 200, got %d", l.MaxTurns)
	case l.MaxTokens < 0:
		return usagef("--max-tokens must not be negative, got %d", l.MaxTokens)
	case l.MaxDuration < 0:
		return usagef("--max-duration must not be negative, got %s", l.MaxDuration)
	}
	return nil
}

// goalRunOptions is `nova run "GOAL"`.
type goalRunOptions struct {
	*Env
	Goal     string
	Run      engine.GoalRunOptions
	Headless bool
	JSON     bool
}

func newRunCmd(env *Env, runF func(context.Context, *goalRunOptions) error) *cobra.Command {
	opts := &goalRunOptions{Env: env}
	var limits runLimits
	var autonomy int
	cmd := &cobra.Command{
		Use:   `run "GOAL"`,
		Short: "Hand a goal to the team: the lead delegates, evaluates and completes it (goal runs)",
		Long: "The lead (SUN unless --lead names another agent) decides turn by turn: delegate one task to one\n" +
			"specialist, complete the goal, or escalate a question to you. Each delegation runs through the agent\n" +
			"loop with the usual staging, gates and verification; its outcome goes back to the lead. The team shares\n" +
			"a session board (decisions, goal, blockers, artifacts). Progress lines go to stdout; with --json, one\n" +
			"event per line. ctrl+c leaves a resumable run (`nova run resume ID`). The interactive path is the\n" +
			"TUI's Run screen (n); this command runs headless: commands the agents want to run are denied.",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("nova run needs a goal in quotes, or one of: list, show ID, resume ID, answer ID TEXT, artifact ID, resolve ID BLOCKER")
			}
			if len(args) > 1 {
				return usagef("nova run takes one goal: quote it (got %d arguments)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Goal = strings.TrimSpace(args[0])
			if opts.Goal == "" {
				return usagef("the goal is empty")
			}
			if err := limits.check(); err != nil {
				return err
			}
			opts.Run.MaxTurns, opts.Run.MaxTokens, opts.Run.MaxDuration = limits.MaxTurns, limits.MaxTokens, limits.MaxDuration
			opts.Run.Autonomy = nil
			if cmd.Flags().Changed("autonomy") {
				if autonomy < 0 || autonomy > 5 {
					return usagef("--autonomy must be between 0 and 5, got %d", autonomy)
				}
				opts.Run.Autonomy = &autonomy
			}
			return pick(runF, runGoalRun)(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Run.Lead, "lead", "", "the agent that leads (default: orchestrator.lead, SUN)")
	cmd.Flags().BoolVar(&opts.Headless, "headless", false, "no TUI: print progress lines (the default for this command)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "one JSON event per line")
	cmd.Flags().IntVar(&autonomy, "autonomy", 0, "autonomy level 0-5 for the delegations (default: config); ≥ 3 applies changesets")
	limits.flags(cmd)
	cmd.AddCommand(newRunListCmd(env, nil), newRunShowCmd(env, nil), newRunResumeCmd(env, nil), newRunAnswerCmd(env, nil),
		newRunArtifactCmd(env, nil), newRunResolveCmd(env, nil))
	return cmd
}

func runGoalRun(ctx context.Context, opts *goalRunOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		r, err := ws.CreateGoalRun(ctx, opts.Goal, opts.Run)
		if err != nil {
			return err
		}
		if !opts.JSON {
			opts.IO.Printf("run %d: %s\n", r.ID, clipLine(r.Goal, 120))
			opts.IO.Printf("lead %s · at most %d turns%s · board %s\n", r.Lead, r.Limits.MaxTurns, limitsTail(r.Limits), r.Board)
		}
		return followGoal(ctx, opts.Env, ws, r.ID, engine.RunGoalOptions{Approvals: engine.ApproveNone}, opts.JSON)
	})
}

func limitsTail(l goal.Limits) string {
	var s string
	if l.MaxTokens > 0 {
		s += fmt.Sprintf(" · %d tokens", l.MaxTokens)
	}
	if l.MaxDuration > 0 {
		s += " · " + l.MaxDuration.String()
	}
	return s
}

// isGoalEnd reports the last event of a goal run's session.
func isGoalEnd(ev engine.Event, id string) bool {
	if ev.Topic != engine.TopicGoal || ev.GoalRunID != id {
		return false
	}
	switch ev.Type {
	case engine.EventDone, engine.EventFailed:
		return true
	case engine.EventChanged:
		return strings.HasPrefix(ev.Text, "run "+ev.Status+":")
	}
	return false
}

// followGoal runs a goal run (blocking) while it prints the run's events,
// and maps the end state to the exit code (0 only when the lead completed
// the goal).
func followGoal(ctx context.Context, env *Env, ws engine.Workspace, id uint64, o engine.RunGoalOptions, asJSON bool) error {
	subCtx, stopSub := context.WithCancel(context.WithoutCancel(ctx))
	defer stopSub()
	events := followEvents(subCtx, ws)
	sid := strconv.FormatUint(id, 10)
	// show prints one event the way this command does; true for the
	// run's last event.
	show := func(ev engine.Event) bool {
		if ev.GoalRunID != sid || ev.Type == engine.EventDelta || ev.Type == engine.EventProgress {
			return false
		}
		if asJSON {
			if ev.Topic == engine.TopicGoal || ev.Topic == engine.TopicBuild || ev.Topic == engine.TopicBoard {
				printEventJSON(env, ev)
			}
		} else if line := goalEventLine(ev); line != "" {
			printTimed(env, ev, line)
		}
		return isGoalEnd(ev, sid)
	}
	printed, sawEnd := printEvents(events, show)
	f := goalFollower(ws, id)
	r, err := ws.RunGoal(ctx, id, o)
	if r, err = f.settle(ctx, env, printed, stopSub, r, err); err != nil {
		return err
	}
	f.showEnd(r, printed, stopSub, sawEnd, show)
	if r.Status == goal.StatusCompleted {
		return nil
	}
	if asJSON {
		return &reportedError{msg: string(r.Status)}
	}
	return fmt.Errorf("run %d %s: %s", r.ID, r.Status, r.Reason)
}

// goalEventLine is one progress line ("" = not shown in text mode).
func goalEventLine(ev engine.Event) string {
	switch ev.Topic {
	case engine.TopicGoal:
		switch ev.Type {
		case engine.EventLeadDecision:
			return fmt.Sprintf("turn %d · %s", ev.Done, clipLine(ev.Text, 300))
		case engine.EventDecisionRejected:
			return fmt.Sprintf("turn %d · rejected: %s", ev.Done, clipLine(ev.Text, 300))
		case engine.EventDelegationOutcome:
			return "  " + clipLine(ev.Text, 400)
		case engine.EventGoalWaiting:
			return ev.Text
		case engine.EventGoalAsking:
			return fmt.Sprintf("the lead asks you: %s\n         answer with: nova run answer %s \"…\"   (then `nova run resume %s`)",
				clipLine(ev.Text, 300), ev.GoalRunID, ev.GoalRunID)
		case engine.EventDelegation:
			return ""
		}
		if strings.HasPrefix(ev.Text, "goal run created") || ev.Text == "the run goes on" {
			return ""
		}
		return clipLine(ev.Text, 300)
	case engine.TopicBuild:
		switch ev.Type {
		case engine.EventTaskWaiting, engine.EventTaskEscalated:
			return "  " + ev.TaskID + ": " + clipLine(strings.TrimPrefix(ev.Text, ev.TaskID+": "), 300)
		case engine.EventLog:
			return "  " + clipLine(ev.Text, 300)
		case engine.EventTask:
			if ev.Status == "running" {
				return "  " + clipLine(ev.Text, 200)
			}
		}
	case engine.TopicBoard:
		switch ev.Status {
		case "blocker", "resolved":
			return "  board " + ev.Status + " (" + ev.Text + ")"
		}
	}
	return ""
}

func goalRunID(s string) (uint64, error) { return parseID(s, "goal run", "nova run list") }

// goalResumeOptions is `nova run resume ID`.
type goalResumeOptions struct {
	*Env
	ID     uint64
	Limits runLimits
	JSON   bool
}

func newRunResumeCmd(env *Env, runF func(context.Context, *goalResumeOptions) error) *cobra.Command {
	opts := &goalResumeOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "resume ID",
		Short: "Go on with an interrupted, paused or stopped goal run (nothing done is redone)",
		Long: "An unfinished delegation goes on first; then the lead decides again. A run a limit stopped goes on\n" +
			"when you raise the limit (--max-turns, --max-tokens, --max-duration).",
		Args: exactArgs(1, "a goal run id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := goalRunID(args[0])
			if err != nil {
				return err
			}
			if err := opts.Limits.check(); err != nil {
				return err
			}
			opts.ID = id
			return pick(runF, runGoalResume)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "one JSON event per line")
	opts.Limits.flags(cmd)
	return cmd
}

func runGoalResume(ctx context.Context, opts *goalResumeOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		d, err := ws.GetGoalRun(ctx, opts.ID)
		if err != nil {
			return err
		}
		r := d.Run
		if r.Status == goal.StatusCompleted {
			if opts.JSON {
				return opts.IO.PrintJSON(r)
			}
			opts.IO.Printf("run %d is already completed (%s)\n", r.ID, plural(r.Turns, "turn", "turns"))
			return nil
		}
		if !opts.JSON {
			opts.IO.Printf("resuming run %d: %s (%s, %s so far)\n", r.ID, clipLine(r.Goal, 100), r.Status, plural(r.Turns, "turn", "turns"))
		}
		return followGoal(ctx, opts.Env, ws, opts.ID, engine.RunGoalOptions{Approvals: engine.ApproveNone,
			MaxTurns: opts.Limits.MaxTurns, MaxTokens: opts.Limits.MaxTokens, MaxDuration: opts.Limits.MaxDuration}, opts.JSON)
	})
}

// goalListOptions is `nova run list`.
type goalListOptions struct {
	*Env
	JSON bool
}

func newRunListCmd(env *Env, runF func(context.Context, *goalListOptions) error) *cobra.Command {
	opts := &goalListOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List goal runs, newest first",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return pick(runF, runGoalList)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print a JSON array of runs")
	return cmd
}

func runGoalList(ctx context.Context, opts *goalListOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		rs, err := ws.ListGoalRuns(ctx)
		if err != nil {
			return err
		}
		if opts.JSON {
			if rs == nil {
				rs = []goal.Run{}
			}
			return opts.IO.PrintJSON(rs)
		}
		if len(rs) == 0 {
			opts.IO.Printf("no goal runs (start one with `nova run \"GOAL\"`)\n")
			return nil
		}
		opts.IO.Printf("%-5s %-11s %-5s %-8s %-17s %-6s %s\n", "ID", "STATUS", "TURNS", "TOKENS", "CREATED", "LEAD", "GOAL")
		for _, r := range rs {
			opts.IO.Printf("%-5d %-11s %-5d %-8d %-17s %-6s %s\n", r.ID, r.Status, r.Turns, r.Tokens,
				r.CreatedAt.Local().Format("2006-01-02 15:04"), r.Lead, clipLine(r.Goal, 60))
		}
		return nil
	})
}

// goalShowOptions is `nova run show ID`.
type goalShowOptions struct {
	*Env
	ID   uint64
	JSON bool
}

func newRunShowCmd(env *Env, runF func(context.Context, *goalShowOptions) error) *cobra.Command {
	opts := &goalShowOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Show a goal run: the lead's timeline, each delegation's outcome and handoff, and the board",
		Args:  exactArgs(1, "a goal run id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := goalRunID(args[0])
			if err != nil {
				return err
			}
			opts.ID = id
			return pick(runF, runGoalShow)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {run, turns, board, handoffs} as JSON")
	return cmd
}

func runGoalShow(ctx context.Context, opts *goalShowOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		d, err := ws.GetGoalRun(ctx, opts.ID)
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(d)
		}
		printGoalRun(opts.IO, d)
		return nil
	})
}

func printGoalRun(io *IOStreams, d goal.Detail) {
	p := io.Printf
	r := d.Run
	p("run %d: %s\n", r.ID, r.Goal)
	p("status:   %s", r.Status)
	if r.Reason != "" {
		p(" — %s", r.Reason)
	}
	p("\nlead:     %s   turns: %d/%d   delegations: %d   tokens: %d", r.Lead, r.Turns, r.Limits.MaxTurns, r.Delegations, r.Tokens)
	if r.Limits.MaxTokens > 0 {
		p(" / %d", r.Limits.MaxTokens)
	}
	p("\nagents:   %s\nbuild:    %d (nova build show %d)   active time: %s\n", orNone(r.Agents), r.BuildID, r.BuildID, r.Elapsed.Round(time.Second))
	if r.Question != "" {
		p("question: %s\n          answer with: nova run answer %d \"…\"\n", r.Question, r.ID)
	}
	if r.Summary != "" {
		p("summary:  %s\n", r.Summary)
	}
	p("\ntimeline\n")
	if len(d.Turns) == 0 {
		p("  (no turns yet)\n")
	}
	for _, t := range d.Turns {
		switch t.Kind {
		case goal.TurnInvalid:
			p("  %2d  invalid   %s\n", t.N, clipLine(t.Rejected, 160))
			continue
		case goal.TurnRejected:
			what := ""
			if t.Decision != nil {
				what = string(t.Decision.Action) + " " + t.Decision.Agent + " "
			}
			p("  %2d  rejected  %s— %s\n", t.N, what, clipLine(t.Rejected, 160))
			continue
		}
		if t.Decision == nil {
			continue
		}
		dec := *t.Decision
		switch dec.Action {
		case goal.ActionDelegate:
			p("  %2d  delegate  %s (%s): %s\n", t.N, dec.Agent, t.TaskID, clipLine(dec.Task, 120))
		case goal.ActionEscalate:
			p("  %2d  escalate  %s\n", t.N, clipLine(dec.Question, 140))
			if t.Answer != "" {
				p("                answer: %s\n", clipLine(t.Answer, 140))
			}
		case goal.ActionComplete:
			p("  %2d  complete  %s\n", t.N, clipLine(dec.Summary, 140))
		}
		if dec.Reasoning != "" {
			p("                why: %s\n", clipLine(dec.Reasoning, 160))
		}
		if dec.Confidence != nil {
			p("                confidence: %.2f\n", *dec.Confidence)
		}
		for _, n := range t.Notes {
			p("                note: %s\n", clipLine(n, 160))
		}
		if o := t.Outcome; o != nil {
			p("                → %s\n", clipLine(o.Line(), 300))
		} else if dec.Action == goal.ActionDelegate {
			p("                → not finished (resume goes on with it)\n")
		}
	}
	printBoard(io, d.Board, d.Handoffs)
}

func printBoard(io *IOStreams, b board.Board, hs []board.Handoff) {
	p := io.Printf
	p("\nboard %s\n", b.Key)
	p("  goal: %s\n", blankDash(b.Goal))
	p("  key decisions (%d of %d kept):\n", len(b.Decisions), b.DecisionCount)
	for _, d := range b.Decisions {
		p("    - %s (%s)\n", clipLine(d.Text, 140), blankDash(d.By))
	}
	p("  open blockers:\n")
	if len(b.Blockers) == 0 {
		p("    (none)\n")
	}
	for _, x := range b.Blockers {
		p("    %s %s (%s, %s)\n", x.ID, clipLine(x.Text, 140), blankDash(x.By), blankDash(x.Task))
	}
	if b.Summary != "" {
		p("  history: %s\n", clipLine(b.Summary, 400))
	}
	p("  artifacts (%d; full content: nova run artifact ID):\n", b.ArtifactCount)
	for i := len(b.Artifacts) - 1; i >= 0; i-- {
		a := b.Artifacts[i]
		p("    %-5s %-9s %-28s %-8s %5d tok  %s\n", a.Ref(), a.Type, clipLine(a.Name, 28), blankDash(a.By), a.Tokens, clipLine(a.Preview, 60))
	}
	if len(hs) > 0 {
		p("  handoffs:\n")
		for _, h := range hs {
			p("    %s %s (%s): %s\n", h.Task, h.Agent, blankDash(h.Status), clipLine(h.Summary, 140))
			if len(h.Constraints) > 0 {
				p("      constraints: %s\n", clipLine(strings.Join(h.Constraints, "; "), 200))
			}
			if h.Next != "" {
				p("      next: %s\n", h.Next)
			}
			if len(h.Questions) > 0 {
				p("      questions: %s\n", clipLine(strings.Join(h.Questions, "; "), 200))
			}
		}
	}
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none yet"
	}
	return strings.Join(s, ", ")
}

// goalAnswerOptions is `nova run answer ID TEXT`.
type goalAnswerOptions struct {
	*Env
	ID     uint64
	Answer string
	JSON   bool
}

func newRunAnswerCmd(env *Env, runF func(context.Context, *goalAnswerOptions) error) *cobra.Command {
	opts := &goalAnswerOptions{Env: env}
	cmd := &cobra.Command{
		Use:   `answer ID "TEXT"`,
		Short: "Answer the lead's question (an escalation); the lead reads it on its next turn",
		Args:  exactArgs(2, "a goal run id and the answer"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := goalRunID(args[0])
			if err != nil {
				return err
			}
			opts.ID, opts.Answer = id, strings.TrimSpace(args[1])
			if opts.Answer == "" {
				return usagef("the answer is empty: write it in quotes")
			}
			return pick(runF, runGoalAnswer)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {runId,resumed}")
	return cmd
}

func runGoalAnswer(ctx context.Context, opts *goalAnswerOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		resumed, err := ws.AnswerGoalRun(ctx, opts.ID, opts.Answer)
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(map[string]any{"runId": opts.ID, "resumed": resumed})
		}
		if resumed {
			opts.IO.Printf("answered; run %d goes on\n", opts.ID)
			return nil
		}
		opts.IO.Printf("answered; `nova run resume %d` goes on with the run\n", opts.ID)
		return nil
	})
}

// goalArtifactOptions is `nova run artifact ID`.
type goalArtifactOptions struct {
	*Env
	ID   uint64
	JSON bool
}

func newRunArtifactCmd(env *Env, runF func(context.Context, *goalArtifactOptions) error) *cobra.Command {
	opts := &goalArtifactOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "artifact ID",
		Short: "Print a board artifact's full content (an id like a12, of a goal run's or a build's board)",
		Args:  exactArgs(1, "an artifact id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := board.ParseArtifactID(args[0])
			if err != nil {
				return usagef("%q is not an artifact id (like a12, see `nova run show ID`)", args[0])
			}
			opts.ID = id
			return pick(runF, runGoalArtifact)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the artifact as JSON")
	return cmd
}

func runGoalArtifact(ctx context.Context, opts *goalArtifactOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		a, err := ws.ReadArtifact(ctx, opts.ID)
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(a)
		}
		opts.IO.Logf("%s %s %s by %s (%s, %d tokens) on %s\n", a.Ref(), a.Type, a.Name, blankDash(a.By), blankDash(a.Task), a.Tokens, a.Board)
		opts.IO.Printf("%s\n", strings.TrimRight(a.Content, "\n"))
		return nil
	})
}

// boardResolveOptions is `nova run resolve ID BLOCKER` and `nova build
// resolve ID BLOCKER`.
type boardResolveOptions struct {
	*Env
	Board   string
	Blocker string
	Note    string
	JSON    bool
}

func newBoardResolveCmd(env *Env, kind board.Kind, runF func(context.Context, *boardResolveOptions) error) *cobra.Command {
	opts := &boardResolveOptions{Env: env}
	what, list := "goal run", "nova run list"
	if kind == board.KindBuild {
		what, list = "build", "nova build list"
	}
	cmd := &cobra.Command{
		Use:   `resolve ID BLOCKER ["NOTE"]`,
		Short: "Resolve an open blocker of the " + what + "'s board (b1, …); the work that waited on it goes on",
		Args: func(_ *cobra.Command, args []string) error {
			return rangeArgs(args, 2, 3, "an id, a blocker id and an optional note")
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID(args[0], what, list)
			if err != nil {
				return err
			}
			opts.Board = board.Key{Kind: kind, ID: id}.String()
			opts.Blocker = strings.TrimSpace(args[1])
			if len(args) == 3 {
				opts.Note = strings.TrimSpace(args[2])
			}
			return pick(runF, runBoardResolve)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the resolved blocker as JSON")
	return cmd
}

func rangeArgs(args []string, lo, hi int, names string) error {
	if len(args) < lo || len(args) > hi {
		return usagef("want %s (got %d arguments)", names, len(args))
	}
	return nil
}

func runBoardResolve(ctx context.Context, opts *boardResolveOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		x, err := ws.ResolveBlocker(ctx, opts.Board, opts.Blocker, opts.Note)
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(x)
		}
		opts.IO.Printf("resolved %s on %s: %s\n", x.ID, opts.Board, x.Text)
		return nil
	})
}

func newRunResolveCmd(env *Env, runF func(context.Context, *boardResolveOptions) error) *cobra.Command {
	return newBoardResolveCmd(env, board.KindRun, runF)
}

func blankDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "—"
	}
	return s
}

// buildBoardOptions is `nova build board ID`.
type buildBoardOptions struct {
	*Env
	ID   uint64
	JSON bool
}

func newBuildBoardCmd(env *Env, runF func(context.Context, *buildBoardOptions) error) *cobra.Command {
	opts := &buildBoardOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "board ID",
		Short: "Show a build's session board: goal, key decisions, blockers, history, artifacts and handoffs",
		Args:  exactArgs(1, "a build id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := buildID(args[0])
			if err != nil {
				return err
			}
			opts.ID = id
			return pick(runF, runBuildBoard)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {board, handoffs} as JSON")
	return cmd
}

func runBuildBoard(ctx context.Context, opts *buildBoardOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		b, err := ws.GetBuild(ctx, opts.ID)
		if err != nil {
			return err
		}
		v, err := ws.GetBoard(ctx, b.BoardKey())
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(v)
		}
		printBoard(opts.IO, v.Board, v.Handoffs)
		return nil
	})
}
