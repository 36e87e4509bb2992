package docs_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/knowledge/docs"
	"github.com/nova-dev/nova/engine/knowledge/docs/docstest"
	"github.com/nova-dev/nova/storage"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func openDB(t testing.TB) *storage.DB {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "nova.db"), storage.Options{NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// env gives lookups an empty module cache and no GOROOT packages unless set.
func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

type fixture struct {
	f     *docs.Fetcher
	db    *storage.DB
	clock *clock
	root  string
}

func newFetcher(t testing.TB, url string, mod func(*docs.Options)) fixture {
	t.Helper()
	root := t.TempDir()
	c := &clock{t: time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)}
	db := openDB(t)
	o := docs.Options{Root: root, BaseURL: url, Now: c.Now, Timeout: 2 * time.Second,
		Getenv: env(map[string]string{"GOMODCACHE": filepath.Join(root, "no-modcache"), "GOROOT": filepath.Join(root, "no-goroot")})}
	if mod != nil {
		mod(&o)
	}
	return fixture{f: docs.New(db, o), db: db, clock: c, root: root}
}

func TestFetchGoesToTheNetworkOnceThenServesTheCache(t *testing.T) {
	t.Parallel()
	srv := docstest.New(t, docstest.Options{})
	fx := newFetcher(t, srv.URL(), nil)
	ctx := context.Background()

	r, err := fx.f.Fetch(ctx, "react", "hooks", docs.FetchOptions{})
	require.NoError(t, err)
	assert.Equal(t, docs.FromNetwork, r.Source)
	assert.True(t, r.Available)
	assert.Contains(t, r.Content, "useEffect runs after render")
	assert.Equal(t, "/facebook/react", r.Origin)
	assert.Equal(t, 1, srv.Count("/api/v2/libs/search"))
	assert.Equal(t, 1, srv.Count("/api/v2/context"))
	assert.False(t, r.FetchedAt.IsZero())

	fx.clock.Advance(6 * 24 * time.Hour) // within the 7-day TTL
	again, err := fx.f.Fetch(ctx, "React", " hooks ", docs.FetchOptions{})
	require.NoError(t, err)
	assert.Equal(t, docs.FromCache, again.Source)
	assert.Equal(t, r.Content, again.Content)
	assert.Equal(t, r.Ref, again.Ref, "names are normalised into one key")
	assert.Equal(t, 2, srv.Count(""), "a second fetch within the TTL makes no network request")
}

func TestStaleEntriesAreRefreshedOnlineAndServedOffline(t *testing.T) {
	t.Parallel()
	srv := docstest.New(t, docstest.Options{})
	fx := newFetcher(t, srv.URL(), nil)
	ctx := context.Background()
	_, err := fx.f.Fetch(ctx, "zod", "", docs.FetchOptions{})
	require.NoError(t, err)

	fx.clock.Advance(8 * 24 * time.Hour)
	r, err := fx.f.Fetch(ctx, "zod", "", docs.FetchOptions{})
	require.NoError(t, err)
	assert.Equal(t, docs.FromNetwork, r.Source, "a stale entry is refreshed when the network answers")
	assert.Equal(t, 4, srv.Count(""))

	fx.clock.Advance(8 * 24 * time.Hour)
	srv.Close()
	r, err = fx.f.Fetch(ctx, "zod", "", docs.FetchOptions{})
	require.NoError(t, err, "stale docs are better than none")
	assert.Equal(t, docs.FromCache, r.Source)
	assert.True(t, r.Stale)
	assert.True(t, r.Available)
	assert.Contains(t, r.Content, "safeParse")
	assert.Contains(t, r.Warning, "could not refresh")
}

func TestNothingFoundGivesTheFallbackText(t *testing.T) {
	t.Parallel()
	srv := docstest.New(t, docstest.Options{})
	fx := newFetcher(t, srv.URL(), nil)
	ctx := context.Background()

	r, err := fx.f.Fetch(ctx, "left-pad-nonexistent", "", docs.FetchOptions{})
	require.ErrorIs(t, err, docs.ErrUnavailable)
	require.ErrorIs(t, err, docs.ErrNotFound)
	assert.Equal(t, "Documentation unavailable for left-pad-nonexistent. Please consult the official docs.", r.Content)
	assert.Equal(t, docs.FromNone, r.Source)
	assert.False(t, r.Available)

	srv.Close()
	r, err = fx.f.Fetch(ctx, "react", "hooks", docs.FetchOptions{})
	require.ErrorIs(t, err, docs.ErrUnavailable)
	assert.Equal(t, "Documentation unavailable for react (hooks). Please consult the official docs.", r.Content)
	assert.Contains(t, err.Error(), "unreachable")
}

func TestMisbehavingServersNeverBlockAndNeverPoisonTheCache(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		mode docstest.Mode
		want string
	}{
		{"500", docstest.Status500, "HTTP 500"},
		{"html", docstest.HTML, "HTML"},
		{"empty", docstest.Empty, "not JSON"},
		{"not utf-8", docstest.NotUTF8, "not JSON"},
		{"5 MB", docstest.Huge, "larger than"},
		{"never finishes", docstest.Hang, "in time"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := docstest.New(t, docstest.Options{})
			srv.SetMode(tc.mode)
			fx := newFetcher(t, srv.URL(), func(o *docs.Options) { o.Timeout = 300 * time.Millisecond })
			done := make(chan struct{})
			var r docs.Result
			var err error
			go func() {
				defer close(done)
				r, err = fx.f.Fetch(context.Background(), "react", "hooks", docs.FetchOptions{})
			}()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("fetch hung")
			}
			require.ErrorIs(t, err, docs.ErrUnavailable)
			assert.Contains(t, err.Error(), tc.want)
			assert.Equal(t, docs.Unavailable("react", "hooks"), r.Content)
			st, err := fx.f.Cache().Stats(context.Background())
			require.NoError(t, err)
			assert.Zero(t, st.Entries, "nothing bad is cached")
		})
	}
}

func TestContextAnswersThatAreNotDocsAreRefused(t *testing.T) {
	t.Parallel()
	// The search works but the context endpoint misbehaves.
	srv := docstest.New(t, docstest.Options{})
	fx := newFetcher(t, srv.URL(), nil)
	client := fx.f.Client()
	require.NotNil(t, client)
	ctx := context.Background()
	for _, m := range []docstest.Mode{docstest.HTML, docstest.NotUTF8, docstest.Empty} {
		srv.SetMode(m)
		_, err := client.Context(ctx, "/facebook/react", "hooks")
		require.ErrorIs(t, err, docs.ErrBadResponse, "mode %d", m)
	}
	srv.SetMode(docstest.Huge)
	text, err := client.Context(ctx, "/facebook/react", "hooks")
	require.NoError(t, err, "a huge text is cut, not refused")
	assert.LessOrEqual(t, len(text), docs.MaxContextBody)
	srv.SetMode(docstest.Normal)
	_, err = client.Context(ctx, "/nobody/nothing", "x")
	require.ErrorIs(t, err, docs.ErrNotFound)
}

func TestAPIKeyIsSentAsBearerAndOnlyWhenSet(t *testing.T) {
	t.Parallel()
	srv := docstest.New(t, docstest.Options{APIKey: "ctx7sk-test"})
	anon := newFetcher(t, srv.URL(), nil)
	_, err := anon.f.Fetch(context.Background(), "react", "", docs.FetchOptions{})
	require.ErrorIs(t, err, docs.ErrUnavailable)
	assert.Contains(t, err.Error(), "CONTEXT7_API_KEY", "a 401 says what to do")
	keyed := newFetcher(t, srv.URL()+"/api/", func(o *docs.Options) { o.APIKey = "ctx7sk-test" })
	r, err := keyed.f.Fetch(context.Background(), "react", "", docs.FetchOptions{})
	require.NoError(t, err, "a base URL ending in /api is accepted")
	assert.Equal(t, docs.FromNetwork, r.Source)
	auth := srv.Authorizations()
	require.NotEmpty(t, auth)
	assert.Empty(t, auth[0], "anonymous without a key")
	assert.Equal(t, "Bearer ctx7sk-test", auth[len(auth)-1])
}

func TestBudgetCutsWithAMarker(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("useState keeps state between renders. ", 600) // ≈ 5,700 tokens
	srv := docstest.New(t, docstest.Options{Libraries: []docstest.Library{{ID: "/facebook/react", Title: "React", Docs: map[string]string{"": long}}}})
	fx := newFetcher(t, srv.URL(), nil)
	r, err := fx.f.Fetch(context.Background(), "react", "", docs.FetchOptions{})
	require.NoError(t, err)
	assert.True(t, r.Truncated)
	assert.True(t, strings.HasSuffix(r.Content, "...[truncated]"))
	assert.LessOrEqual(t, docs.EstimateTokens(r.Content), docs.DefaultMaxTokens)
	assert.Equal(t, r.Tokens, docs.EstimateTokens(r.Content))
	small, err := fx.f.Fetch(context.Background(), "react", "", docs.FetchOptions{MaxTokens: 100})
	require.NoError(t, err)
	assert.LessOrEqual(t, docs.EstimateTokens(small.Content), 100)
	full, _ := docs.Truncate("short", 100)
	assert.Equal(t, "short", full)
}

func TestBadNamesAreRefusedOrSanitised(t *testing.T) {
	t.Parallel()
	srv := docstest.New(t, docstest.Options{})
	fx := newFetcher(t, srv.URL(), nil)
	ctx := context.Background()

	r, err := fx.f.Fetch(ctx, "  \t", "", docs.FetchOptions{})
	require.ErrorIs(t, err, docs.ErrInvalid)
	assert.Contains(t, err.Error(), "empty")
	assert.Contains(t, r.Content, "Documentation unavailable")

	_, err = fx.f.Fetch(ctx, strings.Repeat("x", 10<<10), "", docs.FetchOptions{})
	require.ErrorIs(t, err, docs.ErrInvalid)
	assert.Contains(t, err.Error(), "at most 512")

	// Path tricks and NUL only ever name a bbolt key.
	for _, lib := range []string{"../../etc/passwd", "react\x00../x", "/../../x", "..", "node_modules/../../y"} {
		_, _ = fx.f.Fetch(ctx, lib, "../"+lib, docs.FetchOptions{})
	}
	r, err = fx.f.Fetch(ctx, "re\x00act", "hoo\x00ks", docs.FetchOptions{})
	require.NoError(t, err, "NUL is dropped")
	assert.Equal(t, "react", r.Library)
	long := strings.Repeat("é", 250) // 500 bytes: accepted, key cut with a hash
	_, _ = fx.f.Fetch(ctx, "react", long, docs.FetchOptions{})
	require.NoError(t, fx.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(storage.BucketDocsCache).ForEach(func(k, _ []byte) error {
			assert.LessOrEqual(t, len(k), 3*210, "keys are bounded")
			assert.NotContains(t, string(k), "\x00\x00\x00")
			return nil
		})
	}))
	ents, err := os.ReadDir(fx.root)
	require.NoError(t, err)
	assert.Empty(t, ents, "nothing is written outside the store")
}

func TestRefsRoundTrip(t *testing.T) {
	t.Parallel()
	for _, k := range []docs.Key{
		docs.NewKey(docs.SourceContext7, "React", "Hooks"),
		docs.NewKey(docs.SourceLocal, "github.com/BurntSushi/toml", ""),
		docs.NewKey(docs.SourceContext7, "c#", "a#b%c"),
		docs.NewKey(docs.SourceContext7, strings.Repeat("long", 100), ""),
	} {
		back, err := docs.ParseRef(k.Ref())
		require.NoError(t, err, k.Ref())
		assert.Equal(t, k, back)
	}
	assert.Equal(t, "docs:local:github.com/BurntSushi/toml", docs.NewKey(docs.SourceLocal, "github.com/BurntSushi/toml", "").Ref(), "local names keep their case")
	_, err := docs.ParseRef("vault:12")
	require.ErrorIs(t, err, docs.ErrInvalid)
}

func TestCacheListClearStatsAndSearch(t *testing.T) {
	t.Parallel()
	srv := docstest.New(t, docstest.Options{})
	fx := newFetcher(t, srv.URL(), nil)
	ctx := context.Background()
	for _, q := range [][2]string{{"react", "hooks"}, {"react", ""}, {"zod", ""}, {"next.js", "routing"}} {
		_, err := fx.f.Fetch(ctx, q[0], q[1], docs.FetchOptions{})
		require.NoError(t, err, q)
		fx.clock.Advance(time.Minute)
	}
	c := fx.f.Cache()
	list, err := c.List(ctx, "")
	require.NoError(t, err)
	require.Len(t, list, 4)
	assert.Equal(t, "next.js", list[0].Library, "newest first")
	assert.Positive(t, list[0].Bytes)

	hits, err := c.Search(ctx, "cleanup subscriptions after render", 5)
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	assert.Equal(t, "react", hits[0].Library)
	assert.Equal(t, "hooks", hits[0].Topic)
	assert.InDelta(t, 1.0, hits[0].Score, 1e-9)
	assert.Contains(t, hits[0].Snippet, "cleanup")

	// Another handle on the same file sees the change (the index follows ~rev).
	other := docs.NewCache(fx.db, fx.clock.Now)
	n, err := other.Clear(ctx, "React")
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	hits, err = c.Search(ctx, "cleanup subscriptions after render", 5)
	require.NoError(t, err)
	for _, h := range hits {
		assert.NotEqual(t, "react", h.Library)
	}

	require.NoError(t, c.Remove(ctx, list[0].Ref), "next.js routing")
	require.ErrorIs(t, c.Remove(ctx, list[0].Ref), storage.ErrNotFound)
	hits, err = c.Search(ctx, "routing", 5)
	require.NoError(t, err)
	assert.Empty(t, hits, "a removed entry leaves the index")
	_, err = fx.f.Fetch(ctx, "next.js", "routing", docs.FetchOptions{})
	require.NoError(t, err)

	fx.clock.Advance(10 * 24 * time.Hour)
	st, err := c.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, st.Entries)
	assert.Equal(t, 2, st.Stale)
	assert.Equal(t, 2, st.BySource[docs.SourceContext7])
	assert.True(t, st.Newest.After(st.Oldest))
	n, err = c.Clear(ctx, "")
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	hits, err = c.Search(ctx, "routing", 5)
	require.NoError(t, err)
	assert.Empty(t, hits)
}

func TestOfflineConfigUsesLocalAndCacheOnly(t *testing.T) {
	t.Parallel()
	fx := newFetcher(t, "off", nil)
	r, err := fx.f.Fetch(context.Background(), "react", "", docs.FetchOptions{})
	require.ErrorIs(t, err, docs.ErrUnavailable)
	require.ErrorIs(t, err, docs.ErrOffline)
	assert.False(t, r.Available)
	assert.Nil(t, fx.f.Client())
}

func TestSnippet(t *testing.T) {
	t.Parallel()
	text := strings.Repeat("padding words here ", 40) + "the Needle sits here " + strings.Repeat("tail ", 40)
	s := docs.Snippet(text, "needle", 60)
	assert.Contains(t, s, "Needle")
	assert.True(t, strings.HasPrefix(s, "…"))
	assert.Equal(t, "short text", docs.Snippet("short\n\ntext", "zzz", 60))
	assert.Contains(t, docs.Snippet(strings.Repeat("x ", 100)+"Größe und ÄRGER", "ärger", 30), "ÄRGER")
	assert.Contains(t, docs.Snippet(strings.Repeat("y ", 100)+"call useEffect here", "USEEFFECT", 30), "useEffect")
}

func reopenReadOnly(t testing.TB, path string) *storage.DB {
	t.Helper()
	db, err := storage.Open(path, storage.Options{ReadOnly: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db
}
