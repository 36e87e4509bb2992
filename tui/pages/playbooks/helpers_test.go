package playbooks

import (
	"context"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/stretchr/testify/require"

	nova "github.com/nova-dev/nova"
	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/ace"
	"github.com/nova-dev/nova/engine/workspace"
	"github.com/nova-dev/nova/themes"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/keymap"
	"github.com/nova-dev/nova/tui/tuitest"
)

var epoch = time.Date(2026, 3, 14, 9, 30, 0, 0, time.UTC)

// newWS is a real workspace (shipped roster, Ollama on a dead port).
func newWS(t *testing.T) *engine.Local {
	t.Helper()
	root := t.TempDir()
	_, err := workspace.Init(root, nova.Defaults)
	require.NoError(t, err)
	l, err := engine.Open(context.Background(), engine.Options{Root: root, NoSync: true, Getenv: func(k string) string {
		if k == "OLLAMA_HOST" {
			return "http://127.0.0.1:1"
		}
		return ""
	}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	return l
}

// clock ticks a minute per call from epoch, so stored times are
// deterministic.
func clock() func() time.Time {
	n := 0
	return func() time.Time { n++; return epoch.Add(time.Duration(n) * time.Minute) }
}

// loop is a small Bubble Tea runtime: commands run in goroutines and their
// messages come back to the page in order.
type loop struct {
	*tuitest.Driver
	t *testing.T
	m *Model
}

// managerSource is the page's Source over a playbook manager with its own
// clock (the shipped workspace gives the roster), delegating the way
// *engine.Local does.
type managerSource struct {
	*ace.Manager
	ws *engine.Local
}

var _ Source = managerSource{}

func (s managerSource) ListPlaybooks(ctx context.Context) ([]ace.Summary, error) {
	return s.List(ctx)
}
func (s managerSource) PlaybookHistory(ctx context.Context, agent string) ([]ace.Version, error) {
	return s.History(ctx, agent)
}
func (s managerSource) ListPendingDeltas(ctx context.Context) ([]ace.Pending, error) {
	return s.ListPending(ctx)
}
func (s managerSource) ApproveDelta(ctx context.Context, id uint64) (ace.Playbook, error) {
	return s.Approve(ctx, id)
}
func (s managerSource) RejectDelta(ctx context.Context, id uint64) (ace.Pending, error) {
	return s.Reject(ctx, id)
}
func (s managerSource) AddRule(ctx context.Context, agent, content string, tags []string, confidence float64) (engine.RuleResult, error) {
	r, p, err := s.Manager.AddRule(ctx, agent, content, tags, confidence)
	return engine.RuleResult{Rule: r, Playbook: p}, err
}
func (s managerSource) ListAgents(ctx context.Context) (engine.Roster, error) {
	return s.ws.ListAgents(ctx)
}

func newLoop(t *testing.T, src Source, w, h int) *loop {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	c := &common.Common{Ctx: ctx, Width: w, Height: h + 3, Styles: themes.Build(themes.NovaDark), KeyMap: keymap.DefaultKeyMap()}
	m := New(c, src)
	m.SetClock(func() time.Time { return epoch.Add(3 * time.Hour) })
	m.SetSize(w, h)
	l := &loop{Driver: tuitest.DriveComponent(t, m), t: t, m: m}
	l.exec(m.Init())
	l.until(func() bool {
		return m.agents.loaded && (m.rules.pb != nil || m.rules.err != nil || len(m.agents.rows) == 0) && (m.pending.items != nil || m.pending.err != nil)
	})
	return l
}

func (l *loop) exec(cmd tea.Cmd)       { l.Exec(cmd) }
func (l *loop) dispatch(msg tea.Msg)   { l.Dispatch(msg) }
func (l *loop) until(cond func() bool) { l.t.Helper(); l.Until(cond) }
func (l *loop) settle(d time.Duration) { l.Settle(d) }
func (l *loop) plain() string          { return l.Plain() }
func (l *loop) pinned() string         { return l.Pinned() }

// press sends keys without waiting for what they start (tests wait with
// until).
func (l *loop) press(keys ...string) {
	for _, k := range keys {
		l.Dispatch(tuitest.Key(k))
	}
}

func (l *loop) typeText(s string) {
	for _, r := range s {
		if r == ' ' {
			l.press("space")
			continue
		}
		l.press(string(r))
	}
}

// seed fills MARS's and VENUS's playbooks with rules, versions and pending
// deltas.
func seed(t *testing.T, mgr *ace.Manager) {
	t.Helper()
	ctx := context.Background()
	_, _, err := mgr.AddRule(ctx, "MARS", "Validate request bodies at the handler boundary before any database call", []string{"api", "validation"}, 0.9)
	require.NoError(t, err)
	_, _, err = mgr.AddRule(ctx, "MARS", "Wrap errors with the operation that failed", []string{"errors"}, 0.7)
	require.NoError(t, err)
	_, _, err = mgr.UpdatePlaybook(ctx, "MARS", []ace.Delta{
		{Op: ace.OpAdd, Content: "Keep handlers thin: move queries into a store type", Confidence: 0.6, Tags: []string{"design"}, Reason: "two tasks passed after the split"},
		{Op: ace.OpAdd, Content: "Run go vet before declaring a task done", Confidence: 0.55, Tags: []string{"go", "checks"}},
	}, "curator")
	require.NoError(t, err)
	_, err = mgr.EditRule(ctx, "MARS", "r2", "Wrap errors with the failing operation: fmt.Errorf(\"load user: %w\", err)", []string{"errors", "go"}, 0.75)
	require.NoError(t, err)
	require.NoError(t, mgr.DeleteRule(ctx, "MARS", "r4"))
	require.NoError(t, mgr.RecordTaskApplied(ctx, "MARS", []string{"r1", "r2"}, true))
	require.NoError(t, mgr.RecordTaskApplied(ctx, "MARS", []string{"r1", "r3"}, false))
	_, _, err = mgr.AddRule(ctx, "VENUS", "Every form field gets a visible label", []string{"a11y"}, 0.85)
	require.NoError(t, err)
	_, err = mgr.AddPending(ctx, "MARS", ace.Delta{Op: ace.OpAdd, Content: "Return 422 for validation failures, not 400", Confidence: 0.7,
		Helpful: 0.6, Tags: []string{"api"}, Reason: "the judge flagged 400s on invalid input twice"}, "curator")
	require.NoError(t, err)
	_, err = mgr.AddPending(ctx, "MARS", ace.Delta{Op: ace.OpRemove, RuleID: "r3", Confidence: 0.6, Reason: "failed in the last task it was applied to"}, "curator")
	require.NoError(t, err)
}
