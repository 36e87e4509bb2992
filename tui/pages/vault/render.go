package vault

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	engvault "github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/tui/common"
)

// shared is what the page and its panes share (soft-serve's common): the
// TUI's common context and the page's Source. Panes reach the engine only
// through it, inside tea.Cmds.
type shared struct {
	c    *common.Common
	keys *keyMap // the page's own bindings
	src  Source
	now  func() time.Time // the debounces' clock (tests pin it)
}

func (s *shared) ctx() context.Context {
	if s.c.Ctx == nil {
		return context.Background()
	}
	return s.c.Ctx
}

// box draws body in a rounded panel of exactly w×h cells, focused or not.
// lipgloss's Style.Render would do the same but wraps and re-measures every
// line; the panels here hold lines already cut to size and are drawn on
// every frame, so the border is put around them directly.
func (s *shared) box(body string, w, h int, focused bool) string {
	st := s.c.Styles
	panel := st.Panel
	if focused {
		panel = st.PanelFocused
	}
	bs := lipgloss.NewStyle().Foreground(panel.GetBorderTopForeground())
	b := lipgloss.RoundedBorder()
	inner := max(0, w-4)
	lines := strings.Split(body, "\n")
	var out strings.Builder
	out.WriteString(bs.Render(b.TopLeft+strings.Repeat(b.Top, max(0, w-2))+b.TopRight) + "\n")
	left, right := bs.Render(b.Left)+" ", " "+bs.Render(b.Right)
	for i := 0; i < h-2; i++ {
		l := ""
		if i < len(lines) {
			l = lines[i]
		}
		lw := ansi.StringWidth(l)
		if lw > inner {
			l, lw = ansi.Truncate(l, inner, "…"), inner
		}
		out.WriteString(left + l + strings.Repeat(" ", inner-lw) + right + "\n")
	}
	out.WriteString(bs.Render(b.BottomLeft + strings.Repeat(b.Bottom, max(0, w-2)) + b.BottomRight))
	return out.String()
}

var shortType = map[engvault.NodeType]string{
	engvault.Strategy:   "STR",
	engvault.Mistake:    "MIS",
	engvault.Preference: "PRF",
	engvault.Pattern:    "PAT",
	engvault.Decision:   "DEC",
}

// badge draws a node type as a coloured three-letter badge (5 cells).
func (s *shared) badge(t engvault.NodeType) string {
	st := s.c.Styles
	label, ok := shortType[t]
	if !ok {
		return st.BadgeMuted.Render("???")
	}
	switch t {
	case engvault.Strategy:
		return st.BadgeInfo.Render(label)
	case engvault.Mistake:
		return st.BadgeErr.Render(label)
	case engvault.Preference:
		return st.BadgeAccent.Render(label)
	case engvault.Decision:
		return st.BadgeWarn.Render(label)
	}
	return st.Badge.Render(label)
}

// clip cuts plain text to w cells (one line) with an ellipsis. Unlike
// common.Truncate it is a single pass, which matters for list rows.
func clip(s string, w int) string {
	if w <= 0 {
		return ""
	}
	s = strings.Join(strings.Fields(s), " ")
	return ansi.Truncate(s, w, "…")
}

// pad right-pads a styled string to w cells.
func pad(s string, w int) string {
	if d := w - lipgloss.Width(s); d > 0 {
		return s + strings.Repeat(" ", d)
	}
	return s
}

func label(n engvault.Node) string {
	if n.Title != "" {
		return n.Title
	}
	return firstLine(n.Content)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// count formats n with thousands separators.
func count(n int) string {
	s := strconv.Itoa(n)
	if n < 10000 && n > -10000 {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// compact formats n in at most four cells (12k, 2.3k).
func compact(n int) string {
	switch {
	case n >= 100_000:
		return fmt.Sprintf("%dk", n/1000)
	case n >= 10_000:
		return fmt.Sprintf("%dk", n/1000)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return strconv.Itoa(n)
}

// plural is "1 node", "2 nodes".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return count(n) + " " + many
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04")
}

// parseTags splits a comma-separated tag list (the engine normalises).
func parseTags(s string) []string {
	out := []string{}
	for _, t := range strings.Split(s, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}
