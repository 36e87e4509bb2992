package rehearsal

import (
	"context"
	"testing"
	"time"

	"github.com/nova-dev/nova/engine/rehearsal/rehearsaltest"
)

// BenchmarkConcurrentBranches: with the fake Ollama taking 300 ms per
// branch and concurrency 3, three branches should finish in well under
// 1.5× one branch's time. It reports ratio = t(3 branches) / t(1 branch).
func BenchmarkConcurrentBranches(b *testing.B) {
	e := newEnv(b, rehearsaltest.Three(), 300*time.Millisecond)
	e.cfg.Rehearsal.Concurrency = 3
	ctx := context.Background()
	run := func(n int) time.Duration {
		start := time.Now()
		if _, err := e.svc.Rehearse(ctx, Request{Task: task("T1", "x"), Branches: n, Force: true}); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	var one, three time.Duration
	for b.Loop() {
		one += run(1)
		three += run(3)
	}
	b.ReportMetric(float64(one.Milliseconds())/float64(b.N), "ms/1-branch")
	b.ReportMetric(float64(three.Milliseconds())/float64(b.N), "ms/3-branches")
	b.ReportMetric(float64(three)/float64(one), "ratio")
}
