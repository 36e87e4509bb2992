package vault

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	engvault "github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/components/vlist"
)

// linkPicker is the link dialog in two steps: pick the other node (the
// vault newest first, or ranked search results as you type), then the
// relation. Enter on the relation links the two nodes.
type linkPicker struct {
	*shared
	width, height int
	lookup        func(id uint64) engvault.Node // the page's best value for a node

	step     pickStep
	input    textinput.Model
	results  *vlist.Model[row]
	all      *vlist.Model[row]
	seq      int
	debounce common.Debouncer
	query    string
	from     uint64
	to       engvault.Node
	relation int
}

type pickStep uint8

const (
	pickClosed pickStep = iota
	pickNode
	pickRelation
)

// pickKey names the picker's debounce ticks.
const pickKey = "vault.pick"

type pickMsg struct {
	seq     int
	query   string
	results []engvault.Scored
	err     error
}

func newLinkPicker(sh *shared, lookup func(uint64) engvault.Node) *linkPicker {
	p := &linkPicker{shared: sh, lookup: lookup}
	p.results = vlist.New(sh.c, p.renderRow)
	p.all = vlist.New(sh.c, p.renderRow)
	p.input = newInput(sh.c, "search a node to link to…", "› ")
	return p
}

func (p *linkPicker) dialogWidth() int { return min(88, max(40, p.width-6)) }

func (p *linkPicker) rows() int { return max(3, min(12, p.height-14)) }

func (p *linkPicker) setSize(w, h int) {
	p.width, p.height = w, h
	pw := p.dialogWidth() - 6
	p.results.SetSize(pw, p.rows())
	p.all.SetSize(pw, p.rows())
	p.input.SetWidth(max(10, pw-4))
}

func (p *linkPicker) active() bool { return p.step != pickClosed }

// open starts linking node from to another.
func (p *linkPicker) open(from uint64) tea.Cmd {
	p.step, p.from = pickNode, from
	p.input.SetValue("")
	p.query = ""
	p.seq++
	p.setSize(p.width, p.height)
	return tea.Batch(p.input.Focus(), p.all.SetSource(listSource(p.src, "")))
}

func (p *linkPicker) list() *vlist.Model[row] {
	if p.query != "" {
		return p.results
	}
	return p.all
}

// refresh reloads the unfiltered list after the vault changed.
func (p *linkPicker) refresh() tea.Cmd {
	if p.step == pickNode && p.query == "" {
		return p.all.Refresh()
	}
	return nil
}

func (p *linkPicker) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case common.DebounceMsg:
		if msg.Key != pickKey {
			return nil
		}
		if ready, cmd := p.debounce.Fire(msg, p.now()); !ready || p.step != pickNode {
			return cmd
		}
		q := strings.TrimSpace(p.input.Value())
		if q == "" {
			return nil
		}
		return p.searchCmd(p.seq, q)
	case pickMsg:
		if msg.seq != p.seq {
			return nil
		}
		if msg.err != nil {
			return common.Failure(fmt.Errorf("search %q: %w", msg.query, msg.err))
		}
		p.query = msg.query
		res := msg.results[:0:0]
		for _, r := range msg.results {
			if r.ID != p.from {
				res = append(res, r)
			}
		}
		p.results.SetRows(searchRows(res))
		p.results.SetEmptyText(fmt.Sprintf("No node matches “%s”.", msg.query))
		return nil
	}
	_, c1 := p.results.Update(msg)
	_, c2 := p.all.Update(msg)
	var c3 tea.Cmd
	if p.input.Focused() {
		p.input, c3 = p.input.Update(msg)
	}
	return tea.Batch(c1, c2, c3)
}

func (p *linkPicker) searchCmd(seq int, q string) tea.Cmd {
	src, ctx := p.src, p.ctx()
	return func() tea.Msg {
		res, err := src.SearchNodes(ctx, q, engvault.SearchOptions{Limit: 50, NoEmbeddings: true})
		return pickMsg{seq: seq, query: q, results: res, err: err}
	}
}

// key handles a key while the dialog is open; link is the command that
// links the nodes once the relation is chosen.
func (p *linkPicker) key(k tea.KeyPressMsg, link func(from, to uint64, rel engvault.Relation) tea.Cmd) tea.Cmd {
	if p.step == pickRelation {
		return p.keyRelation(k, link)
	}
	switch k.String() {
	case "esc":
		p.step = pickClosed
		p.debounce.Stop()
		p.input.Blur()
		return nil
	case "enter":
		r, ok := p.list().Selected()
		if !ok {
			return nil
		}
		if r.node.ID == p.from {
			return common.Failure(fmt.Errorf("a node cannot link to itself: pick another node"))
		}
		p.to, p.step, p.relation = r.node, pickRelation, 0
		p.input.Blur()
		return nil
	case "up", "down", "pgup", "pgdown", "ctrl+k", "ctrl+j":
		kk := k
		switch k.String() {
		case "ctrl+k":
			kk = tea.KeyPressMsg{Code: tea.KeyUp}
		case "ctrl+j":
			kk = tea.KeyPressMsg{Code: tea.KeyDown}
		}
		_, cmd := p.list().HandleKey(kk)
		return cmd
	}
	before := p.input.Value()
	var cmd tea.Cmd
	p.input, cmd = p.input.Update(k)
	if p.input.Value() == before {
		return cmd
	}
	p.seq++
	if strings.TrimSpace(p.input.Value()) == "" {
		p.debounce.Stop()
		p.query = ""
		return cmd
	}
	return tea.Batch(cmd, p.debounce.Trigger(pickKey, searchDebounce, p.now()))
}

func (p *linkPicker) keyRelation(k tea.KeyPressMsg, link func(from, to uint64, rel engvault.Relation) tea.Cmd) tea.Cmd {
	km := p.c.KeyMap
	rels := engvault.Relations()
	switch {
	case key.Matches(k, km.Up):
		p.relation = (p.relation + len(rels) - 1) % len(rels)
	case key.Matches(k, km.Down, km.Tab):
		p.relation = (p.relation + 1) % len(rels)
	case k.String() == "enter":
		p.step = pickClosed
		return link(p.from, p.to.ID, rels[p.relation])
	case key.Matches(k, km.Back):
		p.step = pickNode
		return p.input.Focus()
	default:
		if d := int(k.Code - '1'); k.Text != "" && d >= 0 && d < len(rels) {
			p.relation = d
		}
	}
	return nil
}

// ShortHelp is the dialog's keys.
func (p *linkPicker) ShortHelp() []key.Binding {
	k := p.keys
	if p.step == pickRelation {
		return []key.Binding{k.PickRelation, k.DoLink, k.PickBack}
	}
	return []key.Binding{k.PickChoose, k.Pick, k.PickCancel}
}

// ---- view ------------------------------------------------------------------

// renderRow draws a node in the picker.
func (p *linkPicker) renderRow(r row, _ int, selected, _ bool, w int) string {
	s := p.c.Styles
	n := r.node
	id := fmt.Sprintf("#%d ", n.ID)
	text := clip(id+label(n), max(4, w-8))
	if n.ID == p.from {
		text = clip(id+"(this node) "+label(n), max(4, w-8))
	}
	if selected {
		return s.Cursor.Render("▌") + " " + p.badge(n.Type) + " " + s.Selected.Render(pad(text, max(4, w-8)))
	}
	return "  " + p.badge(n.Type) + " " + s.Text.Render(text)
}

func (p *linkPicker) view() string {
	if p.step == pickRelation {
		return p.relationView()
	}
	s := p.c.Styles
	w := p.dialogWidth()
	inner := w - 6
	from := p.lookup(p.from)
	var b strings.Builder
	b.WriteString(s.DialogTitle.Render(clip(fmt.Sprintf("Link #%d %s to…", from.ID, label(from)), inner)) + "\n")
	b.WriteString(p.input.View() + "\n\n")
	l := p.list()
	switch {
	case l.Loading():
		b.WriteString(common.FitHeight(s.Subtle.Render("loading…"), p.rows()))
	case l.Len() == 0 && p.query == "":
		b.WriteString(common.FitHeight(s.Muted.Render("The vault has no other node."), p.rows()))
	default:
		b.WriteString(l.View())
	}
	b.WriteString("\n\n" + s.Subtle.Render(clip("type to search · ↑/↓ choose · enter picks · esc cancels", inner)))
	return s.Dialog.Width(w).Render(b.String())
}

var relationHelp = map[engvault.Relation]string{
	engvault.Supports:    "backs it up",
	engvault.Contradicts: "says the opposite",
	engvault.Refines:     "narrows or improves it",
	engvault.Replaces:    "supersedes it",
	engvault.DependsOn:   "needs it first",
}

func (p *linkPicker) relationView() string {
	s := p.c.Styles
	w := p.dialogWidth()
	inner := w - 6
	from := p.lookup(p.from)
	rels := engvault.Relations()
	rel := rels[p.relation]
	var b strings.Builder
	b.WriteString(s.DialogTitle.Render("Choose the relation") + "\n\n")
	b.WriteString(p.badge(from.Type) + " " + s.Text.Render(clip(fmt.Sprintf("#%d %s", from.ID, label(from)), inner-6)) + "\n")
	st := s.EdgeLabel
	if rel == engvault.Contradicts {
		st = s.EdgeConflict
	}
	b.WriteString("  " + s.Tree.Render("─ ") + st.Render(string(rel)) + s.Tree.Render(" ─▶") + "\n")
	b.WriteString(p.badge(p.to.Type) + " " + s.Text.Render(clip(fmt.Sprintf("#%d %s", p.to.ID, label(p.to)), inner-6)) + "\n\n")
	for i, r := range rels {
		line := ansi.Truncate(fmt.Sprintf("%d %-12s %s", i+1, r, relationHelp[r]), inner-2, "…")
		if i == p.relation {
			b.WriteString(s.Cursor.Render("▌") + " " + s.Selected.Render(pad(line, inner-2)) + "\n")
		} else {
			b.WriteString("  " + s.Text.Render(line) + "\n")
		}
	}
	b.WriteString("\n" + s.Subtle.Render(clip("↑/↓ or 1–5 choose · enter links · esc back to the picker", inner)))
	return s.Dialog.Width(w).Render(b.String())
}

// tagsDialog edits a node's tags (comma-separated).
type tagsDialog struct {
	*shared
	width  int
	lookup func(id uint64) engvault.Node
	input  textinput.Model
	id     uint64
	open   bool
}

func newTagsDialog(sh *shared, lookup func(uint64) engvault.Node) *tagsDialog {
	return &tagsDialog{shared: sh, lookup: lookup, input: newInput(sh.c, "comma-separated tags", "› ")}
}

func (t *tagsDialog) setSize(w int) {
	t.width = w
	t.input.SetWidth(max(10, min(60, w-16)))
}

func (t *tagsDialog) start(id uint64, tags []string) tea.Cmd {
	t.open, t.id = true, id
	t.input.SetValue(strings.Join(tags, ", "))
	t.input.CursorEnd()
	return t.input.Focus()
}

// key handles a key while the dialog is open; save is the command that
// stores the tags.
func (t *tagsDialog) key(k tea.KeyPressMsg, save func(id uint64, tags []string) tea.Cmd) tea.Cmd {
	switch k.String() {
	case "esc":
		t.open = false
		t.input.Blur()
		return nil
	case "enter":
		t.open = false
		t.input.Blur()
		return save(t.id, parseTags(t.input.Value()))
	}
	var cmd tea.Cmd
	t.input, cmd = t.input.Update(k)
	return cmd
}

func (t *tagsDialog) update(msg tea.Msg) tea.Cmd {
	if !t.input.Focused() {
		return nil
	}
	var cmd tea.Cmd
	t.input, cmd = t.input.Update(msg)
	return cmd
}

func (t *tagsDialog) view() string {
	s := t.c.Styles
	w := min(72, max(40, t.width-8))
	inner := w - 6
	n := t.lookup(t.id)
	var b strings.Builder
	b.WriteString(s.DialogTitle.Render(clip(fmt.Sprintf("Tags of #%d %s", n.ID, label(n)), inner)) + "\n\n")
	b.WriteString(t.input.View() + "\n\n")
	b.WriteString(s.Subtle.Render(clip("comma-separated · enter saves · esc cancels", inner)))
	return s.Dialog.Width(w).Render(b.String())
}
