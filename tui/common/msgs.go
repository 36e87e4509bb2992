package common

import (
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

// Toast returns a command that shows text in the status bar.
func Toast(text string) tea.Cmd {
	return func() tea.Msg { return ToastMsg{Text: text} }
}

// Failure returns a command that reports err.
func Failure(err error) tea.Cmd {
	return func() tea.Msg { return ErrMsg{Err: err} }
}

// FetchSummary loads counts off the UI goroutine.
func (c *Common) FetchSummary() tea.Cmd {
	ws, ctx := c.WS, c.Ctx
	return func() tea.Msg {
		s, err := ws.Summary(ctx)
		return SummaryMsg{Summary: s, Err: err}
	}
}

// FetchOllama probes Ollama off the UI goroutine.
func (c *Common) FetchOllama() tea.Cmd {
	ws, ctx := c.WS, c.Ctx
	return func() tea.Msg { return OllamaMsg{Status: ws.Ollama(ctx)} }
}

// Debounce delivers msg after d; receivers drop it if a newer one was sent.
func Debounce(d time.Duration, msg tea.Msg) tea.Cmd {
	return tea.Tick(d, func(time.Time) tea.Msg { return msg })
}
