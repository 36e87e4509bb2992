package agents_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/storage"
)

const benchSteps = 10

// BenchmarkAgentStep runs whole agent runs against the fake Ollama at zero
// latency (benchSteps tool-calling steps, then a final answer) and reports
// the time per step: HTTP to the fake, the fake's own work, prompt and
// message handling, tool execution, trace writes to bbolt.
func BenchmarkAgentStep(b *testing.B) {
	for _, sync := range []bool{false, true} {
		b.Run(fmt.Sprintf("fsync=%v", sync), func(b *testing.B) {
			h := newHarness(b, func(c *harnessConfig) { c.noSync = !sync })
			h.srv.SetHandler(func(_ int, req api.ChatRequest) ollamatest.Reply {
				n := len(toolMessages(req))
				if n < benchSteps {
					return tc("readFile", map[string]any{"path": "main.go", "limit": n + 1})
				}
				return ollamatest.Text("main.go starts the server.")
			})
			s := spec(func(s *agents.Spec) { s.Limits.MaxSteps = benchSteps + 2 })
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				run, err := h.runner.Run(ctx, s, "explain main.go", agents.RunOptions{})
				if err != nil || !run.Outcome.OK {
					b.Fatalf("run failed: %v %+v", err, run.Outcome.Failure)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*(benchSteps+1))/1e6, "ms/step")
		})
	}
}

// BenchmarkStepOverhead measures the engine's own work in one step, without
// the model: build the prompt, parse a text-mode reply, validate and run a
// tool, record its trace in bbolt, truncate the observation.
func BenchmarkStepOverhead(b *testing.B) {
	for _, sync := range []bool{false, true} {
		b.Run(fmt.Sprintf("fsync=%v", sync), func(b *testing.B) {
			h := newHarness(b) // for its workspace files
			db, err := storage.Open(filepath.Join(b.TempDir(), "nova.db"), storage.Options{NoSync: !sync})
			require.NoError(b, err)
			b.Cleanup(func() { _ = db.Close() })
			runs := agents.NewRunStore(db)
			reg := tools.Core()
			d := changes.New(db, h.root, changes.Options{}).NewDraft(changes.Meta{RunID: 1})
			env := &tools.Env{Root: h.root, Agent: "MARS", RunID: 1, Stage: d}
			s := spec()
			reply := "Thought: I need to see main.go before changing it.\nAction: readFile\nAction Input: {\"path\": \"main.go\"}"
			b.ReportAllocs()
			for b.Loop() {
				msgs := agents.BuildMessages(agents.PromptInput{Spec: s, Task: "add a health check endpoint", Tools: reg.For("MARS", s.Tools)})
				if len(msgs) != 2 {
					b.Fatal("prompt")
				}
				r, err := agents.ParseReAct(reply)
				if err != nil {
					b.Fatal(err)
				}
				res := reg.Execute(context.Background(), env, tools.Call{Name: r.Action, Args: r.Input})
				if !res.OK() {
					b.Fatal(res.Output)
				}
				tr, err := runs.AddTrace(agents.Trace{RunID: 1, Tool: res.Tool, Args: json.RawMessage(res.Args),
					ArgsHash: res.ArgsHash, Status: res.Status, Output: res.Output, Time: time.Now()})
				if err != nil {
					b.Fatal(err)
				}
				if obs := agents.TruncateOutput(res.Output, 800, 1, tr.ID); obs == "" {
					b.Fatal("empty observation")
				}
			}
		})
	}
}
