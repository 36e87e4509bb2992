package playbooks

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/ace"
	"github.com/nova-dev/nova/tui/common"
)

func selectAgent(l *loop, id string) {
	l.t.Helper()
	if !l.m.agents.choose(id) {
		l.t.Fatalf("no agent %s", id)
	}
	l.exec(l.m.loadPlaybook())
	l.until(func() bool { return l.m.rules.agent == id })
}

func seeded(t *testing.T, w, h int) (*loop, *ace.Manager) {
	t.Helper()
	ws := newWS(t)
	mgr := ace.NewManager(ws.DB(), clock(), nil)
	seed(t, mgr)
	l := newLoop(t, managerSource{Manager: mgr, ws: ws}, w, h)
	selectAgent(l, "MARS")
	return l, mgr
}

// Page sizes are the body under the header and the status bar (3 lines).
var sizes = [][2]int{{80, 21}, {160, 45}}

func TestGoldenPages(t *testing.T) {
	t.Parallel()
	for _, size := range sizes {
		name := fmt.Sprintf("%dx%d", size[0], size[1]+3)
		t.Run("rules_"+name, func(t *testing.T) {
			t.Parallel()
			l, _ := seeded(t, size[0], size[1])
			l.press("l")
			golden.RequireEqual(t, l.pinned())
		})
		t.Run("history_"+name, func(t *testing.T) {
			t.Parallel()
			l, _ := seeded(t, size[0], size[1])
			l.press("tab", "down")
			golden.RequireEqual(t, l.pinned())
		})
		t.Run("pending_"+name, func(t *testing.T) {
			t.Parallel()
			l, _ := seeded(t, size[0], size[1])
			l.press("tab", "tab")
			golden.RequireEqual(t, l.pinned())
		})
		t.Run("empty_"+name, func(t *testing.T) {
			t.Parallel()
			ws := newWS(t)
			l := newLoop(t, managerSource{Manager: ace.NewManager(ws.DB(), clock(), nil), ws: ws}, size[0], size[1])
			golden.RequireEqual(t, l.pinned())
		})
	}
}

func TestLayoutFits(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 21}, {100, 27}, {120, 37}, {160, 45}, {200, 57}, {250, 67}} {
		l, _ := seeded(t, size[0], size[1])
		for _, keys := range [][]string{{"l"}, {"tab"}, {"tab"}, {"n"}, {"esc", "tab", "x"}} {
			l.press(keys...)
			lines := strings.Split(l.plain(), "\n")
			assert.Len(t, lines, size[1], "%v", size)
			for i, ln := range lines {
				assert.LessOrEqual(t, lipgloss.Width(ln), size[0], "%v line %d: %q", size, i, ln)
			}
		}
	}
}

func TestRulesShowCountsAndSort(t *testing.T) {
	t.Parallel()
	l, _ := seeded(t, 160, 45)
	out := l.plain()
	for _, want := range []string{"MARS", "v5", "Validate request bodies", "manual", "learned", "api,validation", "Pending 2", "History 5", "sort confidence"} {
		assert.Contains(t, out, want)
	}
	assert.NotContains(t, out, "Run go vet before", "r4 was deleted")
	first := func() string { r, _ := l.m.rules.selected(); return r.ID }
	l.press("l", "g")
	assert.Equal(t, "r1", first(), "highest confidence first")
	l.press("o", "g")
	assert.Contains(t, l.plain(), "sort applied")
	require.Len(t, l.m.rules.rules, 3)
	assert.Equal(t, "r1", first(), "r1 was applied twice")
	assert.GreaterOrEqual(t, l.m.rules.rules[1].AppliedCount, l.m.rules.rules[2].AppliedCount)
	l.press("o", "o", "o")
	assert.Equal(t, sortContent, l.m.rules.sortBy)
	assert.Equal(t, "r2", l.m.rules.rules[len(l.m.rules.rules)-1].ID, "content a–z puts Wrap… last")
}

func TestFilterRules(t *testing.T) {
	t.Parallel()
	l, _ := seeded(t, 160, 45)
	l.press("/")
	assert.True(t, l.m.Capturing(), "typing a filter owns the keyboard")
	l.typeText("errors")
	require.Len(t, l.m.rules.rules, 1)
	assert.Equal(t, "r2", l.m.rules.rules[0].ID)
	l.press("enter")
	assert.False(t, l.m.Capturing())
	assert.Contains(t, l.plain(), "filter errors")
	l.press("/", "esc")
	assert.Len(t, l.m.rules.rules, 3, "esc clears the filter")
	l.press("/")
	l.typeText("nothing-matches")
	assert.Contains(t, l.plain(), "No rule matches the filter.")
}

func TestApprovePendingDelta(t *testing.T) {
	t.Parallel()
	l, mgr := seeded(t, 160, 45)
	l.press("tab", "tab")
	require.Equal(t, viewPending, l.m.view)
	require.Len(t, l.m.pending.items, 2)
	l.press("enter")
	l.until(func() bool { return len(l.m.pending.items) == 1 && l.m.rules.pb != nil && l.m.rules.pb.Version == 6 })
	pb, err := mgr.GetPlaybook(context.Background(), "MARS")
	require.NoError(t, err)
	var found bool
	for _, r := range pb.Rules {
		found = found || strings.Contains(r.Content, "Return 422")
	}
	assert.True(t, found, "the approved delta is a rule now")
	assert.Contains(t, l.plain(), "Pending 1")
	h, err := mgr.History(context.Background(), "MARS")
	require.NoError(t, err)
	assert.Equal(t, "approved:curator", h[0].Origin)
}

func TestRejectPendingAsksFirst(t *testing.T) {
	t.Parallel()
	l, mgr := seeded(t, 160, 45)
	l.press("tab", "tab", "x")
	require.True(t, l.m.confirm.Active())
	assert.Contains(t, l.plain(), "Reject delta #1 for MARS?")
	l.press("n")
	l.settle(100 * 1e6)
	assert.Len(t, l.m.pending.items, 2, "no rejects without a yes")
	l.press("x", "y")
	l.until(func() bool { return len(l.m.pending.items) == 1 })
	left, err := mgr.ListPending(context.Background())
	require.NoError(t, err)
	require.Len(t, left, 1)
	assert.Equal(t, ace.OpRemove, left[0].Delta.Op)
	pb, err := mgr.GetPlaybook(context.Background(), "MARS")
	require.NoError(t, err)
	assert.Equal(t, 5, pb.Version, "a rejected delta changes nothing")
}

func TestAddEditDeleteRule(t *testing.T) {
	t.Parallel()
	l, mgr := seeded(t, 120, 37)
	ctx := context.Background()
	l.press("n")
	require.True(t, l.m.Capturing())
	l.press("enter")
	assert.Contains(t, l.plain(), "A rule needs some text.")
	l.typeText("Prefer table-driven tests")
	l.press("tab")
	l.typeText("tests, go")
	l.press("enter")
	l.until(func() bool { return l.m.form == nil && l.m.rules.pb != nil && len(l.m.rules.pb.Rules) == 4 })
	pb, err := mgr.GetPlaybook(ctx, "MARS")
	require.NoError(t, err)
	r, ok := pb.Rule("r5")
	require.True(t, ok)
	assert.Equal(t, "Prefer table-driven tests", r.Content)
	assert.Equal(t, []string{"tests", "go"}, r.Tags)
	assert.Equal(t, ace.SourceManual, r.Source)

	// Edit r5.
	l.press("l")
	require.True(t, l.m.rules.choose("r5"))
	l.press("e")
	require.NotNil(t, l.m.form)
	assert.Equal(t, "Prefer table-driven tests", l.m.form.content.Value())
	l.typeText(" with t.Run")
	l.press("enter")
	l.until(func() bool { return l.m.form == nil && l.m.rules.pb.Version == 7 })
	pb, _ = mgr.GetPlaybook(ctx, "MARS")
	r, _ = pb.Rule("r5")
	assert.Equal(t, "Prefer table-driven tests with t.Run", r.Content)

	// Delete asks first.
	l.press("d")
	require.True(t, l.m.confirm.Active())
	assert.Contains(t, l.plain(), "Delete rule r5?")
	l.press("esc")
	assert.False(t, l.m.confirm.Active())
	l.press("d", "y")
	l.until(func() bool { return l.m.rules.pb.Version == 8 })
	pb, _ = mgr.GetPlaybook(ctx, "MARS")
	_, ok = pb.Rule("r5")
	assert.False(t, ok)
}

func TestHistoryShowsWhatChanged(t *testing.T) {
	t.Parallel()
	l, _ := seeded(t, 160, 45)
	l.press("tab")
	out := l.plain()
	assert.Contains(t, out, "v5")
	assert.Contains(t, out, "− removed  r4 Run go vet")
	l.press("down")
	out = l.plain()
	assert.Contains(t, out, "~ modified r2")
	assert.Contains(t, out, "+ Wrap errors with the failing operation")
	assert.Contains(t, out, "tags [errors] → [errors, go]")
	l.press("down")
	out = l.plain()
	assert.Contains(t, out, "+ added    r3 Keep handlers thin")
	assert.Contains(t, out, "+ added    r4 Run go vet")
}

func TestNavigateToRule(t *testing.T) {
	t.Parallel()
	l, _ := seeded(t, 160, 45)
	selectAgent(l, "VENUS")
	l.dispatch(common.NavigateMsg{Page: ID, Arg: "r3"})
	l.until(func() bool { return l.m.rules.agent == "MARS" && l.m.wantRule == "" })
	r, ok := l.m.rules.selected()
	require.True(t, ok)
	assert.Equal(t, "r3", r.ID, "a bare rule id is found in whichever playbook has it")
	selectAgent(l, "VENUS")
	l.dispatch(common.NavigateMsg{Page: ID, Arg: "MARS/r2"})
	l.until(func() bool { return l.m.rules.agent == "MARS" && l.m.wantRule == "" })
	r, _ = l.m.rules.selected()
	assert.Equal(t, "r2", r.ID)
	assert.True(t, l.m.right)
}

// A playbook taller than its panel scrolls through nova's list: a
// scrollbar shows the hidden rows, pgdn and G move the cursor, the cursor
// row carries the › marker.
func TestRulesScrollThroughList(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	mgr := ace.NewManager(ws.DB(), clock(), nil)
	ctx := context.Background()
	for i := range 30 {
		_, _, err := mgr.AddRule(ctx, "MARS", fmt.Sprintf("Rule number %02d", i), nil, 0.5+float64(i)/100)
		require.NoError(t, err)
	}
	l := newLoop(t, managerSource{Manager: mgr, ws: ws}, 80, 21)
	selectAgent(l, "MARS")
	l.press("l")
	rows := func() []string {
		var out []string
		for _, line := range strings.Split(ansi.Strip(strings.Join(l.m.rules.view(70, 18, true), "\n")), "\n") {
			if strings.Contains(line, "Rule number") && strings.Contains(line, "█") { // a table row, not the detail
				out = append(out, line)
			}
		}
		return out
	}
	r := rows()
	require.NotEmpty(t, r)
	require.Less(t, len(r), 30, "the panel hides rows")
	for _, line := range r {
		assert.True(t, strings.HasSuffix(line, "┃") || strings.HasSuffix(line, "│"), "scrollbar on %q", line)
	}
	assert.True(t, strings.HasPrefix(r[0], "› "), "marker on the cursor row: %q", r[0])
	assert.Regexp(t, `1/30 · ↓ \d+ more`, ansi.Strip(strings.Join(l.m.rules.view(70, 18, true), "\n")), "the hidden rules are counted")
	sel := func() string { x, _ := l.m.rules.selected(); return x.Content }
	assert.Equal(t, "Rule number 29", sel(), "highest confidence first")
	l.press("pgdown")
	assert.Greater(t, l.m.rules.list.Cursor(), 1)
	l.press("G")
	assert.Equal(t, "Rule number 00", sel())
	r = rows()
	assert.True(t, strings.HasPrefix(r[len(r)-1], "› "), "the last row is in view: %q", r[len(r)-1])
	l.press("g")
	assert.Equal(t, 0, l.m.rules.list.Cursor())
}

// ? shows the page's own keymap, per state.
func TestHelpShowsPageKeys(t *testing.T) {
	t.Parallel()
	l, _ := seeded(t, 120, 37)
	descs := func(groups [][]key.Binding) string {
		var b []string
		for _, g := range groups {
			for _, k := range g {
				b = append(b, k.Help().Key+" "+k.Help().Desc)
			}
		}
		return strings.Join(b, ", ")
	}
	full := descs(l.m.FullHelp())
	for _, want := range []string{"o sort rules", "n add rule", "e edit rule", "d delete rule", "enter approve", "x reject", "/ filter rules", "pgdn page down"} {
		assert.Contains(t, full, want)
	}
	l.press("n")
	assert.Equal(t, "enter save, tab field, esc cancel", descs([][]key.Binding{l.m.ShortHelp()}))
}

// A teammate's rule names its author in the rule's detail (issue 33).
func TestTeamRuleNamesItsAuthor(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	mgr := ace.NewManager(ws.DB(), clock(), nil)
	seed(t, mgr)
	require.NoError(t, ws.DB().Update(func(tx *bolt.Tx) error {
		_, err := mgr.PutTeamRuleTx(tx, "MARS", ace.TeamRule{Subject: "r-k1a2b3c4d-mars-r1", Author: "k-1a2b3c4d", Version: "v1",
			Kind: "strategy", Content: "Return errors wrapped with the operation that failed", At: clock()()})
		return err
	}))
	l := newLoop(t, managerSource{Manager: mgr, ws: ws}, 120, 37)
	selectAgent(l, "MARS")
	id := ace.TeamRuleID("r-k1a2b3c4d-mars-r1")
	for i := range l.m.rules.rules {
		if l.m.rules.rules[i].ID == id {
			l.exec(l.m.rules.list.SetCursor(i))
		}
	}
	r, ok := l.m.rules.selected()
	require.True(t, ok)
	require.Equal(t, id, r.ID)
	assert.Contains(t, l.plain(), "shared by teammate k-1a2b3c4d")
}
