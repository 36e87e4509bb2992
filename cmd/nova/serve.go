package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/owner"
	"github.com/nova-dev/nova/engine/remote"
)

// serveOptions configures `nova serve`.
type serveOptions struct {
	Root    string
	Getenv  func(string) string
	Version string
	JSON    bool
	Stdout  io.Writer
	Stderr  io.Writer
}

// serveCmd is `nova serve`: a headless owner of the workspace. (Register
// it in rootCmd; it is self-contained so that the facade's reshaping of
// cmd/nova can adopt it as is.)
func (a *app) serveCmd() *cobra.Command {
	opts := serveOptions{Getenv: a.getenv, Version: version}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Own the workspace without a TUI and serve it to other nova processes",
		Long: "nova serve opens the workspace's database and serves it on .nova/nova.sock until\n" +
			"Ctrl-C (SIGINT) or SIGTERM: every other nova on the workspace works through it, and\n" +
			"the vault's index stays warm. It fails if another nova already owns the workspace.",
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			root, err := a.root()
			if err != nil {
				return err
			}
			opts.Root, opts.Stdout, opts.Stderr = root, a.stdout, a.stderr
			return runServe(cmd.Context(), opts)
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
}

// runServe owns the workspace (or takes it over from the nova that started
// it, see owner.Handover) and serves it until ctx ends.
func runServe(ctx context.Context, opts serveOptions) error {
	logf := func(format string, args ...any) { _, _ = fmt.Fprintf(opts.Stderr, format+"\n", args...) }
	o, err := owner.Serve(ctx, remote.OwnerOptions(engine.Options{Root: opts.Root, Getenv: opts.Getenv}, opts.Version, logf))
	if err != nil {
		return err
	}
	info := o.Info()
	rep := serveReport{Root: info.Root, Socket: info.Socket, PID: info.PID, Protocol: info.Protocol, Version: info.Version, Since: info.Since}
	if opts.JSON {
		enc := json.NewEncoder(opts.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			_ = o.Close()
			return err
		}
	} else {
		_, _ = fmt.Fprintf(opts.Stdout, "nova: serving %s on %s (pid %d, protocol %d); stop with Ctrl-C\n",
			rep.Root, rep.Socket, rep.PID, rep.Protocol)
	}
	if err := o.Wait(ctx); err != nil {
		return fmt.Errorf("stop serving: %w", err)
	}
	return nil
}
