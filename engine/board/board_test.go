package board_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/board"
	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/storage"
)

func openStore(t testing.TB, o board.Options) *board.Store {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "nova.db"), storage.Options{NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return board.NewStore(db, o)
}

// words returns n characters of text mixing ASCII, accents, CJK and emoji
// (multi-byte runes count one each in the token estimate).
func words(r *rand.Rand, n int) string {
	pieces := []string{"health ", "endpoint ", "ç'est ", "测试 ", "🚀 ", "internal/health/health.go ", "\n", "\t", "a", "\x00"}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// Property: whatever the board holds (many and long decisions, blockers,
// artifacts, a huge summary), its inline part stays within 1,200 tokens.
func TestInlineNeverExceedsItsBudget(t *testing.T) {
	t.Parallel()
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, seed*7+1))
		b := board.Board{Key: "run:7", Goal: words(r, r.IntN(5000)), Summary: words(r, r.IntN(20000))}
		for range r.IntN(40) {
			b.Decisions = append(b.Decisions, board.Decision{Text: words(r, r.IntN(3000)), By: words(r, r.IntN(200)), Task: words(r, 30)})
		}
		for i := range r.IntN(20) {
			b.Blockers = append(b.Blockers, board.Blocker{ID: fmt.Sprintf("b%d", i), Text: words(r, r.IntN(3000)), By: "MARS"})
		}
		for i := range r.IntN(200) {
			b.Artifacts = append(b.Artifacts, board.ArtifactRef{ID: uint64(i + 1), Type: board.TypeFile, Name: words(r, r.IntN(500)),
				Preview: words(r, r.IntN(400)), Tokens: r.IntN(1 << 20), By: words(r, r.IntN(100)), Task: "t1"})
		}
		b.ArtifactCount = len(b.Artifacts) + r.IntN(1000)
		out := b.Inline()
		require.LessOrEqual(t, board.EstimateTokens(out), board.InlineTokens, "seed %d", seed)
		assert.True(t, strings.HasPrefix(out, "<session_board>"), "seed %d", seed)
		assert.True(t, strings.HasSuffix(out, "</session_board>"), "seed %d", seed)
		assert.NotContains(t, out, "\x00", "control characters are dropped")
	}
}

// Through the store too: a board filled by every write path renders within
// the budget and keeps its caps.
func TestFullBoardThroughTheStore(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := openStore(t, board.Options{})
	key := board.RunKey(1)
	long := strings.Repeat("decide on the storage layout for the health endpoint ", 40)
	for i := range 12 {
		_, err := s.AddDecision(ctx, key, fmt.Sprintf("%d %s", i, long), "MARS", "t1")
		require.NoError(t, err)
	}
	for i := range 3 {
		_, err := s.AddBlocker(ctx, key, fmt.Sprintf("blocker %d %s", i, long), "SATURN", "t2")
		require.NoError(t, err)
	}
	_, err := s.AddBlocker(ctx, key, "a fourth blocker", "SATURN", "t2")
	require.ErrorIs(t, err, board.ErrFull)
	assert.Contains(t, err.Error(), "b1, b2, b3", "the refusal names the open blockers")
	for i := range 60 {
		_, err := s.AddArtifact(ctx, key, board.Artifact{ArtifactRef: board.ArtifactRef{Type: board.TypeFile, Name: fmt.Sprintf("f%d.go", i), By: "MARS"},
			Content: strings.Repeat("x", 3000)})
		require.NoError(t, err)
	}
	for i := range 30 {
		_, err := s.AppendHistory(ctx, key, fmt.Sprintf("t%d MARS done: %s", i, long))
		require.NoError(t, err)
	}
	b, err := s.Get(ctx, key)
	require.NoError(t, err)
	assert.Len(t, b.Decisions, board.MaxDecisions)
	assert.Equal(t, 12, b.DecisionCount)
	assert.True(t, strings.HasPrefix(b.Decisions[4].Text, "11 "), "the newest decision is kept")
	assert.Len(t, b.Blockers, board.MaxBlockers)
	assert.Len(t, b.Artifacts, board.MaxRefs)
	assert.Equal(t, 60, b.ArtifactCount)
	assert.LessOrEqual(t, board.EstimateTokens(b.Summary), board.SummaryTokens)
	assert.Contains(t, b.Summary, "t29 MARS done", "the newest history line is kept")
	out := b.Inline()
	assert.LessOrEqual(t, board.EstimateTokens(out), board.InlineTokens)
	assert.Contains(t, out, "a60 file f59.go", "the newest artifact is listed")
	assert.Contains(t, out, "older artifacts: readArtifact ID")
}

func TestBoardWritesNotifyAfterCommit(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	var mu sync.Mutex
	var seen []string
	var s *board.Store
	s = openStore(t, board.Options{Notify: func(k board.Key, what string) {
		// The write is visible when Notify runs.
		b, err := s.Get(context.Background(), k)
		mu.Lock()
		defer mu.Unlock()
		if err == nil {
			seen = append(seen, fmt.Sprintf("%s %s %d", k, what, len(b.Decisions)))
		}
	}})
	key := board.BuildKey(3)
	_, err := s.AddDecision(ctx, key, "use net/http only", "MARS", "t1")
	require.NoError(t, err)
	_, err = s.AddDecision(ctx, key, "Use net/http only", "VENUS", "t2")
	require.NoError(t, err)
	b, err := s.Get(ctx, key)
	require.NoError(t, err)
	assert.Len(t, b.Decisions, 1, "the same decision twice is recorded once")
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"build:3 decision 1", "build:3 decision 1"}, seen)
}

func TestEmptyInputIsRefused(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := openStore(t, board.Options{})
	key := board.RunKey(1)
	_, err := s.AddDecision(ctx, key, " \n\t", "MARS", "")
	require.ErrorIs(t, err, board.ErrInvalid)
	_, err = s.AddBlocker(ctx, key, "", "MARS", "")
	require.ErrorIs(t, err, board.ErrInvalid)
	_, err = s.SetGoal(ctx, key, "\x00\x01", "MARS")
	require.ErrorIs(t, err, board.ErrInvalid)
	_, err = s.ResolveBlocker(ctx, key, "b9", "MARS", "")
	require.ErrorIs(t, err, board.ErrNotFound)
	_, err = s.Get(ctx, board.Key{Kind: "nope", ID: 1})
	require.ErrorIs(t, err, board.ErrInvalid)
	_, err = s.Artifact(ctx, 42)
	require.ErrorIs(t, err, board.ErrNotFound)
	b, err := s.Get(ctx, key)
	require.NoError(t, err)
	assert.Empty(t, b.Decisions, "nothing was written")
	assert.NotNil(t, b.Artifacts, "lists are [] in JSON, never null")
}

func TestParseKey(t *testing.T) {
	t.Parallel()
	k, err := board.ParseKey("run:12")
	require.NoError(t, err)
	assert.Equal(t, board.RunKey(12), k)
	k, err = board.ParseKey(" build:3 ")
	require.NoError(t, err)
	assert.Equal(t, "build:3", k.String())
	for _, bad := range []string{"", "run", "run:", "run:0", "run:-1", "task:3", "run:3x"} {
		_, err := board.ParseKey(bad)
		assert.ErrorIs(t, err, board.ErrInvalid, bad)
	}
	id, err := board.ParseArtifactID("a12")
	require.NoError(t, err)
	assert.Equal(t, uint64(12), id)
	_, err = board.ParseArtifactID("a")
	assert.ErrorIs(t, err, board.ErrInvalid)
}

// History that outgrows its budget is compressed by the small tier; when
// that fails the oldest lines go.
func TestHistoryIsCompressedOrTrimmed(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	calls := 0
	s := openStore(t, board.Options{Compress: func(_ context.Context, summary string, maxTokens int) (string, error) {
		calls++
		if calls == 1 {
			return "", errors.New("model down")
		}
		assert.Positive(t, maxTokens)
		return "compressed: " + summary[len(summary)-40:], nil
	}})
	key := board.RunKey(2)
	line := strings.Repeat("word ", 80) // 100 tokens a line
	var b board.Board
	var err error
	for i := range 5 {
		b, err = s.AppendHistory(ctx, key, fmt.Sprintf("line %d %s", i, line))
		require.NoError(t, err)
	}
	assert.Equal(t, 2, calls, "compression was asked when the summary outgrew its budget")
	assert.True(t, strings.HasPrefix(b.Summary, "compressed: "), b.Summary)
	assert.LessOrEqual(t, board.EstimateTokens(b.Summary), board.SummaryTokens)
}

func TestArtifactsAndHandoffs(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := openStore(t, board.Options{Now: func() time.Time { return time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC) }})
	key := board.RunKey(5)
	content := "package health\n\n" + strings.Repeat("// line\n", 200)
	ref, err := s.AddArtifact(ctx, key, board.Artifact{ArtifactRef: board.ArtifactRef{Type: board.TypeFile, Name: "internal/health/health.go",
		By: "MARS", Task: "t2", ChangesetID: 4}, Content: content})
	require.NoError(t, err)
	assert.Equal(t, "a1", ref.Ref())
	assert.LessOrEqual(t, len([]rune(ref.Preview)), board.PreviewChars)
	assert.Equal(t, board.EstimateTokens(content), ref.Tokens)
	a, err := s.Artifact(ctx, ref.ID)
	require.NoError(t, err)
	assert.Equal(t, content, a.Content, "the full content is kept")
	assert.Equal(t, "run:5", a.Board)

	h, err := s.AddHandoff(ctx, key, board.Handoff{Task: "t2", Agent: "MARS", Summary: "added the handler",
		Constraints: []string{"keep GET /healthz", "none"}, Next: "SATURN", Artifacts: []uint64{ref.ID}, Written: true})
	require.NoError(t, err)
	assert.Equal(t, []string{"keep GET /healthz"}, h.Constraints, "'none' is not a constraint")
	hs, err := s.Handoffs(ctx, key)
	require.NoError(t, err)
	require.Len(t, hs, 1)
	assert.Equal(t, "SATURN", hs[0].Next)
	other, err := s.Handoffs(ctx, board.BuildKey(5))
	require.NoError(t, err)
	assert.Empty(t, other, "a build's board is not a run's")
	b, err := s.Get(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, 1, b.Handoffs)
	raw, err := json.Marshal(b)
	require.NoError(t, err)
	assert.Contains(t, string(raw), `"artifactCount":1`)
}

func TestBoardToolsThroughTheRegistry(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := openStore(t, board.Options{})
	reg := tools.NewRegistry()
	require.NoError(t, board.Register(reg))
	key := board.BuildKey(9)
	env := &tools.Env{Agent: "MARS", Tools: []string{"readFile"}, Board: &board.Handle{Store: s, Key: key, Agent: "MARS", Task: "t1"}}
	call := func(name, args string) tools.Result {
		return reg.Execute(ctx, env, tools.Call{Name: name, Args: json.RawMessage(args)})
	}
	res := call(board.ToolAddDecision, `{"decision":"use net/http"}`)
	require.Equal(t, tools.StatusOK, res.Status, res.Output)
	res = call(board.ToolSetGoal, `{"goal":"a health endpoint with tests"}`)
	require.Equal(t, tools.StatusOK, res.Status, res.Output)
	res = call(board.ToolAddBlocker, `{"blocker":"which port?"}`)
	require.Equal(t, tools.StatusOK, res.Status, res.Output)
	assert.Contains(t, res.Output, "b1")
	res = call(board.ToolResolveBlocker, `{"id":"b7"}`)
	assert.Equal(t, tools.StatusError, res.Status, "an unknown blocker is a tool error the model reads")
	assert.Contains(t, res.Output, "open: b1")
	res = call(board.ToolResolveBlocker, `{"id":"B1","note":"8080"}`)
	require.Equal(t, tools.StatusOK, res.Status, res.Output)
	res = call(board.ToolAddDecision, `{"decision":""}`)
	assert.Equal(t, tools.StatusInvalid, res.Status, "the schema refuses an empty decision")

	long := strings.Repeat("0123456789", 1000) // 10,000 characters
	ref, err := s.AddArtifact(ctx, key, board.Artifact{ArtifactRef: board.ArtifactRef{Type: board.TypeOutput, By: "EARTH"}, Content: long})
	require.NoError(t, err)
	res = call(board.ToolReadArtifact, fmt.Sprintf(`{"id":%q}`, ref.Ref()))
	require.Equal(t, tools.StatusOK, res.Status, res.Output)
	assert.Contains(t, res.Output, "readArtifact with offset 8000")
	res = call(board.ToolReadArtifact, fmt.Sprintf(`{"id":%q,"offset":8000}`, ref.Ref()))
	require.Equal(t, tools.StatusOK, res.Status, res.Output)
	assert.NotContains(t, res.Output, "more characters", "the last page")
	assert.Contains(t, res.Output, "from character 8000")

	foreign, err := s.AddArtifact(ctx, board.RunKey(1), board.Artifact{Content: "secret"})
	require.NoError(t, err)
	res = call(board.ToolReadArtifact, fmt.Sprintf(`{"id":%q}`, foreign.Ref()))
	assert.Equal(t, tools.StatusError, res.Status)
	assert.Contains(t, res.Output, "another board")

	b, err := s.Get(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, "a health endpoint with tests", b.Goal)
	assert.Equal(t, "MARS", b.GoalBy)
	assert.Empty(t, b.Blockers)
	require.Len(t, b.Resolved, 1)
	assert.Equal(t, "8080", b.Resolved[0].Resolution)

	// Without a board the tools refuse.
	res = reg.Execute(ctx, &tools.Env{Agent: "MARS"}, tools.Call{Name: board.ToolAddDecision, Args: json.RawMessage(`{"decision":"x"}`)})
	assert.Equal(t, tools.StatusDenied, res.Status)
	assert.Contains(t, res.Output, "no session board")
}

func TestApplyMakesSeveralChangesAtOnce(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	writes := 0
	s := openStore(t, board.Options{Notify: func(board.Key, string) { writes++ }})
	key := board.RunKey(4)
	x, err := s.AddBlocker(ctx, key, "which port?", "MARS", "t1")
	require.NoError(t, err)
	b, err := s.Apply(ctx, key, "SUN", board.Changes{Goal: "ship the endpoint", Decision: "port 8080", Resolve: []string{x.ID, "b9"}, Note: "the user chose 8080"})
	require.NoError(t, err)
	assert.Equal(t, 2, writes, "one write for the three changes")
	assert.Equal(t, "ship the endpoint", b.Goal)
	require.Len(t, b.Decisions, 1)
	assert.Equal(t, "SUN", b.Decisions[0].By)
	assert.Empty(t, b.Blockers)
	require.Len(t, b.Resolved, 1)
	assert.Equal(t, "the user chose 8080", b.Resolved[0].Resolution)
	_, err = s.Apply(ctx, key, "SUN", board.Changes{})
	require.NoError(t, err)
	assert.Equal(t, 2, writes, "no change, no write")
}
