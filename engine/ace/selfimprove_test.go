package ace_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/ace"
	"github.com/nova-dev/nova/engine/vault"
)

func TestTaskType(t *testing.T) {
	t.Parallel()
	for title, want := range map[string]string{
		"Add unit tests for the parser":       "test",
		"Fix crash when the config is empty":  "bugfix",
		"Implement login with passwords":      "security",
		"Cache the search results":            "performance",
		"Refactor the router":                 "refactor",
		"Update the README":                   "docs",
		"Create the orders database schema":   "data",
		"Expose a REST endpoint for invoices": "api",
		"Build the settings page layout":      "ui",
		"Set up the CI pipeline":              "config",
		"Implement invoice export":            "feature",
		"Ponder":                              "general",
		"":                                    "general",
	} {
		assert.Equal(t, want, ace.TaskType(title), title)
	}
}

func record(t *testing.T, e *env, agent, taskType string, ok bool, n int) {
	t.Helper()
	for range n {
		_, err := e.sys.RecordOutcome(ctx(), agent, taskType, ok, map[bool]float64{true: 0.9, false: 0.3}[ok])
		require.NoError(t, err)
	}
}

func TestProfileWindowAndStats(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	record(t, e, "mars", "test", true, 4)
	record(t, e, "mars", "ui", false, 2)
	record(t, e, "mars", "ui", true, 1)
	record(t, e, "mars", "data", false, 2) // 2 samples: too few to judge
	p, err := e.sys.Profile(ctx(), "mars")
	require.NoError(t, err)
	assert.Len(t, p.Window, 9)
	assert.Equal(t, 9, p.TotalTasks)
	assert.InDelta(t, 5.0/9, p.SuccessRate, 1e-9)
	assert.InDelta(t, (5*0.9+4*0.3)/9, p.AvgGateScore, 1e-9)
	assert.Equal(t, []string{"test"}, p.Strong)
	assert.Equal(t, []string{"ui"}, p.Weak)

	// The window keeps the last 20.
	record(t, e, "mars", "docs", true, 25)
	p, err = e.sys.Profile(ctx(), "mars")
	require.NoError(t, err)
	assert.Len(t, p.Window, ace.WindowSize)
	assert.Equal(t, 34, p.TotalTasks)
	assert.InDelta(t, 1.0, p.SuccessRate, 1e-9)
	assert.Equal(t, []string{"docs"}, p.Strong)
	assert.Empty(t, p.Weak)
}

func TestReviewGateThresholdsAndGuardrails(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	record(t, e, "earth", "ui", false, 4)
	_, err := e.sys.RunReview(ctx(), "earth", false)
	assert.ErrorIs(t, err, ace.ErrNotDue, "4 tasks are not enough")

	record(t, e, "earth", "ui", true, 1) // ui: 1/5 succeed → weak
	record(t, e, "earth", "test", true, 8)
	record(t, e, "earth", "docs", true, 3) // strong but only 3 samples: low confidence
	rep, err := e.sys.RunReview(ctx(), "earth", false)
	require.NoError(t, err)
	require.True(t, rep.Ran)
	require.Len(t, rep.Deltas, 3)

	kinds := map[ace.Kind]int{}
	for _, d := range rep.Deltas {
		kinds[d.Kind]++
	}
	assert.Equal(t, 2, kinds[ace.KindStrategy])
	assert.Equal(t, 1, kinds[ace.KindMistake])

	p, err := e.m.GetPlaybook(ctx(), "earth")
	require.NoError(t, err)
	pending, err := e.m.ListPending(ctx())
	require.NoError(t, err)
	// test: 8/8 → 0.8 applied; ui: 0.8 failure × 5/7 = 0.57 and docs: 3/5 = 0.6 wait for a human.
	assert.Len(t, p.Rules, 1)
	assert.Contains(t, p.Rules[0].Content, "Test work (tests, specs, coverage) goes well")
	require.Len(t, pending, 2)
	for _, pd := range pending {
		assert.Less(t, pd.Delta.Confidence, ace.AutoApplyConfidence)
		assert.Equal(t, "review", pd.Origin)
	}
	assert.Zero(t, rep.Profile.TasksSinceReview)

	// At most once in 7 days unless forced, even after 5 more tasks.
	record(t, e, "earth", "test", true, 5)
	_, err = e.sys.RunReview(ctx(), "earth", false)
	assert.ErrorIs(t, err, ace.ErrNotDue)
	forced, err := e.sys.RunReview(ctx(), "earth", true)
	require.NoError(t, err)
	assert.True(t, forced.Ran)
	e.clock.Add(7*24*time.Hour + time.Minute)
	record(t, e, "earth", "test", true, 5)
	rep, err = e.sys.RunReview(ctx(), "earth", false)
	require.NoError(t, err)
	assert.True(t, rep.Ran)
	// The same lessons are not added twice.
	p, err = e.m.GetPlaybook(ctx(), "earth")
	require.NoError(t, err)
	assert.LessOrEqual(t, len(p.Rules), 2)
}

func TestReviewStyleAdaptationsFromVault(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withVault())
	_, err := e.vault.Add(ctx(), vault.Node{Type: vault.Preference, Content: "Use tabs for indentation in Makefiles", Confidence: 0.95, Tags: []string{"style"}})
	require.NoError(t, err)
	_, err = e.vault.Add(ctx(), vault.Node{Type: vault.Preference, Content: "Maybe use emojis", Confidence: 0.4})
	require.NoError(t, err)
	_, err = e.vault.Add(ctx(), vault.Node{Type: vault.Strategy, Content: "Not a preference", Confidence: 0.99})
	require.NoError(t, err)
	// A library pattern (here a starter one) is shared knowledge, not the
	// user's taste: it never becomes a style rule (issue 32: EARTH learned
	// Ollama streaming rules in a Go project).
	_, err = e.vault.Add(ctx(), vault.Node{Type: vault.Preference, Content: "Request stream: true from Ollama", Confidence: 0.92,
		Tags: []string{"performance", "ollama"}, Meta: map[string]string{vault.MetaImportUser: "nova-starter", vault.MetaLibrary: ".nova/patterns"}})
	require.NoError(t, err)
	_, err = e.vault.Add(ctx(), vault.Node{Type: vault.Preference, Content: "Look strings up by message ID", Confidence: 0.91,
		Meta: map[string]string{vault.MetaLibrary: "team-patterns"}})
	require.NoError(t, err)
	rep, err := e.sys.RunReview(ctx(), "venus", true)
	require.NoError(t, err)
	require.Len(t, rep.Deltas, 1)
	p, err := e.m.GetPlaybook(ctx(), "venus")
	require.NoError(t, err)
	require.Len(t, p.Rules, 1)
	r := p.Rules[0]
	assert.Equal(t, "Use tabs for indentation in Makefiles", r.Content)
	assert.Equal(t, ace.SourceVault, r.Source, "learned from the vault, not written by the user (issue 10)")
	assert.Equal(t, ace.KindPreference, r.Kind)
	assert.Contains(t, r.Tags, "style")
}

func TestAfterTaskTriggersReviewWhenDue(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var last ace.AfterReport
	for i := range ace.ReviewAfter {
		var err error
		last, err = e.sys.AfterTask(ctx(), ace.Outcome{Agent: "sun", Title: fmt.Sprintf("Write tests for module %d", i), Success: true, GateScore: 1}, false)
		require.NoError(t, err)
		assert.Equal(t, "test", last.TaskType)
		assert.False(t, last.Reflected, "autonomy 0: no reflection")
	}
	require.NotNil(t, last.Review)
	assert.True(t, last.Review.Ran)
	p, err := e.sys.Profile(ctx(), "sun")
	require.NoError(t, err)
	assert.False(t, p.LastReview.IsZero())
}

func TestStrongWeakThresholdEdges(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// ui: exactly 50 % failures is not weak; docs: exactly 80 % success is strong.
	record(t, e, "mercury", "ui", true, 2)
	record(t, e, "mercury", "ui", false, 2)
	record(t, e, "mercury", "docs", true, 4)
	record(t, e, "mercury", "docs", false, 1)
	p, err := e.sys.Profile(ctx(), "mercury")
	require.NoError(t, err)
	assert.Empty(t, p.Weak)
	assert.Equal(t, []string{"docs"}, p.Strong)
	record(t, e, "mercury", "ui", false, 1) // 3 of 5 fail
	p, err = e.sys.Profile(ctx(), "mercury")
	require.NoError(t, err)
	assert.Equal(t, []string{"ui"}, p.Weak)
}

func TestConcurrentTasksKeepCountsExact(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	addRule(t, e.m, "mars", "Check errors of every call", 0.8)
	addRule(t, e.m, "mars", "Close files with defer", 0.8)
	const n = 16
	errs := make(chan error, n)
	for i := range n {
		go func() {
			inj, err := e.sys.Context(ctx(), "mars", "handle errors when closing files", 200)
			if err == nil {
				_, err = e.sys.AfterTask(ctx(), ace.Outcome{Agent: "mars", Title: fmt.Sprintf("Fix file handling %d", i),
					Success: i%2 == 0, GateScore: 0.5, RuleIDs: inj.RuleIDs}, false)
			}
			errs <- err
		}()
	}
	for range n {
		require.NoError(t, <-errs)
	}
	p, err := e.m.GetPlaybook(ctx(), "mars")
	require.NoError(t, err)
	assert.Equal(t, n, p.Tasks)
	assert.Equal(t, n/2, p.Successes)
	for _, id := range []string{"r1", "r2"} { // a review may add rules midway
		r, ok := p.Rule(id)
		require.True(t, ok)
		assert.Equal(t, n, r.AppliedCount, r.ID)
		assert.Equal(t, n/2, r.SuccessCount, r.ID)
	}
	prof, err := e.sys.Profile(ctx(), "mars")
	require.NoError(t, err)
	assert.Equal(t, n, prof.TotalTasks)
}
