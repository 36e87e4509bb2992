//go:build unix

package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	nova "github.com/nova-dev/nova"
	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/workspace"
)

// Speed target (issue 28): nova's own CPU per chat turn, besides the model,
// is at most 10 ms: routing, the session history, the context blocks
// (rules, vault, playbook, knowledge), the agent loop around one model reply,
// the stores and the events. The model is a fake Ollama over HTTP in this
// process that answers at once, so cpu-ms/turn includes its side of the
// HTTP exchange too (an upper bound of nova's own). Sessions are renewed
// every 8 turns so the history stays the size of a real conversation.
func BenchmarkChatTurn(b *testing.B) {
	srv := ollamatest.New(b, ollamatest.WithModels("qwen2.5-coder:1.5b", "qwen2.5-coder:7b", "qwen2.5-coder:14b"),
		ollamatest.WithDefaultReply(ollamatest.Text("Abs is defined in foo.go; it returns x unchanged for negative numbers.")))
	root := b.TempDir()
	if err := os.WriteFile(filepath.Join(root, "AGENTS.md"), []byte("- Keep doc comments.\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	if _, err := workspace.Init(root, nova.Defaults); err != nil {
		b.Fatal(err)
	}
	ws, err := engine.Open(context.Background(), engine.Options{Root: root, NoSync: true, Defaults: nova.Defaults,
		Getenv: envOf(map[string]string{"OLLAMA_HOST": srv.URL()})})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = ws.Close() })
	ctx := context.Background()
	var session uint64
	b.ResetTimer()
	cpu0, wall0 := benchCPU(), time.Now()
	for i := range b.N {
		if i%8 == 0 {
			session = 0
		}
		rep, err := ws.ChatSend(ctx, engine.ChatSendArgs{Session: session, Text: "where is Abs and what does it return?"})
		if err != nil || rep.Turn == nil || rep.Turn.Status != "done" {
			b.Fatalf("turn: %+v %v", rep.Turn, err)
		}
		session = rep.Session.ID
	}
	b.StopTimer()
	b.ReportMetric(float64(benchCPU()-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/turn")
	b.ReportMetric(float64(time.Since(wall0))/float64(time.Millisecond)/float64(b.N), "ms/turn")
}
