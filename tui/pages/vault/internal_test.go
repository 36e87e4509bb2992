package vault

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	engvault "github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/storage"
	"github.com/nova-dev/nova/themes"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/keymap"
)

// vaultSource is the page's Source over a bare vault (no workspace around
// it), the way *engine.Local delegates.
type vaultSource struct{ v *engvault.Vault }

var _ Source = vaultSource{}

func (s vaultSource) ListNodes(ctx context.Context, o engvault.ListOptions) (engvault.Page, error) {
	return s.v.List(ctx, o)
}
func (s vaultSource) SearchNodes(ctx context.Context, q string, o engvault.SearchOptions) ([]engvault.Scored, error) {
	return s.v.Search(ctx, q, o)
}
func (s vaultSource) GetNode(ctx context.Context, id uint64) (engvault.Node, error) {
	return s.v.Get(ctx, id)
}
func (s vaultSource) NodeNeighbours(ctx context.Context, id uint64) ([]engvault.RelationGroup, error) {
	return s.v.Neighbours(ctx, id)
}
func (s vaultSource) NodeEdges(ctx context.Context, id uint64) ([]engvault.Edge, error) {
	return s.v.Edges(ctx, id)
}
func (s vaultSource) TraverseNodes(ctx context.Context, id uint64, o engvault.TraverseOptions) ([]engvault.Step, error) {
	return s.v.Traverse(ctx, id, o)
}
func (s vaultSource) ListConflicts(ctx context.Context) ([]engvault.Conflict, error) {
	return s.v.Conflicts(ctx)
}
func (s vaultSource) VaultStats(ctx context.Context) (engvault.Stats, error) { return s.v.Stats(ctx) }
func (s vaultSource) ReinforceNode(ctx context.Context, id uint64) (engvault.Node, error) {
	return s.v.Reinforce(ctx, id)
}
func (s vaultSource) DemoteNode(ctx context.Context, id uint64) (engvault.Node, error) {
	return s.v.Demote(ctx, id)
}
func (s vaultSource) ForgetNode(ctx context.Context, id uint64) error { return s.v.Remove(ctx, id) }
func (s vaultSource) LinkNodes(ctx context.Context, from, to uint64, rel engvault.Relation, strength float64) (engvault.Edge, error) {
	return s.v.Link(ctx, from, to, rel, strength)
}
func (s vaultSource) UpdateNode(ctx context.Context, id uint64, p engvault.Patch) (engvault.Node, error) {
	return s.v.Update(ctx, id, p)
}
func (s vaultSource) WarmVault(context.Context) error { s.v.Warm(); return nil }
func (s vaultSource) ListArchived(ctx context.Context) ([]engvault.ArchivedNode, error) {
	return s.v.Archived(ctx)
}
func (s vaultSource) RestoreNode(ctx context.Context, id uint64) (engvault.RestoreResult, error) {
	return s.v.Restore(ctx, id)
}

func newPage(t *testing.T) (*Model, *engvault.Vault) {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "nova.db"), storage.Options{NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	v := engvault.New(db, engvault.Options{})
	ctx := context.Background()
	for _, c := range []string{"wrap errors with context", "return early on error", "table driven tests"} {
		_, err := v.Add(ctx, engvault.Node{Type: engvault.Pattern, Content: c})
		require.NoError(t, err)
	}
	c := &common.Common{Ctx: ctx, Styles: themes.Build(themes.NovaDark), KeyMap: keymap.DefaultKeyMap()}
	m := New(c, vaultSource{v: v})
	m.SetSize(120, 30)
	return m, v
}

func keyOf(r rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: r, Text: string(r)} }

// collect executes cmd synchronously, skipping timers: it returns the messages
// of the commands that finish at once.
func collect(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range b {
			out = append(out, collect(c)...)
		}
		return out
	}
	return []tea.Msg{msg}
}

func TestSearchDebounceRunsOnlyTheLastQuery(t *testing.T) {
	t.Parallel()
	m, _ := newPage(t)
	now := time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)
	m.now = func() time.Time { return now }
	m.Update(keyOf('/'))
	require.True(t, m.Capturing())
	// One timer for the burst: the first key starts it, the next ones only
	// move its deadline (a tick per key would be a redraw per key).
	for _, r := range "tabl" {
		m.Update(keyOf(r))
		now = now.Add(50 * time.Millisecond)
	}
	assert.Equal(t, 4, m.browse.list.searchSeq, "one sequence number per keystroke")
	require.True(t, m.browse.list.debounce.Armed())
	tick := m.browse.list.debounce.Tick(searchKey)
	assert.Equal(t, 1, tick.Gen, "one timer for four keys")
	// The tick comes 150 ms after the first key: the last key was 50 ms
	// ago, so it waits for the rest and searches nothing yet.
	now = now.Add(-50 * time.Millisecond)
	_, cmd := m.Update(tick)
	assert.False(t, m.browse.list.searching, "no search before the pause")
	assert.NotNil(t, cmd, "re-armed for the rest of the delay")
	// After the pause: one search, of the last query.
	now = now.Add(200 * time.Millisecond)
	_, cmd = m.Update(tick)
	require.NotNil(t, cmd)
	assert.True(t, m.browse.list.searching)
	var res searchMsg
	for _, msg := range collect(cmd) {
		if r, ok := msg.(searchMsg); ok {
			res = r
		}
	}
	require.Equal(t, 4, res.seq)
	assert.Equal(t, "tabl", res.query)
	require.NotEmpty(t, res.results)

	// A result that arrives after a newer keystroke is dropped.
	m.Update(keyOf('e'))
	m.Update(res)
	assert.Empty(t, m.browse.list.query, "stale results are not shown")
	assert.Equal(t, 0, m.browse.list.results.Len())

	// The current one is shown.
	res.seq = m.browse.list.searchSeq
	m.Update(res)
	assert.Equal(t, "tabl", m.browse.list.query)
	assert.Equal(t, len(res.results), m.browse.list.results.Len())
	r, ok := m.browse.list.results.Selected()
	require.True(t, ok)
	assert.Equal(t, "table driven tests", r.node.Content)
}

func TestStaleGraphAndDetailResultsAreDropped(t *testing.T) {
	t.Parallel()
	m, _ := newPage(t)
	m.graph.seq = 5
	m.Update(graphMsg{seq: 4, root: 1, nodes: []engvault.Node{{ID: 1}}})
	assert.Zero(t, m.graph.graph.Lines(), "an old graph is not shown")
	m.Update(graphMsg{seq: 5, root: 1, nodes: []engvault.Node{{ID: 1, Content: "x"}}})
	assert.Equal(t, 1, m.graph.graph.Lines())

	m.conflicts.seq = 2
	m.Update(conflictsMsg{seq: 1, list: []engvault.Conflict{{}}})
	assert.False(t, m.conflicts.loaded)
}

func TestRowsNeverExceedTheirWidth(t *testing.T) {
	t.Parallel()
	m, _ := newPage(t)
	n := engvault.Node{ID: 7, Type: engvault.Mistake, Title: "a very long title that goes on and on and on and on",
		Content: "content\nwith newlines and ünïcödé and 漢字 wide runes", Tags: []string{"one", "two", "three"}, Confidence: 0.5, HelpfulCount: 123}
	for w := 40; w <= 200; w += 7 {
		for _, sel := range []bool{false, true} {
			line := m.browse.list.renderRow(row{node: n, score: 0.5}, 0, sel, true, w)
			assert.Equal(t, w, lipgloss.Width(line), "width %d", w)
		}
	}
}

func TestParseTags(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []string{"a", "b c", "d"}, parseTags(" a, b c ,,d, "))
	assert.Equal(t, []string{}, parseTags(" , "))
}

func TestCountFormats(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "9999", count(9999))
	assert.Equal(t, "100,000", count(100000))
	assert.Equal(t, "1,234,567", count(1234567))
	assert.Equal(t, "2.3k", compact(2345))
	assert.Equal(t, "12k", compact(12345))
	assert.Equal(t, "999", compact(999))
}
