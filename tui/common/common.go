// Package common is what every nova screen shares: the Common context (ctx,
// size, styles, keymap) and the Component contract. Screens reach the
// engine only through the narrow Source each page declares beside itself
// (a subset of engine.Workspace's verbs).
package common

import (
	"context"
	"strings"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/nova-dev/nova/themes"
	"github.com/nova-dev/nova/tui/keymap"
)

// Common is passed (by pointer) from the root to every component. Only the
// root model changes it, inside Update.
type Common struct {
	Ctx    context.Context
	Width  int
	Height int
	Styles *themes.Styles
	KeyMap *keymap.KeyMap
}

// Component is the contract of every screen part.
type Component interface {
	Init() tea.Cmd
	Update(msg tea.Msg) (Component, tea.Cmd)
	View() string
	SetSize(width, height int)
	help.KeyMap
}

// Page is a top-level screen reachable from the router.
type Page interface {
	Component
	// Title is the tab label.
	Title() string
	// Capturing reports that the page is taking text input, so the root
	// must not treat letters as global shortcuts.
	Capturing() bool
}

// Overlay draws fg centred over bg (both width×height).
func Overlay(bg, fg string, width, height int) string {
	fw, fh := lipgloss.Width(fg), lipgloss.Height(fg)
	x := max(0, (width-fw)/2)
	y := max(0, (height-fh)/3)
	c := lipgloss.NewCanvas(width, height)
	c.Compose(lipgloss.NewCompositor(
		lipgloss.NewLayer(bg),
		lipgloss.NewLayer(fg).X(x).Y(y).Z(1),
	))
	return c.Render()
}

// Truncate cuts s to width cells with an ellipsis.
func Truncate(s string, width int) string {
	if width <= 0 {
		return ""
	}
	if lipgloss.Width(s) <= width {
		return s
	}
	r := []rune(s)
	for len(r) > 0 && lipgloss.Width(string(r))+1 > width {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
}

// FitHeight pads or cuts s to exactly h lines.
func FitHeight(s string, h int) string {
	if h <= 0 {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// Empty renders an empty-state block: a title line and a hint.
func (c *Common) Empty(title, hint string) string {
	return c.Styles.Muted.Render(title) + "\n" + c.Styles.Subtle.Render(hint)
}
