package main

import (
	"bytes"
	"context"
	"encoding/json"
	"sort"
	"strings"

	nova "github.com/nova-dev/nova"
	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/owner"
	"github.com/nova-dev/nova/engine/remote"
	"github.com/nova-dev/nova/engine/workspace"
)

// openWorkspace is the one place the CLI and the TUI get their
// engine.Workspace from; nothing else in cmd/nova names *engine.Local
// (TestCLIReachesTheEngineOnlyThroughTheFacade).
//
// One owner, many clients (DESIGN, "Workspace"): when a live nova owns the
// workspace (it answers on .nova/nova.sock), the command works through it
// and gets its remote client; otherwise this process becomes the owner
// (opens the database, then serves it to other nova processes on the
// socket while the command runs) and gets the engine itself. Either way
// the caller closes what it gets: a client closes its connections, an
// owner stops serving and releases the database.
func openWorkspace(ctx context.Context, env *Env) (engine.Workspace, error) {
	s, err := joinWorkspace(ctx, env, nil)
	if err != nil {
		return nil, err
	}
	return s.ws, nil
}

// session is a joined workspace: the Workspace a command uses and the
// owner.Session behind it (the TUI reads it for its badge, its hand-over
// and its rejoin).
type session struct {
	env  *Env
	ws   *joined
	join owner.Options[*engine.Local]
	sess *owner.Session[*engine.Local]
}

// joined is the Workspace of a session; Close ends the session.
type joined struct {
	engine.Workspace
	s *session
}

func (j *joined) Close() error { return j.s.sess.Close() }

// ownerOptions are the options of owner.Join for the workspace at root:
// the owner opens it with the CLI's environment and serves it; tune may
// adjust them (the TUI's client callbacks).
func ownerOptions(env *Env, root string) owner.Options[*engine.Local] {
	opts := engine.Options{Root: root, Getenv: env.Getenv, Defaults: nova.Defaults}
	var logf func(string, ...any)
	if !env.fullScreen {
		opts.Logf = env.IO.Logf // the playbook system's diagnostics, on stderr
		logf = func(format string, args ...any) { env.IO.Logf(format+"\n", args...) }
	}
	return remote.OwnerOptions(opts, env.Version, logf)
}

// joinWorkspace joins the workspace of env (owner.Join) and wraps what it
// got. tune, when set, adjusts the options first.
func joinWorkspace(ctx context.Context, env *Env, tune func(*owner.Options[*engine.Local])) (*session, error) {
	root, err := env.root()
	if err != nil {
		return nil, err
	}
	opts := ownerOptions(env, root)
	if tune != nil {
		tune(&opts)
	}
	s := &session{join: opts, env: env}
	if err := s.attach(ctx, func(ctx context.Context) (*owner.Session[*engine.Local], error) {
		return owner.Join(ctx, opts)
	}); err != nil {
		return nil, err
	}
	return s, nil
}

// attach runs join and points the session's Workspace at its outcome.
func (s *session) attach(ctx context.Context, join func(context.Context) (*owner.Session[*engine.Local], error)) error {
	js, err := join(ctx)
	if err != nil {
		return err // the engine's messages name the files and processes involved
	}
	var ws engine.Workspace
	if js.Owner != nil {
		ws = js.Owner.Value()
	} else {
		c, err := remote.Connect(ctx, js.Client)
		if err != nil {
			_ = js.Close()
			return err
		}
		// The owner applies its own settings; this command's must at least
		// be valid (a broken config fails as it would without an owner),
		// and a difference is worth a note.
		diff, err := settingsDiff(s.env, s.join.Root, c.Config())
		if err != nil {
			_ = js.Close()
			return err
		}
		if len(diff) > 0 && !s.env.fullScreen {
			s.env.IO.Logf("nova: note: the nova that owns this workspace (pid %d) uses other settings (%s) than this command's config.yaml and environment; "+
				"it applies its own: restart it (quit it, or stop `nova serve`) to use them\n", js.Info.PID, strings.Join(diff, ", "))
		}
		ws = c
	}
	s.sess = js
	if s.ws == nil {
		s.ws = &joined{s: s}
	}
	s.ws.Workspace = ws
	return nil
}

// settingsDiff names the configuration fields (top-level config.yaml keys)
// whose values differ between what this command would load (config.yaml
// plus its environment) and cfg, the owner's. A config that does not load
// is an error, as it would be without an owner.
func settingsDiff(env *Env, root string, cfg workspace.Config) ([]string, error) {
	mine, err := workspace.Load(root, env.Getenv)
	if err != nil {
		return nil, err
	}
	a, b := configFields(mine.Config), configFields(cfg)
	var diff []string
	for k, v := range a {
		if !bytes.Equal(v, b[k]) {
			diff = append(diff, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			diff = append(diff, k)
		}
	}
	sort.Strings(diff)
	return diff, nil
}

// configFields is a config's top-level fields as JSON.
func configFields(c workspace.Config) map[string][]byte {
	data, err := json.Marshal(c)
	if err != nil {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return nil
	}
	out := make(map[string][]byte, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
