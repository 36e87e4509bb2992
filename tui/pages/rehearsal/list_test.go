package rehearsal

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/knowledge"
	rh "github.com/nova-dev/nova/engine/rehearsal"
	engvault "github.com/nova-dev/nova/engine/vault"
)

// manySessions is a Source listing n sessions, newest (highest id) first,
// as the engine does; every third one is decided.
type manySessions struct{ n int }

func (s manySessions) ListRehearsals(context.Context, rh.Filter) ([]rh.Session, error) {
	var out []rh.Session
	for id := s.n; id >= 1; id-- {
		st := rh.StatusPending
		if id%3 == 0 {
			st = rh.StatusApproved
		}
		out = append(out, rh.Session{ID: uint64(id), Status: st, TaskID: "T1", AgentName: "MARS",
			CreatedAt: epoch.Add(time.Duration(id) * time.Minute)})
	}
	return out, nil
}
func (s manySessions) GetRehearsal(_ context.Context, id uint64) (rh.Session, error) {
	return rh.Session{ID: id, Status: rh.StatusPending, TaskID: "T1"}, nil
}
func (manySessions) ApproveRehearsal(context.Context, uint64, string, rh.ApproveOptions) (rh.Session, error) {
	return rh.Session{}, nil
}
func (manySessions) RejectRehearsal(context.Context, uint64, string) (rh.Session, error) {
	return rh.Session{}, nil
}
func (manySessions) RegenerateRehearsal(context.Context, uint64) (rh.Session, error) {
	return rh.Session{}, nil
}
func (manySessions) GetNodes(context.Context, []uint64, bool) ([]engvault.Node, error) {
	return nil, nil
}
func (manySessions) KnowledgeItem(context.Context, string) (knowledge.Item, error) {
	return knowledge.Item{}, nil
}

// Issue 32: the session list is nova's list component: newest first, the ›
// marker, a line counting the hidden sessions at 80x24; pgdn and G move
// through it, enter opens the session under the cursor, and the help is the
// page's own.
func TestSessionListScrolls(t *testing.T) {
	t.Parallel()
	h := newPage(t, manySessions{n: 40}, 80, 24)
	out := h.plain()
	assert.Contains(t, out, "› #40 ", "newest first, under the marker")
	assert.Contains(t, out, "1/40 · ↓")

	h.press("pgdown")
	assert.Greater(t, h.m.list.Cursor(), 1)
	h.press("G")
	assert.Equal(t, 39, h.m.list.Cursor())
	out = h.plain()
	assert.Contains(t, out, "› #1 ")
	assert.Contains(t, out, "40/40 · ↑")

	h.press("tab") // pending only: back to the newest pending session
	assert.Equal(t, 0, h.m.list.Cursor())
	assert.Contains(t, h.plain(), "› #40 ")
	assert.Contains(t, h.plain(), "1/27 · ↓")

	h.press("down", "enter")
	ss, ok := h.m.Session()
	require.True(t, ok)
	assert.Equal(t, uint64(38), ss.ID, "#39 is decided, filtered out")

	descs := func() []string {
		var out []string
		for _, g := range h.m.FullHelp() {
			for _, b := range g {
				out = append(out, b.Help().Desc)
			}
		}
		return out
	}
	assert.Contains(t, descs(), "reject all")
	assert.Contains(t, descs(), "previous branch")
	h.press("esc")
	assert.Contains(t, descs(), "next filter")
	assert.Contains(t, descs(), "page down")
}
