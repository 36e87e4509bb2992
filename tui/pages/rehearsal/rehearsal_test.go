package rehearsal

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/knowledge/facts"
	"github.com/nova-dev/nova/engine/prd"
	rh "github.com/nova-dev/nova/engine/rehearsal"
	"github.com/nova-dev/nova/engine/rehearsal/rehearsaltest"
	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/tui/common"
)

func taskT1() prd.Task {
	return prd.Task{ID: "T1", Title: "Add totals", Description: "Add a Total function to calc.", Agent: "MARS"}
}

func TestGoldenReview(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{180, 50}, {100, 30}} {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			ws := newWS(t, rehearsaltest.Three())
			ss := ws.rehearse(t, 3)
			h := newPage(t, ws, sz.w, sz.h)
			t.Run("list", func(t *testing.T) { golden.RequireEqual(t, []byte(h.pinned())) })
			h.send(common.NavigateMsg{Page: ID, Arg: ss.ID})
			require.NotNil(t, h.m.sess)
			t.Run("review", func(t *testing.T) { golden.RequireEqual(t, []byte(h.pinned())) })
		})
	}
}

func TestSideBySideAndTabs(t *testing.T) {
	t.Parallel()
	ws := newWS(t, rehearsaltest.Three())
	ss := ws.rehearse(t, 3)
	wide := newPage(t, ws, 180, 50)
	wide.send(common.NavigateMsg{Page: ID, Arg: ss.ID})
	v := wide.plain()
	for _, a := range []string{"1 minimal", "2 idiomatic", "3 defensive"} {
		assert.Contains(t, v, a)
	}
	for _, l := range strings.Split(v, "\n") {
		assert.LessOrEqual(t, ansi.StringWidth(l), 180)
	}
	narrow := newPage(t, ws, 100, 30)
	narrow.send(common.NavigateMsg{Page: ID, Arg: ss.ID})
	v = narrow.plain()
	assert.Contains(t, v, "1 minimal")
	assert.Contains(t, v, "2 idiomatic")
	assert.Equal(t, 1, strings.Count(v, "typecheck"), "one column behind tabs")
	narrow.press("l")
	assert.Equal(t, 1, narrow.m.Focus())
	narrow.press("3")
	assert.Equal(t, 2, narrow.m.Focus())
	narrow.press("tab")
	assert.Contains(t, narrow.plain(), "calc/calc_test.go")
}

func TestKeysScrollSyncSplitWhy(t *testing.T) {
	t.Parallel()
	ws := newWS(t, rehearsaltest.Three())
	ss := ws.rehearse(t, 3)
	h := newPage(t, ws, 180, 24)
	h.send(common.NavigateMsg{Page: ID, Arg: ss.ID})
	h.press("3")
	h.press("j", "j")
	assert.Equal(t, 2, h.m.dvs[2].Offset())
	assert.Equal(t, 0, h.m.dvs[0].Offset(), "not synchronised yet")
	h.press("y", "j")
	assert.Equal(t, h.m.dvs[2].Offset(), h.m.dvs[1].Offset())
	split := h.m.dvs[0].IsSplit()
	h.press("s")
	assert.NotEqual(t, split, h.m.dvs[0].IsSplit())
	h.press("w")
	assert.Contains(t, h.plain(), "Score evidence")
	h.press("w")
	assert.NotContains(t, h.plain(), "Score evidence")
	h.press("?") // root's; harmless here
	h.press("esc")
	assert.Nil(t, h.m.sess, "esc goes back to the list; the session stays pending")
	got, err := ws.svc.Get(context.Background(), ss.ID)
	require.NoError(t, err)
	assert.Equal(t, rh.StatusPending, got.Status)
}

// The "why" panel lists the knowledge the prompts carried, and K opens it
// on the Knowledge screen.
func TestWhyLinksToTheInjectedKnowledge(t *testing.T) {
	t.Parallel()
	ws := newWS(t, rehearsaltest.Three())
	f, err := ws.AddFact(context.Background(), facts.NewFact{Content: "Division by zero returns an error, never panics"})
	require.NoError(t, err)
	refs := []string{"fact:" + f.ID, "docs:context7:go#errors"}
	ss, err := ws.svc.Rehearse(context.Background(), rh.Request{Task: taskT1(), Branches: 2, Force: true, KnowledgeIDs: refs})
	require.NoError(t, err)
	h := newPage(t, ws, 180, 47)
	h.send(common.NavigateMsg{Page: ID, Arg: ss.ID})
	h.press("w")
	out := h.plain()
	assert.Contains(t, out, "Knowledge injected (2) · K opens it")
	assert.Contains(t, out, "fact:"+f.ID+" Division by zero returns an error")
	assert.Contains(t, out, "docs:context7:go#errors (no longer available)")
	h.press("K")
	require.NotEmpty(t, h.d.Navs)
	assert.Equal(t, common.NavigateMsg{Page: "knowledge", Arg: common.KnowledgeRefs{
		Title: fmt.Sprintf("Injected into rehearsal #%d (task %s)", ss.ID, ss.TaskID), Refs: refs}}, h.d.Navs[len(h.d.Navs)-1])
}

// TestEndToEndApproveBranch2 drives the page through keys: focus branch 2,
// approve, confirm → exactly branch 2's files are on disk and a Preference
// node exists.
func TestEndToEndApproveBranch2(t *testing.T) {
	t.Parallel()
	ws := newWS(t, rehearsaltest.Three())
	ss := ws.rehearse(t, 3)
	h := newPage(t, ws, 180, 50)
	assert.Contains(t, h.plain(), "waiting for you")
	h.press("enter") // open the selected (only) session
	require.NotNil(t, h.m.sess)
	h.press("l") // focus branch 2
	require.Equal(t, 1, h.m.Focus())
	h.press("enter")
	require.True(t, h.m.Capturing(), "a confirmation is shown")
	v := h.plain()
	assert.Contains(t, v, "Approve branch 2 (idiomatic)?")
	assert.Contains(t, v, "calc/doc.go")
	h.press("y")
	require.Empty(t, h.d.Errs)
	win := ss.Branches[1]
	for _, f := range win.Files {
		assert.Equal(t, f.ProposedContent, ws.read(t, f.Path))
	}
	assert.False(t, ws.exists("calc/calc_test.go"), "branch 3's test file is not written")
	got, err := ws.svc.Get(context.Background(), ss.ID)
	require.NoError(t, err)
	assert.Equal(t, win.ID, got.Winner)
	require.NotNil(t, got.UserApproved)
	assert.True(t, *got.UserApproved)
	prefs, err := ws.Vault().ByType(context.Background(), vault.Preference, 10)
	require.NoError(t, err)
	require.NotEmpty(t, prefs)
	assert.Contains(t, prefs[0].Content, "prefer idiomatic over minimal and defensive")
	assert.Equal(t, fmt.Sprintf("rehearsal:%d", ss.ID), prefs[0].Source)
	assert.Contains(t, strings.Join(h.d.Toasts, "\n"), "learned preference")
	// now read-only
	h.press("x")
	assert.False(t, h.m.Capturing())
	assert.Contains(t, h.plain(), "read-only")
}

func TestRejectWithReason(t *testing.T) {
	t.Parallel()
	ws := newWS(t, rehearsaltest.Three())
	ss := ws.rehearse(t, 2)
	h := newPage(t, ws, 120, 30)
	h.send(common.NavigateMsg{Page: ID, Arg: ss.ID})
	h.press("x")
	require.True(t, h.m.Capturing())
	for _, r := range "too risky" {
		h.press(string(r))
	}
	h.press("enter")
	got, err := ws.svc.Get(context.Background(), ss.ID)
	require.NoError(t, err)
	assert.Equal(t, rh.StatusRejected, got.Status)
	assert.Equal(t, "too risky", got.Reason)
	assert.Equal(t, "package calc\n", ws.read(t, "calc/calc.go"))
}

func TestRegenerateAndFilters(t *testing.T) {
	t.Parallel()
	ws := newWS(t, rehearsaltest.Three())
	ss := ws.rehearse(t, 2)
	h := newPage(t, ws, 160, 40)
	h.send(common.NavigateMsg{Page: ID, Arg: ss.ID})
	h.press("r")
	out := h.plain()
	assert.Contains(t, out, "Regenerate the branches?", "it costs model time: it asks first")
	assert.Contains(t, out, "Runs the model again for 2 new branches")
	h.press("enter")
	assert.NotContains(t, h.plain(), "round 2", "enter keeps these branches")
	h.press("r", "y")
	require.Empty(t, h.d.Errs)
	assert.Contains(t, h.plain(), "round 2")
	h.press("esc")
	h.press("tab") // Pending
	assert.Contains(t, h.plain(), "#1")
	h.press("tab") // Decided
	assert.Contains(t, h.plain(), "No session matches")
}

func TestFitsEverySize(t *testing.T) {
	t.Parallel()
	ws := newWS(t, rehearsaltest.Three())
	ss := ws.rehearse(t, 3)
	for _, sz := range [][2]int{{80, 21}, {120, 40}, {150, 40}, {250, 67}} {
		h := newPage(t, ws, sz[0], sz[1])
		for _, step := range []func(){func() {}, func() { h.send(common.NavigateMsg{Page: ID, Arg: ss.ID}) }, func() { h.press("w") }} {
			step()
			lines := strings.Split(h.plain(), "\n")
			assert.Len(t, lines, sz[1], "%v", sz)
			for _, l := range lines {
				assert.LessOrEqual(t, ansi.StringWidth(l), sz[0], "%v: %q", sz, l)
			}
		}
	}
}
