package agents

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/tools"
)

func TestTraceLines(t *testing.T) {
	t.Parallel()
	ts := []Trace{
		{ID: 1, Step: 1, Tool: "readFile", Args: json.RawMessage("{\n  \"path\": \"a.go\"\n}"), Status: tools.StatusOK,
			Output: strings.Repeat("x", 50), Duration: 3 * time.Millisecond},
		{ID: 2, Step: 2, Tool: "editFile", Args: json.RawMessage(`{"path":"a.go"}`), Status: tools.StatusOK, Via: "fenced-json",
			Output:   "staged an edit of a.go (1 replacement(s), now 10 bytes; matched by rule: whitespace) in changeset 1; sha256 ab.",
			Evidence: []tools.Evidence{{Kind: "file", Path: "a.go", Anchor: tools.NewEditAnchor("a\nb\nc\n", 2, 4)}}},
		{ID: 3, Step: 3, Tool: "runCommand", Args: json.RawMessage(`not json`), Status: tools.StatusFailed, Output: "bad \xff"},
	}
	got := TraceLines(ts, 10)
	require.Len(t, got, 3)
	assert.JSONEq(t, `{"path":"a.go"}`, got[0].Args)
	assert.Equal(t, strings.Repeat("x", 10)+"…", got[0].Result)
	assert.True(t, got[0].Clipped)
	assert.Equal(t, 3*time.Millisecond, got[0].Duration)
	assert.Equal(t, "whitespace", got[1].Rule)
	assert.Equal(t, "fenced-json", got[1].Via)
	assert.Equal(t, "a.go:2-2", got[1].Edit, "where the edit's block landed, from its anchor")
	assert.Equal(t, "not json", got[2].Args, "malformed arguments are shown as stored")
	assert.Equal(t, "bad \uFFFD", got[2].Result)
	assert.Equal(t, "failed", got[2].Status)
	assert.Empty(t, TraceLines(nil, 0))
}
