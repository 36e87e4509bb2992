package docs_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/knowledge/docs"
	"github.com/nova-dev/nova/engine/knowledge/docs/docstest"
)

// redirector answers every request with a redirect to target (same path
// and query).
func redirector(t *testing.T, target func(r *http.Request) string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target(r), http.StatusFound)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestRedirectToAnotherPortIsRefusedAndTheKeyStaysHome(t *testing.T) {
	t.Parallel()
	other := docstest.New(t, docstest.Options{}) // the same host, another port
	front := redirector(t, func(r *http.Request) string { return other.URL() + r.URL.RequestURI() })
	fx := newFetcher(t, front.URL, func(o *docs.Options) { o.APIKey = "ctx7sk-secret" })

	_, err := fx.f.Fetch(context.Background(), "react", "hooks", docs.FetchOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "redirected to another origin")
	assert.Equal(t, 0, other.Count(""), "the other port was never asked")
	for _, a := range other.Authorizations() {
		assert.NotContains(t, a, "ctx7sk-secret")
	}
	st, err := fx.f.Cache().Stats(context.Background())
	require.NoError(t, err)
	assert.Zero(t, st.Entries, "nothing is cached")
}

func TestRedirectToAnotherHostIsNotCachedAsDocs(t *testing.T) {
	t.Parallel()
	other := docstest.New(t, docstest.Options{})
	u, err := url.Parse(other.URL())
	require.NoError(t, err)
	// localhost and 127.0.0.1 are two origins for the client.
	elsewhere := "http://localhost:" + u.Port()
	front := redirector(t, func(r *http.Request) string { return elsewhere + r.URL.RequestURI() })
	client, err := docs.NewClient(docs.ClientOptions{BaseURL: front.URL, APIKey: "ctx7sk-secret"})
	require.NoError(t, err)

	_, err = client.Context(context.Background(), "/facebook/react", "hooks")
	require.ErrorIs(t, err, docs.ErrBadResponse)
	assert.Contains(t, err.Error(), strings.TrimPrefix(elsewhere, "http://"), "the message names where it led")
	assert.Equal(t, 0, other.Count(""))

	fx := newFetcher(t, front.URL, nil)
	_, err = fx.f.Fetch(context.Background(), "react", "hooks", docs.FetchOptions{})
	require.Error(t, err)
	st, err := fx.f.Cache().Stats(context.Background())
	require.NoError(t, err)
	assert.Zero(t, st.Entries, "another host's answer is never cached as documentation")
}

func TestRedirectWithinTheOriginIsFollowedWithTheKey(t *testing.T) {
	t.Parallel()
	h := docstest.NewHandler(docstest.Options{APIKey: "ctx7sk-secret"})
	mux := http.NewServeMux()
	mux.HandleFunc("/moved/", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, strings.TrimPrefix(r.URL.RequestURI(), "/moved"), http.StatusMovedPermanently)
	})
	mux.Handle("/", h)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	client, err := docs.NewClient(docs.ClientOptions{BaseURL: srv.URL + "/moved", APIKey: "ctx7sk-secret"})
	require.NoError(t, err)
	text, err := client.Context(context.Background(), "/facebook/react", "hooks")
	require.NoError(t, err)
	assert.NotEmpty(t, text)
	auth := h.Authorizations()
	require.NotEmpty(t, auth)
	assert.Equal(t, "Bearer ctx7sk-secret", auth[len(auth)-1])
}
