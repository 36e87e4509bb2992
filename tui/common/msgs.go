package common

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/nova-dev/nova/engine"
)

// EventMsg carries one engine event into Update.
type EventMsg struct{ Event engine.Event }

// NavigateMsg asks the router to show a page by id, with an optional
// argument (e.g. a node id to open).
type NavigateMsg struct {
	Page string
	Arg  any
}

// Arguments of NavigateMsg that pages understand besides their own ids:
// ArgNew opens the page's "new" dialog (a new build, a new agent run);
// ArgPending opens the first item waiting for the user.
const (
	ArgNew     = "new"
	ArgPending = "pending"
)

// KnowledgeRefs is a NavigateMsg argument for the Knowledge screen: the
// knowledge injected into a prompt (provenance), listed under Title, the
// first one opened. A single ref ("fact:f3") is passed as a string.
type KnowledgeRefs struct {
	Title string
	Refs  []string
}

// SetThemeMsg asks the root to switch (and persist) the theme.
type SetThemeMsg struct{ Name string }

// ToastMsg shows a short message in the status bar.
type ToastMsg struct {
	Text  string
	Error bool
}

// ErrMsg reports a failed command; the status bar shows it.
type ErrMsg struct{ Err error }

// OllamaMsg carries a fresh Ollama probe.
type OllamaMsg struct{ Status engine.OllamaStatus }

// SummaryMsg carries fresh workspace counts.
type SummaryMsg struct {
	Summary engine.Summary
	Err     error
}

// IsCursorBlink reports a text input's cursor blink message: it changes
// nothing but the cursor of a focused input.
func IsCursorBlink(msg tea.Msg) bool {
	switch msg.(type) {
	case nil, string, EventMsg, ToastMsg, ErrMsg, NavigateMsg:
		return false
	}
	return strings.HasPrefix(fmt.Sprintf("%T", msg), "cursor.")
}

// ChangesNothing reports a message no model acts on: a nil message, or the
// cancellation of a text input's cursor blink (each key typed cancels the
// pending blink; that message would otherwise cost a redraw per key).
func ChangesNothing(msg tea.Msg) bool {
	if msg == nil {
		return true
	}
	switch msg.(type) {
	case string, EventMsg, ToastMsg, ErrMsg, NavigateMsg, tea.KeyPressMsg, tea.WindowSizeMsg:
		return false
	}
	return fmt.Sprintf("%T", msg) == "cursor.blinkCanceled"
}

// WaitEvent returns a command that waits for the next engine event. The
// receiver re-arms it after each EventMsg.
func WaitEvent(ch <-chan engine.Event) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		ev, ok := <-ch
		if !ok {
			return nil
		}
		return EventMsg{Event: ev}
	}
}

// Await returns a command that blocks in wait until something happens
// elsewhere (an event stream ending, a reconnection) and returns its
// message. Like WaitEvent it may never return; test drivers do not wait
// for it.
func Await(wait func() tea.Msg) tea.Cmd {
	return func() tea.Msg { return wait() }
}

// Toast returns a command that shows text in the status bar.
func Toast(text string) tea.Cmd {
	return func() tea.Msg { return ToastMsg{Text: text} }
}

// Failure returns a command that reports err.
func Failure(err error) tea.Cmd {
	return func() tea.Msg { return ErrMsg{Err: err} }
}

// SummarySource is the part of engine.Workspace FetchSummary needs.
type SummarySource interface {
	Summary(ctx context.Context) (engine.Summary, error)
}

// OllamaSource is the part of engine.Workspace FetchOllama needs.
type OllamaSource interface {
	Ollama(ctx context.Context) (engine.OllamaStatus, error)
}

// FetchSummary loads counts off the UI goroutine.
func (c *Common) FetchSummary(src SummarySource) tea.Cmd {
	ctx := c.Ctx
	return func() tea.Msg {
		s, err := src.Summary(ctx)
		return SummaryMsg{Summary: s, Err: err}
	}
}

// FetchOllama probes Ollama off the UI goroutine. A failed probe is a
// status (not reachable, with the error), like an unreachable server.
func (c *Common) FetchOllama(src OllamaSource) tea.Cmd {
	ctx := c.Ctx
	return func() tea.Msg {
		st, err := src.Ollama(ctx)
		if err != nil && st.Error == "" {
			st.Error = err.Error()
		}
		return OllamaMsg{Status: st}
	}
}

// Debounce delivers msg after d; receivers drop it if a newer one was sent.
// (Not tea.Tick: tests wait for debounces, not for every timer.)
func Debounce(d time.Duration, msg tea.Msg) tea.Cmd {
	return func() tea.Msg {
		t := time.NewTimer(d)
		defer t.Stop()
		<-t.C
		return msg
	}
}

// Debouncer waits for a pause in a burst of keystrokes with one timer for
// the whole burst: Debounce would start a timer per key, and each of those
// ticks is a message that costs a redraw. Trigger after every key; when the
// tick comes back, pass it to Fire, which reports whether the pause has
// come (else it re-arms for the rest of the delay).
type Debouncer struct {
	due   time.Time
	armed bool
	gen   int
}

// DebounceMsg is the Debouncer's tick; Key says whose it is, Gen which
// burst.
type DebounceMsg struct {
	Key string
	Gen int
}

// Trigger notes a keystroke at now and returns the tick to start, if none
// is running.
func (d *Debouncer) Trigger(key string, delay time.Duration, now time.Time) tea.Cmd {
	d.due = now.Add(delay)
	if d.armed {
		return nil
	}
	d.armed = true
	d.gen++
	return Debounce(delay, DebounceMsg{Key: key, Gen: d.gen})
}

// Armed reports a tick on its way; Tick is the message it will deliver.
func (d *Debouncer) Armed() bool { return d.armed }

// Tick is the message of the running timer (tests).
func (d *Debouncer) Tick(key string) DebounceMsg { return DebounceMsg{Key: key, Gen: d.gen} }

// Stop forgets the burst (a stale tick then reports not ready).
func (d *Debouncer) Stop() { d.armed = false; d.gen++ }

// Fire handles a tick of this debouncer at now: ready is true once the
// keys paused for the delay; otherwise cmd waits for the rest of it.
func (d *Debouncer) Fire(msg DebounceMsg, now time.Time) (ready bool, cmd tea.Cmd) {
	if !d.armed || msg.Gen != d.gen {
		return false, nil
	}
	if rest := d.due.Sub(now); rest > 0 {
		return false, Debounce(rest, msg)
	}
	d.armed = false
	return true, nil
}

// HelpMsg asks the root to show the active screen's help (a screen whose
// input line owns the keyboard sends it for `?` on an empty line).
type HelpMsg struct{}
