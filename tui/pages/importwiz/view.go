package importwiz

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/table"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/nova-dev/nova/engine/importer"
	"github.com/nova-dev/nova/tui/common"
)

// display shows a path relative to the workspace root when it is inside it.
func (m *Model) display(p string) string {
	root := m.src.Info().Root
	if rel, err := filepath.Rel(root, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		if rel == "." {
			return "./ (workspace)"
		}
		return filepath.ToSlash(rel)
	}
	return p
}

// View implements common.Component.
func (m *Model) View() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	s := m.c.Styles
	head := m.stepBar()
	note := ""
	if m.note != "" {
		st := s.Muted
		if m.noteErr {
			st = s.Error
		}
		note = st.Render(common.Truncate(m.note, m.width))
	}
	var body string
	switch {
	case m.src == nil:
		body = m.c.Empty("Importing is not available in this workspace.", "Open a workspace with `nova --workspace DIR`, or run `nova import DIR` from a shell.")
	case m.step == stepSource:
		body = m.sourceView()
	case m.step == stepScan:
		body = m.progressView("Scanning "+m.display(m.source), m.scanLabel(), "esc cancels the scan; nothing is written before the import step")
	case m.step == stepPreview && m.detail != nil:
		body = m.detailView()
	case m.step == stepPreview:
		body = m.previewView()
	case m.step == stepOptions:
		body = m.optionsView()
	case m.step == stepImport:
		body = m.progressView("Importing "+m.display(m.source), m.importLabel(), "esc cancels; a cancelled import is rolled back, nothing of it stays")
	case m.step == stepSummary:
		body = m.summaryView()
	}
	body = lipgloss.NewStyle().MaxWidth(m.width).Render(common.FitHeight(body, m.bodyHeight()))
	out := head + "\n" + note + "\n" + body
	if m.confirm.Active() {
		out = common.Overlay(common.FitHeight(out, m.height), m.confirm.View(), m.width, m.height)
	}
	return common.FitHeight(out, m.height)
}

func (m *Model) stepBar() string {
	s := m.c.Styles
	names := []string{"Source", "Preview", "Options", "Import", "Summary"}
	cur := map[step]int{stepSource: 0, stepScan: 1, stepPreview: 1, stepOptions: 2, stepImport: 3, stepSummary: 4}[m.step]
	parts := make([]string, 0, len(names))
	for i, n := range names {
		label := fmt.Sprintf("%d %s", i+1, n)
		if i == cur {
			parts = append(parts, s.TabActive.Render(label))
		} else {
			parts = append(parts, s.Tab.Render(label))
		}
	}
	bar := strings.Join(parts, s.TabSep.Render("›"))
	right := ""
	if m.source != "" && m.step != stepSource {
		right = s.Subtle.Render(common.Truncate(m.display(m.source), max(0, m.width-lipgloss.Width(bar)-3)))
	}
	gap := max(1, m.width-lipgloss.Width(bar)-lipgloss.Width(right))
	return common.Truncate(bar+strings.Repeat(" ", gap)+right, m.width)
}

// plural writes "1 file", "2 files".
func plural(n int, one, many string) string { return countNoun(n, one, many) }

// ---- step 1 ----

func (m *Model) sourceView() string {
	s := m.c.Styles
	h := m.bodyHeight()
	if m.sourceWide() {
		lw := m.width * 3 / 5
		rw := m.width - lw - 1
		left := m.pickerPanel(lw, h)
		right := m.recentPanel(rw, h)
		return lipgloss.JoinHorizontal(lipgloss.Top, left, " ", right)
	}
	if len(m.recents) == 0 {
		return m.pickerPanel(m.width, m.pickerPanelHeight()) + "\n" + s.Subtle.Render(common.Truncate("enter scans the highlighted folder · → opens it · ← goes up", m.width))
	}
	left := m.pickerPanel(m.width, m.pickerPanelHeight())
	return lipgloss.JoinVertical(lipgloss.Left, left, m.recentPanel(m.width, m.recentHeight()))
}

func (m *Model) pickerPanel(w, h int) string {
	s := m.c.Styles
	st := s.Panel
	if !m.recentFocus {
		st = s.PanelFocused
	}
	inner := max(1, w-4)
	title := s.PanelTitleActive.Render("Pick a pattern library folder")
	field := s.Subtle.Render(common.Truncate("/ or ~ types a path (tab completes)", inner))
	if m.path.Focused() {
		field = m.path.View(inner)
	}
	field = common.FitHeight(field, m.pathLines())
	content := title + "\n" + field + "\n" + m.picker.view(s, inner, m.pickerHeight(), !m.recentFocus && !m.path.Focused(), m.display)
	return st.Width(w).Height(h).Render(common.FitHeight(content, max(1, h-2)))
}

func (m *Model) recentPanel(w, h int) string {
	s := m.c.Styles
	st := s.Panel
	if m.recentFocus {
		st = s.PanelFocused
	}
	inner := max(1, w-4)
	var b strings.Builder
	b.WriteString(s.PanelTitleActive.Render("Recent sources") + "\n")
	if len(m.recents) == 0 {
		b.WriteString(s.Muted.Render(common.Truncate("None yet.", inner)) + "\n")
		b.WriteString(s.Subtle.Render(lipgloss.Wrap("The folders you import from are listed here. The default is the library shipped with nova, "+m.display(m.defaultSource())+".", inner, " ")) + "\n")
	}
	hint := ""
	if m.sourceWide() {
		hint = "\n" + s.Subtle.Render(lipgloss.Wrap("enter scans the highlighted folder (nothing is written yet) · → opens a folder · ← goes up · tab switches between folders and recent sources", inner, " "))
	}
	if len(m.recents) > 0 {
		rows := max(1, h-2-1-lipgloss.Height(hint))
		if hint == "" {
			rows = max(1, h-2-1)
		}
		m.recentList.SetFocused(m.recentFocus)
		b.WriteString(m.recentList.ViewNoted(inner, min(rows, len(m.recents))) + "\n")
	}
	b.WriteString(hint)
	return st.Width(w).Height(h).Render(common.FitHeight(strings.TrimRight(b.String(), "\n"), max(1, h-2)))
}

// renderRecent draws one recent source folder.
func (m *Model) renderRecent(dir string, _ int, selected, focused bool, w int) string {
	s := m.c.Styles
	label := common.Truncate(m.display(dir), w)
	if selected && focused {
		return s.Selected.Render(label)
	}
	return s.Text.Render(label)
}

// ---- progress (steps 2 and 4) ----

func (m *Model) scanLabel() string {
	switch m.prog.Phase {
	case importer.PhaseDedup:
		return fmt.Sprintf("Fingerprinting files for duplicates… %d/%d", m.prog.Done, m.prog.Total)
	default:
		if m.prog.Total == 0 {
			return "Listing files…"
		}
		return fmt.Sprintf("Reading and parsing files… %d/%d", m.prog.Done, m.prog.Total)
	}
}

func (m *Model) importLabel() string {
	switch m.prog.Phase {
	case importer.PhaseCommit:
		return "Committing the transaction…"
	case importer.PhaseWrite:
		if m.prog.Total > 0 {
			return fmt.Sprintf("Writing nodes and edges… %d/%d files", m.prog.Done, m.prog.Total)
		}
	}
	return "Checking the vault for duplicates…"
}

func (m *Model) progressView(title, label, hint string) string {
	s := m.c.Styles
	frac := 0.0
	if m.prog.Total > 0 {
		frac = float64(m.prog.Done) / float64(m.prog.Total)
	}
	if m.prog.Phase == importer.PhaseCommit {
		frac = 1
	}
	inner := max(10, m.width-4)
	content := s.PanelTitleActive.Render(common.Truncate(title, inner)) + "\n\n" +
		m.bar.ViewAs(frac) + "\n\n" +
		s.Text.Render(common.Truncate(label, inner)) + "\n" +
		s.Subtle.Render(common.Truncate(hint, inner))
	return s.Panel.Width(m.width).Render(content)
}

// ---- step 2: preview ----

func actionMark(r importer.NodeReport) string {
	switch r.Action {
	case importer.ActionNew:
		return "+"
	case importer.ActionUpdated:
		return "~"
	case importer.ActionError:
		return "!"
	case importer.ActionDuplicate:
		return "="
	}
	if r.Reason == "excluded" {
		return "✗"
	}
	return "·"
}

func notes(r importer.NodeReport) string {
	var parts []string
	if r.Reason != "" && r.Action != importer.ActionSkipped || r.Reason != "" && r.Action == importer.ActionSkipped && !strings.HasPrefix(r.Reason, "unchanged") && r.Reason != "excluded" {
		parts = append(parts, r.Reason)
	}
	if r.Sections > 0 {
		parts = append(parts, fmt.Sprintf("%d sections", r.Sections))
	}
	parts = append(parts, r.Warnings...)
	return strings.Join(parts, "; ")
}

// refreshRows rebuilds the table rows: file rows of the preview, filtered and sorted.
func (m *Model) refreshRows() {
	q := strings.ToLower(strings.TrimSpace(m.filter.Value()))
	m.rows = m.rows[:0]
	for _, n := range m.preview.Nodes {
		if n.ParentSource != "" {
			continue
		}
		if q != "" {
			hay := strings.ToLower(strings.Join([]string{n.Title, n.Category, n.Type, string(n.Action), n.SourceFile}, " "))
			if !strings.Contains(hay, q) {
				continue
			}
		}
		m.rows = append(m.rows, n)
	}
	by := sortNames[m.sortBy]
	slices.SortStableFunc(m.rows, func(a, b importer.NodeReport) int {
		switch by {
		case "title":
			return cmp.Compare(strings.ToLower(a.Title), strings.ToLower(b.Title))
		case "category":
			return cmp.Compare(a.Category, b.Category)
		case "type":
			return cmp.Compare(a.Type, b.Type)
		case "priority":
			return cmp.Compare(a.Priority, b.Priority)
		case "reusability":
			return cmp.Compare(b.Reusability, a.Reusability)
		case "action":
			return cmp.Compare(string(a.Action), string(b.Action))
		}
		return cmp.Compare(a.SourceFile, b.SourceFile)
	})
	rows := make([]table.Row, 0, len(m.rows))
	for _, r := range m.rows {
		reuse := ""
		if r.Reusability > 0 {
			reuse = strconv.Itoa(r.Reusability)
		}
		rows = append(rows, table.Row{actionMark(r), r.Title, r.Category, r.Type, r.Priority, reuse, string(r.Action), notes(r)})
	}
	m.tbl.SetRows(rows)
	if m.tbl.Cursor() < 0 && len(rows) > 0 {
		m.tbl.SetCursor(0)
	}
}

func (m *Model) layoutTable() {
	w := max(40, m.width)
	fixed := []int{1, 0, 0, 10, 3, 5, 9, 0} // mark, title, category, type, pri, reuse, action, notes
	avail := w - len(fixed) - 1             // one cell of padding per column
	for _, f := range fixed {
		avail -= f
	}
	title := max(12, avail*45/100)
	category := max(8, min(22, avail*20/100))
	notesW := max(0, avail-title-category)
	cols := []table.Column{
		{Title: " ", Width: fixed[0]}, {Title: "Title", Width: title}, {Title: "Category", Width: category},
		{Title: "Type", Width: fixed[3]}, {Title: "Pri", Width: fixed[4]}, {Title: "Reuse", Width: fixed[5]},
		{Title: "Action", Width: fixed[6]}, {Title: "Notes", Width: notesW},
	}
	m.tbl.SetColumns(cols)
	m.tbl.SetWidth(w)
	m.tbl.SetHeight(max(3, m.bodyHeight()-3))
}

func (m *Model) countsLine(r importer.Result, width int) string {
	s := m.c.Styles
	type kv struct {
		n         int
		one, many string
		always    bool
	}
	items := []kv{
		{r.New, "new", "new", true}, {r.Updated, "updated", "updated", false}, {r.Unchanged, "unchanged", "unchanged", false},
		{r.Duplicates, "duplicate", "duplicates", true}, {r.Meta, "meta", "meta", true}, {r.Excluded, "excluded", "excluded", false},
		{r.Forgotten, "forgotten", "forgotten", false}, {r.Archived, "archived", "archived", false},
		{r.Errors, "error", "errors", true},
	}
	parts := []string{s.Bold.Render(plural(r.Files, "file", "files"))}
	for _, it := range items {
		if it.n == 0 && !it.always {
			continue
		}
		st := s.Text
		if it.many == "errors" && it.n > 0 {
			st = s.Error
		}
		parts = append(parts, st.Render(plural(it.n, it.one, it.many)))
	}
	line := strings.Join(parts, s.Subtle.Render(" · "))
	nodes := s.Muted.Render(fmt.Sprintf("  → nodes +%d ~%d -%d, edges +%d -%d", r.NodesAdded, r.NodesUpdated, r.NodesRemoved, r.EdgesAdded, r.EdgesRemoved))
	if lipgloss.Width(line+nodes) <= width {
		line += nodes
	}
	return common.Truncate(line, width)
}

func (m *Model) previewView() string {
	s := m.c.Styles
	if m.preview.Files == 0 {
		return m.c.Empty("No markdown files in "+m.display(m.source)+".", "esc picks another folder. nova imports *.md files, one pattern per file, in category folders.")
	}
	top := m.countsLine(m.preview, m.width)
	filterLine := s.Subtle.Render(common.Truncate(fmt.Sprintf("sorted by %s (o) · / filter · space include/exclude · enter preview · tab options", sortNames[m.sortBy]), m.width))
	switch {
	case m.filtering || m.filter.Value() != "":
		filterLine = m.filter.View()
	case m.preview.OverCap != nil:
		// Over the tier's cap: say so where the hints were; tab shows the
		// whole message on the options step.
		c := m.preview.OverCap
		filterLine = s.Error.Render(common.Truncate(fmt.Sprintf("⊘ import disabled: the %s tier keeps at most %d nodes; this import would bring the vault to %d (tab: details)",
			c.Tier, c.Cap, c.Would), m.width))
	}
	var tbl string
	if len(m.rows) == 0 {
		tbl = m.c.Empty("No file matches the filter.", "esc clears the filter.")
	} else {
		tbl = m.tbl.View()
	}
	return top + "\n" + filterLine + "\n" + tbl
}

// ---- file preview ----

func (m *Model) detailWidths() (int, int) {
	lw := m.width * 3 / 5
	return lw, m.width - lw - 1
}

// layoutDetail sizes the markdown viewport and asks for a rendering when it has none.
func (m *Model) layoutDetail() tea.Cmd {
	if m.detail == nil || m.plan == nil {
		return nil
	}
	lw, _ := m.detailWidths()
	m.vp.SetWidth(max(10, lw-4))
	m.vp.SetHeight(max(1, m.bodyHeight()-3))
	key := renderKey{source: m.detail.SourceFile, width: max(10, lw-4), dark: m.c.Styles.Dark}
	if out, ok := m.rendered[key]; ok {
		m.vp.SetContent(out)
		return nil
	}
	if m.unparsed[m.detail.SourceFile] {
		m.vp.SetContent(m.c.Styles.Muted.Render("This file was not parsed: " + m.detail.Reason))
		return nil
	}
	m.vp.SetContent(m.c.Styles.Muted.Render("rendering…"))
	return renderCmd(m.ctx(), m.src, m.plan.ID, key)
}

func (m *Model) detailView() string {
	s := m.c.Styles
	d := m.detail
	h := m.bodyHeight()
	lw, rw := m.detailWidths()
	left := s.PanelFocused.Width(lw).Height(h).Render(common.FitHeight(
		s.PanelTitleActive.Render(common.Truncate(d.SourceFile, lw-4))+"\n"+m.vp.View(), h-2))
	inner := max(10, rw-4)
	var b strings.Builder
	b.WriteString(s.PanelTitleActive.Render("Node to be created") + "\n")
	kv := func(k, v string) {
		if v == "" {
			return
		}
		b.WriteString(s.Muted.Render(fmt.Sprintf("%-12s", k)) + s.Text.Render(common.Truncate(v, inner-12)) + "\n")
	}
	kv("action", string(d.Action))
	kv("type", d.Type)
	kv("title", d.Title)
	if d.Confidence > 0 {
		kv("confidence", strconv.FormatFloat(d.Confidence, 'f', -1, 64))
	}
	kv("category", d.Category)
	kv("priority", d.Priority)
	if d.Reusability > 0 {
		kv("reusability", fmt.Sprintf("%d/10", d.Reusability))
	}
	kv("language", d.Language)
	kv("examples", strconv.Itoa(d.CodeExamples))
	if o, err := m.form.options(); err == nil {
		kv("user", o.User)
	}
	kv("source", d.SourceFile)
	if d.ID != 0 {
		kv("node", fmt.Sprintf("#%d", d.ID))
	}
	if len(d.Tags) > 0 {
		b.WriteString(s.Muted.Render("tags") + "\n" + s.Text.Render(lipgloss.Wrap(strings.Join(d.Tags, ", "), inner, " ")) + "\n")
	}
	if d.Summary != "" {
		b.WriteString(s.Muted.Render("summary") + "\n" + s.Text.Render(lipgloss.Wrap(d.Summary, inner, " ")) + "\n")
	}
	if d.Reason != "" {
		b.WriteString(s.Warning.Render(lipgloss.Wrap(d.Reason, inner, " ")) + "\n")
	}
	for _, w := range d.Warnings {
		b.WriteString(s.Warning.Render(lipgloss.Wrap("⚠ "+w, inner, " ")) + "\n")
	}
	if m.renderErr != nil {
		b.WriteString(s.Error.Render(lipgloss.Wrap(m.renderErr.Error(), inner, " ")) + "\n")
	}
	right := s.Panel.Width(rw).Height(h).Render(common.FitHeight(strings.TrimRight(b.String(), "\n"), h-2))
	return lipgloss.JoinHorizontal(lipgloss.Top, left, " ", right)
}

// ---- step 3: options ----

func (m *Model) optionsView() string {
	s := m.c.Styles
	inner := max(10, m.width-4)
	var b strings.Builder
	b.WriteString(s.PanelTitleActive.Render("Options") + "\n\n")
	b.WriteString(m.form.view(inner) + "\n\n")
	if m.formErr != nil {
		b.WriteString(s.Error.Render(common.Truncate(m.formErr.Error(), inner)) + "\n")
	} else {
		verb := "Will import"
		if m.form.dryRun {
			verb = "Dry run would import"
		}
		b.WriteString(s.Text.Render(common.Truncate(fmt.Sprintf("%s %d of %d files from %s", verb, m.preview.Loaded, m.preview.Files, m.display(m.source)), inner)) + "\n")
		b.WriteString(m.countsLine(m.preview, inner) + "\n")
		if c := m.preview.OverCap; c != nil {
			msg := fmt.Sprintf("⊘ Import disabled: it would bring the vault to %d nodes; the %s tier keeps %d. Exclude files (esc), "+
				"forget or undo nodes, or switch with `tier: premium` / NOVA_TIER=premium. A dry run still reports.", c.Would, c.Tier, c.Cap)
			b.WriteString(s.Error.Render(lipgloss.Wrap(msg, inner, " ")) + "\n")
		}
	}
	b.WriteString("\n" + s.Subtle.Render(common.Truncate("enter starts the import · ↑/↓ move · space toggles · esc back to the preview", inner)))
	return s.Panel.Width(m.width).Render(b.String())
}

// ---- step 5: summary ----

func (m *Model) summaryHeader() string {
	s := m.c.Styles
	r := m.result
	if r == nil {
		return ""
	}
	var title string
	switch {
	case m.undone != nil:
		title = fmt.Sprintf("Batch %d undone: %d nodes and %d edges removed, %d nodes restored.", m.undone.Batch, m.undone.NodesRemoved, m.undone.EdgesRemoved, m.undone.NodesRestored)
	case r.DryRun:
		title = fmt.Sprintf("Dry run: %d of %s would be imported. Nothing was written.", r.Loaded, countNoun(r.Files, "file", "files"))
	case r.Batch == 0:
		title = fmt.Sprintf("Nothing to import: the %d files are unchanged, skipped or failed.", r.Files)
	default:
		title = fmt.Sprintf("Imported %d of %s into the vault (batch %d).", r.Loaded, countNoun(r.Files, "file", "files"), r.Batch)
	}
	inner := max(10, m.width-4)
	return s.Title.Render(common.Truncate(title, inner)) + "\n" + m.countsLine(*r, inner)
}

// layoutSummary fills the summary's scrollable list: failed files, duplicates, warnings.
func (m *Model) layoutSummary() {
	m.summary.SetWidth(max(10, m.width-4))
	m.summary.SetHeight(max(1, m.bodyHeight()-7)) // border 2, header 2, blank lines 2, hints 1
	if m.result == nil {
		m.summary.SetContent("")
		return
	}
	s := m.c.Styles
	w := max(10, m.width-4)
	var lines []string
	r := m.result
	if len(r.ErrorDetails) > 0 {
		lines = append(lines, s.Error.Render(plural(len(r.ErrorDetails), "file", "files")+" failed:"))
		for _, e := range r.ErrorDetails {
			lines = append(lines, s.Text.Render(common.Truncate("  "+e.Path+": "+e.Reason, w)))
		}
	}
	var dups []string
	for _, n := range r.Nodes {
		if n.Action == importer.ActionDuplicate {
			dups = append(dups, common.Truncate("  "+n.SourceFile+": "+n.Reason, w))
		}
	}
	if len(dups) > 0 {
		lines = append(lines, s.Warning.Render(plural(len(dups), "near-duplicate", "near-duplicates")+" skipped:"))
		lines = append(lines, dups...)
	}
	for _, wn := range r.Warnings {
		lines = append(lines, s.Warning.Render(common.Truncate("⚠ "+wn, w)))
	}
	if r.Forgotten > 0 {
		lines = append(lines, s.Muted.Render(common.Truncate(plural(r.Forgotten, "file", "files")+" whose node you forgot stay forgotten.", w)))
	}
	if r.Archived > 0 {
		lines = append(lines, s.Muted.Render(common.Truncate(plural(r.Archived, "file", "files")+" whose node is in the archive left out (`nova vault archive list`).", w)))
	}
	if c := r.OverCap; c != nil {
		lines = append(lines, strings.Split(s.Error.Render(lipgloss.Wrap("⊘ The real import would be refused: "+c.Error(), w, " ")), "\n")...)
	}
	if len(lines) == 0 {
		lines = append(lines, s.Success.Render("Every file imported cleanly."))
	}
	m.summary.SetContent(strings.Join(lines, "\n"))
}

func (m *Model) summaryView() string {
	s := m.c.Styles
	inner := max(10, m.width-4)
	var hints []string
	if m.result != nil && !m.result.DryRun {
		hints = append(hints, "v open in the vault browser")
	}
	if m.canUndo() {
		hints = append(hints, "u undo this batch")
	}
	hints = append(hints, "enter new import")
	content := m.summaryHeader() + "\n\n" + m.summary.View() + "\n\n" +
		s.Subtle.Render(common.Truncate(strings.Join(hints, " · "), inner))
	return s.Panel.Width(m.width).Render(content)
}
