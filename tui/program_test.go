package tui_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/tui"
)

// TestProgramAt80x24 runs the root model in a real tea.Program (teatest: a
// fake terminal of 80×24, the real renderer and event loop) from the first
// frame to q: the tab bar and the footer hint are on screen, alt+N switches
// screens, the help opens and closes, and q ends the program.
func TestProgramAt80x24(t *testing.T) {
	t.Parallel()
	ws := seeded(t)
	m := tui.New(context.Background(), ws, tui.Options{})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(80, 24))
	screenHas := func(want string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
			return bytes.Contains([]byte(ansi.Strip(string(b))), []byte(want))
		}, teatest.WithDuration(20*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	}
	screenHas("? help · ctrl+p commands")
	tm.Send(tea.KeyPressMsg{Code: '2', Mod: tea.ModAlt})
	screenHas("newest first")
	tm.Send(tea.KeyPressMsg{Code: '?', Text: "?"})
	screenHas("Keys — Vault")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEscape})
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	tm.WaitFinished(t, teatest.WithFinalTimeout(20*time.Second))
	final, ok := tm.FinalModel(t).(*tui.Model)
	require.True(t, ok)
	assert.Equal(t, "vault", final.ActivePage())
}
