// Package pathinput is a text field for a path, with completion and
// validation as you type: tab completes the part after the last slash to
// the longest prefix the directory's entries share (listing the matches
// below), `~` stands for the home directory, and a line under the field
// says whether the path is what is asked for (a folder, or a file).
//
// Every file system call runs in a tea.Cmd: each keystroke that changes the
// text starts one look-up (stat the path, list its directory), tagged with a
// sequence number so that a stale answer is dropped. Update and View do no
// I/O.
package pathinput

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/nova-dev/nova/tui/common"
)

// Kind is what the input asks for.
type Kind uint8

const (
	// Dir asks for a folder; completion lists folders only.
	Dir Kind = iota
	// File asks for a regular file; completion lists folders and files.
	File
)

// maxMatches bounds the completions listed under the field.
const maxMatches = 6

// Model is one path field.
type Model struct {
	c     *common.Common
	kind  Kind
	base  string // relative paths resolve against it
	home  string
	input textinput.Model
	seq   int

	look    lookup // the answer for the current text
	pending bool
	// completing is set by tab: the look-up's matches fill the text.
	completing bool
}

// lookup is what the file system says about a typed path.
type lookup struct {
	seq     int
	text    string
	abs     string
	exists  bool
	isDir   bool
	err     error
	dir     string   // the directory whose entries were listed
	prefix  string   // the typed part after its last slash
	matches []string // entries of dir starting with prefix (folders end in /)
	md      int      // markdown files in the path, when it is a folder (Dir)
}

// lookupMsg carries a look-up's answer.
type lookupMsg lookup

// New builds a field for kind; relative paths resolve against base and
// `~` is home (from os.UserHomeDir when empty).
func New(c *common.Common, kind Kind, base, home string) *Model {
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	in := textinput.New()
	in.Prompt = "path › "
	in.Placeholder = "a path: ~/…, ./…, /…  (tab completes)"
	in.SetStyles(c.Styles.TextInput)
	return &Model{c: c, kind: kind, base: base, home: home, input: in}
}

// SetBase changes the directory relative paths resolve against.
func (m *Model) SetBase(base string) { m.base = base }

// SetWidth sets the field's width in cells.
func (m *Model) SetWidth(w int) { m.input.SetWidth(max(10, w-len(m.input.Prompt)-1)) }

// Focus focuses the field with text in it and looks text up.
func (m *Model) Focus(text string) tea.Cmd {
	m.input.SetValue(text)
	m.input.CursorEnd()
	m.input.SetStyles(m.c.Styles.TextInput)
	return tea.Batch(m.input.Focus(), m.lookup(false))
}

// Blur leaves the field.
func (m *Model) Blur() { m.input.Blur() }

// Focused reports whether the field has the keyboard.
func (m *Model) Focused() bool { return m.input.Focused() }

// Value is the text typed.
func (m *Model) Value() string { return m.input.Value() }

// Resolve turns the text into an absolute, clean path (`~` expanded,
// relative to the base).
func (m *Model) Resolve() string { return resolve(m.input.Value(), m.base, m.home) }

// Valid reports whether the current text names what is asked for, as far as
// the last look-up knows.
func (m *Model) Valid() bool {
	l := m.look
	if strings.TrimSpace(m.input.Value()) == "" || m.pending || l.text != m.input.Value() || !l.exists {
		return false
	}
	return (m.kind == Dir) == l.isDir
}

func resolve(text, base, home string) string {
	t := strings.TrimSpace(text)
	switch {
	case t == "":
		return ""
	case t == "~":
		t = home
	case strings.HasPrefix(t, "~/"):
		t = filepath.Join(home, t[2:])
	}
	if !filepath.IsAbs(t) {
		t = filepath.Join(base, t)
	}
	clean := filepath.Clean(t)
	if strings.HasSuffix(text, "/") && clean != "/" {
		clean += "/"
	}
	return clean
}

// lookup starts the look-up of the current text.
func (m *Model) lookup(complete bool) tea.Cmd {
	m.seq++
	m.pending, m.completing = true, complete
	seq, text, kind := m.seq, m.input.Value(), m.kind
	abs := resolve(text, m.base, m.home)
	if abs == "" {
		abs = strings.TrimSuffix(m.base, "/") + "/" // list the base, to complete from
	}
	return func() tea.Msg { return lookupMsg(look(seq, text, abs, kind)) }
}

// look stats abs and lists the directory to complete in (runs in a Cmd).
func look(seq int, text, abs string, kind Kind) lookup {
	l := lookup{seq: seq, text: text, abs: strings.TrimSuffix(abs, "/")}
	if abs == "" {
		return l
	}
	if st, err := os.Stat(l.abs); err == nil {
		l.exists, l.isDir = true, st.IsDir()
	} else {
		l.err = err
	}
	// Complete the part after the last slash, in the directory before it.
	dir, prefix := filepath.Split(abs)
	if strings.HasSuffix(abs, "/") {
		dir, prefix = abs, ""
	}
	l.dir, l.prefix = dir, prefix
	entries, err := os.ReadDir(dir)
	if err == nil {
		for _, e := range entries {
			name := e.Name()
			if !strings.HasPrefix(name, prefix) || (strings.HasPrefix(name, ".") && !strings.HasPrefix(prefix, ".")) {
				continue
			}
			isDir := e.IsDir()
			if e.Type()&os.ModeSymlink != 0 {
				if st, err := os.Stat(filepath.Join(dir, name)); err == nil {
					isDir = st.IsDir()
				}
			}
			switch {
			case isDir:
				l.matches = append(l.matches, name+"/")
			case kind == File:
				l.matches = append(l.matches, name)
			}
		}
		sort.Strings(l.matches)
	}
	if kind == Dir && l.isDir {
		if entries, err := os.ReadDir(l.abs); err == nil {
			for _, e := range entries {
				if !e.IsDir() && strings.EqualFold(filepath.Ext(e.Name()), ".md") {
					l.md++
				}
			}
		}
	}
	return l
}

// Update handles keys while focused (tab completes) and look-up answers.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case lookupMsg:
		if msg.seq != m.seq {
			return nil
		}
		m.look, m.pending = lookup(msg), false
		if m.completing {
			m.completing = false
			if m.complete() {
				return m.lookup(false)
			}
		}
		return nil
	case tea.KeyPressMsg:
		if !m.input.Focused() {
			return nil
		}
		if key.Matches(msg, m.c.KeyMap.Tab) {
			if !m.pending && m.look.text == m.input.Value() && m.complete() {
				return m.lookup(false)
			}
			return m.lookup(true)
		}
		before := m.input.Value()
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		if m.input.Value() == before {
			return cmd
		}
		return tea.Batch(cmd, m.lookup(false))
	}
	if m.input.Focused() {
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		return cmd
	}
	return nil
}

// complete extends the text to the longest prefix the matches share; it
// reports whether the text changed.
func (m *Model) complete() bool {
	l := m.look
	if len(l.matches) == 0 {
		return false
	}
	shared := l.matches[0]
	for _, x := range l.matches[1:] {
		for !strings.HasPrefix(x, shared) {
			shared = shared[:len(shared)-1]
		}
	}
	if len(shared) <= len(l.prefix) {
		return false
	}
	text := m.input.Value()
	m.input.SetValue(text + shared[len(l.prefix):])
	m.input.CursorEnd()
	return true
}

// View draws the field, the verdict on the path, and the completions (at
// most height lines in width cells).
func (m *Model) View(width int) string {
	s := m.c.Styles
	lines := []string{m.input.View()}
	l := m.look
	text := strings.TrimSpace(m.input.Value())
	var status string
	switch {
	case text == "":
		status = s.Subtle.Render("type a path; tab completes, ~ is your home folder")
	case m.pending || l.text != m.input.Value():
		status = s.Subtle.Render("checking…")
	case !l.exists:
		what := "no such folder"
		if m.kind == File {
			what = "no such file"
		}
		if l.err != nil && !errors.Is(l.err, os.ErrNotExist) {
			what = "cannot read it: " + errText(l.err)
		}
		status = s.Error.Render("✗ "+what) + s.Muted.Render(" · tab completes, esc goes back")
	case m.kind == Dir && !l.isDir:
		status = s.Error.Render("✗ a file, not a folder") + s.Muted.Render(" · type its folder")
	case m.kind == File && l.isDir:
		status = s.Warning.Render("a folder: type a file in it (tab completes)")
	case m.kind == Dir:
		status = s.Success.Render("✓ folder") + s.Muted.Render(fmt.Sprintf(" · %s directly in it · enter chooses it", count(l.md, "markdown file", "markdown files")))
	default:
		status = s.Success.Render("✓ file") + s.Muted.Render(" · enter opens it")
	}
	lines = append(lines, common.Truncate(status, width))
	if len(l.matches) > 1 && l.text == m.input.Value() {
		shown := l.matches[:min(len(l.matches), maxMatches)]
		line := strings.Join(shown, "  ")
		if len(l.matches) > maxMatches {
			line += fmt.Sprintf("  … %d more", len(l.matches)-maxMatches)
		}
		lines = append(lines, s.Subtle.Render(common.Truncate(line, width)))
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

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
