package realollama_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/realollama/harness"
)

// longTask is a task of about n characters whose directive survives a cut
// at the end: the real server keeps only the first 4 tokens and the tail of
// a prompt it truncates, so before the fix the directive (and the role, the
// rules and the tool instructions) were lost.
func longTask(directive string, n int) string {
	var b strings.Builder
	b.WriteString(directive + " Write hello.txt. Background notes follow.\n")
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "Note %d: the greeting file is plain text, one line, no trailing spaces, UTF-8.\n", i)
	}
	return b.String()
}

// Defect 1: with ollama.numCtx 2048 a long prompt was silently truncated by
// the server (the run still ended done). Now every prompt plus the reply
// reserve fits: nova cuts the oversized task with a marker and the server
// never truncates.
func TestPromptFitsTheContext(t *testing.T) {
	w := newWS(t, wsConfig{NumCtx: 2048})
	var run runJSON
	stderr, code := w.novaJSON(&run, "agent", "run", "tester", longTask("@@write@@", 40000))
	log := w.serverLog()
	assert.Zero(t, countTruncations(log), "the server truncated nova's prompt:\n%s", grepLines(log, "truncating"))
	require.Equal(t, 0, code, "agent run: %s\n%s", run.failure(), stderr)
	assert.Equal(t, []string{"hello.txt"}, run.Files)
	chats := w.proxy.Chats()
	require.NotEmpty(t, chats)
	for _, c := range chats {
		assert.Equal(t, false, c["truncate"], "nova asks the server never to truncate silently")
		opts, _ := c["options"].(map[string]any)
		assert.EqualValues(t, 2048, opts["num_ctx"])
	}
	assert.Contains(t, lastUserMessage(chats[0]), "cut", "the oversized task carries a marker saying it was cut")
}

// The context the server really uses is min(numCtx, the model's context
// length): nova-tight has 1536, far below numCtx 8192.
func TestPromptFitsTheModelsOwnContext(t *testing.T) {
	w := newWS(t, wsConfig{Small: "nova-tight", Medium: "nova-tight", Extra: "budgets:\n  replyReserve: 256\n"})
	var run runJSON
	stderr, code := w.novaJSON(&run, "agent", "run", "tester", longTask("@@write@@", 20000))
	assert.Zero(t, countTruncations(w.serverLog()), "%s", grepLines(w.serverLog(), "truncating"))
	require.Equal(t, 0, code, "agent run: %s\n%s", run.failure(), stderr)
	assert.Equal(t, []string{"hello.txt"}, run.Files)
}

// When even the agent's own prompt cannot fit beside the reply reserve, the
// run is refused as misconfigured before any chat, with what to change.
func TestPromptThatCannotFitIsRefused(t *testing.T) {
	w := newWS(t, wsConfig{NumCtx: 1024}) // reply reserve 1024 leaves nothing
	var run runJSON
	_, code := w.novaJSON(&run, "agent", "run", "tester", "@@write@@ Write hello.txt.")
	assert.Equal(t, 1, code)
	require.NotNil(t, run.Outcome.Failure, "the run must fail")
	assert.Equal(t, "misconfigured", run.Outcome.Failure.Class, "%s", run.failure())
	assert.Contains(t, run.Outcome.Failure.Message, "numCtx")
	assert.Empty(t, w.proxy.Requests("/api/chat"), "nothing is sent that cannot fit")
}

// Defect 2: a reply cut at num_predict (done_reason "length") was taken as
// the answer. nova-short stops every reply after 3 tokens.
func TestLengthStopIsNotAnAnswer(t *testing.T) {
	w := newWS(t, wsConfig{Small: "nova-short"})
	var run runJSON
	stderr, code := w.novaJSON(&run, "agent", "run", "tester", "@@write@@ Write hello.txt.")
	require.Equal(t, 0, code, "the retry with a larger num_predict completes the reply: %s\n%s", run.failure(), stderr)
	assert.Equal(t, []string{"hello.txt"}, run.Files, "the tool call arrived whole; result %q", run.Outcome.Result)
	chats := w.proxy.Chats()
	require.GreaterOrEqual(t, len(chats), 2)
	opts, _ := chats[1]["options"].(map[string]any)
	np, _ := opts["num_predict"].(float64)
	assert.Greater(t, np, 3.0, "the retry asks for a larger num_predict")

	// Structured output (rehearsal) handles it the same way.
	w2 := newWS(t, wsConfig{Small: "nova-short", Tier: "premium"})
	prd := w2.writePRD("short", prdTask{ID: "r1", Title: "Greeting", Agent: "tester", Description: "@@branch@@ Write hello.txt."})
	var ss sessionJSON
	stderr, code = w2.novaJSON(&ss, "rehearse", prd, "r1", "--branches", "2")
	require.Equal(t, 0, code, "%s %+v", stderr, ss)
	assert.Len(t, ss.Branches, 2, "skipped: %+v", ss.Skipped)
}

// Defect 3: the real server ends a 200 stream without done when the model
// repeats a token more than 30 times; nova called it a dropped connection
// and sent the identical request three times.
func TestRepetitionIsNotADroppedConnection(t *testing.T) {
	w := newWS(t, wsConfig{})
	var run runJSON
	_, code := w.novaJSON(&run, "agent", "run", "tester", "@@repeat@@ Think it over.")
	assert.Equal(t, 1, code)
	require.NotNil(t, run.Outcome.Failure)
	assert.Equal(t, "repetition", run.Outcome.Failure.Class, "%s", run.failure())
	assert.NotContains(t, run.Outcome.Failure.Message, "stream cut")
	chats := w.proxy.Chats()
	require.Len(t, chats, 2, "one changed retry, never the identical request again")
	o1, _ := chats[0]["options"].(map[string]any)
	o2, _ := chats[1]["options"].(map[string]any)
	assert.NotEqual(t, fmt.Sprint(o1["temperature"], o1["seed"]), fmt.Sprint(o2["temperature"], o2["seed"]),
		"the retry changes temperature or seed")
}

// Defect 4 (second half): 400 and 500 answers get a kind, never unknown.
func TestServerErrorsHaveKinds(t *testing.T) {
	w := newWS(t, wsConfig{Small: "nova-embed"})
	var run runJSON
	_, code := w.novaJSON(&run, "agent", "run", "tester", "@@write@@ Write hello.txt.")
	assert.Equal(t, 1, code)
	require.NotNil(t, run.Outcome.Failure)
	assert.Equal(t, "misconfigured", run.Outcome.Failure.Class, "%s", run.failure())
	assert.Contains(t, run.Outcome.Failure.Message, "does not support chat")

	w2 := newWS(t, wsConfig{Small: "nova-broken"})
	var run2 runJSON
	_, code = w2.novaJSON(&run2, "agent", "run", "tester", "@@write@@ Write hello.txt.")
	assert.Equal(t, 1, code)
	require.NotNil(t, run2.Outcome.Failure)
	assert.Equal(t, "server", run2.Outcome.Failure.Class, "%s", run2.failure())
}

// Issue 11: a server that accepts the connection but never answers cost
// minutes of silence. Now the idle timeout ends it with "stalled".
func TestStalledServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, err := harness.Start(ctx, harness.StartOptions{Binary: suite.bin, Models: suite.models,
		Dir: filepath.Join(t.TempDir(), "stalled")})
	require.NoError(t, err)
	t.Cleanup(srv.Stop)
	w := newWSOn(t, srv, wsConfig{Ollama: "idleTimeout: 2s"})
	require.NoError(t, srv.Pause())
	t.Cleanup(func() { _ = srv.Resume() })
	start := time.Now()
	var run runJSON
	_, code := w.novaJSON(&run, "agent", "run", "tester", "@@write@@ Write hello.txt.")
	took := time.Since(start)
	assert.Equal(t, 1, code)
	require.NotNil(t, run.Outcome.Failure)
	assert.Equal(t, "stalled", run.Outcome.Failure.Class, "%s", run.failure())
	assert.Contains(t, run.Outcome.Failure.Message, "idleTimeout")
	assert.Less(t, took, 90*time.Second, "a generous bound that only catches a hang")
}

func lastUserMessage(chat map[string]any) string {
	msgs, _ := chat["messages"].([]any)
	for i := len(msgs) - 1; i >= 0; i-- {
		m, _ := msgs[i].(map[string]any)
		if m["role"] == "user" {
			s, _ := m["content"].(string)
			return s
		}
	}
	return ""
}

func grepLines(s, sub string) string {
	var out []string
	for line := range strings.SplitSeq(s, "\n") {
		if strings.Contains(line, sub) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}
