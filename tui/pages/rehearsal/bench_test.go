package rehearsal

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	rh "github.com/nova-dev/nova/engine/rehearsal"
	"github.com/nova-dev/nova/themes"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/keymap"
	"github.com/nova-dev/nova/tui/tuitest"
)

// bigSession is three branches each rewriting a 1,000-line Go file.
func bigSession() rh.Session {
	var orig strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&orig, "func f%d(x int) int { return x + %d }\n", i, i)
	}
	ss := rh.Session{ID: 1, TaskID: "T1", TaskTitle: "big", AgentName: "MARS", Status: rh.StatusPending, Rounds: []rh.Round{{N: 1}}}
	for bi, a := range rh.Approaches() {
		prop := strings.ReplaceAll(orig.String(), fmt.Sprintf("+ %d", bi), fmt.Sprintf("* %d", bi+7))
		b := rh.Branch{ID: "r1-" + string(a), Approach: a, Files: []rh.File{{Path: "big.go", OriginalContent: orig.String(), ProposedContent: prop}}}
		ss.Branches = append(ss.Branches, b)
		ss.Results = append(ss.Results, rh.Result{BranchID: b.ID, Score: 0.7, Band: rh.BandMedium})
	}
	return ss
}

// BenchmarkReviewFrame renders the review of three 1,000-line diffs side
// by side at 180×50, scrolling one line per frame (synchronised), so each
// frame renders newly visible rows. Target: < 50 ms per frame.
func BenchmarkReviewFrame(b *testing.B) {
	c := &common.Common{Ctx: context.Background(), Width: 180, Height: 53,
		Styles: themes.Build(themes.NovaDark), KeyMap: keymap.DefaultKeyMap()}
	m := New(c, tuitest.Workspace(b, time.Now()))
	m.SetSize(180, 50)
	cmd := m.show(bigSession())
	drain(m, cmd)
	m.sync = true
	down := tea.KeyPressMsg{Code: tea.KeyDown}
	b.ResetTimer()
	for b.Loop() {
		if m.dvs[0].Offset() >= m.dvs[0].MaxOffset() {
			for _, dv := range m.dvs {
				dv.SetOffset(0)
			}
		}
		m.Update(down)
		_ = m.View()
	}
}

// drain runs the highlighting commands so frames are fully highlighted.
func drain(m *Model, cmd tea.Cmd) {
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case nil:
		default:
			_, next := m.Update(msg)
			queue = append(queue, next)
		}
	}
}
