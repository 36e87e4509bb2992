package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sort"
	"strings"
	"sync"

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

// joinOptions are the options of owner.Join for a workspace this process
// may own (the one place outside the engine naming its local type).
type joinOptions = owner.Options[*engine.Local]

// session is a joined workspace: the Workspace a command uses and the
// owner.Session behind it (the TUI's link reads it for its badge, its
// hand-over and its rejoin).
type session struct {
	env  *Env
	ws   *joined
	join owner.Options[*engine.Local]

	mu   sync.Mutex
	sess *owner.Session[*engine.Local]
	// owned is the ownership a client gained after its owner went away
	// (rejoin): its Workspace stays the remote client, which now reaches
	// this process's own socket.
	owned *owner.Session[*engine.Local]
}

// joined is the Workspace of a session; Close ends the session.
type joined struct {
	engine.Workspace
	s *session
}

// Close closes the client first, then stops serving (and releases the
// database) if this process owns the workspace.
func (j *joined) Close() error {
	j.s.mu.Lock()
	sess, owned := j.s.sess, j.s.owned
	j.s.mu.Unlock()
	err := sess.Close()
	if owned != nil {
		err = errors.Join(err, owned.Close())
	}
	return err
}

// owner is this process's ownership of the workspace (nil for a client).
func (s *session) owner() *owner.Owner[*engine.Local] {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sess.Owner != nil {
		return s.sess.Owner
	}
	if s.owned != nil {
		return s.owned.Owner
	}
	return nil
}

// rejoin is called when a client's owner went away for good: this process
// becomes the owner (serving its own client too), or finds the nova that
// took over (its client follows it by itself).
func (s *session) rejoin(ctx context.Context) error {
	if s.owner() != nil {
		return nil
	}
	js, err := owner.Join(ctx, s.join)
	if err != nil {
		return err
	}
	if js.Owner == nil {
		return js.Close() // another nova serves: our client reaches it already
	}
	s.mu.Lock()
	s.owned = js
	s.mu.Unlock()
	return nil
}

// ownerOptions are the options of owner.Join for the workspace at root:
// the owner opens it with the CLI's environment and serves it.
func ownerOptions(env *Env, root string) owner.Options[*engine.Local] {
	opts := engine.Options{Root: root, Getenv: env.Getenv, Defaults: nova.Defaults}
	var logf func(string, ...any)
	if !env.fullScreen {
		opts.Logf = env.IO.Logf // the playbook system's diagnostics, on stderr
		logf = func(format string, args ...any) { env.IO.Logf(format+"\n", args...) }
	}
	o := remote.OwnerOptions(opts, env.Version, logf)
	// A command whose owner ends first (two commands started together)
	// finishes as the owner; the TUI rejoins itself, to say so on screen.
	o.Adopt = !env.fullScreen
	// Nor is a call lost to an owner that stops while it is sent.
	o.Client.NoKeepAlive = !env.fullScreen
	return o
}

// joinWorkspace joins the workspace of env (owner.Join) and wraps what it
// got. tune, when set, adjusts the options first (the TUI's client
// callbacks).
func joinWorkspace(ctx context.Context, env *Env, tune func(*joinOptions)) (*session, error) {
	root, err := env.root()
	if err != nil {
		return nil, err
	}
	opts := ownerOptions(env, root)
	if tune != nil {
		tune(&opts)
	}
	js, err := owner.Join(ctx, opts)
	if err != nil {
		return nil, err // the engine's messages name the files and processes involved
	}
	s := &session{join: opts, env: env, sess: js}
	if js.Owner != nil {
		s.ws = &joined{Workspace: js.Owner.Value(), s: s}
		return s, nil
	}
	c, err := remote.Connect(ctx, js.Client)
	if err != nil {
		_ = js.Close()
		return nil, err
	}
	// The owner applies its own settings; this command's must at least be
	// valid (a broken config fails as it would without an owner), and a
	// difference is worth a note.
	diff, err := clientSettingsDiff(env, root, c.Config(), c.Info(), js.Info.Version)
	if err != nil {
		_ = js.Close()
		return nil, err
	}
	if len(diff) > 0 && !env.fullScreen {
		env.IO.Logf("nova: note: the nova that owns this workspace (pid %d) uses other settings (%s) than this command's config.yaml and environment; "+
			"it applies its own: restart it (quit it, or stop `nova serve`) to use them\n", js.Info.PID, strings.Join(diff, ", "))
	}
	s.ws = &joined{Workspace: c, s: s}
	return s, nil
}

// clientSettingsDiff is settingsDiff for a client of an owner that runs
// this very nova version and parsed a config.yaml byte for byte like this
// command's (info.ConfigSum): then the file needs no parsing — the owner's
// settings with this command's environment applied are what workspace.Load
// would give, provided this environment sets every field the owner's did.
// Parsing the YAML was a fifth of a client call's CPU (issue 12's warm-owner
// figures); any other case takes the full path.
func clientSettingsDiff(env *Env, root string, cfg workspace.Config, info engine.Info, ownerVersion string) ([]string, error) {
	if diff, ok, err := sameFileSettingsDiff(env, root, cfg, info, ownerVersion); ok {
		return diff, err
	}
	return settingsDiff(env, root, cfg)
}

// sameFileSettingsDiff is clientSettingsDiff's shortcut; ok is false when it
// does not apply.
func sameFileSettingsDiff(env *Env, root string, cfg workspace.Config, info engine.Info, ownerVersion string) (diff []string, ok bool, err error) {
	if info.ConfigSum == "" || ownerVersion != env.Version {
		return nil, false, nil
	}
	if sum, err := workspace.ConfigSum(root); err != nil || sum != info.ConfigSum {
		return nil, false, nil // changed since the owner read it, or unreadable: Load says what
	}
	mine := cfg
	ov, err := mine.ApplyEnv(env.Getenv)
	if err != nil {
		return nil, true, err // the file is fine (the owner parsed it): Load would fail here too
	}
	for _, o := range info.Overrides {
		if !slices.ContainsFunc(ov, func(m workspace.Override) bool { return m.Field == o.Field }) {
			return nil, false, nil // only the file knows this field's value without the owner's env
		}
	}
	return fieldsDiff(mine, cfg), true, nil
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
	return fieldsDiff(mine.Config, cfg), nil
}

// fieldsDiff names the top-level fields whose values differ.
func fieldsDiff(mine, theirs workspace.Config) []string {
	a, b := configFields(mine), configFields(theirs)
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
	return diff
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
