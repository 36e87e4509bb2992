package vault

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	engvault "github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/engine/vault/vaulttest"
	"github.com/nova-dev/nova/storage"
	"github.com/nova-dev/nova/themes"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/keymap"
)

// settle runs cmd and what it leads to synchronously, skipping timers
// (debounces) and feeding every message back into m.
func settle(m *Model, cmd tea.Cmd) {
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		done := make(chan tea.Msg, 1)
		go func() { done <- c() }()
		var msg tea.Msg
		select {
		case msg = <-done:
		case <-time.After(100 * time.Millisecond): // a tick
			continue
		}
		switch msg := msg.(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		default:
			_, next := m.Update(msg)
			queue = append(queue, next)
		}
	}
}

func bigVault(b *testing.B, n int) (*common.Common, Source) {
	b.Helper()
	db, err := storage.Open(filepath.Join(b.TempDir(), "nova.db"), storage.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = db.Close() })
	v := engvault.New(db, engvault.Options{Tier: engvault.TierPremium}) // 100k nodes: more than the free tier keeps
	b.Cleanup(func() { _ = v.Close() })
	ctx := context.Background()
	if err := vaulttest.Fill(ctx, v, n, 1, vaulttest.Options{}); err != nil {
		b.Fatal(err)
	}
	// Build the search index now, so it does not run in the background
	// of the measurements.
	if err := v.WaitIndex(ctx); err != nil {
		b.Fatal(err)
	}
	return &common.Common{Ctx: ctx, Styles: themes.Build(themes.NovaDark), KeyMap: keymap.DefaultKeyMap()}, vaultSource{v: v}
}

// BenchmarkView100k measures the vault browser over 100k nodes at 160×45:
//   - first_frame: build the page, load the counts and the first page, the
//     detail of the first node and its markdown, and render;
//   - view: one View of a settled page (what every frame costs);
//   - scroll_step: ↓ with the commands it starts (the next node's detail
//     and markdown, a page fetch when the window nears the cache's edge)
//     and the View;
//   - scroll_page: the same with page down.
func BenchmarkView100k(b *testing.B) {
	c, src := bigVault(b, 100_000)
	b.Run("first_frame", func(b *testing.B) {
		for b.Loop() {
			m := New(c, src)
			m.SetSize(160, 45)
			settle(m, m.Init())
			settle(m, m.browse.reconcile(true))
			if m.View() == "" {
				b.Fatal("empty frame")
			}
		}
	})
	m := New(c, src)
	m.SetSize(160, 45)
	settle(m, m.Init())
	settle(m, m.browse.list.browse.SetCursor(50_000))
	settle(m, m.browse.reconcile(true))
	b.Run("view", func(b *testing.B) {
		for b.Loop() {
			_ = m.View()
		}
	})
	for _, step := range []struct {
		name string
		key  tea.KeyPressMsg
	}{{"scroll_step", tea.KeyPressMsg{Code: tea.KeyDown}}, {"scroll_page", tea.KeyPressMsg{Code: tea.KeyPgDown}}} {
		b.Run(step.name, func(b *testing.B) {
			settle(m, m.browse.list.browse.SetCursor(0))
			for b.Loop() {
				if m.browse.list.browse.Cursor() >= m.browse.list.browse.Len()-100 {
					settle(m, m.browse.list.browse.SetCursor(0))
				}
				_, cmd := m.Update(step.key)
				settle(m, cmd)
				_ = m.View()
			}
			b.ReportMetric(float64(m.browse.list.browse.CachedPages()), "pages-cached")
		})
	}
}
