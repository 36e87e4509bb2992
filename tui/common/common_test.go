package common_test

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/tui/common"
)

func TestWrapWordsBreaksAtSpacesOnly(t *testing.T) {
	t.Parallel()
	text := "Next I will add GET /healthz to main.go and a table-driven test; the handler answers 200.\n\n    indented code stays\nend"
	for w := 8; w <= 60; w++ {
		lines := common.WrapWords(text, w)
		var words []string
		for _, l := range lines {
			assert.LessOrEqual(t, ansi.StringWidth(l), w, "width %d: %q", w, l)
			words = append(words, strings.Fields(l)...)
		}
		if w >= len("table-driven") {
			assert.Equal(t, strings.Fields(text), words, "width %d: every word whole, in order", w)
		}
	}
	assert.Equal(t, []string{"    indented", "code stays"}, common.WrapWords("    indented code stays", 12))
	assert.Equal(t, []string{"abcde", "fghij", "k x"}, common.WrapWords("abcdefghijk x", 5), "a word wider than the line is cut")
	assert.Equal(t, []string{"a", "", "b"}, common.WrapWords("a\n\nb", 10))
}

func TestDebouncerOneTimerPerBurst(t *testing.T) {
	t.Parallel()
	var d common.Debouncer
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const delay = 150 * time.Millisecond
	require.NotNil(t, d.Trigger("k", delay, now), "the first key starts the timer")
	for i := 1; i <= 3; i++ {
		assert.Nil(t, d.Trigger("k", delay, now.Add(time.Duration(i)*50*time.Millisecond)), "later keys only move the deadline")
	}
	tick := d.Tick("k")
	ready, cmd := d.Fire(tick, now.Add(delay))
	assert.False(t, ready, "the last key was 0 ms before the first deadline")
	assert.NotNil(t, cmd, "re-armed for the rest")
	ready, _ = d.Fire(tick, now.Add(300*time.Millisecond))
	assert.True(t, ready)
	assert.False(t, d.Armed())
	ready, _ = d.Fire(tick, now.Add(time.Second))
	assert.False(t, ready, "a tick fires once")

	require.NotNil(t, d.Trigger("k", delay, now))
	stale := d.Tick("k")
	d.Stop()
	ready, cmd = d.Fire(stale, now.Add(time.Second))
	assert.False(t, ready, "a stopped burst never fires")
	assert.Nil(t, cmd)
}

func TestChangesNothing(t *testing.T) {
	t.Parallel()
	assert.True(t, common.ChangesNothing(nil))
	assert.False(t, common.ChangesNothing(common.ToastMsg{Text: "x"}))
	assert.False(t, common.ChangesNothing(tea.KeyPressMsg{Code: 'a'}))
}

// TestWrapWordsBreaksLongWordsWhereReadersDo: a slug or a path wider than
// the line breaks after a hyphen or a slash, never inside a word part.
func TestWrapWordsBreaksLongWordsWhereReadersDo(t *testing.T) {
	t.Parallel()
	lines := common.WrapWords("// add-an-endpoint-that-archives-a-project-directory: done", 24)
	assert.Equal(t, []string{"//", "add-an-endpoint-that-", "archives-a-project-", "directory: done"}, lines)
	for _, l := range lines {
		assert.LessOrEqual(t, ansi.StringWidth(l), 24)
	}
	assert.Equal(t, "add-an-endpoint-that-archives-a-project-directory:",
		strings.Join(common.WrapWords("add-an-endpoint-that-archives-a-project-directory:", 24), ""), "nothing is lost")
}

// TestTailFromStartsAtALine: a stream kept to its tail starts at a line (or
// a word), never inside a word or a character.
func TestTailFromStartsAtALine(t *testing.T) {
	t.Parallel()
	text := "first line with words\nsecond line-that-archives\nthird"
	assert.Equal(t, text, common.TailFrom(text, len(text)))
	assert.Equal(t, "third", common.TailFrom(text, 20), "the cut moves to the next line")
	assert.Equal(t, "words", common.TailFrom("first line with words", 8), "no line: the next word")
	assert.Equal(t, "é", common.TailFrom("ééé", 3), "no space: a whole character")
	assert.True(t, utf8.ValidString(common.TailFrom("日本語日本語", 7)))
	assert.Empty(t, common.TailFrom(text, 0))
}
