package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/owner"
)

// serveOptions is `nova serve`: a headless owner of the workspace.
type serveOptions struct {
	*Env
	JSON bool
	// Resume are builds to resume once serving (a hand-over's, which its
	// old owner interrupted); UntilIdle stops serving once they ended and
	// no other nova is attached.
	Resume    []uint64
	UntilIdle bool
	// ready, when set (tests), receives the report once it listens.
	ready func(serveReport)
}

func newServeCmd(env *Env, runF func(context.Context, *serveOptions) error) *cobra.Command {
	opts := &serveOptions{Env: env}
	var resume string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Own the workspace without a TUI and serve it to other nova processes",
		Long: "nova serve opens the workspace's database and serves it on .nova/nova.sock until\n" +
			"Ctrl-C (SIGINT) or SIGTERM: every other nova on the workspace works through it, and\n" +
			"the vault's index stays warm. It fails if another nova already owns the workspace.\n" +
			"A TUI that quits while a build runs can hand the build over to one (it starts it).",
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Resume = opts.Resume[:0]
			for _, f := range strings.Split(resume, ",") {
				if f = strings.TrimSpace(f); f == "" {
					continue
				}
				id, err := buildID(f)
				if err != nil {
					return err
				}
				opts.Resume = append(opts.Resume, id)
			}
			return pick(runF, runServe)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print where it listens as one JSON document")
	cmd.Flags().StringVar(&resume, "resume", "", "resume these builds (comma-separated ids) once serving, unattended")
	cmd.Flags().BoolVar(&opts.UntilIdle, "until-idle", false, "stop once the resumed builds ended and no other nova is attached")
	return cmd
}

// serveReport is what `nova serve --json` prints once it listens.
type serveReport struct {
	Root     string    `json:"root"`
	Socket   string    `json:"socket"`
	PID      int       `json:"pid"`
	Protocol int       `json:"protocol"`
	Version  string    `json:"version"`
	Since    time.Time `json:"since"`
	// Resumed are the builds a hand-over interrupted, resumed here.
	Resumed []uint64 `json:"resumed"`
}

// runServe owns the workspace (or takes it over from the nova that started
// it, see owner.Handover) and serves it until ctx ends (SIGINT, SIGTERM):
// exit 0. Another owner, or a workspace that cannot be opened: exit 1.
func runServe(ctx context.Context, opts *serveOptions) error {
	root, err := opts.root()
	if err != nil {
		return err
	}
	o, err := owner.Serve(ctx, ownerOptions(opts.Env, root))
	if err != nil {
		return err
	}
	info := o.Info()
	rep := serveReport{Root: info.Root, Socket: info.Socket, PID: info.PID, Protocol: info.Protocol,
		Version: info.Version, Since: info.Since, Resumed: []uint64{}}
	// Builds run in this process until it stops; stopping interrupts them
	// (resumable).
	work, stopWork := context.WithCancel(context.WithoutCancel(ctx))
	defer stopWork()
	running := resumeBuilds(work, opts.Env, o.Value(), opts.Resume)
	rep.Resumed = append(rep.Resumed, opts.Resume...)
	if opts.JSON {
		if err := opts.IO.PrintJSON(rep); err != nil {
			_ = o.Close()
			return err
		}
	} else {
		opts.IO.Printf("nova: serving %s on %s (pid %d, protocol %d); stop with Ctrl-C\n",
			rep.Root, rep.Socket, rep.PID, rep.Protocol)
		for _, id := range rep.Resumed {
			opts.IO.Printf("nova: resuming build %d\n", id)
		}
	}
	if opts.ready != nil {
		opts.ready(rep)
	}
	waitCtx := ctx
	if opts.UntilIdle {
		var stop context.CancelFunc
		waitCtx, stop = context.WithCancel(ctx)
		defer stop()
		go func() {
			untilIdle(waitCtx, running, func() int { return len(o.Clients()) })
			opts.IO.Logf("nova: idle (no build runs, no nova attached): stopping\n")
			stop()
		}()
	}
	if err := o.Wait(waitCtx); err != nil {
		return fmt.Errorf("stop serving: %w", err)
	}
	return nil
}

// resumeBuilds resumes builds in the background, unattended (nobody may be
// there to answer; approvals are denied and logged, as for a headless
// run); the returned channel closes when all of them ended.
func resumeBuilds(ctx context.Context, env *Env, ws engine.Workspace, ids []uint64) <-chan struct{} {
	done := make(chan struct{})
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := ws.RunBuild(ctx, id, engine.RunBuildOptions{Approvals: engine.ApproveNone})
			switch {
			case err != nil:
				env.IO.Logf("nova: build %d: %v\n", id, err)
			default:
				env.IO.Logf("nova: build %d %s %s\n", id, b.Status, b.Reason)
			}
		}()
	}
	go func() {
		wg.Wait()
		close(done)
	}()
	return done
}

// idleEvery is how often an --until-idle owner looks for clients.
const idleEvery = time.Second

// untilIdle returns when the builds ended and no client was attached at
// two looks in a row (a client between two commands reconnects quickly).
func untilIdle(ctx context.Context, builds <-chan struct{}, clients func() int) {
	select {
	case <-ctx.Done():
		return
	case <-builds:
	}
	idle := 0
	t := time.NewTicker(idleEvery)
	defer t.Stop()
	for idle < 2 {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if clients() == 0 {
			idle++
		} else {
			idle = 0
		}
	}
}
