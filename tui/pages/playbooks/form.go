package playbooks

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/nova-dev/nova/engine/ace"
	"github.com/nova-dev/nova/tui/common"
)

// ruleForm adds a rule to an agent's playbook or edits one.
type ruleForm struct {
	c       *common.Common
	agent   string
	ruleID  string // "" = add
	content textinput.Model
	tags    textinput.Model
	field   int
	err     string
	width   int
}

// ruleEdit is what the form saves.
type ruleEdit struct {
	agent, ruleID, content string
	tags                   []string
}

func newRuleForm(c *common.Common, agent string, r *ace.Rule, width int) *ruleForm {
	mk := func(prompt, placeholder string, limit int) textinput.Model {
		in := textinput.New()
		in.Prompt = prompt
		in.Placeholder = placeholder
		in.CharLimit = limit
		in.SetStyles(c.Styles.TextInput)
		in.SetWidth(width - 12)
		return in
	}
	f := &ruleForm{c: c, agent: agent, width: width,
		content: mk("rule › ", "e.g. Validate request bodies before touching the database", 2000),
		tags:    mk("tags › ", "comma separated, e.g. api, validation", 300)}
	if r != nil {
		f.ruleID = r.ID
		f.content.SetValue(r.Content)
		f.tags.SetValue(strings.Join(r.Tags, ", "))
	}
	return f
}

func (f *ruleForm) focus() tea.Cmd { return f.content.Focus() }

func (f *ruleForm) setWidth(w int) {
	f.width = w
	f.content.SetWidth(w - 12)
	f.tags.SetWidth(w - 12)
}

// key handles a key; it returns the edit to save on enter (ok), and
// whether the form was cancelled.
func (f *ruleForm) key(k tea.KeyPressMsg) (cmd tea.Cmd, save *ruleEdit, cancel bool) {
	km := f.c.KeyMap
	switch {
	case key.Matches(k, km.Back):
		return nil, nil, true
	case key.Matches(k, km.Tab, km.ShiftTab):
		f.field = 1 - f.field
		if f.field == 0 {
			f.tags.Blur()
			return f.content.Focus(), nil, false
		}
		f.content.Blur()
		return f.tags.Focus(), nil, false
	case k.String() == "enter":
		content := strings.TrimSpace(f.content.Value())
		if content == "" {
			f.err = "A rule needs some text."
			return nil, nil, false
		}
		var tags []string
		for _, t := range strings.Split(f.tags.Value(), ",") {
			if t = strings.TrimSpace(t); t != "" {
				tags = append(tags, t)
			}
		}
		if f.ruleID != "" && tags == nil {
			tags = []string{} // an emptied tag field clears the tags
		}
		return nil, &ruleEdit{agent: f.agent, ruleID: f.ruleID, content: content, tags: tags}, false
	}
	f.err = ""
	if f.field == 0 {
		f.content, cmd = f.content.Update(k)
	} else {
		f.tags, cmd = f.tags.Update(k)
	}
	return cmd, nil, false
}

// update passes cursor blinks to the inputs.
func (f *ruleForm) update(msg tea.Msg) tea.Cmd {
	var c1, c2 tea.Cmd
	f.content, c1 = f.content.Update(msg)
	f.tags, c2 = f.tags.Update(msg)
	return tea.Batch(c1, c2)
}

func (f *ruleForm) view() string {
	s := f.c.Styles
	w := f.width
	title := "Add a rule to " + f.agent
	if f.ruleID != "" {
		title = "Edit rule " + f.ruleID + " of " + f.agent
	}
	b := []string{s.DialogTitle.Render(title), "", f.content.View(), f.tags.View(), ""}
	if f.err != "" {
		b = append(b, s.Error.Render(common.Truncate(f.err, w-6)), "")
	}
	b = append(b, s.Subtle.Render(common.Truncate("Manual rules start at confidence 0.80; every change makes a playbook version.", w-6)),
		s.Key.Render("enter")+" "+s.KeyDesc.Render("save")+s.Subtle.Render("  ·  ")+s.Key.Render("tab")+" "+s.KeyDesc.Render("next field")+
			s.Subtle.Render("  ·  ")+s.Key.Render("esc")+" "+s.KeyDesc.Render("cancel"))
	return s.Dialog.Width(w).Render(strings.Join(b, "\n"))
}
