// Package tuitest holds helpers for TUI tests: a key-name to key-press
// converter and renderers that pin the colour profile so golden views do not
// depend on the terminal running the tests.
//
// It is test support only and must not be imported by non-test code.
package tuitest

import (
	"bytes"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
)

// Key turns a key name into the key press a terminal would send. It knows
// "enter", "esc", "tab", "shift+tab", "up", "down", "left", "right", "pgup",
// "pgdown", "home", "end", "backspace", "space", "ctrl+X" and "alt+X" (X one
// rune or one of the names above); any other name is taken as typed text
// whose first rune is the key code (so "j" is the j key). An empty name
// panics.
func Key(name string) tea.KeyPressMsg {
	for _, mod := range []struct {
		prefix string
		mod    tea.KeyMod
	}{{"ctrl+", tea.ModCtrl}, {"alt+", tea.ModAlt}} {
		if rest, ok := strings.CutPrefix(name, mod.prefix); ok && rest != "" {
			k := Key(rest)
			k.Mod |= mod.mod
			k.Text = ""
			return k
		}
	}
	switch name {
	case "home":
		return tea.KeyPressMsg{Code: tea.KeyHome}
	case "end":
		return tea.KeyPressMsg{Code: tea.KeyEnd}
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	}
	r := []rune(name)
	return tea.KeyPressMsg{Code: r[0], Text: name}
}

// Pinned renders s through the ANSI256 colour profile.
func Pinned(s string) string { return render(s, colorprofile.ANSI256) }

// Plain renders s through the Ascii colour profile: colours are dropped,
// other attributes (bold, underline, …) are kept. Use ansi.Strip for text
// without any escape sequence.
func Plain(s string) string { return render(s, colorprofile.Ascii) }

func render(s string, p colorprofile.Profile) string {
	var buf bytes.Buffer
	w := &colorprofile.Writer{Forward: &buf, Profile: p}
	if _, err := w.WriteString(s); err != nil {
		// Writing to a bytes.Buffer with a valid profile cannot fail.
		panic(fmt.Sprintf("tuitest: render: %v", err))
	}
	return buf.String()
}
