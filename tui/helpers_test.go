package tui_test

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/tui/common"
)

func commonEvent(ev engine.Event) tea.Msg { return common.EventMsg{Event: ev} }
func commonErr(err error) tea.Msg         { return common.ErrMsg{Err: err} }

// driveSlow runs cmd allowing timers up to 500ms (for debounces).
func driveSlow(m tea.Model, cmd tea.Cmd) tea.Model {
	queue := []tea.Cmd{cmd}
	for steps := 0; len(queue) > 0 && steps < 50; steps++ {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		ch := make(chan tea.Msg, 1)
		go func() { ch <- c() }()
		var msg tea.Msg
		select {
		case msg = <-ch:
		case <-time.After(500 * time.Millisecond):
		}
		switch msg := msg.(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		default:
			var next tea.Cmd
			m, next = m.Update(msg)
			queue = append(queue, next)
		}
	}
	return m
}
