package main

import (
	"context"

	nova "github.com/nova-dev/nova"
	"github.com/nova-dev/nova/engine"
)

// openWorkspace is the one place the CLI and the TUI get their
// engine.Workspace from; nothing else in cmd/nova names *engine.Local
// (TestCLIReachesTheEngineOnlyThroughTheFacade).
//
// Today it opens the database in this process. The owner/client transport
// plugs in here (issue 12): find the live owner of the workspace
// (.nova/nova.sock) and return its remote client; otherwise become the owner
// (engine.Open, then serve it) and return the local engine. readOnly is a
// hint for the direct path (a listing command shares the database with
// other readers); through an owner it does not matter.
func openWorkspace(ctx context.Context, env *Env, readOnly bool) (engine.Workspace, error) {
	root, err := env.root()
	if err != nil {
		return nil, err
	}
	opts := engine.Options{Root: root, ReadOnly: readOnly, Getenv: env.Getenv, Defaults: nova.Defaults}
	if !env.fullScreen {
		opts.Logf = env.IO.Logf // the playbook system's diagnostics, on stderr
	}
	return engine.Open(ctx, opts)
}
