package confirm

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/themes"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/keymap"
	"github.com/nova-dev/nova/tui/tuitest"
)

func newDialog() *Model {
	c := &common.Common{Ctx: context.Background(), Styles: themes.Build(themes.NovaDark), KeyMap: keymap.DefaultKeyMap()}
	m := New(c)
	m.SetSize(100, 30)
	return m
}

func answer(t *testing.T, m *Model, keys ...tea.KeyPressMsg) (ResultMsg, bool) {
	t.Helper()
	for _, k := range keys {
		_, cmd := m.Update(k)
		if cmd != nil {
			res, ok := cmd().(ResultMsg)
			require.True(t, ok)
			return res, true
		}
	}
	return ResultMsg{}, false
}

var (
	kY     = tuitest.Key("y")
	kN     = tuitest.Key("n")
	kEsc   = tuitest.Key("esc")
	kEnter = tuitest.Key("enter")
	kLeft  = tuitest.Key("left")
	kQ     = tuitest.Key("q")
)

func TestAnswers(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		danger bool
		keys   []tea.KeyPressMsg
		yes    bool
	}{
		{"y", true, []tea.KeyPressMsg{kY}, true},
		{"n", false, []tea.KeyPressMsg{kN}, false},
		{"esc", false, []tea.KeyPressMsg{kEsc}, false},
		{"enter on a dangerous question says no", true, []tea.KeyPressMsg{kEnter}, false},
		{"enter on a safe question says yes", false, []tea.KeyPressMsg{kEnter}, true},
		{"← then enter", true, []tea.KeyPressMsg{kLeft, kEnter}, true},
		{"other keys wait", true, []tea.KeyPressMsg{kQ, kY}, true},
	}
	for _, c := range cases {
		m := newDialog()
		m.Open(Options{ID: "x", Title: "Forget?", Body: "Gone for good.", Danger: c.danger, Payload: 42})
		require.True(t, m.Active())
		res, ok := answer(t, m, c.keys...)
		require.True(t, ok, c.name)
		assert.Equal(t, c.yes, res.Confirmed, c.name)
		assert.Equal(t, "x", res.ID)
		assert.Equal(t, 42, res.Payload)
		assert.False(t, m.Active(), "the dialog closes")
	}
}

func TestViewAndClosed(t *testing.T) {
	t.Parallel()
	m := newDialog()
	assert.Empty(t, m.View())
	_, cmd := m.Update(kY)
	assert.Nil(t, cmd, "a closed dialog ignores keys")
	m.Open(Options{ID: "x", Title: "Forget node #3?", Body: "It is removed.", Yes: "Forget", No: "Keep", Danger: true})
	out := ansi.Strip(m.View())
	for _, want := range []string{"Forget node #3?", "It is removed.", "Forget", "Keep",
		"y forget · n/esc keep · enter keep"} { // what enter does is on screen
		assert.Contains(t, out, want)
	}
	// The status bar's keys say the same, never "enter confirm".
	var help []string
	for _, b := range m.ShortHelp() {
		help = append(help, b.Help().Key+" "+b.Help().Desc)
	}
	assert.Equal(t, []string{"y forget", "n/esc keep", "enter keep"}, help)
	// The focused button (Keep) uses the active style.
	assert.Contains(t, m.View(), m.c.Styles.ButtonActive.Render("Keep"))
	m.Update(tuitest.Key("left"))
	assert.Contains(t, ansi.Strip(m.View()), "enter forget", "enter follows the focus")
	m.Close()
	assert.False(t, m.Active())
}

// TestThirdChoice: a dialog with Alt offers three buttons; its key, or
// enter on it, answers Alt; y and n keep their meaning; the focus wraps.
func TestThirdChoice(t *testing.T) {
	t.Parallel()
	open := func() *Model {
		m := newDialog()
		m.Open(Options{ID: "q", Title: "Quit?", Yes: "Stop and quit", No: "Stay", Alt: "Hand over", AltKey: "h", Danger: true})
		return m
	}
	res, ok := answer(t, open(), tuitest.Key("h"))
	require.True(t, ok)
	assert.True(t, res.Alt)
	assert.False(t, res.Confirmed)

	res, ok = answer(t, open(), kEnter)
	require.True(t, ok)
	assert.False(t, res.Alt || res.Confirmed, "danger: enter stays")

	res, ok = answer(t, open(), kLeft, kLeft, kEnter)
	require.True(t, ok)
	assert.True(t, res.Alt, "two steps left of Stay is the third choice")

	res, ok = answer(t, open(), tuitest.Key("right"), kEnter)
	require.True(t, ok)
	assert.True(t, res.Alt, "the focus wraps from the last button to the first")

	res, ok = answer(t, open(), kY)
	require.True(t, ok)
	assert.True(t, res.Confirmed)
	assert.False(t, res.Alt)

	m := open()
	view := ansi.Strip(m.View())
	for _, want := range []string{"Hand over", "Stop and quit", "Stay", "h hand over"} {
		assert.Contains(t, view, want)
	}
}

func TestATallBodyKeepsTheButtonsOnScreen(t *testing.T) {
	t.Parallel()
	m := newDialog()
	m.SetSize(80, 14)
	body := strings.Repeat("Goal run 7 is running; it goes on in nova serve.\n", 20) + "last line"
	m.Open(Options{ID: "x", Title: "Quit while work runs?", Body: body, Alt: "Hand over", AltKey: "h", Yes: "Stop and quit", No: "Stay"})
	v := ansi.Strip(m.View())
	assert.LessOrEqual(t, lipgloss.Height(v), 14)
	assert.Contains(t, v, "Quit while work runs?")
	assert.Contains(t, v, "Hand over")
	assert.Contains(t, v, "Stay")
	assert.Regexp(t, `│ +… +│`, v, "the body ends in a line of its own: …")
	assert.NotContains(t, v, "last line")

	m.SetSize(80, 40) // room again: the whole body
	v = ansi.Strip(m.View())
	assert.Contains(t, v, "last line")
	assert.NotRegexp(t, `│ +… +│`, v)
}
