package diffview

import (
	"bytes"
	"context"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/themes"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/keymap"
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
		var msg tea.KeyPressMsg
		switch k {
		case "up":
			msg = tea.KeyPressMsg{Code: tea.KeyUp}
		case "down":
			msg = tea.KeyPressMsg{Code: tea.KeyDown}
		case "pgdown":
			msg = tea.KeyPressMsg{Code: tea.KeyPgDown}
		case "pgup":
			msg = tea.KeyPressMsg{Code: tea.KeyPgUp}
		case "left":
			msg = tea.KeyPressMsg{Code: tea.KeyLeft}
		case "right":
			msg = tea.KeyPressMsg{Code: tea.KeyRight}
		default:
			r := []rune(k)
			msg = tea.KeyPressMsg{Code: r[0], Text: k}
		}
		m.Update(msg)
	}
}

func pinned(t testing.TB, s string) string {
	t.Helper()
	var buf bytes.Buffer
	w := &colorprofile.Writer{Forward: &buf, Profile: colorprofile.ANSI256}
	_, err := w.WriteString(s)
	require.NoError(t, err)
	return buf.String()
}

// plain strips every escape sequence.
func plain(s string) string { return ansi.Strip(s) }
