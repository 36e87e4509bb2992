package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/prd"
	"github.com/nova-dev/nova/engine/tools"
)

func (a *app) buildCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "build", Short: "Run PRDs through the agent team (the build loop)"}
	var (
		asJSON   bool
		headless bool
		autonomy int
		rehearse bool
	)
	run := &cobra.Command{
		Use:   "run PRD",
		Short: "Validate a PRD and run it to the end (exit 0 when every task is done)",
		Long: "Runs every task of the PRD (JSON or YAML; a bare name is also looked up in .nova/prds/).\n" +
			"Progress lines go to stdout; with --json, one event per line {type,taskId,status,time,...}.\n" +
			"ctrl+c leaves a resumable build (`nova build resume ID`). The interactive path is the TUI's Build page;\n" +
			"without --headless this command runs headless too.",
		Args: exactArgs(1, "a PRD file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var opts build.Options
			if cmd.Flags().Changed("autonomy") {
				if autonomy < 0 || autonomy > 5 {
					return usagef("--autonomy must be between 0 and 5, got %d", autonomy)
				}
				opts.Autonomy = &autonomy
			}
			opts.Rehearse = rehearse
			ws, err := a.open(cmd.Context(), false)
			if err != nil {
				return err
			}
			defer func() { _ = ws.Close() }()
			path := resolvePRD(ws.Dir(), args[0])
			p, err := prd.Load(path)
			if err != nil {
				return err
			}
			eng := ws.Builds()
			b, err := eng.Create(cmd.Context(), p, path, opts)
			if err != nil {
				return err
			}
			if !asJSON {
				a.printf("build %d: %s (%d tasks, autonomy %d, tier %s)\n", b.ID, b.Name, b.Total, b.Autonomy, b.Tier)
			}
			return a.followBuild(cmd.Context(), ws, b.ID, asJSON)
		},
	}
	run.Flags().BoolVar(&headless, "headless", false, "no TUI: print progress lines (the default for this command)")
	run.Flags().IntVar(&autonomy, "autonomy", 0, "autonomy level 0-5 for this build (default: config); ≥ 3 applies changesets")
	run.Flags().BoolVar(&rehearse, "rehearse", false, "rehearse every task (premium tier)")
	run.Flags().BoolVar(&asJSON, "json", false, "one JSON event per line")

	resume := &cobra.Command{
		Use:   "resume ID",
		Short: "Finish a paused, canceled, failed or killed build (done tasks are not re-run)",
		Args:  exactArgs(1, "a build id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := buildID(args[0])
			if err != nil {
				return err
			}
			ws, err := a.open(cmd.Context(), false)
			if err != nil {
				return err
			}
			defer func() { _ = ws.Close() }()
			b, err := ws.Builds().Get(cmd.Context(), id)
			if err != nil {
				return err
			}
			if b.Status == build.StatusDone {
				if asJSON {
					return a.printJSON(b.Summary())
				}
				a.printf("build %d is already done (%d/%d tasks)\n", b.ID, b.Counts[build.TaskDone], b.Total)
				return nil
			}
			if !asJSON {
				a.printf("resuming build %d: %s (%d/%d done)\n", b.ID, b.Name, b.Counts[build.TaskDone], b.Total)
			}
			return a.followBuild(cmd.Context(), ws, id, asJSON)
		},
	}
	resume.Flags().BoolVar(&asJSON, "json", false, "one JSON event per line")

	list := &cobra.Command{
		Use:   "list",
		Short: "List builds, newest first",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ws, err := a.open(cmd.Context(), true)
			if err != nil {
				return err
			}
			defer func() { _ = ws.Close() }()
			bs, err := ws.Builds().List(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(bs)
			}
			if len(bs) == 0 {
				a.printf("no builds (start one with `nova build run PRD`)\n")
				return nil
			}
			a.printf("%-5s %-9s %-7s %-8s %-17s %s\n", "ID", "STATUS", "DONE", "TOKENS", "CREATED", "NAME")
			for _, b := range bs {
				a.printf("%-5d %-9s %-7s %-8d %-17s %s\n", b.ID, b.Status, fmt.Sprintf("%d/%d", b.Counts[build.TaskDone], b.Total),
					b.Tokens, b.CreatedAt.Local().Format("2006-01-02 15:04"), clipLine(b.Name, 50))
			}
			return nil
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON")

	show := &cobra.Command{
		Use:   "show ID",
		Short: "Show a build and its tasks by phase",
		Args:  exactArgs(1, "a build id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := buildID(args[0])
			if err != nil {
				return err
			}
			ws, err := a.open(cmd.Context(), true)
			if err != nil {
				return err
			}
			defer func() { _ = ws.Close() }()
			b, err := ws.Builds().Get(cmd.Context(), id)
			if err != nil {
				return err
			}
			tasks, err := ws.Builds().Tasks(cmd.Context(), id)
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(struct {
					build.Build
					Phases []build.Phase `json:"phases"`
				}{Build: b.Summary(), Phases: build.GroupByPhase(tasks)})
			}
			a.printBuild(b, tasks)
			return nil
		},
	}
	show.Flags().BoolVar(&asJSON, "json", false, "print JSON")

	cmd.AddCommand(run, resume, list, show)
	return cmd
}

func buildID(s string) (uint64, error) {
	id, err := build.ParseID(s)
	if err != nil {
		return 0, usagef("%q is not a build id (a positive number, see `nova build list`)", s)
	}
	return id, nil
}

// resolvePRD finds a PRD argument: as given, else under .nova/prds/.
func resolvePRD(novaDir, arg string) string {
	if _, err := os.Stat(arg); err == nil {
		return arg
	}
	for _, cand := range []string{arg, arg + ".json", arg + ".yaml", "prd-" + arg + ".json"} {
		p := filepath.Join(novaDir, "prds", cand)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return arg
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

// followBuild runs a build in this process, printing its events, and maps
// the end state to the exit code (0 only when every task is done).
func (a *app) followBuild(ctx context.Context, ws *engine.Local, id uint64, asJSON bool) error {
	subCtx, stopSub := context.WithCancel(context.Background())
	defer stopSub()
	events := ws.Subscribe(subCtx)
	sid := strconv.FormatUint(id, 10)
	printed := make(chan struct{})
	go func() {
		defer close(printed)
		for ev := range events {
			if ev.Topic != engine.TopicBuild || ev.BuildID != sid {
				continue
			}
			if asJSON {
				line, _ := json.Marshal(ev)
				a.printf("%s\n", line)
			} else {
				a.printf("%s %s\n", ev.Time.Local().Format("15:04:05"), eventLine(ev))
			}
			if isBuildEnd(ev, sid) {
				return
			}
		}
	}()
	// Headless: nobody can answer a runCommand approval; deny it (the
	// autonomy level decides which commands need one).
	deny := tools.ApproveFunc(func(_ context.Context, req tools.ApprovalRequest) (bool, error) {
		a.logf("denied (headless): %s wants to run `%s`\n", req.Agent, req.Command)
		return false, nil
	})
	b, err := ws.Builds().Run(ctx, id, deny)
	if err != nil {
		stopSub()
		<-printed
		if errors.Is(err, build.ErrActive) {
			return fmt.Errorf("build %d is already running", id)
		}
		return err
	}
	select {
	case <-printed:
	case <-time.After(2 * time.Second):
	}
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
	default:
		return ev.Text
	}
}

func (a *app) printBuild(b build.Build, tasks []build.Task) {
	a.printf("build %d: %s\n", b.ID, b.Name)
	a.printf("status:   %s", b.Status)
	if b.Reason != "" {
		a.printf(" — %s", b.Reason)
	}
	a.printf("\nprd:      %s\nautonomy: %d   tier: %s   tokens: %d", b.PRDPath, b.Autonomy, b.Tier, b.Tokens)
	if b.TokenBudget > 0 {
		a.printf(" / %d", b.TokenBudget)
	}
	a.printf("\ntasks:    %d/%d done\nwisdom:   %d learned, %d strengthened, %d reinforced, %d mistakes\n",
		b.Counts[build.TaskDone], b.Total, b.Wisdom.Learned, b.Wisdom.Strengthened, b.Wisdom.Reinforced, b.Wisdom.Mistakes)
	for _, ph := range build.GroupByPhase(tasks) {
		a.printf("\nphase %d (%d/%d done)\n", ph.Phase, ph.Done, len(ph.Tasks))
		for _, t := range ph.Tasks {
			line := fmt.Sprintf("  %-10s %-8s %-9s att %d  score %.2f  %6s", t.ID, t.Agent, t.Status, t.Attempts, t.Score,
				t.Duration.Round(time.Millisecond))
			if t.ChangesetID != 0 {
				state := "pending"
				if t.Applied {
					state = "applied"
				}
				line += fmt.Sprintf("  changeset %d (%s)", t.ChangesetID, state)
			}
			a.printf("%s  %s\n", line, clipLine(t.Title, 40))
			if t.Reason != "" && t.Status != build.TaskDone {
				a.printf("             reason: %s\n", clipLine(t.Reason, 100))
			}
		}
	}
}
