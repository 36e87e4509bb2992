package knowledge

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/knowledge/facts"
	"github.com/nova-dev/nova/tui/common"
)

// Page sizes are the body under the header and the status bar (3 lines):
// the screens are 80×24 and 180×50.
var sizes = [][2]int{{80, 21}, {180, 47}}

func seeded(t *testing.T, w, h int) (*loop, *engine.Local) {
	t.Helper()
	ws, _, clk := newWS(t)
	seed(t, ws, clk)
	return newLoop(t, ws, w, h), ws
}

func TestGoldenPages(t *testing.T) {
	t.Parallel()
	for _, size := range sizes {
		name := fmt.Sprintf("%dx%d", size[0], size[1]+3)
		t.Run("search_"+name, func(t *testing.T) {
			t.Parallel()
			l, _ := seeded(t, size[0], size[1])
			l.search("release branches")
			golden.RequireEqual(t, l.Pinned())
		})
		t.Run("facts_"+name, func(t *testing.T) {
			t.Parallel()
			l, _ := seeded(t, size[0], size[1])
			l.PressAsync("tab", "i")
			l.Until(func() bool { return len(l.m.factsRes.Facts) == 7 })
			golden.RequireEqual(t, l.Pinned())
		})
		t.Run("history_"+name, func(t *testing.T) {
			t.Parallel()
			l, _ := seeded(t, size[0], size[1])
			l.PressAsync("tab")
			for f, ok := l.m.selectedFact(); !ok || f.Supersedes == ""; f, ok = l.m.selectedFact() {
				l.PressAsync("j")
			}
			f, _ := l.m.selectedFact()
			l.PressAsync("enter")
			l.opened("fact:" + f.ID)
			golden.RequireEqual(t, l.Pinned())
		})
		t.Run("docs_"+name, func(t *testing.T) {
			t.Parallel()
			l, _ := seeded(t, size[0], size[1])
			l.PressAsync("tab", "tab", "enter")
			l.opened("docs:context7:next.js#routing")
			golden.RequireEqual(t, l.Pinned())
		})
		t.Run("correct_"+name, func(t *testing.T) {
			t.Parallel()
			l, _ := seeded(t, size[0], size[1])
			l.PressAsync("tab", "j", "j", "j", "c")
			f, _ := l.m.selectedFact()
			require.Contains(t, f.Content, "API handlers")
			l.TypeAsync("the api moved to problem details")
			l.PressAsync("tab")
			l.TypeAsync("API handlers return RFC 9457 problem details")
			l.PressAsync("enter")
			require.True(t, l.m.conf.Active())
			golden.RequireEqual(t, l.Pinned())
		})
		t.Run("empty_"+name, func(t *testing.T) {
			t.Parallel()
			ws, _, _ := newWS(t)
			l := newLoop(t, ws, size[0], size[1])
			golden.RequireEqual(t, l.Pinned())
		})
	}
}

// Every view fits the page, at every size nova lays out for.
func TestLayoutFits(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 21}, {100, 27}, {120, 37}, {180, 47}, {250, 67}} {
		l, _ := seeded(t, size[0], size[1])
		check := func(what string) {
			lines := strings.Split(l.Plain(), "\n")
			assert.Len(t, lines, size[1], "%v %s", size, what)
			for i, ln := range lines {
				assert.LessOrEqual(t, lipgloss.Width(ln), size[0], "%v %s line %d: %q", size, what, i, ln)
			}
		}
		l.search("release")
		check("search")
		l.PressAsync("enter")
		l.Settle(100 * time.Millisecond)
		check("search detail")
		l.PressAsync("esc", "tab", "i")
		l.Settle(100 * time.Millisecond)
		check("facts")
		l.PressAsync("enter")
		l.Settle(100 * time.Millisecond)
		check("fact detail")
		l.PressAsync("esc", "a")
		check("add form")
		l.PressAsync("esc", "tab")
		check("docs")
		l.PressAsync("D")
		check("clear question")
		l.PressAsync("n")
	}
}

func TestSearchAsYouTypeLabelsSources(t *testing.T) {
	t.Parallel()
	l, _ := seeded(t, 180, 47)
	l.PressAsync("/")
	assert.True(t, l.m.Capturing(), "typing a search owns the keyboard")
	l.TypeAsync("release")
	assert.Nil(t, l.m.result, "the search waits for a pause in typing")
	l.Until(func() bool { return l.m.result != nil && !l.m.searching })
	assert.Equal(t, 7, l.m.searchSeq, "one sequence number per keystroke: stale answers are dropped")
	out := l.Plain()
	for _, want := range []string{"FACT", "VAULT", "Releases are cut from release/* branches after the freeze", "Cut releases from a checklist", "fact:f"} {
		assert.Contains(t, out, want)
	}
	assert.NotContains(t, out, "Releases are cut from the main branch", "a superseded fact is hidden")
	l.PressAsync("esc")
	assert.False(t, l.m.Capturing())

	// A new query drops the old answer's sequence.
	l.PressAsync("/", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace")
	l.TypeAsync("hooks")
	l.Until(func() bool { return l.m.query == "hooks" && !l.m.searching })
	assert.Contains(t, l.Plain(), "DOCS")
	l.PressAsync("enter")
	l.opened("docs:context7:react#hooks")
	assert.Contains(t, l.Plain(), "useEffect")
	l.PressAsync("esc")
	assert.Nil(t, l.m.det)
	l.PressAsync("esc")
	assert.Empty(t, l.m.query, "esc clears the search")
}

func TestCorrectAsksFirstThenRecordsTheReplacement(t *testing.T) {
	t.Parallel()
	l, ws := seeded(t, 180, 47)
	ctx := context.Background()
	l.PressAsync("tab")
	var target facts.Fact
	for i := range 10 {
		if f, ok := l.m.selectedFact(); ok && strings.HasPrefix(f.Content, "API handlers") {
			target = f
			break
		}
		l.PressAsync("j")
		require.Less(t, i, 9)
	}
	l.PressAsync("c")
	require.NotNil(t, l.m.form)
	l.PressAsync("enter")
	assert.Contains(t, l.Plain(), "Say why the fact no longer holds.", "the reason is required")
	l.TypeAsync("we use problem details now")
	l.PressAsync("tab")
	l.TypeAsync("API handlers return RFC 9457 problem details")
	l.PressAsync("enter")
	require.True(t, l.m.conf.Active(), "a correction is confirmed first")
	l.PressAsync("n")
	l.Settle(100 * time.Millisecond)
	got, err := ws.KnowledgeItem(ctx, "fact:"+target.ID)
	require.NoError(t, err)
	assert.Equal(t, facts.StatusValid, got.Fact.Status, "no: nothing changed")

	l.PressAsync("c")
	l.TypeAsync("we use problem details now")
	l.PressAsync("tab")
	l.TypeAsync("API handlers return RFC 9457 problem details")
	l.PressAsync("enter", "y")
	l.Until(func() bool {
		return l.m.det != nil && l.m.det.item.Fact != nil && l.m.det.item.Fact.Supersedes == target.ID
	})
	l.Until(func() bool { return len(l.m.det.history) == 2 })
	got, err = ws.KnowledgeItem(ctx, "fact:"+target.ID)
	require.NoError(t, err)
	assert.Equal(t, facts.StatusSuperseded, got.Fact.Status)
	out := l.Plain()
	assert.Contains(t, out, "History")
	assert.Contains(t, out, "we use problem details now")
	l.Until(func() bool { f, _ := l.m.selectedFact(); return f.ID == l.m.det.item.Fact.ID }) // the list follows the replacement
}

func TestInvalidatePromoteAndKeep(t *testing.T) {
	t.Parallel()
	l, ws := seeded(t, 180, 47)
	ctx := context.Background()
	l.PressAsync("tab")
	find := func(prefix string) facts.Fact {
		t.Helper()
		for i, r := range l.m.factRows {
			if r.header == "" && strings.HasPrefix(r.fact.Content, prefix) {
				l.m.factList.SetCursor(i)
				return r.fact
			}
		}
		t.Fatalf("no fact %q", prefix)
		return facts.Fact{}
	}
	mars := find("MARS writes")
	l.PressAsync("p")
	require.NotNil(t, l.m.form)
	assert.Equal(t, []facts.Scope{facts.Workspace(), facts.User()}, l.m.form.scopes)
	l.PressAsync("right", "enter")
	require.True(t, l.m.conf.Active())
	assert.Contains(t, l.Plain(), "Promote fact "+mars.ID+" to user?")
	l.PressAsync("y")
	l.Until(func() bool {
		return l.m.det != nil && l.m.det.item.Fact != nil && l.m.det.item.Fact.Scope == facts.User()
	})

	api := find("API handlers")
	l.PressAsync("x")
	l.TypeAsync("handlers changed")
	l.PressAsync("enter")
	assert.Contains(t, l.Plain(), "Invalidate fact "+api.ID+"?")
	l.PressAsync("y")
	l.Until(func() bool {
		it, err := ws.KnowledgeItem(ctx, "fact:"+api.ID)
		return err == nil && it.Fact.Status == facts.StatusInvalidated
	})
	l.Settle(300 * time.Millisecond)
	for _, r := range l.m.factRows {
		assert.NotEqual(t, api.ID, r.fact.ID, "closed facts are hidden until i")
	}
	l.PressAsync("i")
	l.Until(func() bool { return l.m.showClosed && len(l.m.factsRes.Facts) > 6 })
	find("API handlers")
	l.PressAsync("x")
	assert.Nil(t, l.m.form, "a closed fact cannot be invalidated again")

	// Keep: only archived or flagged facts.
	find("I prefer small")
	l.PressAsync("u")
	assert.False(t, l.m.conf.Active())
}

func TestDocsCacheRefreshRemoveClear(t *testing.T) {
	t.Parallel()
	l, ws := seeded(t, 80, 21)
	ctx := context.Background()
	l.PressAsync("tab", "tab")
	out := l.Plain()
	for _, want := range []string{"context7", "next.js", "routing", "react", "hooks", "stale", "3 entries · 1 stale"} {
		assert.Contains(t, out, want)
	}
	l.PressAsync("j", "j") // react (hooks), the stale one
	e, ok := l.m.selectedDoc()
	require.True(t, ok)
	require.Equal(t, "react", e.Library)
	l.PressAsync("r")
	l.Until(func() bool {
		return l.m.fetching == "" && len(l.m.docsList) == 3 && !l.m.docsList[0].Stale && l.m.docsList[0].Library == "react"
	})
	l.opened("docs:context7:react#hooks")
	l.PressAsync("esc", "g", "d")
	require.True(t, l.m.conf.Active())
	l.PressAsync("n")
	list, err := ws.DocsList(ctx, "")
	require.NoError(t, err)
	assert.Len(t, list, 3, "no: nothing removed")
	l.PressAsync("d", "y")
	l.Until(func() bool { return len(l.m.docsList) == 2 })

	l.PressAsync("D")
	assert.Contains(t, l.Plain(), "Clear all 2 cached docs?")
	l.PressAsync("y")
	l.Until(func() bool { return len(l.m.docsList) == 0 })
	assert.Contains(t, l.Plain(), "The docs cache is empty.")

	l.PressAsync("f")
	l.TypeAsync("zod")
	l.PressAsync("enter")
	l.Until(func() bool { return len(l.m.docsList) == 1 })
	l.opened("docs:context7:zod")
}

func TestProvenanceLinksOpenHere(t *testing.T) {
	t.Parallel()
	l, ws := seeded(t, 180, 47)
	list, err := ws.ListFacts(context.Background(), facts.ListOptions{Scope: facts.Workspace()})
	require.NoError(t, err)
	ref := "fact:" + list.Facts[0].ID
	_, cmd := l.m.Update(common.NavigateMsg{Page: ID, Arg: ref})
	l.Exec(cmd)
	l.opened(ref)
	assert.Equal(t, paneFacts, l.m.pane)
	f, _ := l.m.selectedFact()
	assert.Equal(t, list.Facts[0].ID, f.ID)

	_, cmd = l.m.Update(common.NavigateMsg{Page: ID, Arg: common.KnowledgeRefs{Title: "Injected into build 1, task t-1",
		Refs: []string{"docs:context7:zod", ref, "fact:f99"}}})
	l.Exec(cmd)
	l.Until(func() bool { return len(l.m.refHits) == 3 })
	l.opened("docs:context7:zod")
	out := l.Plain()
	assert.Equal(t, paneSearch, l.m.pane)
	assert.Contains(t, out, "Injected into build 1, task t-1")
	assert.Contains(t, out, "(no longer available)")
	l.PressAsync("esc", "esc")
	assert.Nil(t, l.m.refs, "esc leaves the provenance list")

	_, cmd = l.m.Update(common.NavigateMsg{Page: "vault", Arg: ref})
	assert.Nil(t, cmd, "another page's navigation is ignored")
}

func TestEventsRefreshTheLists(t *testing.T) {
	t.Parallel()
	l, ws := seeded(t, 80, 21)
	before := len(l.m.factsRes.Facts)
	_, err := ws.AddFact(context.Background(), facts.NewFact{Content: "Migrations are append-only"})
	require.NoError(t, err)
	_, cmd := l.m.Update(common.EventMsg{Event: engine.Event{Type: engine.EventChanged, Topic: engine.TopicKnowledge, Text: "facts"}})
	l.Exec(cmd)
	l.Until(func() bool { return len(l.m.factsRes.Facts) == before+1 })
}

func TestErrorsAndHelp(t *testing.T) {
	t.Parallel()
	ws, _, _ := newWS(t)
	l := newLoop(t, failingSource{Source: ws}, 80, 21)
	l.PressAsync("tab")
	assert.Contains(t, l.Plain(), "could not list the facts")
	l.PressAsync("tab")
	assert.Contains(t, l.Plain(), "could not list the docs cache")
	assert.NotEmpty(t, l.m.ShortHelp())
	var n int
	for _, g := range l.m.FullHelp() {
		n += len(g)
	}
	assert.Greater(t, n, 15, "? lists every key of the screen")
}
