package knowledge

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/knowledge"
	"github.com/nova-dev/nova/engine/knowledge/docs"
	"github.com/nova-dev/nova/engine/knowledge/facts"
)

// Issue 32: local Go docs shown in a panel narrower than go doc's lines
// are re-flowed by paragraph: even lines, every word kept in order, and the
// declarations and the example code as they were.
func TestGoDocReflowsByParagraph(t *testing.T) {
	t.Parallel()
	doc := "package uniseg // import \"github.com/rivo/uniseg\"\n\n" +
		"Package uniseg implements Unicode Text Segmentation, Unicode Line Breaking, and\n" +
		"string width calculation for monospace fonts. Unicode Text Segmentation conforms\n" +
		"to Unicode Standard Annex #29.\n\n" +
		"FUNCTIONS\n\n" +
		"func StringWidth(s string) (width int)\n" +
		"    StringWidth returns the monospace width for the given string, that is, the\n" +
		"    number of same-size cells to be occupied by the string.\n\n" +
		"        width := uniseg.StringWidth(\"🇩🇪🏳️‍🌈\")\n"
	const width = 50
	lines := reflowDoc(doc, width)
	for _, l := range lines {
		assert.LessOrEqual(t, ansi.StringWidth(l), width, l)
	}
	assert.Contains(t, lines, "func StringWidth(s string) (width int)")
	assert.Contains(t, lines, "FUNCTIONS")
	assert.Contains(t, lines, "        width := uniseg.StringWidth(\"🇩🇪🏳️‍🌈\")")
	assert.Equal(t, strings.Fields(doc), strings.Fields(strings.Join(lines, "\n")), "every word, in order")
	// The package paragraph: full lines but its last (no stub after each
	// long piece, as wrapping go doc's lines one by one gave).
	var para []string
	for _, l := range lines {
		if strings.HasPrefix(l, "Package uniseg") || len(para) > 0 {
			if l == "" {
				break
			}
			para = append(para, l)
		}
	}
	assert.GreaterOrEqual(t, len(para), 4)
	for _, l := range para[:len(para)-1] {
		assert.Greater(t, ansi.StringWidth(l), width-15, "an even line: %q", l)
	}
	found := false
	for i, l := range lines {
		if strings.HasPrefix(l, "    StringWidth returns") {
			found = true
			assert.True(t, strings.HasPrefix(lines[i+1], "    "), "the doc under a declaration keeps its indent: %q", lines[i+1])
			assert.Greater(t, ansi.StringWidth(l), width-15)
		}
	}
	assert.True(t, found)
}

// Issue 32: the docs footer counts in words that agree with the number
// ("1 entry", never "1 entries").
func TestDocsFooterCountsAgree(t *testing.T) {
	t.Parallel()
	l, _ := seeded(t, 120, 21)
	l.PressAsync("tab", "tab")
	l.m.docsStats.Entries, l.m.docsStats.Tokens = 1, 1
	foot := strings.Join(l.m.docLines(110, 10)[:1], "")
	assert.Contains(t, ansi.Strip(foot), "1 entry · ")
	assert.Contains(t, ansi.Strip(foot), "1 token · ")
	assert.NotContains(t, ansi.Strip(foot), "1 entries")
}

// Issue 32: the hits and the docs are nova's list: at 80×24 thirty rows do
// not fit, the panel says where it is, pgdn and G move the ›.
func TestHitsAndDocsScroll(t *testing.T) {
	t.Parallel()
	ws, _, _ := newWS(t)
	l := newLoop(t, ws, 80, 24)
	var hits []knowledge.Hit
	var entries []docs.EntryInfo
	for i := range 30 {
		hits = append(hits, knowledge.Hit{Source: knowledge.SourceFacts, Title: fmt.Sprintf("hit %02d", i), Snippet: "a snippet", Score: 0.9, Ref: fmt.Sprintf("fact:f%d", i)})
		entries = append(entries, docs.EntryInfo{Source: docs.SourceLocal, Library: fmt.Sprintf("lib%02d", i), Ref: fmt.Sprintf("docs:local:lib%02d", i)})
	}
	l.Send(searchMsg{seq: l.m.searchSeq, query: "hit", res: knowledge.Result{Hits: hits}})
	out := ansi.Strip(l.m.View())
	assert.Regexp(t, `› +FACT +hit 00`, out)
	assert.Regexp(t, `1/30 · ↓ \d+ more`, out)
	l.Press("pgdown")
	h, _ := l.m.selectedHit()
	assert.NotEqual(t, "hit 00", h.Title, "pgdn moved the cursor")
	l.Press("G")
	h, _ = l.m.selectedHit()
	assert.Equal(t, "hit 29", h.Title)
	assert.Contains(t, ansi.Strip(l.m.View()), "30/30 · ↑")

	l.Send(docsMsg{list: entries})
	l.Press("tab", "tab")
	require.Equal(t, paneDocs, l.m.pane)
	out = ansi.Strip(l.m.View())
	assert.Contains(t, out, "› local    lib00")
	assert.Regexp(t, `1/30 · ↓ \d+ more`, out)
	l.Press("G")
	e, _ := l.m.selectedDoc()
	assert.Equal(t, "lib29", e.Library)
	l.Press("g", "pgdown")
	e, _ = l.m.selectedDoc()
	assert.NotEqual(t, "lib00", e.Library)
}

// ? lists the page's own keymap, the active pane's actions first.
func TestHelpShowsPageKeys(t *testing.T) {
	t.Parallel()
	ws, _, _ := newWS(t)
	l := newLoop(t, ws, 120, 40)
	l.Press("tab", "tab")
	require.Equal(t, paneDocs, l.m.pane)
	groups := l.m.FullHelp()
	require.NotEmpty(t, groups)
	var first []string
	for _, k := range groups[0] {
		first = append(first, k.Help().Key+" "+k.Help().Desc)
	}
	assert.Equal(t, "r refresh a doc, d remove a doc, D clear the cache, f fetch docs", strings.Join(first, ", "))
	l.Press("tab")
	short := l.m.ShortHelp()
	require.NotEmpty(t, short)
	assert.Equal(t, "/", short[0].Help().Key)
}

// Issue 32: the facts are nova's list too: the scope headers are passed
// over, the list says where it is, G reaches the last fact and ↑ from the
// first fact of a scope goes to the previous scope's last one.
func TestFactsScroll(t *testing.T) {
	t.Parallel()
	ws, _, _ := newWS(t)
	l := newLoop(t, ws, 80, 24)
	fs := []facts.Fact{{ID: "u1", Content: "a user fact", Scope: facts.User(), Status: facts.StatusValid}}
	for i := range 20 {
		fs = append(fs, facts.Fact{ID: fmt.Sprintf("f%d", i), Content: fmt.Sprintf("workspace fact %d", i), Scope: facts.Workspace(), Status: facts.StatusValid})
	}
	l.Send(factsMsg{res: facts.ListResult{Facts: fs}})
	l.Press("tab")
	require.Equal(t, paneFacts, l.m.pane)
	out := ansi.Strip(l.m.View())
	assert.Contains(t, out, "user · 1", "the first scope's header is in view")
	assert.Contains(t, out, "› u1")
	assert.Regexp(t, `2/23 · ↓ \d+ more`, out)
	l.Press("down")
	f, _ := l.m.selectedFact()
	assert.Equal(t, "f0", f.ID, "↓ passes over the workspace header")
	l.Press("up")
	f, _ = l.m.selectedFact()
	assert.Equal(t, "u1", f.ID, "↑ passes over it back")
	l.Press("G")
	f, _ = l.m.selectedFact()
	assert.Equal(t, "f19", f.ID)
	assert.Contains(t, ansi.Strip(l.m.View()), "23/23 · ↑")
}
