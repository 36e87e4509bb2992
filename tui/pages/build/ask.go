package build

import (
	"errors"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/nova-dev/nova/tui/common"
)

// askDialog is the ask_user dialog: a build task asks the user a question
// (its agent asked for help); the answer goes into the task's next attempt
// through AnswerTask. esc closes it and leaves the task waiting (a reopens
// it on the task).
type askDialog struct {
	c        *common.Common
	open     bool
	build    string
	task     string
	question string
	input    textinput.Model
	sending  bool
	err      error
	// next holds a question that came while an answer was being sent; it
	// opens once that answer is in.
	next []askReq
}

type askReq struct{ build, task, question string }

// queue keeps a question for after the answer being sent.
func (a *askDialog) queue(build, task, question string) {
	for _, r := range a.next {
		if r.build == build && r.task == task {
			return
		}
	}
	a.next = append(a.next, askReq{build, task, question})
}

// askedMsg: AnswerTask returned.
type askedMsg struct {
	build, task string
	resumed     bool
	err         error
}

func newAskDialog(c *common.Common) *askDialog {
	in := textinput.New()
	in.Placeholder = "your answer, e.g. do not delete anything; use the Makefile target"
	in.Prompt = "› "
	in.CharLimit = 2000
	in.SetStyles(c.Styles.TextInput)
	return &askDialog{c: c, input: in}
}

// Open shows the question of a task and focuses the answer field.
func (a *askDialog) Open(build, task, question string) tea.Cmd {
	a.open, a.build, a.task, a.question = true, build, task, question
	a.sending, a.err = false, nil
	a.input.SetValue("")
	a.input.SetStyles(a.c.Styles.TextInput)
	return a.input.Focus()
}

// Close hides the dialog; the task keeps waiting.
func (a *askDialog) Close() {
	a.open = false
	a.input.Blur()
}

// SetWidth sizes the answer field to the dialog.
func (a *askDialog) SetWidth(w int) { a.input.SetWidth(max(10, w-10)) }

// answer sends the typed answer through the page's Source.
func (m *Model) answerTask() tea.Cmd {
	a := m.ask
	text := strings.TrimSpace(a.input.Value())
	if text == "" {
		a.err = errors.New("write an answer first (esc keeps the task waiting)")
		return nil
	}
	n, err := parseID(a.build)
	if err != nil {
		a.err = err
		return nil
	}
	a.sending, a.err = true, nil
	src, ctx, build, task := m.src, m.c.Ctx, a.build, a.task
	return func() tea.Msg {
		resumed, err := src.AnswerTask(ctx, n, task, text)
		return askedMsg{build: build, task: task, resumed: resumed, err: err}
	}
}

// askKey handles a key while the dialog is open.
func (m *Model) askKey(msg tea.KeyPressMsg) tea.Cmd {
	a := m.ask
	switch {
	case key.Matches(msg, m.keys.KeepWaiting):
		if a.sending {
			return nil
		}
		a.Close()
		return common.Toast(fmt.Sprintf("%s keeps waiting for your answer — a answers it", a.task))
	case key.Matches(msg, m.keys.SendAnswer):
		if a.sending {
			return nil
		}
		return m.answerTask()
	}
	var cmd tea.Cmd
	a.input, cmd = a.input.Update(msg)
	a.err = nil
	return cmd
}

// asked handles AnswerTask's result.
func (m *Model) asked(msg askedMsg) tea.Cmd {
	a := m.ask
	a.sending = false
	if msg.err != nil {
		a.err = msg.err
		return nil
	}
	a.Close()
	text := fmt.Sprintf("answered %s; build %s continues", msg.task, msg.build)
	if !msg.resumed {
		text = fmt.Sprintf("answered %s; p resumes build %s", msg.task, msg.build)
	}
	cmds := []tea.Cmd{m.refresh(), common.Toast(text)}
	if len(a.next) > 0 { // a question that came meanwhile
		r := a.next[0]
		a.next = a.next[1:]
		cmds = append(cmds, a.Open(r.build, r.task, r.question))
	}
	return tea.Batch(cmds...)
}

// askView is the dialog, drawn over the page.
func (m *Model) askView() string {
	s, a := m.c.Styles, m.ask
	w := m.dialogWidth()
	inner := w - 6
	b := []string{s.DialogTitle.Render(common.Truncate(fmt.Sprintf("%s asks you (build %s)", a.task, a.build), inner)), ""}
	q := strings.TrimSpace(a.question)
	if q == "" {
		q = "The agent asked for help without a question; say how the task should go on."
	}
	lines := strings.Split(s.Text.Width(inner).Render(q), "\n")
	if room := max(2, m.height-12); len(lines) > room {
		lines = append(lines[:room-1], s.Subtle.Render("…"))
	}
	b = append(b, lines...)
	b = append(b, "", a.input.View())
	switch {
	case a.sending:
		b = append(b, s.Warning.Render("Sending…"))
	case a.err != nil:
		b = append(b, strings.Split(s.Error.Width(inner).Render(a.err.Error()), "\n")...)
	default:
		b = append(b, s.Subtle.Render(common.Truncate("The answer goes into the task's next attempt.", inner)))
	}
	b = append(b, "", helpLine(s, m.keys.SendAnswer, m.keys.KeepWaiting))
	return s.Dialog.Width(w).Render(strings.Join(b, "\n"))
}
