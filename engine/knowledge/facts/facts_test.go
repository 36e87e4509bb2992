package facts_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/knowledge/facts"
	"github.com/nova-dev/nova/storage"
)

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

type fixture struct {
	s        *facts.Service
	db       *storage.DB
	clock    *clock
	root     string
	userPath string
}

func newService(t testing.TB) fixture {
	t.Helper()
	root := t.TempDir()
	db, err := storage.Open(filepath.Join(root, ".nova", "nova.db"), storage.Options{NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	c := &clock{t: time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)}
	home := t.TempDir()
	userPath := facts.UserPath(func(k string) string { return map[string]string{"NOVA_HOME": home}[k] })
	s := facts.New(facts.Options{DB: db, UserPath: userPath, Root: root, Author: "dev", Now: c.Now,
		UserLockTimeout: 100 * time.Millisecond})
	return fixture{s: s, db: db, clock: c, root: root, userPath: userPath}
}

func conf(v float64) *float64 { return &v }

func add(t testing.TB, fx fixture, content string, scope facts.Scope, tags ...string) facts.Fact {
	t.Helper()
	f, err := fx.s.Add(context.Background(), facts.NewFact{Content: content, Scope: scope, Tags: tags})
	require.NoError(t, err)
	return f
}

func ids(fs []facts.Scored) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, f.ID)
	}
	return out
}

func TestAddValidatesAndFillsDefaults(t *testing.T) {
	t.Parallel()
	fx := newService(t)
	ctx := context.Background()
	f, err := fx.s.Add(ctx, facts.NewFact{Content: "  The API uses cursor pagination\x00 ", Tags: []string{"#API", "api", "Paging Rules"}})
	require.NoError(t, err)
	assert.Equal(t, "f1", f.ID)
	assert.Equal(t, "The API uses cursor pagination", f.Content)
	assert.Equal(t, facts.Workspace(), f.Scope, "workspace is the default scope")
	assert.Equal(t, facts.SourceUser, f.Source.Type)
	assert.InDelta(t, 0.9, f.Confidence, 1e-9)
	assert.Equal(t, []string{"api", "paging-rules"}, f.Tags)
	assert.Equal(t, "dev", f.Author)
	assert.Equal(t, facts.StatusValid, f.Status)
	assert.Equal(t, fx.clock.Now(), f.ValidFrom)

	for _, in := range []facts.NewFact{
		{Content: "x", Confidence: conf(1.5)},
		{Content: "x", Confidence: conf(-0.1)},
		{Content: "   "},
		{Content: string(make([]byte, 3000))},
		{Content: "x", Source: facts.Source{Type: "rumour"}},
		{Content: "x", Scope: facts.Scope{Level: facts.LevelBuild}},
	} {
		_, err := fx.s.Add(ctx, in)
		require.ErrorIs(t, err, facts.ErrInvalid, "%+v", in)
	}
	got, err := fx.s.Get(ctx, "F1")
	require.NoError(t, err)
	assert.Equal(t, f.Content, got.Content)
	_, err = fx.s.Get(ctx, "f99")
	require.ErrorIs(t, err, facts.ErrNotFound)
	_, err = fx.s.Get(ctx, "banana")
	require.ErrorIs(t, err, facts.ErrInvalid)
}

func TestNarrowScopesSeeBroaderOnesNeverTheReverse(t *testing.T) {
	t.Parallel()
	fx := newService(t)
	ctx := context.Background()
	u := add(t, fx, "Prefer table-driven tests in Go", facts.User())
	w := add(t, fx, "This project's tests use testify require for preconditions", facts.Workspace())
	b := add(t, fx, "Build 7 found that the tests need a temp dir", facts.Build("7"))
	other := add(t, fx, "Build 8 tests ran against a fake server", facts.Build("8"))
	a := add(t, fx, "MARS writes tests before the fix", facts.Agent("mars"))
	assert.Equal(t, "u1", u.ID)
	assert.Equal(t, facts.Agent("MARS"), a.Scope, "agent names match in any case")

	search := func(o facts.SearchOptions) []string {
		res, err := fx.s.Search(ctx, "tests", o)
		require.NoError(t, err)
		assert.Empty(t, res.Warnings)
		return ids(res.Facts)
	}
	assert.ElementsMatch(t, []string{u.ID}, search(facts.SearchOptions{Scope: facts.User()}))
	assert.ElementsMatch(t, []string{u.ID, w.ID}, search(facts.SearchOptions{Scope: facts.Workspace()}))
	assert.ElementsMatch(t, []string{u.ID, w.ID, b.ID}, search(facts.SearchOptions{Scope: facts.Build("7")}))
	assert.ElementsMatch(t, []string{u.ID, w.ID, a.ID}, search(facts.SearchOptions{Scope: facts.Agent("MARS")}))
	assert.ElementsMatch(t, []string{u.ID, w.ID, b.ID, a.ID}, search(facts.SearchOptions{Scope: facts.Agent("MARS"), Build: "7"}))
	assert.ElementsMatch(t, []string{u.ID, w.ID, b.ID, other.ID, a.ID}, search(facts.SearchOptions{}), "no scope: everything")
	assert.Len(t, search(facts.SearchOptions{Limit: 2}), 2)

	res, err := fx.s.Search(ctx, "tests", facts.SearchOptions{MinConfidence: 0.95})
	require.NoError(t, err)
	assert.Empty(t, res.Facts)
	_, err = fx.s.Search(ctx, "tests", facts.SearchOptions{MinConfidence: 1.5})
	require.ErrorIs(t, err, facts.ErrInvalid)
	_, err = fx.s.Search(ctx, "  ", facts.SearchOptions{})
	require.ErrorIs(t, err, facts.ErrInvalid)
}

func TestSearchRanksByTextThenConfidenceAndRecency(t *testing.T) {
	t.Parallel()
	fx := newService(t)
	ctx := context.Background()
	old, err := fx.s.Add(ctx, facts.NewFact{Content: "Deploys go through the staging cluster first", Confidence: conf(0.9)})
	require.NoError(t, err)
	_, err = fx.s.Add(ctx, facts.NewFact{Content: "The cache is warmed on boot", Confidence: conf(0.9)})
	require.NoError(t, err)
	fx.clock.Advance(120 * 24 * time.Hour)
	recent, err := fx.s.Add(ctx, facts.NewFact{Content: "Deploys now go through the canary cluster first", Confidence: conf(0.9)})
	require.NoError(t, err)

	res, err := fx.s.Search(ctx, "deploy cluster", facts.SearchOptions{Recency: facts.RecencyRecent})
	require.NoError(t, err)
	require.Len(t, res.Facts, 2, "a fact sharing no term never ranks")
	assert.Equal(t, recent.ID, res.Facts[0].ID)
	res, err = fx.s.Search(ctx, "deploy cluster", facts.SearchOptions{Recency: facts.RecencyEstablished})
	require.NoError(t, err)
	assert.Equal(t, old.ID, res.Facts[0].ID)
	for _, f := range res.Facts {
		assert.True(t, f.Score > 0 && f.Score <= 1, f.Score)
	}
	_, err = facts.ParseRecency("newest")
	require.ErrorIs(t, err, facts.ErrInvalid)
}

func TestCorrectClosesAndLinksNothingIsDeleted(t *testing.T) {
	t.Parallel()
	fx := newService(t)
	ctx := context.Background()
	f := add(t, fx, "The API rate limit is 100 requests per minute", facts.Workspace(), "api")
	fx.clock.Advance(time.Hour)

	c, err := fx.s.Correct(ctx, f.ID, "the limit was raised in v2", "The API rate limit is 500 requests per minute", facts.Source{})
	require.NoError(t, err)
	require.NotNil(t, c.New)
	assert.Equal(t, facts.StatusSuperseded, c.Old.Status)
	assert.Equal(t, fx.clock.Now(), c.Old.ValidUntil)
	assert.Equal(t, "the limit was raised in v2", c.Old.Reason)
	assert.Equal(t, c.New.ID, c.Old.SupersededBy)
	assert.Equal(t, f.ID, c.New.Supersedes)
	assert.Equal(t, []string{"api"}, c.New.Tags, "the replacement keeps scope and tags")
	assert.Equal(t, facts.Workspace(), c.New.Scope)

	res, err := fx.s.Search(ctx, "rate limit", facts.SearchOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{c.New.ID}, ids(res.Facts), "invalidated facts are hidden")
	res, err = fx.s.Search(ctx, "rate limit", facts.SearchOptions{IncludeInvalidated: true})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{f.ID, c.New.ID}, ids(res.Facts), "…unless asked for")

	c2, err := fx.s.Correct(ctx, c.New.ID, "the endpoint is gone", "", facts.Source{})
	require.NoError(t, err)
	assert.Nil(t, c2.New)
	assert.Equal(t, facts.StatusInvalidated, c2.Old.Status)

	hist, err := fx.s.History(ctx, c.New.ID)
	require.NoError(t, err)
	require.Len(t, hist, 2)
	assert.Equal(t, f.ID, hist[0].ID, "oldest first")
	assert.Equal(t, c.New.ID, hist[1].ID)
	hist, err = fx.s.History(ctx, f.ID)
	require.NoError(t, err)
	assert.Len(t, hist, 2, "the same chain from either end")

	_, err = fx.s.Correct(ctx, f.ID, "again", "", facts.Source{})
	require.ErrorIs(t, err, facts.ErrAlreadyInvalidated)
	assert.Contains(t, err.Error(), "its replacement is "+c.New.ID)
	_, err = fx.s.Correct(ctx, "f404", "why", "", facts.Source{})
	require.ErrorIs(t, err, facts.ErrNotFound)
	_, err = fx.s.Correct(ctx, c.New.ID, "", "", facts.Source{})
	require.ErrorIs(t, err, facts.ErrInvalid, "a reason is required")

	list, err := fx.s.List(ctx, facts.ListOptions{IncludeInvalidated: true})
	require.NoError(t, err)
	assert.Len(t, list.Facts, 2, "nothing was deleted")
}

func TestAgentsMayNotCorrectUserFacts(t *testing.T) {
	t.Parallel()
	fx := newService(t)
	u := add(t, fx, "I prefer tabs", facts.User())
	_, err := fx.s.Correct(context.Background(), u.ID, "no", "spaces", facts.Source{Type: facts.SourceAgent, Agent: "MARS"})
	require.ErrorIs(t, err, facts.ErrNotAllowed)
	c, err := fx.s.Correct(context.Background(), u.ID, "changed my mind", "I prefer spaces", facts.Source{})
	require.NoError(t, err)
	assert.Equal(t, "u2", c.New.ID, "the replacement stays in the user file")
}

func TestPromoteMovesABuildLessonOutward(t *testing.T) {
	t.Parallel()
	fx := newService(t)
	ctx := context.Background()
	b := add(t, fx, "Migrations must be appended, never edited", facts.Build("3"), "storage")
	c, err := fx.s.Promote(ctx, b.ID, facts.Workspace())
	require.NoError(t, err)
	assert.Equal(t, facts.Workspace(), c.New.Scope)
	assert.Equal(t, facts.SourcePromoted, c.New.Source.Type)
	assert.Equal(t, b.ID, c.New.Source.FromFactID)
	assert.Equal(t, "promoted to workspace", c.Old.Reason)

	up, err := fx.s.Promote(ctx, c.New.ID, facts.User())
	require.NoError(t, err)
	assert.Equal(t, "u1", up.New.ID, "promotion to user crosses into the user file")
	hist, err := fx.s.History(ctx, up.New.ID)
	require.NoError(t, err)
	assert.Len(t, hist, 3)

	w := add(t, fx, "Use make test", facts.Workspace())
	_, err = fx.s.Promote(ctx, w.ID, facts.Build("3"))
	require.ErrorIs(t, err, facts.ErrInvalid, "only outward")
	_, err = fx.s.Promote(ctx, b.ID, facts.Workspace())
	require.ErrorIs(t, err, facts.ErrAlreadyInvalidated)
}

func TestUsefulnessArchivesUnhelpfulAndUnusedFacts(t *testing.T) {
	t.Parallel()
	fx := newService(t)
	ctx := context.Background()
	bad := add(t, fx, "Always retry the flaky test three times", facts.Workspace())
	good := add(t, fx, "Run go vet before committing", facts.Workspace())
	idle := add(t, fx, "The legacy importer lives in cmd/legacy", facts.Workspace())

	require.NoError(t, fx.s.MarkRetrieved(ctx, []string{bad.ID, good.ID, "f999", "junk"}))
	for i := range 3 {
		archived, err := fx.s.RecordOutcome(ctx, []string{bad.ID}, false)
		require.NoError(t, err)
		if i < 2 {
			assert.Empty(t, archived, "fewer than 3 uses never archive")
		} else {
			assert.Equal(t, []string{bad.ID}, archived)
		}
		_, err = fx.s.RecordOutcome(ctx, []string{good.ID}, true)
		require.NoError(t, err)
	}
	got, err := fx.s.Get(ctx, bad.ID)
	require.NoError(t, err)
	assert.Equal(t, facts.StatusArchived, got.Status)
	assert.Equal(t, 1, got.Retrievals)
	assert.Equal(t, 3, got.NotHelpful)
	assert.Contains(t, got.ArchiveReason, "helped 0 of 3")
	res, err := fx.s.Search(ctx, "flaky test retry", facts.SearchOptions{})
	require.NoError(t, err)
	assert.Empty(t, res.Facts, "archived facts are hidden")

	fx.clock.Advance(91 * 24 * time.Hour)
	_, err = fx.s.RecordOutcome(ctx, []string{good.ID}, true) // used again: stays
	require.NoError(t, err)
	rep, err := fx.s.Sweep(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{idle.ID}, rep.Archived)
	got, err = fx.s.Get(ctx, idle.ID)
	require.NoError(t, err)
	assert.Equal(t, "unused for 90 days", got.ArchiveReason)

	back, err := fx.s.Reaffirm(ctx, idle.ID)
	require.NoError(t, err)
	assert.Equal(t, facts.StatusValid, back.Status)
	list, err := fx.s.List(ctx, facts.ListOptions{IncludeInvalidated: true})
	require.NoError(t, err)
	assert.Len(t, list.Facts, 3, "archiving deletes nothing")
}

func TestFactsNamingAChangedFileAreFlagged(t *testing.T) {
	t.Parallel()
	fx := newService(t)
	ctx := context.Background()
	require.NoError(t, os.MkdirAll(filepath.Join(fx.root, "engine", "vault"), 0o755))
	file := filepath.Join(fx.root, "engine", "vault", "search.go")
	require.NoError(t, os.WriteFile(file, []byte("package vault\n"), 0o644))
	f := add(t, fx, "The blend weights live in engine/vault/search.go and ../outside.go and /etc/passwd.", facts.Workspace())
	require.Len(t, f.Files, 1, "only existing files inside the workspace")
	assert.Equal(t, "engine/vault/search.go", f.Files[0].Path)

	rep, err := fx.s.Sweep(ctx)
	require.NoError(t, err)
	assert.Empty(t, rep.Flagged, "unchanged")
	require.NoError(t, os.WriteFile(file, []byte("package vault\n\nconst x = 1\n"), 0o644))
	rep, err = fx.s.Sweep(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{f.ID}, rep.Flagged)
	got, err := fx.s.Get(ctx, f.ID)
	require.NoError(t, err)
	assert.Contains(t, got.Review, "engine/vault/search.go changed")
	assert.Equal(t, facts.StatusValid, got.Status, "flagged facts stay valid")
	ok, err := fx.s.Reaffirm(ctx, f.ID)
	require.NoError(t, err)
	assert.Empty(t, ok.Review)
}

func TestLockedOrCorruptUserFileKeepsWorkspaceScopesWorking(t *testing.T) {
	t.Parallel()
	fx := newService(t)
	ctx := context.Background()
	add(t, fx, "User level: prefer small commits", facts.User())
	w := add(t, fx, "Workspace level: commits are squashed on merge", facts.Workspace())

	// Another process holds the user file.
	holder, err := storage.Open(fx.userPath, storage.Options{Migrations: storage.UserMigrations})
	require.NoError(t, err)
	other := facts.New(facts.Options{DB: fx.db, UserPath: fx.userPath, UserLockTimeout: 50 * time.Millisecond, Now: fx.clock.Now})
	res, err := other.Search(ctx, "commits", facts.SearchOptions{})
	require.NoError(t, err, "a locked user file is not an error")
	assert.Equal(t, []string{w.ID}, ids(res.Facts))
	require.Len(t, res.Warnings, 1)
	assert.Contains(t, res.Warnings[0], "locked by another nova process")
	_, err = other.Add(ctx, facts.NewFact{Content: "x", Scope: facts.User()})
	require.ErrorIs(t, err, facts.ErrUserUnavailable)
	_, err = other.Add(ctx, facts.NewFact{Content: "workspace still takes writes"})
	require.NoError(t, err)
	require.NoError(t, holder.Close())

	// A damaged user file.
	require.NoError(t, os.WriteFile(fx.userPath, []byte("this is not a database at all, just text"), 0o600))
	third := facts.New(facts.Options{DB: fx.db, UserPath: fx.userPath, Now: fx.clock.Now})
	res, err = third.Search(ctx, "commits", facts.SearchOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{w.ID}, ids(res.Facts))
	require.Len(t, res.Warnings, 1)
	assert.Contains(t, res.Warnings[0], "damaged")
	data, err := os.ReadFile(fx.userPath)
	require.NoError(t, err)
	assert.Equal(t, "this is not a database at all, just text", string(data), "a damaged file is never overwritten")

	// No home at all: user scope is simply absent.
	none := facts.New(facts.Options{DB: fx.db})
	res, err = none.Search(ctx, "commits", facts.SearchOptions{})
	require.NoError(t, err)
	assert.Empty(t, res.Warnings)
	_, err = none.Add(ctx, facts.NewFact{Content: "x", Scope: facts.User()})
	require.ErrorIs(t, err, facts.ErrUserUnavailable)
}

func TestAnotherHandleSeesWritesFromThisOne(t *testing.T) {
	t.Parallel()
	fx := newService(t)
	ctx := context.Background()
	add(t, fx, "Indexes are rebuilt from bbolt", facts.Workspace())
	add(t, fx, "User file fact about indexes", facts.User())
	other := facts.New(facts.Options{DB: fx.db, UserPath: fx.userPath, Now: fx.clock.Now})
	res, err := other.Search(ctx, "indexes", facts.SearchOptions{})
	require.NoError(t, err)
	assert.Len(t, res.Facts, 2)

	// Writes through the first handle reach the second's next search.
	f := add(t, fx, "Indexes follow a change counter", facts.Workspace())
	add(t, fx, "Another user fact on indexes", facts.User())
	res, err = other.Search(ctx, "indexes", facts.SearchOptions{})
	require.NoError(t, err)
	assert.Len(t, res.Facts, 4)
	_, err = fx.s.Correct(ctx, f.ID, "wrong", "", facts.Source{})
	require.NoError(t, err)
	res, err = other.Search(ctx, "indexes", facts.SearchOptions{})
	require.NoError(t, err)
	assert.Len(t, res.Facts, 3)
}

func TestListByScope(t *testing.T) {
	t.Parallel()
	fx := newService(t)
	ctx := context.Background()
	add(t, fx, "one", facts.Build("2"))
	add(t, fx, "two", facts.Workspace())
	fx.clock.Advance(time.Minute)
	add(t, fx, "three", facts.Workspace())
	add(t, fx, "four", facts.User())
	all, err := fx.s.List(ctx, facts.ListOptions{})
	require.NoError(t, err)
	var got []string
	for _, f := range all.Facts {
		got = append(got, f.Content)
	}
	assert.Equal(t, []string{"four", "three", "two", "one"}, got, "broadest scope first, newest first")
	ws, err := fx.s.List(ctx, facts.ListOptions{Scope: facts.Workspace(), Limit: 1})
	require.NoError(t, err)
	require.Len(t, ws.Facts, 1)
	assert.Equal(t, "three", ws.Facts[0].Content)
}
