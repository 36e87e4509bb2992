package vault_test

import (
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/stretchr/testify/assert"
)

// TestLayoutFitsEverySize renders every view of the page at the sizes nova
// supports and checks the frame is exactly the terminal's size.
func TestLayoutFitsEverySize(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	fill(t, ws.v)
	views := map[string][]string{
		"list":      nil,
		"detail":    {"G", "enter"},
		"graph":     {"G", "v"},
		"conflicts": {"c"},
		"forget":    {"d"},
		"link":      {"L"},
		"relation":  {"L", "enter"},
		"tags":      {"t"},
		"help":      {"?"},
	}
	for _, size := range [][2]int{{80, 24}, {100, 30}, {120, 40}, {160, 48}, {200, 60}, {250, 70}} {
		for name, keys := range views {
			a := newApp(t, ws, size[0], size[1])
			a.Press(keys...)
			checkFits(t, a.Plain(), size, name)
		}
	}
}

func checkFits(t *testing.T, screen string, size [2]int, name string) {
	t.Helper()
	lines := strings.Split(screen, "\n")
	assert.Len(t, lines, size[1], "%dx%d %s", size[0], size[1], name)
	for i, l := range lines {
		assert.LessOrEqual(t, lipgloss.Width(l), size[0], "%dx%d %s line %d too wide: %q", size[0], size[1], name, i, l)
	}
}
