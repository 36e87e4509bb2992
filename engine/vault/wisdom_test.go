package vault_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/vault"
)

// authorKey is a fixed signing key per test author.
func authorKey(author string) ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("test key of " + author))
	return ed25519.NewKeyFromSeed(seed[:])
}

// bundle is a wisdom bundle of author (an identity) carrying patterns,
// signed with the author's key (authorKey).
func bundle(t *testing.T, author string, ps ...vault.BundlePattern) *bytes.Reader {
	t.Helper()
	b := vault.Bundle{Format: vault.BundleFormat, Author: vault.AuthorID(author), CreatedAt: t0, Patterns: ps}
	require.NoError(t, vault.SignBundle(&b, authorKey(author)))
	raw, err := json.Marshal(b)
	require.NoError(t, err)
	return bytes.NewReader(raw)
}

// trust makes e trust the keys of authors.
func trust(t *testing.T, e *testEnv, authors ...string) {
	t.Helper()
	for _, a := range authors {
		_, err := e.v.Wisdom().Trust(t.Context(), vault.FormatKey(authorKey(a).Public().(ed25519.PublicKey)), a)
		require.NoError(t, err)
	}
}

func backs(content string) vault.BundlePattern {
	return vault.BundlePattern{Type: vault.Pattern, Content: content, Confidence: 0.9}
}

// activePattern creates content as a pattern backed by three authors: two
// other users through their bundles, then the workspace identity (which
// endorses it, so its weekly promotion limit never interferes).
func activePattern(t *testing.T, e *testEnv, content string) vault.WisdomPattern {
	t.Helper()
	w := e.v.Wisdom()
	var id uint64
	for _, who := range []string{"ana@example.org", "bo@example.org"} {
		trust(t, e, who+content)
		_, err := w.ImportBundle(t.Context(), bundle(t, who+content, backs(content)))
		require.NoError(t, err)
	}
	all, err := w.List(t.Context(), "")
	require.NoError(t, err)
	for _, p := range all {
		if p.Node.Content == content {
			id = p.ID
		}
	}
	require.NotZero(t, id)
	p, err := w.Endorse(t.Context(), id)
	require.NoError(t, err)
	require.Equal(t, vault.WisdomActive, p.Status)
	return p
}

func TestSanitizeStripsSensitiveData(t *testing.T) {
	t.Parallel()
	orig := vault.Node{
		ID: 9, Type: vault.Pattern, UserID: "ana", Source: "patterns/acme/secret.md",
		Title: "Acme billing at /home/ana/acme-shop/src/billing.ts",
		Content: `Set API_KEY="sk-live-abcdefghijklmnopqrstuvwxyz123456" and password: hunter2, mail ana@acme.io, ` +
			`see https://wiki.acme.internal/page and C:\Users\ana\shop\a.ts, run ./scripts/deploy.sh on 10.0.0.12 ` +
			`or db.acme.internal; token=ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZabcd1234; id 123e4567-e89b-12d3-a456-426614174000; ` +
			`the AcmeShop checkout lives in src/checkout/cart.tsx`,
		Body:       "secret = 'abc123'\naws AKIAABCDEFGHIJKLMNOP\nhash 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		Tags:       []string{"billing", "ana@acme.io", "src/billing.ts"},
		Meta:       map[string]string{"category": "acme"},
		Confidence: 0.9,
	}
	keep := orig
	clean := vault.Sanitize(orig, "AcmeShop", "acme-shop")
	for _, leak := range []string{"/home/ana", "sk-live", "hunter2", "ana@acme.io", "wiki.acme.internal", `C:\Users`,
		"deploy.sh", "10.0.0.12", "db.acme.internal", "ghp_", "123e4567", "AcmeShop", "cart.tsx", "abc123", "AKIA", "9f86d08"} {
		assert.NotContains(t, clean.Title+clean.Content+clean.Body, leak)
	}
	for _, mark := range []string{vault.RedactedPath, vault.RedactedSecret, vault.RedactedEmail, vault.RedactedURL,
		vault.RedactedHost, vault.RedactedID, vault.RedactedProject} {
		assert.Contains(t, clean.Title+clean.Content+clean.Body, mark)
	}
	assert.Contains(t, clean.Content, "API_KEY=", "the key name stays; its value goes")
	assert.Equal(t, []string{"billing"}, clean.Tags)
	assert.Empty(t, clean.UserID)
	assert.Equal(t, "global", clean.Source)
	assert.Nil(t, clean.Meta)
	assert.True(t, clean.IsGlobal)
	assert.Zero(t, clean.ID)
	assert.Equal(t, keep, orig, "the original is never modified")
	assert.Equal(t, "acme", orig.Meta["category"])
}

func TestSanitizeKeepsOrdinaryAdvice(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"Wrap errors with fmt.Errorf and %w so callers can use errors.Is",
		"Validate input with z.object at the boundary; and/or reject unknown keys",
		"Keep the token budget under 15 % of the prompt",
		"Use context.Context as the first parameter",
	} {
		got := vault.Sanitize(vault.Node{Content: s})
		assert.Equal(t, s, got.Content)
	}
}

func TestPromoteNeedsConfidenceAndOptIn(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	low := e.add(vault.Node{Type: vault.Pattern, Content: "low", Confidence: 0.84})
	high := e.add(vault.Node{Type: vault.Pattern, Content: "Prefer composition", Confidence: 0.85})
	w := e.v.Wisdom()
	_, err := w.Promote(t.Context(), low.ID)
	assert.ErrorIs(t, err, vault.ErrNotEligible)
	_, err = w.Promote(t.Context(), high.ID)
	require.ErrorIs(t, err, vault.ErrNotEligible, "the user has not opted in")
	assert.Contains(t, err.Error(), "opted in")
	require.NoError(t, w.SetOptIn(t.Context(), true))
	res, err := w.Promote(t.Context(), high.ID)
	require.NoError(t, err)
	assert.False(t, res.Merged)
	assert.Equal(t, vault.WisdomPending, res.Pattern.Status)
	assert.Equal(t, []string{w.Me()}, res.Pattern.Backers, "backed as the workspace identity's author id")
	assert.Equal(t, []uint64{high.ID}, res.Pattern.SourceNodeIDs)
	assert.True(t, res.Pattern.Node.IsGlobal)
	again, err := w.Promote(t.Context(), high.ID)
	require.NoError(t, err)
	assert.True(t, again.Already)
	_, err = w.Promote(t.Context(), 404)
	assert.ErrorIs(t, err, vault.ErrNotFound)
	orig, err := e.v.Get(t.Context(), high.ID)
	require.NoError(t, err)
	assert.False(t, orig.IsGlobal, "the vault node itself is untouched")
}

// Regression (issue 10): "3 distinct backers" was met by one person typing
// --user bob and --user carol. Local backing is the workspace identity's
// only; other authors arrive through their bundles, each counted once.
func TestPatternStaysPendingUntilThreeAuthorsBackIt(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withOptIn)
	w := e.v.Wisdom()
	n := e.add(vault.Node{Type: vault.Pattern, Content: "Run the linter before every commit", Confidence: 0.9})
	res, err := w.Promote(t.Context(), n.ID)
	require.NoError(t, err)
	for range 3 {
		p, err := w.Endorse(t.Context(), res.Pattern.ID)
		require.NoError(t, err)
		assert.Len(t, p.Backers, 1, "endorsing again is still one backer")
	}
	var mine bytes.Buffer
	_, err = w.ExportBundle(t.Context(), &mine)
	require.NoError(t, err)
	own, err := w.ImportBundle(t.Context(), &mine)
	require.NoError(t, err)
	assert.True(t, own.Own, "importing one's own bundle adds nothing")

	trust(t, e, "ana@example.org", "cy@example.org")
	ana := bundle(t, "ana@example.org", backs("Run the linter before every single commit")) // similar enough (Jaccard ≥ 0.7)
	raw, _ := io.ReadAll(ana)
	rep, err := w.ImportBundle(t.Context(), bytes.NewReader(raw))
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Backed)
	again, err := w.ImportBundle(t.Context(), bytes.NewReader(raw))
	require.NoError(t, err)
	assert.True(t, again.Already, "the same bundle counts once")
	p, err := w.Get(t.Context(), res.Pattern.ID)
	require.NoError(t, err)
	assert.Equal(t, vault.WisdomPending, p.Status)
	assert.Len(t, p.Backers, 2)

	_, err = w.ImportBundle(t.Context(), bundle(t, "cy@example.org", backs("Run the linter before every commit")))
	require.NoError(t, err)
	p, err = w.Get(t.Context(), res.Pattern.ID)
	require.NoError(t, err)
	assert.Equal(t, vault.WisdomActive, p.Status)
	assert.Equal(t, []string{w.Me(), vault.AuthorID("ana@example.org"), vault.AuthorID("cy@example.org")}, p.Backers)
	for _, b := range p.Backers {
		assert.NotContains(t, b, "@", "author ids are pseudonymous")
	}
	all, err := w.List(t.Context(), "")
	require.NoError(t, err)
	assert.Len(t, all, 1, "deduplicated into one pattern")
}

func TestDissimilarPromotionsStaySeparate(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withOptIn)
	w := e.v.Wisdom()
	a := e.add(vault.Node{Type: vault.Pattern, Content: "Run the linter before every commit", Confidence: 0.9})
	b := e.add(vault.Node{Type: vault.Pattern, Content: "Run the test suite in CI on every push", Confidence: 0.9})
	ra, err := w.Promote(t.Context(), a.ID)
	require.NoError(t, err)
	rb, err := w.Promote(t.Context(), b.ID)
	require.NoError(t, err)
	assert.False(t, rb.Merged)
	assert.NotEqual(t, ra.Pattern.ID, rb.Pattern.ID)
}

func TestPromotionRateLimitIsFivePerWeek(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withOptIn)
	w := e.v.Wisdom()
	var nodes []vault.Node
	for i := range 7 {
		nodes = append(nodes, e.add(vault.Node{Type: vault.Pattern, Content: fmt.Sprintf("distinct lesson %c %s", 'a'+i, strings.Repeat("word ", i)), Confidence: 0.9}))
	}
	for i := range 5 {
		_, err := w.Promote(t.Context(), nodes[i].ID)
		require.NoError(t, err)
		e.clock.Advance(time.Hour)
	}
	_, err := w.Promote(t.Context(), nodes[5].ID)
	require.ErrorIs(t, err, vault.ErrRateLimited)
	e.clock.Advance(7*24*time.Hour - 5*time.Hour + time.Minute) // the first promotion leaves the window
	_, err = w.Promote(t.Context(), nodes[5].ID)
	require.NoError(t, err)
	_, err = w.Promote(t.Context(), nodes[6].ID)
	assert.ErrorIs(t, err, vault.ErrRateLimited)
}

func TestThreeHarmReportsDemote(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withOptIn)
	p := activePattern(t, e, "Cache everything forever")
	w := e.v.Wisdom()
	got, err := w.ReportHarm(t.Context(), p.ID, "stale data")
	require.NoError(t, err)
	assert.Equal(t, vault.WisdomActive, got.Status)
	got, err = w.ReportHarm(t.Context(), p.ID, "again")
	require.NoError(t, err)
	assert.Len(t, got.HarmReports, 1, "one report per author")
	harm := backs("Cache everything forever")
	harm.Harm = "broke prod"
	rep, err := w.ImportBundle(t.Context(), bundle(t, "r2@example.org", harm))
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Reported)
	_, err = w.ImportBundle(t.Context(), bundle(t, "r3@example.org", harm))
	require.NoError(t, err)
	got, err = w.Get(t.Context(), p.ID)
	require.NoError(t, err)
	assert.Equal(t, vault.WisdomDemoted, got.Status)
	got, err = w.Endorse(t.Context(), p.ID)
	require.NoError(t, err)
	assert.Equal(t, vault.WisdomDemoted, got.Status, "demotion sticks")
	active, err := w.ForPremium(t.Context())
	require.NoError(t, err)
	assert.Empty(t, active)
	_, err = w.ReportHarm(t.Context(), 999, "")
	assert.ErrorIs(t, err, vault.ErrNotFound)
}

func TestForTierReturnsActivePatternsBestFirst(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withOptIn)
	w := e.v.Wisdom()
	var made []vault.WisdomPattern
	for i := range 14 {
		made = append(made, activePattern(t, e, fmt.Sprintf("Shared lesson %c about %s", 'a'+i, strings.Repeat("topic ", i%3+1)+fmt.Sprint(i))))
	}
	pendingNode := e.add(vault.Node{Type: vault.Pattern, Content: "pending one", Confidence: 0.9})
	_, err := w.Promote(t.Context(), pendingNode.ID)
	require.NoError(t, err)
	for range 5 {
		require.NoError(t, w.RecordSuccess(t.Context(), made[13].ID))
	}
	free, err := w.ForFree(t.Context())
	require.NoError(t, err)
	require.Len(t, free, 4)
	assert.Equal(t, made[13].ID, free[0].ID, "successes raise the score")
	premium, err := w.ForPremium(t.Context())
	require.NoError(t, err)
	require.Len(t, premium, 12)
	for i, p := range premium {
		assert.Equal(t, vault.WisdomActive, p.Status)
		if i > 0 {
			assert.GreaterOrEqual(t, premium[i-1].Score, p.Score)
		}
	}
}

func TestWisdomScoreAndRecency(t *testing.T) {
	t.Parallel()
	now := t0
	assert.InDelta(t, 1.0, vault.Recency(0), 1e-9)
	assert.InDelta(t, 1.0, vault.Recency(30*24*time.Hour), 1e-9)
	assert.InDelta(t, 0.5, vault.Recency(105*24*time.Hour), 1e-9)
	assert.InDelta(t, 0.0, vault.Recency(180*24*time.Hour), 1e-9)
	assert.InDelta(t, 0.0, vault.Recency(400*24*time.Hour), 1e-9)
	p := vault.WisdomPattern{Node: vault.Node{HelpfulCount: 5}, Backers: []string{"a", "b", "c"}, UpdatedAt: now}
	// helpful 0.5×0.6 + diversity 0.6×0.3 + recency 1×0.1
	assert.InDelta(t, 0.3+0.18+0.1, vault.WisdomScore(p, now), 1e-6)
	p.Node.HelpfulCount, p.Successes = 40, 10
	p.Backers = []string{"a", "b", "c", "d", "e", "f", "g"}
	assert.InDelta(t, 1.0, vault.WisdomScore(p, now), 1e-6, "clamped")
	p.UpdatedAt = now.Add(-200 * 24 * time.Hour)
	assert.InDelta(t, 0.9, vault.WisdomScore(p, now), 1e-6)
}

func TestCollectPromotesEligibleNodes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withOptIn)
	w := e.v.Wisdom()
	e.add(vault.Node{Type: vault.Pattern, Content: "Prefer explicit code over clever code", Confidence: 0.95})
	e.add(vault.Node{Type: vault.Pattern, Content: "Prefer explicit code over clever tricks", Confidence: 0.9})
	e.add(vault.Node{Type: vault.Pattern, Content: "Too unsure", Confidence: 0.5})
	e.add(vault.Node{Type: vault.Pattern, Content: "Someone else's", Confidence: 0.99, UserID: "stranger"})
	cands, err := w.Candidates(t.Context())
	require.NoError(t, err)
	assert.Len(t, cands, 2)
	rep, err := w.Collect(t.Context())
	require.NoError(t, err)
	assert.Len(t, rep.Created, 1)
	assert.Len(t, rep.Merged, 1, "near-duplicates merge")
	again, err := w.Collect(t.Context())
	require.NoError(t, err)
	assert.Empty(t, again.Created)
	assert.Empty(t, again.Merged)
	st, err := w.Stats(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 1, st.Patterns)
	assert.Equal(t, 1, st.Pending)
	assert.Equal(t, 1, st.Backers)
	assert.True(t, st.OptedIn)
}

func TestCollectStopsAtTheRateLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withOptIn)
	for i := range 8 {
		e.add(vault.Node{Type: vault.Pattern, Content: fmt.Sprintf("unique %d %s", i, strings.Repeat("zz ", i)), Confidence: 0.9})
	}
	rep, err := e.v.Wisdom().Collect(t.Context())
	require.NoError(t, err)
	assert.Len(t, rep.Created, 5)
	require.Len(t, rep.Skipped, 3)
	assert.Contains(t, rep.Skipped[0].Reason, "limit")
}

func TestWisdomStatsAndPersistence(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withOptIn)
	p := activePattern(t, e, "Review diffs before applying")
	_, err := e.v.Wisdom().ReportHarm(t.Context(), p.ID, "meh")
	require.NoError(t, err)
	e.reopen(true, withOptIn)
	st, err := e.v.Wisdom().Stats(t.Context())
	require.NoError(t, err)
	assert.Equal(t, vault.WisdomStats{Patterns: 1, Active: 1, Backers: 3, HarmReports: 1, AvgScore: st.AvgScore, OptedIn: true, Me: e.v.Wisdom().Me()}, st)
	assert.Positive(t, st.AvgScore)
	list, err := e.v.Wisdom().List(t.Context(), vault.WisdomActive)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, p.Node.Content, list[0].Node.Content)
	_, err = e.v.Wisdom().List(t.Context(), "sleeping")
	assert.ErrorIs(t, err, vault.ErrInvalid)
}

func TestOptInRecordOverridesConfig(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withOptIn)
	w := e.v.Wisdom()
	on, err := w.OptedIn(t.Context())
	require.NoError(t, err)
	assert.True(t, on)
	require.NoError(t, w.SetOptIn(t.Context(), false))
	on, err = w.OptedIn(t.Context())
	require.NoError(t, err)
	assert.False(t, on)
	other := newEnv(t)
	on, err = other.v.Wisdom().OptedIn(t.Context())
	require.NoError(t, err)
	assert.False(t, on)
}

func TestAuthorIDIsStableAndPseudonymous(t *testing.T) {
	t.Parallel()
	a := vault.AuthorID("Dev@Example.org ")
	assert.Equal(t, a, vault.AuthorID("dev@example.org"), "one person, one author id, whatever the workspace")
	assert.Regexp(t, `^u-[0-9a-f]{16}$`, a)
	assert.NotContains(t, a, "example")
	assert.NotEqual(t, a, vault.AuthorID("other@example.org"))
	e := newEnv(t, func(o *vault.Options) { o.Identity = "dev@example.org" })
	assert.Equal(t, a, e.v.Wisdom().Me())
	assert.Equal(t, vault.AuthorID("local"), newEnv(t).v.Wisdom().Me(), "the identity defaults to the user id")
}

// A bundle moves wisdom from one workspace to another with its author.
func TestBundleRoundTripBetweenWorkspaces(t *testing.T) {
	t.Parallel()
	alice := newEnv(t, withOptIn, func(o *vault.Options) { o.Identity = "alice@example.org" })
	bob := newEnv(t, withOptIn, func(o *vault.Options) { o.Identity = "bob@example.org" })
	n := alice.add(vault.Node{Type: vault.Strategy, Content: "Keep migrations reversible at /home/alice/app", Confidence: 0.92, Tags: []string{"db"}})
	_, err := alice.v.Wisdom().Promote(t.Context(), n.ID)
	require.NoError(t, err)
	var buf bytes.Buffer
	written, err := alice.v.Wisdom().ExportBundle(t.Context(), &buf)
	require.NoError(t, err)
	require.Len(t, written.Patterns, 1)
	assert.Equal(t, vault.AuthorID("alice@example.org"), written.Author)
	assert.NotContains(t, buf.String(), "alice@example.org", "no e-mail leaves the machine")
	assert.NotContains(t, buf.String(), "/home/alice", "sanitized")

	rep, err := bob.v.Wisdom().ImportBundle(t.Context(), &buf)
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Created)
	list, err := bob.v.Wisdom().List(t.Context(), "")
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, []string{vault.AuthorID("alice@example.org")}, list[0].Backers)
	assert.Equal(t, vault.WisdomPending, list[0].Status)
	bs, err := bob.v.Wisdom().Bundles(t.Context())
	require.NoError(t, err)
	require.Len(t, bs, 1)
	st, err := bob.v.Stats(t.Context())
	require.NoError(t, err)
	assert.Zero(t, st.Nodes, "wisdom patterns are not vault nodes (the tier cap does not count them)")
}

func TestMalformedBundlesAreRefusedClearly(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.v.Wisdom()
	for name, in := range map[string]string{
		"not json":       "{",
		"format":         `{"format":"x","author":"u-0123456789abcdef","patterns":[]}`,
		"author e-mail":  `{"format":"nova.wisdom/1","author":"a@b.c","patterns":[]}`,
		"unknown field":  `{"format":"nova.wisdom/1","author":"u-0123456789abcdef","patterns":[],"backers":["x","y"]}`,
		"empty content":  `{"format":"nova.wisdom/1","author":"u-0123456789abcdef","patterns":[{"content":" ","confidence":0.9}]}`,
		"bad confidence": `{"format":"nova.wisdom/1","author":"u-0123456789abcdef","patterns":[{"content":"x","confidence":7}]}`,
		"two documents":  `{"format":"nova.wisdom/1","author":"u-0123456789abcdef","patterns":[]} {}`,
	} {
		_, err := w.ImportBundle(t.Context(), strings.NewReader(in))
		assert.ErrorIs(t, err, vault.ErrInvalid, name)
	}
	list, err := w.List(t.Context(), "")
	require.NoError(t, err)
	assert.Empty(t, list, "nothing written")
}
