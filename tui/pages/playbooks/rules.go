package playbooks

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/nova-dev/nova/engine/ace"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/components/vlist"
)

type sortKey uint8

const (
	sortConfidence sortKey = iota
	sortApplied
	sortSuccess
	sortNewest
	sortContent
	sortCount
)

func (k sortKey) String() string {
	return [...]string{"confidence", "applied", "success rate", "newest", "content"}[k]
}

// rulesPane is the selected agent's playbook: its rules as a table
// (filtered with /, sorted with o) and the chosen rule's detail.
type rulesPane struct {
	c *common.Common

	pb    *ace.Playbook
	err   error
	agent string // whose playbook pb is

	rules    []ace.Rule // filtered and sorted
	list     *vlist.Model[ace.Rule]
	sortBy   sortKey
	filter   textinput.Model
	filterOn bool

	// The table's columns, measured by view for renderRow.
	cols ruleCols
}

// ruleCols are the widths of the rules table's columns.
type ruleCols struct {
	id, flex, tags int
	showSrc        bool
}

const srcW, confW, numW = 7, 11, 5

func newRulesPane(c *common.Common) *rulesPane {
	f := textinput.New()
	f.Prompt = "/ "
	f.Placeholder = "filter rules (content, tag, source, id)"
	f.SetStyles(c.Styles.TextInput)
	r := &rulesPane{c: c, filter: f}
	r.list = vlist.New(c, r.renderRow)
	r.list.SetMarker(true)
	r.list.SetEmptyText("")
	return r
}

// set shows agent's playbook (or the error loading it).
func (r *rulesPane) set(agent string, pb *ace.Playbook, err error) {
	r.err = err
	if err != nil {
		return
	}
	newAgent := r.agent != agent
	r.pb, r.agent = pb, agent
	r.applyFilter()
	if newAgent {
		r.list.SetCursor(0)
	}
}

// choose selects rule id; it reports whether it is shown.
func (r *rulesPane) choose(id string) bool {
	for i, x := range r.rules {
		if x.ID == id {
			r.list.SetCursor(i)
			return true
		}
	}
	return false
}

func (r *rulesPane) selected() (ace.Rule, bool) { return r.list.Selected() }

// applyFilter recomputes the shown rules from the playbook, the filter and
// the sort order, keeping the selected rule.
func (r *rulesPane) applyFilter() {
	keep := ""
	if x, ok := r.selected(); ok {
		keep = x.ID
	}
	r.rules = nil
	defer func() { r.list.ReplaceRows(r.rules, func(x ace.Rule) bool { return x.ID == keep }) }()
	if r.pb == nil {
		return
	}
	q := strings.ToLower(strings.TrimSpace(r.filter.Value()))
	for _, x := range r.pb.Rules {
		if q == "" || matches(x, q) {
			r.rules = append(r.rules, x)
		}
	}
	slices.SortStableFunc(r.rules, func(a, b ace.Rule) int {
		cmp := func(x, y float64) int {
			switch {
			case x > y:
				return -1
			case x < y:
				return 1
			}
			return 0
		}
		switch r.sortBy {
		case sortApplied:
			return cmp(float64(a.AppliedCount), float64(b.AppliedCount))
		case sortSuccess:
			return cmp(a.SuccessRate(), b.SuccessRate())
		case sortNewest:
			return b.CreatedAt.Compare(a.CreatedAt)
		case sortContent:
			return strings.Compare(strings.ToLower(a.Content), strings.ToLower(b.Content))
		}
		return cmp(a.Confidence, b.Confidence)
	})
}

func matches(r ace.Rule, q string) bool {
	for _, f := range strings.Fields(q) {
		hay := strings.ToLower(r.ID + " " + r.Content + " " + string(r.Source) + " " + string(r.Kind) + " " + strings.Join(r.Tags, " "))
		if !strings.Contains(hay, f) {
			return false
		}
	}
	return true
}

// startFilter focuses the filter.
func (r *rulesPane) startFilter() tea.Cmd {
	r.filterOn = true
	r.filter.SetStyles(r.c.Styles.TextInput)
	return r.filter.Focus()
}

// clearFilter empties the filter (the rule asked for must be visible).
func (r *rulesPane) clearFilter() { r.filter.SetValue("") }

// nextSort cycles the sort order.
func (r *rulesPane) nextSort() {
	r.sortBy = (r.sortBy + 1) % sortCount
	r.applyFilter()
}

// keyFilter handles a key while the filter is being typed.
func (r *rulesPane) keyFilter(k tea.KeyPressMsg) tea.Cmd {
	km := r.c.KeyMap
	switch {
	case k.String() == "enter":
		r.filterOn = false
		r.filter.Blur()
		return nil
	case key.Matches(k, km.Back):
		r.filterOn = false
		r.filter.Blur()
		r.filter.SetValue("")
		r.applyFilter()
		return nil
	}
	var cmd tea.Cmd
	r.filter, cmd = r.filter.Update(k)
	r.applyFilter()
	return cmd
}

// update passes the filter's cursor blinks.
func (r *rulesPane) update(msg tea.Msg) tea.Cmd {
	if !r.filterOn {
		return nil
	}
	var cmd tea.Cmd
	r.filter, cmd = r.filter.Update(msg)
	return cmd
}

// key moves the selection.
func (r *rulesPane) key(k tea.KeyPressMsg) {
	_, _ = r.list.HandleKey(k) // a static list fetches nothing
}

// view is the rules table with its filter line and the selected rule's
// detail, in w×h.
func (r *rulesPane) view(w, h int, focused bool) []string {
	s := r.c.Styles
	var out []string
	filterLine := s.Muted.Render("sort ") + s.Text.Render(r.sortBy.String()) + s.Subtle.Render(" (o)")
	switch {
	case r.filterOn:
		filterLine = r.filter.View()
	case r.filter.Value() != "":
		filterLine = s.Muted.Render("filter ") + s.Accent.Render(r.filter.Value()) + s.Subtle.Render(fmt.Sprintf(" · %d match", len(r.rules))) + "  " + filterLine
	}
	out = append(out, lipgloss.NewStyle().MaxWidth(w).Render(filterLine))
	switch {
	case r.err != nil:
		return append(out, s.Error.Render(common.Truncate("could not load the playbook: "+r.err.Error(), w)))
	case r.pb == nil:
		return append(out, s.Muted.Render("Loading…"))
	case len(r.pb.Rules) == 0:
		return append(out, "", s.Muted.Render("No rules for "+r.agent+" yet."),
			s.Subtle.Render(common.Truncate("Builds teach rules (reflector and curator at autonomy ≥ 3); n adds one by hand.", w)))
	case len(r.rules) == 0:
		return append(out, "", s.Muted.Render("No rule matches the filter."), s.Subtle.Render("/ changes it, esc inside the filter clears it."))
	}
	// Columns: id, content, source, confidence, applied, success, tags.
	// Two cells go to the list's › gutter and one to its scrollbar.
	tw := max(1, w-3)
	idW := 4
	for _, x := range r.rules {
		idW = max(idW, min(8, lipgloss.Width(x.ID)))
	}
	showSrc := tw >= 70
	fixed := idW + 1 + confW + 1 + numW + 1 + numW
	if showSrc {
		fixed += srcW + 1
	}
	flex := max(10, tw-fixed-1)
	tagsW := 0
	if tw >= 100 {
		tagsW = min(28, flex/3)
		flex -= tagsW + 1
	}
	r.cols = ruleCols{id: idW, flex: flex, tags: tagsW, showSrc: showSrc}
	hdr := "  " + pad("id", idW) + " " + pad("rule", flex)
	if showSrc {
		hdr += " " + pad("source", srcW)
	}
	hdr += " " + pad("confidence", confW) + " " + lpad("used", numW) + " " + lpad("ok", numW)
	if tagsW > 0 {
		hdr += " " + pad("tags", tagsW)
	}
	out = append(out, s.Subtle.Render(hdr))
	detailH := 0
	if h >= 16 {
		detailH = min(6, h/4)
	}
	rows := max(1, h-len(out)-detailH)
	r.list.SetFocused(focused)
	out = append(out, strings.Split(r.list.ViewNoted(w, min(rows, len(r.rules))), "\n")...)
	if detailH > 0 {
		if x, ok := r.selected(); ok {
			out = strings.Split(common.FitHeight(strings.Join(out, "\n"), h-detailH), "\n")
			d := []string{s.Subtle.Render(strings.Repeat("─", w))}
			meta := fmt.Sprintf("%s · %s · %s · helpful %d · harmful %d · created %s", x.ID, x.Kind, x.Source, x.HelpfulCount, x.HarmfulCount, x.CreatedAt.Format("2006-01-02"))
			d = append(d, s.Muted.Render(common.Truncate(meta, w)))
			if t := x.Team; t != nil {
				// A teammate's rule names its author, and a newer version
				// left unapplied over an edit made here.
				line := "shared by teammate " + t.Author
				if t.Newer != "" {
					line += " · edited here: the teammate's newer version is not applied (nova team take rule)"
				}
				d = append(d, s.Accent.Render(common.Truncate(line, w)))
			}
			d = append(d, strings.Split(s.Text.Width(w).Render(oneLine(x.Content)), "\n")...)
			out = append(out, d[:min(len(d), detailH)]...)
		}
	}
	return out
}

// renderRow draws one rule in the table's columns (view measures them).
func (r *rulesPane) renderRow(x ace.Rule, _ int, selected, focused bool, _ int) string {
	s := r.c.Styles
	c := r.cols
	ok := "—"
	if x.AppliedCount > 0 {
		ok = fmt.Sprintf("%.0f%%", x.SuccessRate()*100)
	}
	hi := selected && focused
	cell := func(st lipgloss.Style, t string) string {
		if hi {
			return s.Selected.Render(t)
		}
		return st.Render(t)
	}
	sp := cell(s.Text, " ")
	line := cell(s.Muted, pad(x.ID, c.id)) + sp + cell(s.Text, pad(oneLine(x.Content), c.flex))
	if c.showSrc {
		line += sp + cell(r.sourceStyle(x.Source), pad(string(x.Source), srcW))
	}
	line += sp + s.Bar(x.Confidence, 6) + cell(s.Muted, fmt.Sprintf(" %.2f", x.Confidence)) + sp +
		cell(s.Text, lpad(fmt.Sprintf("%d", x.AppliedCount), numW)) + sp + cell(s.Text, lpad(ok, numW))
	if c.tags > 0 {
		line += sp + cell(s.Accent, pad(strings.Join(x.Tags, ","), c.tags))
	}
	return line
}

// pad cuts or pads t to n cells; lpad pads it on the left.
func pad(t string, n int) string {
	t = common.Truncate(t, n)
	return t + strings.Repeat(" ", max(0, n-lipgloss.Width(t)))
}

func lpad(t string, n int) string {
	return strings.Repeat(" ", max(0, n-lipgloss.Width(t))) + t
}

func (r *rulesPane) sourceStyle(src ace.Source) lipgloss.Style {
	s := r.c.Styles
	switch src {
	case ace.SourceManual:
		return s.Info
	case ace.SourceGlobal:
		return s.Secondary
	}
	return s.Success
}
