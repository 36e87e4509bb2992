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
)

// dirPicker chooses a directory: the current folder ("use this folder") and its
// subfolders, with open (→) and parent (←).
//
// Hand-written rather than bubbles/filepicker: the filepicker stats every visible entry
// (DirEntry.Info, EvalSymlinks) inside View and Update, which nova does not allow (all I/O
// runs in tea.Cmds), and it cannot hide files. Here the listing, symlink checks included,
// happens in one command and View only draws what it returned.
type dirPicker struct {
	path    string // current folder (absolute)
	dirs    []dirEntry
	md      int // markdown files directly in path
	cursor  int // 0 = the folder itself, i = dirs[i-1]
	offset  int
	room    int // rows of folders on screen (set by the page's layout)
	loading bool
	err     error
	seq     int
}

type dirEntry struct {
	name string
	link bool // a symlink to a directory
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
	p.dirs, p.md, p.cursor, p.offset = nil, 0, 0, 0
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
	p.cursor, p.offset = 0, 0
}

func (p *dirPicker) rows() int { return len(p.dirs) + 1 }

func (p *dirPicker) move(delta int) {
	p.cursor = max(0, min(p.rows()-1, p.cursor+delta))
	p.scroll()
}

func (p *dirPicker) top()    { p.cursor = 0; p.scroll() }
func (p *dirPicker) bottom() { p.cursor = p.rows() - 1; p.scroll() }

// setRoom sets how many folder rows fit on screen.
func (p *dirPicker) setRoom(n int) { p.room = max(1, n); p.scroll() }

func (p *dirPicker) scroll() {
	room := max(1, p.room)
	if p.cursor < p.offset {
		p.offset = p.cursor
	}
	if p.cursor >= p.offset+room {
		p.offset = p.cursor - room + 1
	}
	p.offset = max(0, min(p.offset, p.rows()-1))
}

// selected is the highlighted folder: the current one or a subfolder.
func (p *dirPicker) selected() string {
	if p.cursor == 0 || p.cursor > len(p.dirs) {
		return p.path
	}
	return filepath.Join(p.path, p.dirs[p.cursor-1].name)
}

// open enters the highlighted subfolder.
func (p *dirPicker) open() tea.Cmd {
	if p.cursor == 0 || p.loading && p.err == nil {
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

// view draws the picker in width×height (lines), focused or not.
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
	offset := p.offset
	if p.cursor >= offset+room { // the layout gave less room than setRoom said
		offset = p.cursor - room + 1
	}
	for i := offset; i < p.rows() && i < offset+room; i++ {
		var label string
		if i == 0 {
			label = "./  (this folder)"
		} else {
			d := p.dirs[i-1]
			label = d.name + "/"
			if d.link {
				label += "  → link"
			}
		}
		label = common.Truncate(label, width-2)
		if i == p.cursor {
			st := s.Muted
			if focused {
				st = s.Selected
			}
			lines = append(lines, st.Render("› "+label))
			continue
		}
		lines = append(lines, s.Text.Render("  "+label))
	}
	if p.rows() == 1 {
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
