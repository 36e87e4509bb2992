package remote_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/rpc"
)

// Bad input is answered 400 on every verb, as docs/PROTOCOL.md says: the
// engine's validation sentinels (facts.ErrInvalid, goal.ErrEmptyGoal, …)
// used to fall through to 500 (issue 26).
func TestBadInputIsAnswered400(t *testing.T) {
	t.Parallel()
	ws := openLocal(t)
	srv, err := rpc.NewServer[engine.Workspace](ws, rpc.ServerOptions{Version: "test"})
	require.NoError(t, err)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)

	cases := []struct {
		name, method, body string
		status             int
		code               string
	}{
		{"AddFact without content", "AddFact", `[{"content":"   "}]`, 400, "facts.ErrInvalid"},
		{"AddFact with an unknown source", "AddFact", `[{"content":"x","source":{"type":"martian"}}]`, 400, "facts.ErrInvalid"},
		{"AddFact with a confidence above 1", "AddFact", `[{"content":"x","confidence":7}]`, 400, "facts.ErrInvalid"},
		{"AddFact with a malformed argument", "AddFact", `[{"content":12}]`, 400, "rpc.ErrBadRequest"},
		{"CorrectFact of a malformed id", "CorrectFact", `["not-an-id","because",""]`, 400, "facts.ErrInvalid"},
		{"FactHistory of an empty id", "FactHistory", `[""]`, 400, "facts.ErrInvalid"},
		{"CreateGoalRun without a goal", "CreateGoalRun", `["  ",{}]`, 400, "goal.ErrEmptyGoal"},
		{"FactHistory of a missing fact", "FactHistory", `["f999"]`, 404, "facts.ErrNotFound"},
	}
	for _, tc := range cases {
		resp, err := http.Post(hs.URL+rpc.Prefix()+"/call/"+tc.method, "application/json", strings.NewReader(tc.body))
		require.NoError(t, err, tc.name)
		var env struct {
			Error rpc.WireError `json:"error"`
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&env), tc.name)
		_ = resp.Body.Close()
		assert.Equal(t, tc.status, resp.StatusCode, "%s: %s", tc.name, env.Error.Message)
		assert.Contains(t, env.Error.Codes, tc.code, tc.name)
	}
}
