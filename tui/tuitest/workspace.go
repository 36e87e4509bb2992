package tuitest

import (
	"context"
	"testing"
	"time"

	nova "github.com/nova-dev/nova"
	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/workspace"
)

// Workspace opens a real engine over a fresh workspace in t.TempDir() (the
// shipped defaults, no fsync, an empty environment) whose stored timestamps
// come from a clock pinned at now, so golden views do not depend on when
// they run. It is closed when the test ends. Pages take it as their Source.
func Workspace(t testing.TB, now time.Time) *engine.Local {
	t.Helper()
	root := t.TempDir()
	if _, err := workspace.Init(root, nova.Defaults); err != nil {
		t.Fatalf("tuitest: init workspace: %v", err)
	}
	l, err := engine.Open(context.Background(), engine.Options{
		Root: root, NoSync: true, Defaults: nova.Defaults,
		Getenv: func(string) string { return "" },
		Now:    func() time.Time { return now },
	})
	if err != nil {
		t.Fatalf("tuitest: open workspace: %v", err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l
}
