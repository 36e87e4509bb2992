package common

import (
	"context"
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
func Debounce(d time.Duration, msg tea.Msg) tea.Cmd {
	return tea.Tick(d, func(time.Time) tea.Msg { return msg })
}
