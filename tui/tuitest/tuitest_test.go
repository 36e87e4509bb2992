package tuitest_test

import (
	"errors"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/tuitest"
)

func TestKey(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		want tea.KeyPressMsg
	}{
		{"enter", tea.KeyPressMsg{Code: tea.KeyEnter}},
		{"esc", tea.KeyPressMsg{Code: tea.KeyEscape}},
		{"tab", tea.KeyPressMsg{Code: tea.KeyTab}},
		{"shift+tab", tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}},
		{"up", tea.KeyPressMsg{Code: tea.KeyUp}},
		{"down", tea.KeyPressMsg{Code: tea.KeyDown}},
		{"left", tea.KeyPressMsg{Code: tea.KeyLeft}},
		{"right", tea.KeyPressMsg{Code: tea.KeyRight}},
		{"pgup", tea.KeyPressMsg{Code: tea.KeyPgUp}},
		{"pgdown", tea.KeyPressMsg{Code: tea.KeyPgDown}},
		{"backspace", tea.KeyPressMsg{Code: tea.KeyBackspace}},
		{"space", tea.KeyPressMsg{Code: ' ', Text: " "}},
		{"ctrl+p", tea.KeyPressMsg{Code: 'p', Mod: tea.ModCtrl}},
		{"alt+2", tea.KeyPressMsg{Code: '2', Mod: tea.ModAlt}},
		{"alt+0", tea.KeyPressMsg{Code: '0', Mod: tea.ModAlt}},
		{"ctrl+left", tea.KeyPressMsg{Code: tea.KeyLeft, Mod: tea.ModCtrl}},
		{"home", tea.KeyPressMsg{Code: tea.KeyHome}},
		{"j", tea.KeyPressMsg{Code: 'j', Text: "j"}},
		{"G", tea.KeyPressMsg{Code: 'G', Text: "G"}},
		{"é", tea.KeyPressMsg{Code: 'é', Text: "é"}},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, tuitest.Key(c.name), c.name)
	}
	assert.Equal(t, "enter", tuitest.Key("enter").String())
	assert.Equal(t, "shift+tab", tuitest.Key("shift+tab").String())
	assert.Equal(t, "space", tuitest.Key("space").String())
	assert.Equal(t, "ctrl+p", tuitest.Key("ctrl+p").String())
	assert.Equal(t, "alt+2", tuitest.Key("alt+2").String())
	assert.Panics(t, func() { tuitest.Key("") })
}

func TestRenderers(t *testing.T) {
	t.Parallel()
	const red = "\x1b[1;38;2;255;0;0mhi\x1b[m"
	assert.Equal(t, "plain", tuitest.Pinned("plain"))
	assert.Equal(t, "\x1b[1;38;5;196mhi\x1b[m", tuitest.Pinned(red), "true colour is cut to ANSI256")
	assert.Equal(t, "\x1b[1mhi\x1b[m", tuitest.Plain(red), "colour dropped, bold kept")
}

// TestOnlyTestsImportIt keeps the package out of the binary: no non-test
// file of the module may import it.
func TestOnlyTestsImportIt(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(root, "go.mod"))
	require.NoError(t, err, "module root")
	const self = "github.com/nova-dev/nova/tui/tuitest"
	var offenders []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || filepath.Dir(path) == filepath.Join(root, "tui", "tuitest") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == self {
				offenders = append(offenders, path)
			}
		}
		return nil
	})
	require.NoError(t, err)
	assert.Empty(t, offenders, "non-test code imports tuitest")
}

func TestDriverDoesNotWaitForBackgroundCommands(t *testing.T) {
	t.Parallel()
	var got []string
	events := make(chan engine.Event)
	d := tuitest.NewDriver(t, func(msg tea.Msg) tea.Cmd {
		if s, ok := msg.(string); ok {
			got = append(got, s)
		}
		return nil
	}, func() string { return strings.Join(got, ",") })
	start := time.Now()
	d.Run(tea.Batch(
		common.WaitEvent(events), // never ends
		tea.Tick(time.Hour, func(time.Time) tea.Msg { return "tick" }),
		common.Debounce(20*time.Millisecond, "debounced"),
		func() tea.Msg { time.Sleep(50 * time.Millisecond); return "work" },
	))
	assert.Less(t, time.Since(start), 10*time.Second, "the event wait and the hour tick are not waited for")
	assert.ElementsMatch(t, []string{"debounced", "work"}, got, "debounces and work are")
	assert.Empty(t, d.Running())
}

func TestDriverRecordsWhatPagesSendTheRoot(t *testing.T) {
	t.Parallel()
	var seen []tea.Msg
	d := tuitest.NewDriver(t, func(msg tea.Msg) tea.Cmd {
		seen = append(seen, msg)
		if k, ok := msg.(tea.KeyPressMsg); ok && k.String() == "x" {
			return tea.Batch(common.Toast("hello"), common.Failure(errors.New("boom")),
				func() tea.Msg { return common.NavigateMsg{Page: "vault"} }, tea.Quit)
		}
		return nil
	}, func() string { return "" })
	d.Press("x")
	assert.Equal(t, []string{"hello"}, d.Toasts)
	require.Len(t, d.Errs, 1)
	assert.EqualError(t, d.Errs[0], "boom")
	assert.Equal(t, []common.NavigateMsg{{Page: "vault"}}, d.Navs)
	assert.True(t, d.Quit)
	assert.Len(t, seen, 4, "the key, and the toast, error and navigation forwarded as the root broadcasts them")
}
