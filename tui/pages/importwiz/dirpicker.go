package importwiz

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/nova-dev/nova/themes"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/components/vlist"
)

// dirPicker chooses a directory: the current folder ("use this folder") and its
// subfolders, with open (→) and parent (←). The rows are nova's list (vlist): it keeps
// the cursor, the window, the › marker and the scroll note.
//
// Not bubbles/filepicker: the filepicker stats every visible entry (DirEntry.Info,
// EvalSymlinks) inside View and Update, which nova does not allow (all I/O runs in
// tea.Cmds), and it cannot hide files. Here the listing, symlink checks included,
// happens in one command and View only draws what it returned.
type dirPicker struct {
	c       *common.Common
	path    string // current folder (absolute)
	dirs    []dirEntry
	md      int                    // markdown files directly in path
	rows    *vlist.Model[dirEntry] // row 0 is the folder itself, row i is dirs[i-1]
	loading bool
	err     error
	seq     int
}

func newDirPicker(c *common.Common) *dirPicker {
	p := &dirPicker{c: c}
	p.rows = vlist.New(c, p.renderRow)
	p.rows.SetMarker(true)
	p.rows.SetRows([]dirEntry{{self: true}})
	return p
}

type dirEntry struct {
	name string
	link bool // a symlink to a directory
	self bool // the row for the current folder itself
}

// dirListedMsg is the result of listing one folder.
type dirListedMsg struct {
	seq  int
	path string
	dirs []dirEntry
	md   int
	err  error
}

// list starts listing path; the picker shows it when the message arrives.
func (p *dirPicker) list(path string) tea.Cmd {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	p.seq++
	p.path, p.loading, p.err = path, true, nil
	p.dirs, p.md = nil, 0
	p.rows.SetRows([]dirEntry{{self: true}})
	seq := p.seq
	return func() tea.Msg { return readDir(seq, path) }
}

func readDir(seq int, path string) dirListedMsg {
	msg := dirListedMsg{seq: seq, path: path}
	entries, err := os.ReadDir(path)
	if err != nil {
		msg.err = err
		return msg
	}
	for _, e := range entries {
		name := e.Name()
		switch {
		case e.IsDir():
			msg.dirs = append(msg.dirs, dirEntry{name: name})
		case e.Type()&os.ModeSymlink != 0:
			st, err := os.Stat(filepath.Join(path, name))
			switch {
			case err != nil:
			case st.IsDir():
				msg.dirs = append(msg.dirs, dirEntry{name: name, link: true})
			case isMarkdown(name):
				msg.md++
			}
		case isMarkdown(name):
			msg.md++
		}
	}
	sort.SliceStable(msg.dirs, func(i, j int) bool {
		a, b := msg.dirs[i].name, msg.dirs[j].name
		// Hidden folders last.
		if ha, hb := strings.HasPrefix(a, "."), strings.HasPrefix(b, "."); ha != hb {
			return hb
		}
		return strings.ToLower(a) < strings.ToLower(b)
	})
	return msg
}

func isMarkdown(name string) bool { return strings.EqualFold(filepath.Ext(name), ".md") }

// update applies a listing; stale ones are ignored.
func (p *dirPicker) update(msg dirListedMsg) {
	if msg.seq != p.seq {
		return
	}
	p.loading = false
	p.err = msg.err
	p.dirs, p.md = msg.dirs, msg.md
	p.rows.SetRows(append([]dirEntry{{self: true}}, msg.dirs...))
}

// setSize sets the room of the folder rows (the page's layout), so keys
// move by the right page before the next View.
func (p *dirPicker) setSize(w, h int) { p.rows.SetSize(max(1, w), max(1, h)) }

// handleKey moves the cursor for a movement key (the shared keymap's up,
// down, page up/down, top, bottom) and reports whether the key was one.
func (p *dirPicker) handleKey(msg tea.KeyPressMsg) (bool, tea.Cmd) {
	return p.rows.HandleKey(msg)
}

// selected is the highlighted folder: the current one or a subfolder.
func (p *dirPicker) selected() string {
	d, ok := p.rows.Selected()
	if !ok || d.self {
		return p.path
	}
	return filepath.Join(p.path, d.name)
}

// open enters the highlighted subfolder.
func (p *dirPicker) open() tea.Cmd {
	if d, ok := p.rows.Selected(); !ok || d.self || p.loading && p.err == nil {
		return nil
	}
	return p.list(p.selected())
}

// parent goes one folder up.
func (p *dirPicker) parent() tea.Cmd {
	up := filepath.Dir(p.path)
	if up == p.path {
		return nil
	}
	return p.list(up)
}

// renderRow draws one folder row (the list adds the › marker).
func (p *dirPicker) renderRow(d dirEntry, _ int, selected, focused bool, w int) string {
	s := p.c.Styles
	label := "./  (this folder)"
	if !d.self {
		label = d.name + "/"
		if d.link {
			label += "  → link"
		}
	}
	label = common.Truncate(label, w)
	switch {
	case selected && focused:
		return s.Selected.Render(label)
	case selected:
		return s.Muted.Render(label)
	}
	return s.Text.Render(label)
}

// view draws the picker in width×height (lines), focused or not: the folder,
// its counts, then the rows (with a scroll note when they do not all fit).
func (p *dirPicker) view(s *themes.Styles, width, height int, focused bool, display func(string) string) string {
	if height <= 0 || width <= 0 {
		return ""
	}
	var lines []string
	lines = append(lines, s.Bold.Render(common.Truncate(display(p.path), width)))
	switch {
	case p.loading:
		lines = append(lines, s.Muted.Render("reading…"))
		return strings.Join(lines, "\n")
	case p.err != nil:
		lines = append(lines, s.Error.Render(common.Truncate("cannot read this folder: "+errText(p.err), width)),
			s.Subtle.Render(common.Truncate("← goes to the parent folder", width)))
		return strings.Join(lines, "\n")
	}
	info := countNoun(len(p.dirs), "folder", "folders") + " · " + countNoun(p.md, "markdown file", "markdown files") + " here"
	lines = append(lines, s.Subtle.Render(common.Truncate(info, width)))
	room := max(1, height-len(lines))
	p.rows.SetFocused(focused)
	lines = append(lines, p.rows.ViewNoted(width, min(room, p.rows.Len())))
	if len(p.dirs) == 0 {
		lines = append(lines, s.Subtle.Render(common.Truncate("  no subfolders", width)))
	}
	return strings.Join(lines, "\n")
}

func errText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func countNoun(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
