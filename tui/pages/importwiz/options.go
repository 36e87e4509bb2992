package importwiz

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/tui/common"
)

// Fields of the options step, in order.
const (
	fieldSplit = iota
	fieldConfidence
	fieldThreshold
	fieldUser
	fieldDryRun
	fieldCount
)

// optionsForm edits the import's options: two switches and three text fields.
type optionsForm struct {
	c          *common.Common
	focus      int
	split      bool
	dryRun     bool
	confidence textinput.Model
	threshold  textinput.Model
	user       textinput.Model
}

func newOptionsForm(c *common.Common, def engine.ImportOptions) optionsForm {
	in := func(value, placeholder string) textinput.Model {
		t := textinput.New()
		t.Prompt = ""
		t.Placeholder = placeholder
		t.SetValue(value)
		t.SetStyles(c.Styles.TextInput)
		t.CharLimit = 128
		return t
	}
	return optionsForm{
		c:          c,
		confidence: in(fmtFloat(def.BaseConfidence), "0.85"),
		threshold:  in(fmtFloat(def.DedupThreshold), "0.8"),
		user:       in(def.User, "bistrolens-import"),
	}
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// textFocused reports whether a text field has the keyboard.
func (f *optionsForm) textFocused() bool {
	return f.focus == fieldConfidence || f.focus == fieldThreshold || f.focus == fieldUser
}

func (f *optionsForm) input(i int) *textinput.Model {
	switch i {
	case fieldConfidence:
		return &f.confidence
	case fieldThreshold:
		return &f.threshold
	case fieldUser:
		return &f.user
	}
	return nil
}

// setFocus moves the cursor to field i, focusing its text input if it has one.
func (f *optionsForm) setFocus(i int) tea.Cmd {
	f.focus = (i + fieldCount) % fieldCount
	var cmd tea.Cmd
	for j := range fieldCount {
		if in := f.input(j); in != nil {
			if j == f.focus {
				cmd = in.Focus()
			} else {
				in.Blur()
			}
		}
	}
	return cmd
}

func (f *optionsForm) toggle() bool {
	switch f.focus {
	case fieldSplit:
		f.split = !f.split
	case fieldDryRun:
		f.dryRun = !f.dryRun
	default:
		return false
	}
	return true
}

// updateInput forwards a key to the focused text field; changed says whether its value did.
func (f *optionsForm) updateInput(msg tea.Msg) (tea.Cmd, bool) {
	in := f.input(f.focus)
	if in == nil {
		return nil, false
	}
	before := in.Value()
	var cmd tea.Cmd
	*in, cmd = in.Update(msg)
	return cmd, in.Value() != before
}

// options turns the form into importer options, or says what is wrong.
func (f *optionsForm) options() (engine.ImportOptions, error) {
	o := engine.ImportOptions{Split: f.split, DryRun: f.dryRun, User: strings.TrimSpace(f.user.Value())}
	var err error
	if o.BaseConfidence, err = parseUnit(f.confidence.Value(), "base confidence"); err != nil {
		return o, err
	}
	if o.DedupThreshold, err = parseUnit(f.threshold.Value(), "dedup threshold"); err != nil {
		return o, err
	}
	if o.User == "" {
		return o, fmt.Errorf("user / namespace must not be empty")
	}
	return o, nil
}

func parseUnit(s, what string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !(v > 0 && v <= 1) {
		return 0, fmt.Errorf("%s: want a number in (0, 1], like 0.85", what)
	}
	return v, nil
}

func (f *optionsForm) setWidth(w int) {
	for j := range fieldCount {
		if in := f.input(j); in != nil {
			in.SetWidth(max(8, w))
		}
	}
}

// inputWidth is the width of the value column.
const inputWidth = 24

// view draws the form, one field per line, and the focused field's hint under it.
func (f *optionsForm) view(width int) string {
	s := f.c.Styles
	check := func(on bool) string {
		if on {
			return "[x]"
		}
		return "[ ]"
	}
	const labelW = 18
	rows := []struct {
		label, value, hint string
	}{
		{"Split sections", check(f.split), "space: one extra node per \"## Pattern …\" section, linked to its file (refines)"},
		{"Base confidence", f.confidence.View(), "confidence = min(0.99, base + reusability × 0.01); adaptations get 0.95"},
		{"Dedup threshold", f.threshold.View(), "word-shingle similarity at which a new file counts as a near-duplicate"},
		{"User / namespace", f.user.View(), "owner of the nodes; file records (re-import, updates) are kept per user"},
		{"Dry run", check(f.dryRun), "space: report what would happen and write nothing"},
	}
	var b strings.Builder
	for i, r := range rows {
		marker, label := "  ", s.Text.Render(fmt.Sprintf("%-*s", labelW, r.label))
		if i == f.focus {
			marker, label = s.Cursor.Render("› "), s.Bold.Render(fmt.Sprintf("%-*s", labelW, r.label))
		}
		value := r.value
		if i == fieldSplit || i == fieldDryRun {
			value = s.Text.Render(value)
		}
		b.WriteString(common.Truncate(marker+label+" "+value, width) + "\n")
	}
	b.WriteString("\n" + s.Subtle.Render(common.Truncate(rows[f.focus].hint, width)))
	return b.String()
}
