package vault_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/vault"
)

func TestTierLimits(t *testing.T) {
	t.Parallel()
	assert.Equal(t, vault.Limits{MaxNodes: 500, GlobalInjections: 4}, vault.TierLimits("free"))
	assert.Equal(t, vault.Limits{MaxNodes: 0, GlobalInjections: 12}, vault.TierLimits("premium"))
	assert.Equal(t, vault.TierLimits("free"), vault.TierLimits("gold"), "unknown tiers get the free limits")
}

func TestLearnReinforcesAnEquivalentNode(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	first, err := e.v.Learn(t.Context(), vault.Node{Type: vault.Pattern, Content: "Always use context timeouts", Tags: []string{"go"}})
	require.NoError(t, err)
	assert.True(t, first.Created)
	again, err := e.v.Learn(t.Context(), vault.Node{Type: vault.Pattern, Content: "use context timeouts.", Tags: []string{"net"}})
	require.NoError(t, err)
	assert.False(t, again.Created, "same type and statement")
	assert.Equal(t, first.Node.ID, again.Node.ID)
	assert.InDelta(t, 0.75, again.Node.Confidence, 1e-9)
	assert.Equal(t, []string{"go", "net"}, again.Node.Tags, "tags are merged")
	other, err := e.v.Learn(t.Context(), vault.Node{Type: vault.Decision, Content: "Always use context timeouts"})
	require.NoError(t, err)
	assert.True(t, other.Created, "another type is another node")
	st, _ := e.v.Stats(t.Context())
	assert.Equal(t, 2, st.Nodes)
}

func TestLearningArchivesLowestConfidenceWhenFreeTierIsFull(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withTier(vault.TierFree))
	nodes := make([]vault.Node, 500)
	for i := range nodes {
		nodes[i] = vault.Node{Type: vault.Pattern, Content: fmt.Sprintf("rule number %d", i), Confidence: 0.5 + float64(i%40)/100}
	}
	nodes[321].Confidence = 0.05
	stored, err := e.v.AddBatch(t.Context(), nodes)
	require.NoError(t, err)
	rs, err := e.v.LearnAs(t.Context(), vault.ByLearning, vault.Node{Type: vault.Strategy, Content: "a new lesson", Confidence: 0.6})
	require.NoError(t, err)
	res := rs[0]
	assert.True(t, res.Created)
	assert.Equal(t, []uint64{stored[321].ID}, res.Evicted)
	st, _ := e.v.Stats(t.Context())
	assert.Equal(t, 500, st.Nodes)
	_, err = e.v.Get(t.Context(), stored[321].ID)
	assert.ErrorIs(t, err, vault.ErrNotFound)
	arch, err := e.v.ArchivedNodeByID(t.Context(), stored[321].ID)
	require.NoError(t, err, "evicted means archived, not deleted")
	assert.Equal(t, "rule number 321", arch.Node.Content)
	e.verify()
}

func TestLearnPremiumIsUnlimited(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withTier(vault.TierPremium))
	nodes := make([]vault.Node, 500)
	for i := range nodes {
		nodes[i] = vault.Node{Type: vault.Pattern, Content: fmt.Sprintf("rule %d", i)}
	}
	_, err := e.v.AddBatch(t.Context(), nodes)
	require.NoError(t, err)
	res, err := e.v.Learn(t.Context(), vault.Node{Type: vault.Pattern, Content: "one more"})
	require.NoError(t, err)
	assert.Empty(t, res.Evicted)
	st, _ := e.v.Stats(t.Context())
	assert.Equal(t, 501, st.Nodes)
}

func TestLearnLinksContradictions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	pairs := [][2]string{
		{"Never use global variables", "Always use global variables"},
		{"Avoid reflection in hot paths", "Prefer reflection in hot paths"},
		{"Do not log secrets", "Log secrets"},
		{"Use tabs for indentation", "Don't use tabs for indentation"},
	}
	for _, p := range pairs {
		a, err := e.v.Learn(t.Context(), vault.Node{Type: vault.Preference, Content: p[0]})
		require.NoError(t, err)
		assert.Empty(t, a.Conflicts, p[0])
		b, err := e.v.Learn(t.Context(), vault.Node{Type: vault.Strategy, Content: p[1]})
		require.NoError(t, err)
		assert.Equal(t, []uint64{a.Node.ID}, b.Conflicts, "%q vs %q", p[0], p[1])
	}
	cs, err := e.v.Conflicts(t.Context())
	require.NoError(t, err)
	require.Len(t, cs, len(pairs))
	for i, c := range cs {
		assert.Equal(t, vault.Contradicts, c.Edge.Relation)
		assert.Equal(t, pairs[i][1], c.A.Content)
		assert.Equal(t, pairs[i][0], c.B.Content)
	}
	unrelated, err := e.v.Learn(t.Context(), vault.Node{Type: vault.Strategy, Content: "Never use global state in tests"})
	require.NoError(t, err)
	assert.Empty(t, unrelated.Conflicts)
	e.verify()
}

func TestDetectConflict(t *testing.T) {
	t.Parallel()
	yes := [][2]string{
		{"never X", "always X"},
		{"Never call panic in libraries", "Always call panic in libraries."},
		{"avoid ORMs", "use ORMs"},
		{"Avoid ORMs", "prefer ORMs over raw SQL"},
		{"do not commit generated files", "commit generated files"},
		{"You should never mutate props", "Mutate props"},
		{"We must not skip code review", "skip code review!"},
		{"Don’t use the default HTTP client", "use the default http client"},
		{"Stop using var", "Use var"},
	}
	no := [][2]string{
		{"never X", "never X"},
		{"always X", "X"},
		{"avoid ORMs", "avoid raw SQL"},
		{"Do not log secrets", "Do not log tokens"},
		{"", "never"},
		{"never", "always"},
		{"use ORMs", "prefer ORMs"},
	}
	for _, p := range yes {
		assert.True(t, vault.DetectConflict(p[0], p[1]), "%q vs %q", p[0], p[1])
		assert.True(t, vault.DetectConflict(p[1], p[0]), "symmetric: %q vs %q", p[1], p[0])
	}
	for _, p := range no {
		assert.False(t, vault.DetectConflict(p[0], p[1]), "%q vs %q", p[0], p[1])
	}
}

func TestLearnFromBuildResultSeedHeuristics(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	task := vault.Task{BuildID: "7", ID: "t3", Title: "Create invoices", Files: []string{"convex/invoices.ts"}, Checks: []string{"npm test"}}
	output := `export const create = mutation({
  handler: async (ctx, args) => {
    await requireAuth(ctx);
    const input = z.object({ companyId: z.string(), amount: z.number() }).parse(args);
    const cents = Math.floor(input.amount * 100);
    return ctx.db.insert("invoices", { companyId: input.companyId, cents });
  },
});`
	res, err := e.v.LearnFromBuildResult(t.Context(), task, "PLUTO", output, true)
	require.NoError(t, err)
	byContent := map[string]vault.Node{}
	for _, r := range res {
		assert.True(t, r.Created)
		byContent[r.Node.Content] = r.Node
		assert.Equal(t, "build:7/task:t3", r.Node.Source)
		assert.Contains(t, r.Node.Tags, "pluto")
	}
	find := func(sub string) (vault.Node, bool) {
		for c, n := range byContent {
			if strings.Contains(c, sub) {
				return n, true
			}
		}
		return vault.Node{}, false
	}
	n, ok := find("requireAuth")
	require.True(t, ok)
	assert.Equal(t, vault.Strategy, n.Type)
	n, ok = find("companyId")
	require.True(t, ok)
	assert.Equal(t, vault.Pattern, n.Type)
	n, ok = find("Math.floor")
	require.True(t, ok)
	assert.Equal(t, vault.Decision, n.Type)
	n, ok = find("z.object")
	require.True(t, ok)
	assert.Equal(t, vault.Pattern, n.Type)
	n, ok = find("completed")
	require.True(t, ok, "a task that changed files leaves a distilled lesson")
	assert.Equal(t, vault.Pattern, n.Type)
	assert.Equal(t, `PLUTO completed "Create invoices" by changing convex/invoices.ts; verified by npm test.`, n.Content)
	full, err := e.v.Get(t.Context(), n.ID)
	require.NoError(t, err)
	assert.Empty(t, full.Body, "the model's output is never stored as a lesson")
	for _, r := range res {
		assert.NotContains(t, r.Node.Content+r.Node.Body, "ctx.db.insert", "no node holds raw model output")
	}

	other, err := e.v.LearnFromBuildResult(t.Context(), task, "MARS", "uses companyId here", true)
	require.NoError(t, err)
	for _, r := range other {
		assert.NotContains(t, r.Node.Content, "tenants", "companyId counts only for PLUTO")
	}
}

func TestLearnFromBuildResultFailureIsAMistake(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	res, err := e.v.LearnFromBuildResult(t.Context(), vault.Task{ID: "t9", Title: "Migrate schema"}, "MARS",
		"\n  go build: undefined: Store\nmore detail", false)
	require.NoError(t, err)
	require.Len(t, res, 1)
	n := res[0].Node
	assert.Equal(t, vault.Mistake, n.Type)
	assert.InDelta(t, 0.9, n.Confidence, 1e-9)
	assert.Contains(t, n.Content, "Migrate schema")
	assert.Contains(t, n.Content, "undefined: Store")
	assert.Equal(t, "task:t9", n.Source)
	assert.Empty(t, n.Body, "the failed output is not kept: the reason is the lesson")
	empty, err := e.v.LearnFromBuildResult(t.Context(), vault.Task{ID: "t1"}, "", "", true)
	require.NoError(t, err)
	assert.Empty(t, empty, "a successful task that changed nothing teaches nothing")
	long := strings.Repeat("I looked at the code and it seems fine to me. ", 20)
	none, err := e.v.LearnFromBuildResult(t.Context(), vault.Task{ID: "t2", Title: "Review"}, "MARS", long, true)
	require.NoError(t, err)
	assert.Empty(t, none, "long model prose without changed files is not a lesson")
}

func TestRepeatedBuildSignalsReinforce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	out := "if err != nil {\n\treturn fmt.Errorf(\"load config: %w\", err)\n}"
	first, err := e.v.LearnFromBuildResult(t.Context(), vault.Task{ID: "a"}, "EARTH", out, true)
	require.NoError(t, err)
	require.Len(t, first, 1)
	second, err := e.v.LearnFromBuildResult(t.Context(), vault.Task{ID: "b"}, "EARTH", out, true)
	require.NoError(t, err)
	require.Len(t, second, 1)
	assert.False(t, second[0].Created)
	assert.Equal(t, first[0].Node.ID, second[0].Node.ID)
	assert.Greater(t, second[0].Node.Confidence, first[0].Node.Confidence)
}

func TestDetectPatternsGo(t *testing.T) {
	t.Parallel()
	code := "package store\n\nvar ErrClosed = errors.New(\"store closed\")\n\n" +
		"func (s *Store) Load(ctx context.Context, id string) (Item, error) {\n" +
		"\tctx, cancel := context.WithTimeout(ctx, time.Second)\n\tdefer cancel()\n" +
		"\tf, err := os.Open(id)\n\tif err != nil {\n\t\treturn Item{}, fmt.Errorf(\"open %s: %w\", id, err)\n\t}\n\tdefer f.Close()\n" +
		"\tif errors.Is(err, fs.ErrNotExist) { return Item{}, nil }\n\tvar mu sync.Mutex\n\tvar wg sync.WaitGroup\n}\n" +
		"func TestLoad(t *testing.T) {\n\tt.Parallel()\n\tfor _, tc := range []struct{ in string }{{\"a\"}} {\n\t\tt.Run(tc.in, func(t *testing.T) {})\n\t}\n}\n"
	got := vault.DetectPatterns(code, "go")
	var contents []string
	for _, n := range got {
		contents = append(contents, n.Content)
		assert.Equal(t, "go", n.Language)
		assert.Contains(t, n.Tags, "go")
		assert.True(t, n.Type == vault.Pattern || n.Type == vault.Strategy)
	}
	for _, want := range []string{"%w", "ctx context.Context", "table-driven", "errors.Is", "defer x.Close()",
		"sentinel", "t.Parallel()", "context.WithTimeout", "sync.WaitGroup", "sync.Mutex"} {
		assert.True(t, slices.ContainsFunc(contents, func(c string) bool { return strings.Contains(c, want) }), "missing %q in %q", want, contents)
	}
	assert.Equal(t, got, vault.DetectPatterns(code, ""), "Go is recognised without a language")
}

func TestDetectPatternsTypeScript(t *testing.T) {
	t.Parallel()
	code := `import { z } from "zod";
export interface Invoice { id: string; total?: number }
const Kinds = ["a", "b"] as const;
export async function load(id: string) {
  try {
    const [a, b] = await Promise.all([fetchA(id), fetchB(id)]);
    return a?.total ?? 0;
  } catch (e) { return 0 }
}
const Schema = z.object({ id: z.string() });
useEffect(() => { const t = setInterval(tick, 1000); return () => clearInterval(t) }, []);`
	got := vault.DetectPatterns(code, "tsx")
	require.Len(t, got, 7)
	for _, n := range got {
		assert.Equal(t, "typescript", n.Language)
	}
	assert.Equal(t, got, vault.DetectPatterns(code, ""))
}

func TestDetectPatternsNothingToSay(t *testing.T) {
	t.Parallel()
	assert.Empty(t, vault.DetectPatterns("hello world", ""))
	assert.Empty(t, vault.DetectPatterns("print('x')", "python"))
	assert.Empty(t, vault.DetectPatterns("package main\nfunc main() {}", "go"))
	assert.Empty(t, vault.DetectPatterns(string([]byte{0xff, 0xfe, 0x00}), ""))
}

func TestEstimateTokens(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]int{"": 0, "a": 1, "abcd": 1, "abcde": 2, "ééééé": 2} {
		assert.Equal(t, want, vault.EstimateTokens(s), s)
	}
}

func TestBuildVaultContextPersonalThenGlobalWithinBudget(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withOptIn)
	n := seedRetrieval(e)
	activePattern(t, e, "Prefer small pure functions that are easy to test")
	vc, err := e.v.BuildVaultContext(t.Context(), "add a login form that keeps the user signed in", "VENUS", vault.TierFree, 8192)
	require.NoError(t, err)
	require.NotEmpty(t, vc.Text)
	assert.True(t, strings.HasPrefix(vc.Text, "<taste_vault_context>\n"))
	assert.True(t, strings.HasSuffix(vc.Text, "</taste_vault_context>"))
	assert.Less(t, strings.Index(vc.Text, "Personal"), strings.Index(vc.Text, "Global"), "personal patterns come first")
	assert.Equal(t, 1228, vc.MaxTokens, "15 % of 8192")
	assert.LessOrEqual(t, vc.Tokens, vc.MaxTokens)
	assert.Equal(t, vault.EstimateTokens(vc.Text), vc.Tokens)
	require.NotEmpty(t, vc.NodeIDs)
	assert.Equal(t, n["session"].ID, vc.NodeIDs[0], "the most relevant node first")
	assert.Len(t, vc.WisdomIDs, 1)
	for _, id := range vc.NodeIDs {
		got, err := e.v.Get(t.Context(), id)
		require.NoError(t, err)
		assert.Contains(t, vc.Text, got.Content, "every reported id is in the text")
	}
}

func TestBuildVaultContextTrimsFromTheBottom(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withOptIn)
	for i := range 8 {
		e.add(vault.Node{Type: vault.Pattern, Content: fmt.Sprintf("Database migration advice %d: %s", i, strings.Repeat("detail ", 10))})
	}
	activePattern(t, e, "Keep functions small and focused")
	full, err := e.v.BuildVaultContext(t.Context(), "database migration", "", vault.TierFree, 100_000)
	require.NoError(t, err)
	require.Len(t, full.WisdomIDs, 1)
	require.Len(t, full.NodeIDs, 8)
	tight, err := e.v.BuildVaultContext(t.Context(), "database migration", "", vault.TierFree, 1500)
	require.NoError(t, err)
	assert.LessOrEqual(t, vault.EstimateTokens(tight.Text), int(1500*0.15))
	assert.Empty(t, tight.WisdomIDs, "global wisdom, at the bottom, goes first")
	require.NotEmpty(t, tight.NodeIDs)
	assert.Equal(t, full.NodeIDs[:len(tight.NodeIDs)], tight.NodeIDs, "then personal nodes from the bottom")
	assert.NotContains(t, tight.Text, "Global wisdom")
	none, err := e.v.BuildVaultContext(t.Context(), "database migration", "", vault.TierFree, 10)
	require.NoError(t, err)
	assert.Empty(t, none.Text)
	assert.Empty(t, none.NodeIDs)
	assert.Empty(t, none.WisdomIDs)
}

func TestBuildVaultContextEmptyVault(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	vc, err := e.v.BuildVaultContext(t.Context(), "anything", "SUN", "", 0)
	require.NoError(t, err)
	assert.Empty(t, vc.Text)
	assert.Equal(t, 1228, vc.MaxTokens)
	assert.NotNil(t, vc.NodeIDs)
}

func TestReinforceInjectedCreditsExactlyWhatWasInjected(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withOptIn)
	n := seedRetrieval(e)
	p := activePattern(t, e, "Name things after what they mean")
	vc, err := e.v.BuildVaultContext(t.Context(), "retry network failures with backoff", "", vault.TierFree, 8192)
	require.NoError(t, err)
	require.Contains(t, vc.NodeIDs, n["retry"].ID)
	before := map[uint64]vault.Node{}
	all, _ := e.v.List(t.Context(), vault.ListOptions{})
	for _, x := range all.Nodes {
		before[x.ID] = x
	}
	require.NoError(t, e.v.ReinforceInjected(t.Context(), vc.Injected))
	after, _ := e.v.List(t.Context(), vault.ListOptions{})
	for _, x := range after.Nodes {
		if slices.Contains(vc.NodeIDs, x.ID) {
			assert.InDelta(t, min(1, before[x.ID].Confidence+0.05), x.Confidence, 1e-9)
			assert.Equal(t, before[x.ID].HelpfulCount+1, x.HelpfulCount)
		} else {
			assert.InDelta(t, before[x.ID].Confidence, x.Confidence, 1e-12, "node %d was not injected", x.ID)
		}
	}
	got, err := e.v.Wisdom().Get(t.Context(), p.ID)
	require.NoError(t, err)
	assert.Equal(t, 1, got.Successes)
	require.NoError(t, e.v.Remove(t.Context(), n["retry"].ID))
	assert.NoError(t, e.v.ReinforceInjected(t.Context(), vc.Injected), "a node deleted since is skipped")
}

// LearnFromTask writes what LearnFromBuildResult then ReinforceInjected write, in one commit.
func TestLearnFromTaskIsLearnThenReinforceInOneCommit(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	task := vault.Task{BuildID: "7", ID: "t3", Title: "Add retry endpoint"}
	const output = "await requireAuth(ctx); const input = z.object({ companyId: z.string() }).parse(args);"
	run := func(folded bool) (map[string]vault.Node, uint64, int) {
		e := newEnv(t, withOptIn)
		n := seedRetrieval(e)
		p := activePattern(t, e, "Name things after what they mean")
		inj := vault.Injected{NodeIDs: []uint64{n["retry"].ID, n["retry"].ID}, WisdomIDs: []uint64{p.ID}}
		rev0, err := e.v.Revision(ctx)
		require.NoError(t, err)
		if folded {
			res, err := e.v.LearnFromTask(ctx, task, "PLUTO", output, true, inj)
			require.NoError(t, err)
			require.NotEmpty(t, res)
		} else {
			res, err := e.v.LearnFromBuildResult(ctx, task, "PLUTO", output, true)
			require.NoError(t, err)
			require.NotEmpty(t, res)
			require.NoError(t, e.v.ReinforceInjected(ctx, inj))
		}
		rev1, err := e.v.Revision(ctx)
		require.NoError(t, err)
		all, err := e.v.List(ctx, vault.ListOptions{})
		require.NoError(t, err)
		byContent := map[string]vault.Node{}
		for _, x := range all.Nodes {
			byContent[x.Content] = x
		}
		w, err := e.v.Wisdom().Get(ctx, p.ID)
		require.NoError(t, err)
		return byContent, rev1 - rev0, w.Successes
	}
	want, separate, wantWisdom := run(false)
	got, commits, gotWisdom := run(true)
	// The revision counts vault commits: learn, reinforce and the wisdom success
	// are three when called one by one, one when folded.
	assert.Equal(t, uint64(3), separate)
	assert.Equal(t, uint64(1), commits, "lessons and all credit share one vault commit")
	assert.Equal(t, 1, wantWisdom)
	assert.Equal(t, wantWisdom, gotWisdom)
	require.Len(t, got, len(want))
	for c, w := range want {
		g, ok := got[c]
		require.True(t, ok, "missing %q", c)
		assert.InDelta(t, w.Confidence, g.Confidence, 1e-9, c)
		assert.Equal(t, w.HelpfulCount, g.HelpfulCount, c)
		assert.Equal(t, w.Type, g.Type, c)
	}
	e := newEnv(t)
	res, err := e.v.LearnFromTask(ctx, vault.Task{ID: "t9", Title: "Migrate schema"}, "MARS", "tests failed", false,
		vault.Injected{NodeIDs: []uint64{12345}})
	require.NoError(t, err)
	require.NotEmpty(t, res)
	assert.Equal(t, vault.Mistake, res[0].Node.Type, "a failure learns a mistake and credits nothing")
}
