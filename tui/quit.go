package tui

import (
	"fmt"
	"strings"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/tui/components/confirm"
)

// quitQuestion is the quit dialog for work that a quit would interrupt
// (w) and the other nova processes working through this one (clients).
// owner: this process owns the workspace; canHand: it can hand the
// workspace over to a headless owner, which resumes w (DESIGN, "Many
// windows"). ok is false when there is nothing to ask.
func quitQuestion(w engine.RunningWork, owner, canHand bool, clients []int) (confirm.Options, bool) {
	if w.Count() == 0 && (!canHand || len(clients) == 0) {
		return confirm.Options{}, false
	}
	opts := confirm.Options{ID: quitDialogID, Danger: true, Payload: w}
	t := describeWork(w)
	const again = "\n\nctrl+c again quits at once."
	interrupt := func(where string) string {
		return t.what + where + ". Quitting interrupts " + t.it + ": running tasks stop, done work is kept, and " +
			t.resume + t.screen + " continues " + t.it + " later." + again
	}
	switch {
	case !owner:
		opts.Title = t.title
		opts.Body = interrupt(", started in this window (in the nova that owns the workspace)")
		opts.Yes, opts.No = "Quit and interrupt", "Stay"
	case canHand:
		others := ""
		switch n := len(clients); {
		case n == 1:
			others = fmt.Sprintf("Another nova (%s) works through this one.", pidList(clients))
		case n > 1:
			others = fmt.Sprintf("%d other nova processes (%s) work through this one.", n, pidList(clients))
		}
		if t.what != "" {
			opts.Title = t.title
			opts.Body = strings.TrimSpace(t.what+" in this nova. "+others) + "\n\nHand over: a headless nova (`nova serve`) takes the workspace, " +
				t.goesOn + " there" + t.restart + " and every window keeps working. Stop: running tasks stop, done work is kept, " +
				"and " + t.resume + " continues " + t.it + " later." + again
			opts.Yes = "Stop and quit"
		} else {
			opts.Title = "Quit while other windows use this nova?"
			opts.Body = others + "\n\nHand over: a headless nova (`nova serve`) keeps serving them. " +
				"Quit: the next nova command (or one of those windows) takes the workspace over by itself." + again
			opts.Yes = "Quit"
		}
		opts.Alt, opts.AltKey, opts.No = "Hand over", "h", "Stay"
	default:
		opts.Title = t.title
		opts.Body = interrupt(" in this nova")
		opts.Yes, opts.No = "Quit and interrupt", "Stay"
	}
	return opts, true
}

// workText is the quit dialog's words for the work it would interrupt.
type workText struct {
	title  string // "Quit while a build runs?"
	what   string // "Build 3 is running", "Goal run 2 and build 3 are running"
	it     string // "it", "them"
	goesOn string // "the build goes on", "they go on"
	resume string // "`nova build resume 3`"
	screen string // " (or p on the Build screen)", "" for several kinds
	// restart says what starts again rather than going on where it
	// stopped: a workflow's skill step (its tools run again).
	restart string
}

func describeWork(w engine.RunningWork) workText {
	n := w.Count()
	if n == 0 {
		return workText{}
	}
	var t workText
	list := w.String()
	t.what = strings.ToUpper(list[:1]) + list[1:] + " is running"
	t.it = "it"
	if n > 1 {
		t.what, t.it = strings.TrimSuffix(t.what, " is running")+" are running", "them"
	}
	type kind struct {
		ids                   []uint64
		noun, title, cmd, arg string
		screen                string
	}
	var present []kind
	for _, k := range []kind{
		{w.Builds, "build", "Quit while a build runs?", "nova build resume", "ID", " (or p on the Build screen)"},
		{w.GoalRuns, "goal run", "Quit while a goal run goes on?", "nova run resume", "ID", " (or p on the Run screen)"},
		{w.WorkflowRuns, "workflow run", "Quit while a workflow runs?", "nova workflow resume", "RUN", " (or R on the Library screen)"},
		{w.ChatSessions, "chat session", "Quit while a chat turn runs?", "nova chat resume", "ID", ""},
	} {
		if len(k.ids) > 0 {
			present = append(present, k)
		}
	}
	cmds := make([]string, len(present))
	for i, k := range present {
		arg := k.arg
		if len(k.ids) == 1 {
			arg = idList(k.ids)
		}
		cmds[i] = "`" + k.cmd + " " + arg + "`"
	}
	t.resume = strings.Join(cmds, " or ")
	t.title, t.goesOn = "Quit while work goes on?", "they go on"
	if len(present) == 1 {
		t.title, t.screen = present[0].title, present[0].screen
	}
	if n == 1 {
		t.goesOn = "the " + present[0].noun + " goes on"
	}
	if len(w.WorkflowRuns) > 0 {
		t.restart = " (a workflow's skill step starts over)"
	}
	return t
}
