package diffview

import (
	"context"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/nova-dev/nova/themes"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/keymap"
	"github.com/nova-dev/nova/tui/tuitest"
)

func newCommon() *common.Common {
	return &common.Common{Ctx: context.Background(), Styles: themes.Build(themes.NovaDark), KeyMap: keymap.DefaultKeyMap()}
}

// newView builds a view of path and waits for its syntax highlighting.
func newView(t testing.TB, w, h int, path, old, new string) *Model {
	t.Helper()
	m := New(newCommon())
	m.SetSize(w, h)
	settle(t, m, m.SetContent(path, old, new))
	return m
}

// settle runs cmd (the highlighting job) and feeds its message back.
func settle(t testing.TB, m *Model, cmd tea.Cmd) {
	t.Helper()
	if cmd == nil {
		return
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	select {
	case msg := <-done:
		m.Update(msg)
	case <-time.After(20 * time.Second):
		t.Fatal("highlighting did not finish")
	}
}

func keyPress(m *Model, keys ...string) {
	for _, k := range keys {
		m.Update(tuitest.Key(k))
	}
}

func pinned(t testing.TB, s string) string {
	t.Helper()
	return tuitest.Pinned(s)
}

// plain strips every escape sequence.
func plain(s string) string { return ansi.Strip(s) }
