package knowledge

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/nova-dev/nova/engine/knowledge"
	"github.com/nova-dev/nova/engine/knowledge/docs"
	"github.com/nova-dev/nova/engine/knowledge/facts"
	"github.com/nova-dev/nova/internal/plural"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/components/markdown"
)

// View implements common.Component.
func (m *Model) View() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	switch {
	case m.conf.Active():
		// The page does not change while a dialog has the keys: typing
		// redraws the dialog only.
		return common.Overlay(m.under.Get(m.c, m.width, m.height, m.baseView), m.conf.View(), m.width, m.height)
	case m.form != nil:
		return common.Overlay(m.under.Get(m.c, m.width, m.height, m.baseView), m.formView(), m.width, m.height)
	}
	return m.baseView()
}

// baseView is the page without its dialogs.
func (m *Model) baseView() string {
	head := m.headView()
	h := m.height - 1
	var body string
	switch {
	case m.det != nil && !m.wide():
		body = m.detailView(m.width, h)
	case m.wide():
		lw := m.listWidth()
		right := m.detailView(m.width-lw, h)
		if m.det == nil {
			right = m.c.Styles.Panel.Width(m.width - lw).Height(h).Render(m.previewHint(m.width-lw-4, h-2))
		}
		body = lipgloss.JoinHorizontal(lipgloss.Top, m.listView(lw, h), right)
	default:
		body = m.listView(m.width, h)
	}
	return common.FitHeight(head+"\n"+body, m.height)
}

// headView is the pane tabs with their counts and what is under way.
func (m *Model) headView() string {
	s := m.c.Styles
	var tabs []string
	for p := paneSearch; p < paneCount; p++ {
		label := p.String()
		switch p {
		case paneSearch:
			if r := m.hits(); len(r) > 0 {
				label += fmt.Sprintf(" %d", len(r))
			}
		case paneFacts:
			label += fmt.Sprintf(" %d", m.validFacts())
		case paneDocs:
			label += fmt.Sprintf(" %d", len(m.docsList))
		}
		if p == m.pane {
			tabs = append(tabs, s.TabActive.Render(label))
		} else {
			tabs = append(tabs, s.Tab.Render(label))
		}
	}
	line := strings.Join(tabs, s.TabSep.Render("│"))
	var note string
	switch {
	case m.fetching != "":
		note = s.Accent.Render("⟳ fetching " + m.fetching + "…")
	case m.searching:
		note = s.Muted.Render("searching…")
	case len(m.factsRes.Warnings) > 0:
		note = s.Warning.Render("⚠ " + m.factsRes.Warnings[0])
	}
	if note != "" {
		line += "  " + common.Truncate(note, max(0, m.width-lipgloss.Width(line)-2))
	}
	return lipgloss.NewStyle().MaxWidth(m.width).Render(line)
}

func (m *Model) validFacts() int {
	n := 0
	for _, f := range m.factsRes.Facts {
		if f.Status == facts.StatusValid {
			n++
		}
	}
	return n
}

func (m *Model) listView(w, h int) string {
	s := m.c.Styles
	st := s.Panel
	if !m.focus && m.form == nil {
		st = s.PanelFocused
	}
	inner, rows := w-4, h-2
	var lines []string
	switch m.pane {
	case paneSearch:
		lines = m.searchLines(inner, rows)
	case paneFacts:
		lines = m.factLines(inner, rows)
	case paneDocs:
		lines = m.docLines(inner, rows)
	}
	// Long lines (an empty state's hint) wrap here, before the height is
	// fitted, so the panel never grows past h and loses its bottom border.
	text := lipgloss.NewStyle().Width(inner).Render(strings.Join(lines, "\n"))
	return st.Width(w).Height(h).Render(common.FitHeight(text, rows))
}

// ---- search ----

func (m *Model) searchLines(w, h int) []string {
	s := m.c.Styles
	var out []string
	if m.refs != nil {
		out = append(out, s.Subtitle.Render(common.Truncate(cmpOr(m.refsTitle, "Injected knowledge"), w)),
			s.Subtle.Render(common.Truncate("what the prompt carried · / searches everything · esc back", w)))
	} else {
		in := m.input.View()
		if !m.input.Focused() && m.input.Value() == "" {
			in = s.Subtle.Render("/ search the vault, facts and docs…")
		}
		out = append(out, lipgloss.NewStyle().MaxWidth(w).Render(in), m.sourcesLine(w))
	}
	hits := m.hits()
	switch {
	case m.refs != nil && m.refHits == nil:
		return append(out, "", s.Muted.Render("Loading…"))
	case m.refs == nil && m.searchErr != nil:
		return append(out, "", s.Error.Render(common.Truncate("search failed: "+m.searchErr.Error(), w)))
	case m.refs == nil && m.result == nil:
		return append(out, "", m.c.Empty("One search over everything nova knows.",
			common.Truncate("Press / and type: vault patterns, facts and docs rank together.", w)))
	case len(hits) == 0:
		return append(out, "", m.c.Empty("Nothing matches "+quote(m.query)+".",
			common.Truncate("Try other words, fetch docs on the Docs tab (f), or add a fact (a on Facts).", w)))
	}
	per := 2
	if h-len(out) >= len(hits)*3 || w >= 100 {
		per = 3
	}
	m.syncHits()
	m.hitPer = per
	m.hitList.SetRowHeight(per)
	m.hitList.SetFocused(!m.focus && !m.input.Focused())
	return append(out, strings.Split(m.hitList.ViewNoted(w, max(per, min(h-len(out), len(hits)*per))), "\n")...)
}

// renderHit draws one hit in hitPer lines (the list's gutter holds the ›).
func (m *Model) renderHit(h knowledge.Hit, _ int, selected, _ bool, w int) string {
	return strings.Join(m.hitLines(h, selected, w, m.hitPer), "\n")
}

// sourcesLine says how each source answered (and what failed).
func (m *Model) sourcesLine(w int) string {
	s := m.c.Styles
	if m.result == nil {
		return s.Subtle.Render("sources: vault · facts · docs")
	}
	var parts []string
	for _, st := range m.result.Sources {
		p := fmt.Sprintf("%s %d", st.Name, st.Hits)
		if st.Error != "" {
			p = s.Warning.Render(st.Name + " failed")
		}
		parts = append(parts, p)
	}
	line := s.Muted.Render(fmt.Sprintf("%d hits · ", len(m.result.Hits))) + s.Muted.Render(strings.Join(parts, " · "))
	if len(m.result.Warnings) > 0 {
		line += "  " + s.Warning.Render("⚠ "+m.result.Warnings[0])
	}
	return common.Truncate(line, w)
}

func (m *Model) badge(source string) string {
	s := m.c.Styles
	switch source {
	case knowledge.SourceFacts:
		return s.BadgeAccent.Render("FACT ")
	case knowledge.SourceDocs:
		return s.Badge.Render("DOCS ")
	}
	return s.BadgeInfo.Render("VAULT")
}

func (m *Model) hitLines(h knowledge.Hit, sel bool, w, per int) []string {
	s := m.c.Styles
	b := m.badge(h.Source)
	right := ""
	if m.refs == nil {
		right = " " + s.Bar(h.Score, 8) + s.Muted.Render(fmt.Sprintf(" %.2f", h.Score))
	}
	tw := max(4, w-lipgloss.Width(b)-1-lipgloss.Width(right))
	title := common.Truncate(oneLine(h.Title), tw)
	title += strings.Repeat(" ", max(0, tw-lipgloss.Width(title)))
	if sel {
		title = s.Selected.Render(title)
	} else {
		title = s.Bold.Render(title)
	}
	out := []string{b + " " + title + right}
	snip := oneLine(h.Snippet)
	indent := "  "
	out = append(out, indent+s.Muted.Render(common.Truncate(snip, w-len(indent))))
	if per == 3 {
		out = append(out, indent+s.Subtle.Render(common.Truncate(h.Ref, w-len(indent))))
	}
	return out
}

// ---- facts ----

func (m *Model) factLines(w, h int) []string {
	s := m.c.Styles
	filter := "all scopes"
	if m.scopeFilter != "" {
		filter = m.scopeFilter
	}
	closed := "valid only"
	if m.showClosed {
		closed = "with closed"
	}
	out := []string{s.Muted.Render("scope ") + s.Text.Render(filter) + s.Subtle.Render(" (s) · ") +
		s.Text.Render(closed) + s.Subtle.Render(" (i) · a add")}
	switch {
	case !m.factsLoaded:
		return append(out, s.Muted.Render("Loading facts…"))
	case m.factsErr != nil:
		return append(out, s.Error.Render(common.Truncate("could not list the facts: "+m.factsErr.Error(), w)), s.Subtle.Render("ctrl+r retries."))
	case len(m.factRows) == 0 && len(m.factsRes.Facts) > 0:
		return append(out, "", m.c.Empty("No fact at "+m.scopeFilter+".", "s cycles the scope filter."))
	case len(m.factRows) == 0:
		hint := "Record what holds in this project (a adds one). Builds learn facts at build scope; agents remember and correct them; promote the good ones (p)."
		if !m.showClosed {
			hint += " i also shows superseded, invalidated and archived facts."
		}
		return append(out, "", m.c.Empty("No facts yet.", hint))
	}
	m.factLo, m.factHi = m.factSpan()
	m.factList.SetFocused(!m.focus)
	hh := max(2, min(h-len(out), 2*len(m.factRows)))
	// A fact at the top of the window shows its scope's header above it.
	m.factList.SetSize(w, hh)
	if c := m.factList.Cursor(); c > 0 && c == m.factList.Top() && m.factRows[c-1].header != "" {
		m.factList.SetCursor(c - 1)
		m.factList.SetCursor(c)
	}
	return append(out, strings.Split(m.factList.ViewNoted(w, hh), "\n")...)
}

// renderFact draws a row of the facts list in two lines: a scope's header
// (and a blank line), or a fact and its timeline.
func (m *Model) renderFact(r factRow, _ int, selected, _ bool, w int) string {
	s := m.c.Styles
	if r.header != "" {
		return s.Subtitle.Render(r.header) + s.Muted.Render(fmt.Sprintf(" · %d", r.count)) + "\n"
	}
	return strings.Join(m.factBlock(r.fact, selected, w, m.factLo, m.factHi), "\n")
}

// factSpan is the time range the timelines share: the oldest validFrom
// to now.
func (m *Model) factSpan() (time.Time, time.Time) {
	hi := m.now()
	lo := hi
	for _, f := range m.factsRes.Facts {
		if !f.ValidFrom.IsZero() && f.ValidFrom.Before(lo) {
			lo = f.ValidFrom
		}
	}
	return lo, hi
}

// statusBadge is a fact's status, padded to one width so texts align.
func (m *Model) statusBadge(f facts.Fact) string {
	b := m.statusBadgeBare(f)
	return b + strings.Repeat(" ", max(0, len("superseded")+2-lipgloss.Width(b)))
}

func (m *Model) statusBadgeBare(f facts.Fact) string {
	s := m.c.Styles
	switch {
	case f.Status == facts.StatusValid && f.Review != "":
		return s.BadgeWarn.Render("review")
	case f.Status == facts.StatusValid:
		return s.BadgeOK.Render("valid")
	case f.Status == facts.StatusSuperseded:
		return s.BadgeMuted.Render("superseded")
	case f.Status == facts.StatusInvalidated:
		return s.BadgeErr.Render("invalid")
	}
	return s.BadgeMuted.Render("archived")
}

func (m *Model) factBlock(f facts.Fact, sel bool, w int, lo, hi time.Time) []string {
	s := m.c.Styles
	badge := m.statusBadge(f)
	id := s.Muted.Render(fmt.Sprintf("%-4s", f.ID))
	conf := s.Muted.Render(fmt.Sprintf(" %.2f", f.Confidence))
	tw := max(4, w-lipgloss.Width(badge)-1-lipgloss.Width(id)-1-lipgloss.Width(conf))
	text := common.Truncate(oneLine(f.Content), tw)
	text += strings.Repeat(" ", max(0, tw-lipgloss.Width(text)))
	switch {
	case sel:
		text = s.Selected.Render(text)
	case f.Status != facts.StatusValid:
		text = s.Muted.Render(text)
	default:
		text = s.Text.Render(text)
	}
	line1 := id + " " + badge + " " + text + conf
	barW := min(24, max(8, w/5))
	line2 := "  " + m.timeline(f, lo, hi, barW) + " " + s.Subtle.Render(common.Truncate(validity(f), max(0, w-4-barW)))
	return []string{line1, line2}
}

// timeline draws when a fact held on the span lo–hi shared by the list:
// ━ while valid (green; grey once superseded, red once invalidated), · outside.
func (m *Model) timeline(f facts.Fact, lo, hi time.Time, width int) string {
	s := m.c.Styles
	span := hi.Sub(lo)
	pos := func(t time.Time) int {
		if span <= 0 {
			return width
		}
		p := int(float64(t.Sub(lo)) / float64(span) * float64(width))
		return max(0, min(width, p))
	}
	from := pos(f.ValidFrom)
	if span <= 0 {
		from = 0
	}
	to := width
	if !f.ValidUntil.IsZero() {
		to = max(from+1, pos(f.ValidUntil))
	}
	from = min(from, width-1)
	to = min(max(to, from+1), width)
	on := s.Success
	switch f.Status {
	case facts.StatusSuperseded, facts.StatusArchived:
		on = s.Muted
	case facts.StatusInvalidated:
		on = s.Error
	}
	return s.Subtle.Render(strings.Repeat("·", from)) + on.Render(strings.Repeat("━", to-from)) + s.Subtle.Render(strings.Repeat("·", width-to))
}

// validity is a fact's span in words (after its author, for a teammate's
// fact).
func validity(f facts.Fact) string {
	if f.Source.Type == facts.SourceTeam && f.Author != "" {
		f.Source.Type = ""
		return "teammate " + f.Author + " · " + validity(f)
	}
	if f.ValidUntil.IsZero() {
		s := "since " + day(f.ValidFrom)
		switch {
		case f.Archived:
			s += " · archived: " + f.ArchiveReason
		case f.Review != "":
			s += " · review: " + f.Review
		}
		return s
	}
	s := day(f.ValidFrom) + " → " + day(f.ValidUntil)
	if f.SupersededBy != "" {
		s += " · by " + f.SupersededBy
	}
	if f.Reason != "" {
		s += " · " + f.Reason
	}
	return s
}

// ---- docs ----

func (m *Model) docLines(w, h int) []string {
	s := m.c.Styles
	st := m.docsStats
	foot := s.Muted.Render(fmt.Sprintf("%s · %d stale · %s · %s · local %d · context7 %d",
		plural.Count(st.Entries, "entry", "entries"), st.Stale, sizeText(st.Bytes), plural.Count(st.Tokens, "token", "tokens"),
		st.BySource[docs.SourceLocal], st.BySource[docs.SourceContext7]))
	out := []string{common.Truncate(foot, w)}
	switch {
	case !m.docsLoaded:
		return append(out, s.Muted.Render("Loading the docs cache…"))
	case m.docsErr != nil:
		return append(out, s.Error.Render(common.Truncate("could not list the docs cache: "+m.docsErr.Error(), w)), s.Subtle.Render("ctrl+r retries."))
	case len(m.docsList) == 0:
		return append(out, "", m.c.Empty("The docs cache is empty.",
			"f fetches a library's docs: the project's Go modules and npm packages are read from disk at their exact versions, others come from Context7 (docs.context7.url). Agents fill it too with their fetchDocs tool."))
	}
	flex := max(10, w-2-docSrcW-docVerW-docAgeW-docSizeW-5) // the gutter, the scrollbar
	libW := flex * 3 / 5
	topW := flex - libW
	m.docCols = [2]int{libW, topW}
	out = append(out, s.Subtle.Render("  "+padTo("source", docSrcW)+padTo("library", libW)+" "+padTo("topic", topW)+" "+padTo("version", docVerW)+padTo("age", docAgeW)+padTo("size", docSizeW)))
	rows := max(1, h-len(out))
	m.docList.SetFocused(!m.focus)
	return append(out, strings.Split(m.docList.ViewNoted(w, min(rows, len(m.docsList))), "\n")...)
}

// The docs table's fixed columns.
const docSrcW, docVerW, docAgeW, docSizeW = 9, 9, 10, 7

// padTo cuts or pads t to n cells.
func padTo(t string, n int) string {
	t = common.Truncate(t, n)
	return t + strings.Repeat(" ", max(0, n-lipgloss.Width(t)))
}

// renderDoc draws one cached docs entry in the table's columns.
func (m *Model) renderDoc(e docs.EntryInfo, _ int, selected, _ bool, _ int) string {
	s := m.c.Styles
	libW, topW := m.docCols[0], m.docCols[1]
	a := age(m.now(), e.FetchedAt)
	ageText := s.Muted.Render(padTo(a, docAgeW))
	if e.Stale {
		ageText = s.Warning.Render(padTo(a+" stale", docAgeW))
	}
	src := s.Info.Render(padTo(e.Source, docSrcW))
	if e.Source == docs.SourceLocal {
		src = s.Success.Render(padTo(e.Source, docSrcW))
	}
	row := padTo(e.Library, libW) + " " + padTo(cmpOr(e.Topic, "—"), topW) + " "
	if selected {
		row = s.Selected.Render(row)
	} else {
		row = s.Text.Render(row)
	}
	return src + row + s.Muted.Render(padTo(cmpOr(e.Version, "—"), docVerW)) + ageText + s.Muted.Render(padTo(sizeText(e.Bytes), docSizeW))
}

// ---- detail ----

// previewHint fills the detail column when nothing is open.
func (m *Model) previewHint(w, h int) string {
	s := m.c.Styles
	var lines []string
	switch m.pane {
	case paneSearch:
		lines = []string{s.PanelTitle.Render("Detail"), "", s.Muted.Render("enter opens a hit: a fact with its history,"), s.Muted.Render("a vault node, or the docs text.")}
	case paneFacts:
		if f, ok := m.selectedFact(); ok {
			lines = []string{s.PanelTitle.Render("Fact " + f.ID), ""}
			for _, l := range strings.Split(lipgloss.Wrap(f.Content, w, " "), "\n") {
				lines = append(lines, s.Text.Render(l))
			}
			from := sourceText(f.Source)
			if f.Source.Type == facts.SourceTeam && f.Author != "" {
				from = "teammate " + f.Author
			}
			lines = append(lines, "", s.Muted.Render(f.Scope.String()+" · from "+from+fmt.Sprintf(" · confidence %.2f", f.Confidence)),
				s.Subtle.Render("enter shows its history"))
		} else {
			lines = []string{s.PanelTitle.Render("Detail"), "", s.Muted.Render("Facts show here with their history.")}
		}
	case paneDocs:
		if e, ok := m.selectedDoc(); ok {
			lines = []string{s.PanelTitle.Render(common.Truncate(cmpOr(e.Title, e.Library), w)), "",
				s.Muted.Render(common.Truncate(e.Source+" · "+e.Library+" "+e.Version, w)),
				s.Muted.Render(fmt.Sprintf("fetched %s · expires %s", day(e.FetchedAt), day(e.ExpiresAt))),
				s.Muted.Render(fmt.Sprintf("%s · %d tokens", sizeText(e.Bytes), e.Tokens)), "", s.Subtle.Render("enter reads it · r refreshes · d removes")}
		} else {
			lines = []string{s.PanelTitle.Render("Detail"), "", s.Muted.Render("Cached docs show here.")}
		}
	}
	for i := range lines {
		lines[i] = common.Truncate(lines[i], w)
	}
	return common.FitHeight(strings.Join(lines, "\n"), h)
}

func (m *Model) detailView(w, h int) string {
	s := m.c.Styles
	st := s.Panel
	if m.focus || !m.wide() {
		st = s.PanelFocused
	}
	inner, rows := w-4, h-2
	d := m.det
	if d == nil {
		return st.Width(w).Height(h).Render("")
	}
	var head []string
	switch {
	case d.loading:
		head = []string{s.Muted.Render("Opening " + d.ref + "…")}
	case d.err != nil:
		head = []string{s.Error.Render(common.Truncate("could not open "+d.ref, inner)), s.Text.Render(common.Truncate(d.err.Error(), inner)),
			s.Subtle.Render("It may have been removed; esc goes back.")}
	default:
		head = m.detailHead(d, inner)
	}
	body := d.lines
	room := max(0, rows-len(head))
	scroll := max(0, min(d.scroll, len(body)-room))
	end := min(len(body), scroll+room)
	lines := append(head, body[min(scroll, end):end]...)
	if len(body) > room && room > 0 {
		pct := 100
		if len(body)-room > 0 {
			pct = scroll * 100 / (len(body) - room)
		}
		lines[0] = common.Truncate(lines[0], max(0, inner-6)) + s.Subtle.Render(fmt.Sprintf(" %3d%%", pct))
	}
	// Long lines (an empty state's hint) wrap here, before the height is
	// fitted, so the panel never grows past h and loses its bottom border.
	text := lipgloss.NewStyle().Width(inner).Render(strings.Join(lines, "\n"))
	return st.Width(w).Height(h).Render(common.FitHeight(text, rows))
}

// detailHead is the opened item's title, facts and (for a fact) its
// history as a vertical timeline.
func (m *Model) detailHead(d *detail, w int) []string {
	s := m.c.Styles
	it := d.item
	out := []string{m.badge(it.Source) + " " + s.Title.Render(common.Truncate(oneLine(it.Title), max(4, w-8)))}
	meta := func(t string) { out = append(out, s.Muted.Render(common.Truncate(t, w))) }
	switch {
	case it.Fact != nil:
		f := it.Fact
		meta(fmt.Sprintf("%s · %s · from %s · confidence %.2f", f.ID, f.Scope, sourceText(f.Source), f.Confidence))
		meta(fmt.Sprintf("used %d× · helped %d · did not help %d", f.Retrievals, f.Helpful, f.NotHelpful))
		if len(f.Tags) > 0 {
			meta("tags " + strings.Join(f.Tags, ", "))
		}
		for _, fr := range f.Files {
			meta("names " + fr.Path)
		}
		out = append(out, m.statusBadge(*f)+" "+s.Text.Render(common.Truncate(validity(*f), max(0, w-14))))
		if len(d.history) > 1 {
			out = append(out, "", s.Subtitle.Render("History"))
			for i, h := range d.history {
				mark, st := "●", s.Success
				if h.Status != facts.StatusValid {
					mark, st = "○", s.Muted
				}
				cur := " "
				if h.ID == f.ID {
					cur = s.Cursor.Render("›")
				}
				out = append(out, cur+st.Render(mark)+" "+s.Bold.Render(h.ID)+" "+s.Muted.Render(common.Truncate(validity(h), max(0, w-8-len(h.ID)))))
				out = append(out, "  "+s.Subtle.Render("│")+" "+s.Text.Render(common.Truncate(oneLine(h.Content), max(0, w-4))))
				if i < len(d.history)-1 {
					out = append(out, "  "+s.Subtle.Render("│"))
				}
			}
			out = append(out, s.Subtle.Render(common.Truncate("enter follows the chain", w)))
		} else if f.Supersedes != "" || f.SupersededBy != "" {
			out = append(out, s.Subtle.Render(common.Truncate("enter follows the chain", w)))
		}
		out = append(out, "")
	case it.Docs != nil:
		e := it.Docs
		v := ""
		if e.Version != "" {
			v = " " + e.Version
		}
		meta(fmt.Sprintf("%s · %s%s · %s · %d tokens", e.Source, e.Library, v, sizeText(e.Bytes), e.Tokens))
		stale := ""
		if e.Stale {
			stale = " · stale"
		}
		meta(fmt.Sprintf("fetched %s (%s) · expires %s%s", day(e.FetchedAt), ago(m.now(), e.FetchedAt), day(e.ExpiresAt), stale))
		out = append(out, s.Subtle.Render(common.Truncate(d.ref, w)), "")
	case it.Node != nil:
		n := it.Node
		meta(fmt.Sprintf("vault #%d · %s · confidence %.2f · helped %d×", n.ID, n.Type, n.Confidence, n.HelpfulCount))
		if len(n.Tags) > 0 {
			meta("tags " + strings.Join(n.Tags, ", "))
		}
		out = append(out, "")
	}
	return out
}

func sourceText(src facts.Source) string {
	s := string(src.Type)
	switch {
	case src.BuildID != "" && src.TaskID != "":
		s += " (build " + src.BuildID + ", " + src.TaskID + ")"
	case src.BuildID != "":
		s += " (build " + src.BuildID + ")"
	case src.Agent != "":
		s += " (" + src.Agent + ")"
	case src.FromFactID != "":
		s += " (from " + src.FromFactID + ")"
	}
	return s
}

// renderBody lays an item's text out at width: Context7 docs are markdown
// (glamour); facts, vault nodes and local docs are wrapped as they are
// (local Go docs keep their indentation).
func renderBody(it knowledge.Item, width int, dark bool) []string {
	text := strings.TrimRight(it.Text, "\n")
	if it.Fact != nil {
		if oneLine(text) == oneLine(it.Title) {
			return nil // the title says it all
		}
		return wrapLines(text, width)
	}
	if it.Docs != nil && it.Docs.Source == docs.SourceContext7 {
		if out, err := markdown.Render(text, width, dark); err == nil {
			return strings.Split(out, "\n")
		}
	}
	if it.Docs != nil {
		return reflowDoc(text, width)
	}
	var out []string
	for _, l := range strings.Split(text, "\n") {
		l = strings.ReplaceAll(l, "\t", "    ")
		if ansi.StringWidth(l) <= width {
			out = append(out, l)
			continue
		}
		out = append(out, wrapLines(l, width)...)
	}
	return out
}

// reflowDoc lays out local docs (go doc's text: prose already broken at
// about 80 columns, declarations, indented examples) at width: the lines of
// a prose paragraph are joined and wrapped again at width, so a narrower
// panel shows even lines rather than each line wrapped on its own (a long
// piece and a stub, over and over); declarations, headings, list items and
// deeper-indented examples stay as they are.
func reflowDoc(text string, width int) []string {
	var out []string
	var para strings.Builder
	paraIndent := ""
	flush := func() {
		if para.Len() == 0 {
			return
		}
		for _, l := range common.WrapWords(para.String(), max(1, width-len(paraIndent))) {
			out = append(out, paraIndent+l)
		}
		para.Reset()
	}
	verbatim := func(l string) {
		flush()
		if ansi.StringWidth(l) <= width {
			out = append(out, l)
			return
		}
		out = append(out, wrapLines(l, width)...)
	}
	for _, raw := range strings.Split(text, "\n") {
		l := strings.ReplaceAll(raw, "\t", "    ")
		content := strings.TrimLeft(l, " ")
		indent := l[:len(l)-len(content)]
		switch {
		case content == "" || len(indent) > 4 || isDocCode(content):
			verbatim(l)
			continue
		case para.Len() > 0 && indent != paraIndent:
			flush()
		}
		if strings.HasPrefix(content, "- ") || strings.HasPrefix(content, "* ") {
			flush() // a list item starts its own paragraph
		}
		if para.Len() > 0 {
			para.WriteByte(' ')
		}
		paraIndent = indent
		para.WriteString(strings.TrimRight(content, " "))
	}
	flush()
	return out
}

// isDocCode reports a go doc line that is not prose: a declaration, a
// closing brace, a heading in capitals (FUNCTIONS, TYPES).
func isDocCode(l string) bool {
	for _, p := range []string{"func ", "type ", "var ", "const ", "package ", "}", ")", "//"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	if strings.HasSuffix(l, "{") || strings.HasSuffix(l, "(") {
		return true
	}
	return l == strings.ToUpper(l) && strings.ToLower(l) != l // a heading
}

func wrapLines(s string, width int) []string {
	return strings.Split(lipgloss.Wrap(ansi.Strip(s), width, " "), "\n")
}

// ---- forms ----

func (m *Model) formView() string {
	s := m.c.Styles
	f := m.form
	w := m.formWidth()
	inner := w - 6
	var b strings.Builder
	b.WriteString(s.DialogTitle.Render(f.title) + "\n")
	if f.fact.ID != "" {
		b.WriteString(s.Muted.Render(common.Truncate("“"+oneLine(f.fact.Content)+"” ("+f.fact.Scope.String()+")", inner)) + "\n")
	}
	b.WriteString("\n")
	if f.kind == formPromote {
		var opts []string
		for i, sc := range f.scopes {
			if i == f.scopeSel {
				opts = append(opts, s.ButtonActive.Render(sc.String()))
			} else {
				opts = append(opts, s.Button.Render(sc.String()))
			}
		}
		b.WriteString(s.Text.Render("to ") + strings.Join(opts, " ") + "\n")
	}
	for i, in := range f.inputs {
		label := fmt.Sprintf("%-12s", f.labels[i])
		if i == f.field {
			label = s.Key.Render(label)
		} else {
			label = s.Muted.Render(label)
		}
		b.WriteString(label + in.View() + "\n")
	}
	if f.err != "" {
		b.WriteString("\n" + s.Error.Render(common.Truncate(f.err, inner)) + "\n")
	}
	hint := "enter continue · tab next field · esc cancel"
	switch f.kind {
	case formPromote:
		hint = "←/→ choose · enter continue · esc cancel"
	case formAdd, formFetch:
		hint = "enter save · tab next field · esc cancel"
	}
	b.WriteString("\n" + s.Subtle.Render(common.Truncate(hint, inner)))
	return s.Dialog.Width(w).Render(b.String())
}

// ---- formatting ----

func day(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02")
}

// age says how long ago t was, briefly.
func age(now, t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "now"
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// ago is age as a phrase: "just now", "5h ago".
func ago(now, t time.Time) string {
	if a := age(now, t); a != "now" && a != "—" {
		return a + " ago"
	}
	return "just now"
}

func sizeText(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%dB", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1fK", float64(n)/1024)
	}
	return fmt.Sprintf("%.1fM", float64(n)/(1024*1024))
}

func quote(s string) string { return "“" + s + "”" }
