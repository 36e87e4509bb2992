package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStreamableHTTP: a server reached by url, with a header whose value
// comes from the environment (${VAR}).
func TestStreamableHTTP(t *testing.T) {
	t.Parallel()
	srv := sdk.NewServer(&sdk.Implementation{Name: "web", Version: "2.0.0"}, nil)
	addEcho(srv)
	var unauthorized atomic.Int32
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			unauthorized.Add(1)
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	env := map[string]string{"WEB_TOKEN": "s3cret"}
	m := New([]ServerConfig{{Name: "web", URL: ts.URL, Headers: map[string]string{"Authorization": "Bearer ${WEB_TOKEN}"}}},
		Options{Getenv: func(k string) string { return env[k] }})
	t.Cleanup(func() { _ = m.Close() })

	res, err := m.Call(context.Background(), "web", "echo", json.RawMessage(`{"message":"over http"}`))
	require.NoError(t, err)
	assert.Equal(t, "echo: over http", res.Text)
	st := m.Status()
	assert.Equal(t, "http", st[0].Transport)
	assert.Equal(t, "web", st[0].ServerName)
	assert.Zero(t, unauthorized.Load())

	// Without the token the server refuses: an error naming the server.
	m2 := New([]ServerConfig{{Name: "web", URL: ts.URL}}, Options{Getenv: func(string) string { return "" }})
	t.Cleanup(func() { _ = m2.Close() })
	_, err = m2.Start(context.Background(), "web")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "mcp server web")
}
