// Package markdown is the TUI's one markdown renderer: glamour with nova's
// framing (no document margin, lines cut to the pane). Rendering is slow
// (tens of milliseconds for a long body): call it from a tea.Cmd and cache
// the result per width and theme.
package markdown

import (
	"fmt"
	"strings"

	"charm.land/glamour/v2"
	"charm.land/glamour/v2/styles"
	"github.com/charmbracelet/x/ansi"
)

// Render renders src with glamour's dark or light style, without the
// document margin (panes have their own padding), word-wrapped to width.
// Glamour pads every line to the wrap width with styled spaces; that padding
// is removed, and no line is wider than width.
func Render(src string, width int, dark bool) (string, error) {
	style := styles.DarkStyleConfig
	if !dark {
		style = styles.LightStyleConfig
	}
	var zero uint
	style.Document.Margin = &zero
	style.Document.BlockPrefix, style.Document.BlockSuffix = "", ""
	width = max(10, width)
	r, err := glamour.NewTermRenderer(glamour.WithStyles(style), glamour.WithWordWrap(width))
	if err != nil {
		return "", fmt.Errorf("markdown renderer: %w", err)
	}
	out, err := r.Render(src)
	if err != nil {
		return "", fmt.Errorf("render markdown: %w", err)
	}
	lines := strings.Split(strings.Trim(out, "\n"), "\n")
	for i, l := range lines {
		plain := ansi.Strip(l)
		if trimmed := strings.TrimRight(plain, " "); len(trimmed) < len(plain) {
			lines[i] = ansi.Truncate(l, ansi.StringWidth(trimmed), "") + "\x1b[m"
		}
		if ansi.StringWidth(lines[i]) > width {
			lines[i] = ansi.Truncate(lines[i], width, "…")
		}
	}
	return strings.Join(lines, "\n"), nil
}
