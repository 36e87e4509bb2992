package llm

import (
	"encoding/json"
	"testing"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tool cache changes nothing on the wire: every request carries the bytes the direct
// conversion gives, and the request estimate is the one encoding every tool gives.
func TestToolCacheSameWireBytes(t *testing.T) {
	t.Parallel()
	c, err := New(Config{Host: "127.0.0.1:1"})
	require.NoError(t, err)
	tools := []Tool{
		{Name: "readFile", Description: "Read a file of the workspace.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"relative path"},"from":{"type":"integer"}},"required":["path"]}`)},
		{Name: "listDir", Description: "List a directory."},
		{Name: "grep", Parameters: json.RawMessage(`{"properties":{"pattern":{"type":"string"},"kinds":{"type":"array","items":{"type":"string","enum":["go","md"]}}}}`)},
	}
	req := ChatRequest{Model: "m", Messages: []Message{{Role: RoleUser, Content: "hello there, what is in the repo?"}}, Tools: tools}
	direct := &api.ChatRequest{}
	for _, tl := range tools {
		at, err := toAPITool(tl)
		require.NoError(t, err)
		direct.Tools = append(direct.Tools, at)
	}
	want, err := json.Marshal(direct.Tools)
	require.NoError(t, err)
	for range 3 {
		areq, err := c.toAPIChat(req, true)
		require.NoError(t, err)
		got, err := json.Marshal(areq.Tools)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got))
		assert.Equal(t, EstimateRequest(areq), estimateRequest(areq, c.tools.encodedSize))
	}
	// A tool that differs in any part is another entry.
	changed := req
	changed.Tools = []Tool{{Name: "listDir", Description: "List a directory, recursively."}}
	areq, err := c.toAPIChat(changed, true)
	require.NoError(t, err)
	assert.Equal(t, "List a directory, recursively.", areq.Tools[0].Function.Description)
	// A bad schema is still refused, every time.
	bad := req
	bad.Tools = []Tool{{Name: "x", Parameters: json.RawMessage(`[1]`)}}
	for range 2 {
		_, err := c.toAPIChat(bad, true)
		require.ErrorIs(t, err, ErrBadRequest)
	}
}
