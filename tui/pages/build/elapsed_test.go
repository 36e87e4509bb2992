package build

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestTaskTimeNeverGoesBackwards: a task's time counts up while it runs
// (after its earlier attempts) and its finished figure is never below the
// last live one, though the stored attempt time stops before the learning
// step that the live figure counted.
func TestTaskTimeNeverGoesBackwards(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	running := Task{Status: StatusRunning, Started: start}
	live := running.Duration(start.Add(3900 * time.Millisecond))
	assert.Equal(t, 3900*time.Millisecond, live)

	done := Task{Status: StatusDone, Started: start, Finished: start.Add(4 * time.Second), Elapsed: 3 * time.Second,
		History: []Attempt{{N: 1, Passed: true, Duration: 3 * time.Second}}}
	assert.GreaterOrEqual(t, done.Duration(start.Add(time.Hour)), live)
	assert.Equal(t, 4*time.Second, done.Duration(start.Add(time.Hour)), "the wall clock to the end")

	// A retry: attempt 1 took 2 s; attempt 2 runs from start+3s.
	retry := Task{Status: StatusRunning, Started: start.Add(3 * time.Second), Elapsed: 2 * time.Second,
		History: []Attempt{{N: 1, Duration: 2 * time.Second}}}
	assert.Equal(t, 2500*time.Millisecond, retry.Duration(start.Add(3500*time.Millisecond)), "earlier attempts count")
	retry.Status, retry.Finished, retry.Elapsed = StatusDone, start.Add(5*time.Second), 3800*time.Millisecond
	retry.History = append(retry.History, Attempt{N: 2, Passed: true, Duration: 1800 * time.Millisecond})
	assert.Equal(t, 4*time.Second, retry.Duration(start.Add(time.Hour)))

	assert.Equal(t, 94*time.Second, Task{Status: StatusDone, Elapsed: 94 * time.Second}.Duration(start), "no start known: the stored time")
}
