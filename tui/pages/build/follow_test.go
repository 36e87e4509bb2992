package build

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
)

// TestANewLiveBuildIsFollowed: a build started elsewhere (another window,
// `nova build run`) is shown as soon as it runs, when the one on screen has
// ended; a running build on screen is never switched away from.
func TestANewLiveBuildIsFollowed(t *testing.T) {
	t.Parallel()
	old := Detail{Summary: Summary{ID: "2", Name: "Settings page", Status: StatusDone, Started: epoch.Add(-2 * time.Hour), Finished: epoch.Add(-time.Hour), Done: 4, Total: 4}}
	src := newSource(t, old)
	l := newLoop(t, src, 120, 37)
	require.Equal(t, "2", l.m.cur)

	live := Detail{Summary: Summary{ID: "5", Name: "Health endpoint", Status: StatusRunning, Started: epoch, Total: 4}}
	src.mu.Lock()
	src.builds = append([]Detail{live}, src.builds...)
	src.mu.Unlock()
	src.events <- engine.Event{Type: engine.EventTask, Topic: engine.TopicBuild, BuildID: "5", TaskID: "t-1", Status: StatusRunning, Total: 4}
	l.until(func() bool { return l.m.cur == "5" && l.m.detail != nil })
	assert.Contains(t, l.plain(), "Health endpoint")

	// Another build starting now does not take the screen from a live one.
	src.events <- engine.Event{Type: engine.EventTask, Topic: engine.TopicBuild, BuildID: "6", TaskID: "t-1", Status: StatusRunning, Total: 1}
	l.settle(200 * time.Millisecond)
	assert.Equal(t, "5", l.m.cur)
}
