//go:build unix

package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/board"
	"github.com/nova-dev/nova/engine/goal"
	"github.com/nova-dev/nova/engine/vault/vaulttest"
)

// Speed target (issue 15): the engine's overhead per orchestrator turn at
// zero model latency — the board update, the lead's prompt (board, team,
// vault context, history), the decision's validation and the commits — is
// at most 5 ms with a 100k-node vault. The lead and the delegations answer
// at once in-process; a delegation's board work (its artifacts, handoff and
// history line) is done as a task's end does it. One op is a run of 12
// turns (the default orchestrator.maxTurns): 11 delegations and a complete;
// ms/turn is the figure to compare with the target (cpu-ms/turn beside it,
// steadier on a shared machine).
func BenchmarkGoalTurn100k(b *testing.B) {
	const turnsPerRun = 12
	root := b.TempDir()
	ws := benchWorkspace(b, root)
	ctx := context.Background()
	if err := vaulttest.Fill(ctx, ws.Vault(), 100_000, 7, vaulttest.Options{BodyShare: 0.4}); err != nil {
		b.Fatal(err)
	}
	boards := ws.Boards()
	turn := 0
	team := []goal.Agent{{ID: "SUN", Description: "lead"}, {ID: "EARTH", Description: "specs"}, {ID: "MARS", Description: "backend"},
		{ID: "SATURN", Description: "tests"}}
	eng := goal.New(goal.Config{Limits: goal.Limits{MaxTurns: turnsPerRun}}, goal.Deps{
		Store:  goal.NewStore(ws.DB(), nil),
		Boards: boards,
		Team:   func(context.Context) ([]goal.Agent, error) { return team, nil },
		Ask: func(_ context.Context, req goal.LeadRequest) (goal.LeadReply, error) {
			turn++
			if turn%turnsPerRun == 0 {
				return goal.LeadReply{Decision: goal.Decision{Action: goal.ActionComplete, Reasoning: "done", Summary: "done"}, Tokens: len(req.Prompt) / 4}, nil
			}
			return goal.LeadReply{Decision: goal.Decision{Action: goal.ActionDelegate, Reasoning: "next step", Agent: team[1+turn%3].ID,
				Task: fmt.Sprintf("Step %d of the health endpoint: write the handler and its test.", turn), KeyDecision: fmt.Sprintf("decision %d", turn%7)},
				Tokens: len(req.Prompt) / 4}, nil
		},
		NewBuild: func(context.Context, goal.Run) (uint64, error) { return 1, nil },
		Delegate: func(ctx context.Context, d goal.Delegation) (goal.Outcome, error) {
			h, err := boards.Finish(ctx, board.RunKey(d.Run.ID), board.TaskEnd{Task: d.TaskID, Title: d.Title, Agent: d.Agent, Status: "done",
				Passed: true, Output: "Wrote health.go and health_test.go.\n\nHandoff:\nsummary: handler and test written\nconstraints: keep GET /healthz\nnext: SATURN",
				Files: map[string]string{"health.go": "package main\n\nfunc health() {}\n"}})
			if err != nil {
				return goal.Outcome{}, err
			}
			return goal.Outcome{Status: "done", Verdict: "passed", Tokens: 400, Handoff: &h}, nil
		},
		VaultContext: func(ctx context.Context, g string) (string, error) {
			vc, err := ws.Vault().BuildVaultContext(ctx, g, "SUN", "premium", 8192)
			return vc.Text, err
		},
	})
	// Warm the vault's index outside the timing, as a workspace in use has it.
	if _, err := ws.Vault().BuildVaultContext(ctx, "health endpoint", "SUN", "premium", 8192); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu0 := benchCPU()
	start := time.Now()
	b.ResetTimer()
	for range b.N {
		r, err := eng.Create(ctx, "add a health check endpoint with tests", goal.CreateOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if r, err = eng.Run(ctx, r.ID, goal.RunOptions{}); err != nil || r.Status != goal.StatusCompleted {
			b.Fatalf("run: %v %s %s", err, r.Status, r.Reason)
		}
	}
	b.StopTimer()
	turns := float64(b.N * turnsPerRun)
	b.ReportMetric(float64(time.Since(start))/float64(time.Millisecond)/turns, "ms/turn")
	if cpu := benchCPU(); cpu > 0 {
		b.ReportMetric(float64(cpu-cpu0)/float64(time.Millisecond)/turns, "cpu-ms/turn")
	}
}

func benchWorkspace(b *testing.B, root string) *engine.Local {
	b.Helper()
	if err := os.MkdirAll(filepath.Join(root, ".nova"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".nova", "config.yaml"), []byte("tier: premium\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	ws, err := engine.Open(context.Background(), engine.Options{Root: root, NoSync: os.Getenv("NOVA_BENCH_SYNC") == "", Getenv: envOf(nil)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = ws.Close() })
	if c, err := ws.Vault().Capacity(context.Background()); err != nil || c.Cap != 0 {
		b.Fatalf("the benchmark needs the premium tier (the free tier caps the vault at 500): %+v %v", c, err)
	}
	return ws
}

func benchCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
