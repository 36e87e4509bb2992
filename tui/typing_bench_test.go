package tui_test

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	nova "github.com/nova-dev/nova"
	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/vault/vaulttest"
	"github.com/nova-dev/nova/engine/workspace"
	"github.com/nova-dev/nova/tui"
	"github.com/nova-dev/nova/tui/tuitest"
)

// big100k is one premium workspace with a 100k-node vault, shared by the
// typing benchmarks (filling it takes a while).
var big100k = sync.OnceValues(func() (*engine.Local, error) {
	root, err := mkTemp()
	if err != nil {
		return nil, err
	}
	if _, err := workspace.Init(root, nova.Defaults); err != nil {
		return nil, err
	}
	env := map[string]string{"NOVA_TIER": "premium"}
	l, err := engine.Open(context.Background(), engine.Options{Root: root, NoSync: true, Defaults: nova.Defaults,
		Getenv: func(k string) string { return env[k] }})
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	if err := vaulttest.Fill(ctx, l.Vault(), 100_000, 1, vaulttest.Options{}); err != nil {
		return nil, err
	}
	return l, l.Vault().WaitIndex(ctx)
})

// BenchmarkTyping180x50 measures what one key press costs in every text
// input of the TUI at 180×50 over a 100k-node vault: the root's Update and
// the View that echoes it (the work on the UI goroutine; what commands the
// key starts run off it). Keys alternate a letter and backspace, so the
// input's content stays the same size. Target: ≤ 16 ms per key.
func BenchmarkTyping180x50(b *testing.B) {
	l, err := big100k()
	if err != nil {
		b.Fatal(err)
	}
	inputs := []struct {
		name string
		open []string // keys that open the input, from Home
	}{
		{"palette", []string{"ctrl+p"}},
		{"agents_new_run", []string{"alt+4", "n"}},
		{"vault_search", []string{"alt+2", "/"}},
		{"vault_link_picker", []string{"alt+2", "L"}},
		{"vault_tags", []string{"alt+2", "t"}},
		{"playbooks_filter", []string{"alt+7", "/"}},
		{"playbooks_rule_form", []string{"alt+7", "n"}},
		{"import_path", []string{"alt+3", "/"}},
		{"build_prd_path", []string{"alt+6", "n", "/"}},
		{"knowledge_search", []string{"alt+9", "/"}},
		{"knowledge_add_fact", []string{"alt+9", "tab", "a"}},
		{"run_new_goal", []string{"alt+0", "n"}},
	}
	for _, in := range inputs {
		b.Run(in.name, func(b *testing.B) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			m := tui.New(ctx, l, tui.Options{})
			d := tuitest.DriveModel(b, m)
			d.Run(m.Init())
			d.Send(tea.WindowSizeMsg{Width: 180, Height: 50})
			d.Press(in.open...)
			d.Settle(200 * time.Millisecond)
			keys := []tea.KeyPressMsg{tuitest.Key("a"), tuitest.Key("backspace")}
			b.ReportAllocs()
			b.ResetTimer()
			i := 0
			for b.Loop() {
				var cmd tea.Cmd
				model, cmd := d.Model().Update(keys[i%2])
				_ = cmd
				if model.View().Content == "" {
					b.Fatal("empty frame")
				}
				i++
			}
		})
	}
}

func mkTemp() (string, error) { return os.MkdirTemp("", "nova-bench-") }
