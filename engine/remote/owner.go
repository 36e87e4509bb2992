package remote

import (
	"context"
	"net/http"
	"time"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/owner"
	"github.com/nova-dev/nova/engine/rpc"
)

// OwnerOptions are the options of owner.Join for an engine workspace: the
// owner opens it with engine.Open (o.LockTimeout is set by each attempt)
// and serves it as engine.Workspace. version is this nova's version;
// logf (may be nil) receives the owner's log lines.
//
// The seam every command and the TUI open a workspace through:
//
//	s, err := owner.Join(ctx, remote.OwnerOptions(engine.Options{Root: root, Getenv: getenv}, version, nil))
//	if s.Owner != nil { ws = s.Owner.Value() } else { ws = remote.NewWorkspace(s.Client) }
//	defer s.Close()
func OwnerOptions(o engine.Options, version string, logf func(format string, args ...any)) owner.Options[*engine.Local] {
	return owner.Options[*engine.Local]{
		Root:    o.Root,
		Version: version,
		Logf:    logf,
		Open: func(ctx context.Context, lockTimeout time.Duration) (*engine.Local, error) {
			opts := o
			opts.LockTimeout = lockTimeout
			opts.ReadOnly = false // the owner writes for everyone
			return engine.Open(ctx, opts)
		},
		Handler: func(l *engine.Local) (http.Handler, error) {
			return rpc.NewServer[engine.Workspace](l, rpc.ServerOptions{Version: version, Logf: logf})
		},
		Client: rpc.ClientOptions{Version: version},
	}
}
