package tui_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	chg "github.com/nova-dev/nova/engine/changes"
	engvault "github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/tui/tuitest"
)

// seeded is the fake workspace with something on every screen: vault nodes
// (two of them contradicting), a rule in MARS's playbook and a staged
// changeset. The shipped defaults give the roster and a PRD.
func seeded(t *testing.T) *fakeWS {
	t.Helper()
	ws := newFake(t)
	ctx := context.Background()
	for _, n := range []engvault.Node{
		{Type: engvault.Pattern, Title: "Wrap errors with context", Content: "Wrap every returned error with the operation that failed.", Tags: []string{"errors", "go"}, Confidence: 0.86},
		{Type: engvault.Strategy, Title: "Return early", Content: "Handle the error first and return; keep the happy path unindented.", Tags: []string{"style"}, Confidence: 0.74},
		{Type: engvault.Preference, Title: "Ignore errors from Close", Content: "Errors from Close on read-only files can be ignored.", Tags: []string{"errors"}, Confidence: 0.4},
	} {
		_, err := ws.LearnNode(ctx, n)
		require.NoError(t, err)
	}
	_, err := ws.LinkNodes(ctx, 3, 1, engvault.Contradicts, 0.8)
	require.NoError(t, err)
	_, err = ws.AddRule(ctx, "MARS", "Validate request bodies at the handler boundary", []string{"api"}, 0.9)
	require.NoError(t, err)
	d := ws.Changes().NewDraft(chg.Meta{Agent: "MARS", Task: "add a health check endpoint"})
	_, err = d.Put(ctx, "health.go", []byte("package main\n\n// health answers 200.\n"))
	require.NoError(t, err)
	return ws
}

// screens are the keys that show every screen and overlay, from Home.
var screens = []struct {
	name string
	keys []string
}{
	{"home", nil},
	{"home_help", []string{"?"}},
	{"palette", []string{"ctrl+p"}},
	{"vault", []string{"alt+2"}},
	{"vault_help", []string{"alt+2", "?"}},
	{"vault_forget", []string{"alt+2", "d"}},
	{"vault_link", []string{"alt+2", "L"}},
	{"vault_tags", []string{"alt+2", "t"}},
	{"vault_graph", []string{"alt+2", "v"}},
	{"vault_conflicts", []string{"alt+2", "c"}},
	{"vault_archive", []string{"alt+2", "a"}},
	{"import", []string{"alt+3"}},
	{"import_help", []string{"alt+3", "?"}},
	{"import_path", []string{"alt+3", "."}},
	{"agents", []string{"alt+4"}},
	{"agents_help", []string{"alt+4", "?"}},
	{"agents_new_run", []string{"alt+4", "n"}},
	{"changes", []string{"alt+5"}},
	{"changes_help", []string{"alt+5", "?"}},
	{"build", []string{"alt+6"}},
	{"build_help", []string{"alt+6", "?"}},
	{"build_picker", []string{"alt+6", "n"}},
	{"playbooks", []string{"alt+7"}},
	{"playbooks_help", []string{"alt+7", "?"}},
	{"playbooks_rule_form", []string{"alt+7", "n"}},
	{"rehearsal", []string{"alt+8"}},
	{"rehearsal_help", []string{"alt+8", "?"}},
	{"knowledge", []string{"alt+9"}},
	{"knowledge_help", []string{"alt+9", "?"}},
	{"knowledge_facts", []string{"alt+9", "tab"}},
	{"knowledge_docs", []string{"alt+9", "tab", "tab"}},
	{"knowledge_add_fact", []string{"alt+9", "tab", "a"}},
	{"run", []string{"alt+0"}},
	{"run_help", []string{"alt+0", "?"}},
	{"run_new_goal", []string{"alt+0", "n"}},
	{"library", []string{"alt+l"}},
	{"library_help", []string{"alt+l", "?"}},
	{"library_skill_form", []string{"alt+l", "r"}},
	{"library_workflows", []string{"alt+l", "tab"}},
	{"library_request", []string{"alt+l", "tab", "/"}},
	{"library_blueprints", []string{"alt+l", "tab", "tab", "tab"}},
}

// titles of the screens, in tab order.
var titles = []string{"Home", "Vault", "Import", "Agents", "Changes", "Build", "Playbooks", "Rehearsal", "Knowledge", "Run"}

// activeTitle is the screen the keys end on (alt+1 … alt+9, alt+0, alt+l).
func activeTitle(keys []string) string {
	active := "Home"
	for _, k := range keys {
		switch {
		case k == "alt+l":
			active = "Library"
		case strings.HasPrefix(k, "alt+"):
			active = titles[(int(k[4]-'0')+9)%10]
		}
	}
	return active
}

func showScreen(t *testing.T, w, h int, keys []string) *tuitest.ModelDriver {
	t.Helper()
	m := newModel(t, seeded(t), w, h)
	m.Press(keys...)
	return m
}

// TestGoldenScreens80x24 is every screen and overlay at 80×24, the smallest
// size nova lays out for.
func TestGoldenScreens80x24(t *testing.T) {
	t.Parallel()
	for _, sc := range screens {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			m := showScreen(t, 80, 24, sc.keys)
			golden.RequireEqual(t, m.Pinned())
		})
	}
}

// TestEveryScreenAtEverySize checks at 80×24, 120×40 and 180×50 that every
// screen and overlay fills the terminal exactly, shows which screen is
// active, keeps the footer hint, and closes every box it opens.
func TestEveryScreenAtEverySize(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {120, 40}, {180, 50}} {
		for _, sc := range screens {
			t.Run(fmt.Sprintf("%s_%dx%d", sc.name, size[0], size[1]), func(t *testing.T) {
				t.Parallel()
				m := showScreen(t, size[0], size[1], sc.keys)
				out := m.Plain()
				lines := strings.Split(out, "\n")
				require.Len(t, lines, size[1])
				for i, l := range lines {
					assert.LessOrEqual(t, lipgloss.Width(l), size[0], "line %d too wide: %q", i, l)
				}
				active := activeTitle(sc.keys)
				assert.Contains(t, lines[0], active, "the header shows the active screen")
				assert.Contains(t, lines[len(lines)-1], "? help · ctrl+p commands", "the footer hint")
				// A dialog drawn over a screen covers some corners.
				dialog := strings.Contains(strings.Join(sc.keys, " "), "?") || slices.Contains([]string{"palette", "vault_forget",
					"vault_link", "vault_tags", "agents_new_run", "build_picker", "playbooks_rule_form", "knowledge_add_fact", "run_new_goal",
					"library_skill_form", "library_request"}, sc.name)
				if !dialog {
					checkBoxes(t, lines)
				}
			})
		}
	}
}

// checkBoxes asserts that every rounded box on screen is closed: each
// corner has its partner (┬-free layouts: nova draws rounded panels only).
func checkBoxes(t *testing.T, lines []string) {
	t.Helper()
	screen := strings.Join(lines, "\n")
	tl, tr := strings.Count(screen, "╭"), strings.Count(screen, "╮")
	bl, br := strings.Count(screen, "╰"), strings.Count(screen, "╯")
	assert.Equal(t, tl, tr, "top corners pair up")
	assert.Equal(t, bl, br, "bottom corners pair up")
	assert.Equal(t, tl, bl, "every box has a bottom border:\n%s", screen)
}
