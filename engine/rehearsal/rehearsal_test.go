package rehearsal

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/prd"
	"github.com/nova-dev/nova/engine/rehearsal/rehearsaltest"
	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/engine/workspace"
)

func TestShouldRehearse(t *testing.T) {
	t.Parallel()
	withComplexity := func(c string, desc string) prd.Task {
		return prd.Task{ID: "T", Description: desc, Extra: map[string]json.RawMessage{"complexity": json.RawMessage(c)}}
	}
	long := strings.Repeat("word ", 101) // 505 chars
	cases := []struct {
		name string
		task prd.Task
		want bool
	}{
		{"high complexity", withComplexity("0.8", "small"), true},
		{"complexity at threshold", withComplexity("0.7", "small"), false},
		{"complexity as string", withComplexity(`"0.9"`, "small"), true},
		{"low complexity ignores length", withComplexity("0.2", long), false},
		{"long description without complexity", prd.Task{Description: long}, true},
		{"short description", prd.Task{Description: "Add a button"}, false},
		{"schema", prd.Task{Description: "Change the Convex schema"}, true},
		{"migration", prd.Task{Description: "write a migration for users"}, true},
		{"migrations", withComplexity("0.1", "run the migrations"), true},
		{"rehearse", prd.Task{Description: "please rehearse this"}, true},
		{"schematic is not schema", prd.Task{Description: "draw a schematic"}, false},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, ShouldRehearse(c.task), c.name)
	}
}

func TestTierGate(t *testing.T) {
	t.Parallel()
	e := newEnv(t, rehearsaltest.Three(), 0)
	e.cfg.Tier = workspace.TierFree
	_, err := e.rehearse(2)
	require.ErrorIs(t, err, ErrTier)
	assert.Contains(t, err.Error(), "premium")
	_, calls := e.stats.Snapshot()
	assert.Zero(t, calls, "no model call on the free tier")
}

func TestNotRiskyNeedsForce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, rehearsaltest.Three(), 0)
	_, err := e.svc.Rehearse(context.Background(), Request{Task: task("T1", "tiny")})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "does not need a rehearsal")
}

func TestRehearseThreeBranchesPending(t *testing.T) {
	t.Parallel()
	e := newEnv(t, rehearsaltest.Three(), 0)
	ss, err := e.rehearse(3)
	require.NoError(t, err)
	require.Len(t, ss.Branches, 3)
	assert.Equal(t, StatusPending, ss.Status)
	assert.Nil(t, ss.UserApproved)
	assert.Empty(t, ss.Winner)
	assert.Equal(t, []Approach{Minimal, Idiomatic, Defensive}, []Approach{ss.Branches[0].Approach, ss.Branches[1].Approach, ss.Branches[2].Approach})
	// originalContent comes from the workspace, not the model.
	assert.Equal(t, "package calc\n", ss.Branches[0].Files[0].OriginalContent)
	assert.True(t, ss.Branches[1].Files[1].New)
	for i, r := range ss.Results {
		assert.Equal(t, ss.Branches[i].ID, r.BranchID)
		// No check is configured: the type check is "not checked", left
		// out of the mean (issue 25: it used to score 1.00 for code
		// nothing compiled).
		assert.True(t, r.TypeCheck.NotChecked)
		assert.Zero(t, r.TypeCheck.Score)
		assert.Equal(t, "not checked", r.TypeCheck.ScoreText())
		assert.False(t, r.CheckRan)
		want := (WeightLineDelta*r.LineDelta.Score + WeightSelfAssessment*r.SelfAssessment.Score + WeightTasteAlignment*r.TasteAlignment.Score) /
			(WeightLineDelta + WeightSelfAssessment + WeightTasteAlignment)
		assert.InDelta(t, want, r.Score, 1e-3)
		assert.InDelta(t, CompositeOf(r.TypeCheck, r.LineDelta, r.SelfAssessment, r.TasteAlignment), r.Score, 1e-9)
		assert.Equal(t, BandOf(r.Score), r.Band)
		assert.LessOrEqual(t, len([]rune(r.Preview)), PreviewChars)
		assert.NotEmpty(t, r.TypeCheck.Evidence)
	}
	// persisted, and nothing written yet
	got, err := e.svc.Get(context.Background(), ss.ID)
	require.NoError(t, err)
	assert.Equal(t, ss.Branches, got.Branches)
	c, _ := e.read("calc/calc.go")
	assert.Equal(t, "package calc\n", c)
	n, err := e.svc.CountPending(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	// every branch's prompt has its own approach
	var sys []string
	for _, r := range e.srv.ChatRequests() {
		sys = append(sys, r.Messages[0].Content)
	}
	joined := strings.Join(sys, "\n")
	for _, a := range []string{"MINIMAL", "IDIOMATIC", "DEFENSIVE"} {
		assert.Contains(t, joined, a+" approach")
	}
}

func TestConcurrencySemaphore(t *testing.T) {
	t.Parallel()
	for _, conc := range []int{1, 2, 3} {
		e := newEnv(t, rehearsaltest.Three(), 80*time.Millisecond)
		e.cfg.Rehearsal.Concurrency = conc
		_, err := e.rehearse(3)
		require.NoError(t, err)
		mx, calls := e.stats.Snapshot()
		assert.Equal(t, 3, calls)
		assert.LessOrEqual(t, mx, conc, "never more than concurrency calls at once")
		if conc == 3 {
			assert.Greater(t, mx, 1, "branches run concurrently")
		}
	}
}

func TestInvalidBranches(t *testing.T) {
	t.Parallel()
	valid := ollamatest.Text(rehearsaltest.BranchJSON("ok", "", rehearsaltest.File{Path: "calc/calc.go", Content: "package calc\n// ok\n"}))
	cases := []struct {
		name   string
		reply  ollamatest.Reply
		reason string
	}{
		{"escaping path", ollamatest.Text(rehearsaltest.BranchJSON("x", "", rehearsaltest.File{Path: "../evil.go", Content: "x"})), "escapes the workspace"},
		{"absolute path", ollamatest.Text(rehearsaltest.BranchJSON("x", "", rehearsaltest.File{Path: "/etc/passwd", Content: "x"})), "absolute"},
		{"duplicate paths", ollamatest.Text(rehearsaltest.BranchJSON("x", "", rehearsaltest.File{Path: "a.go", Content: "x"}, rehearsaltest.File{Path: "./a.go", Content: "y"})), "appears twice"},
		{"no files", ollamatest.Text(rehearsaltest.BranchJSON("x", "")), "no files"},
		{"huge file", ollamatest.Text(rehearsaltest.BranchJSON("x", "", rehearsaltest.File{Path: "big.txt", Content: strings.Repeat("a", MaxFileBytes+1)})), "too large"},
		{"not JSON", ollamatest.Text("I cannot do that"), "invalid"},
		{"server error", ollamatest.ServerError("boom"), "boom"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, rehearsaltest.Script{"minimal": valid, "idiomatic": c.reply}, 0)
			ss, err := e.rehearse(2)
			require.NoError(t, err, "one valid branch is enough")
			require.Len(t, ss.Branches, 1)
			sk := ss.Rounds[0].Skipped
			require.Len(t, sk, 1)
			assert.Equal(t, Idiomatic, sk[0].Approach)
			assert.Contains(t, strings.ToLower(sk[0].Reason), c.reason)
		})
	}
}

func TestSymlinkEscape(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("symlinks")
	}
	outside := t.TempDir()
	e := newEnv(t, nil, 0)
	require.NoError(t, osSymlink(outside, e.root+"/link"))
	_, err := validate(e.root, proposalOf("link/x.go", "package x\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "escapes")
}

func TestNonUTF8(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil, 0)
	_, err := validate(e.root, proposalOf("a.txt", "ok \xff\xfe"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "UTF-8")
}

func TestZeroValidFails(t *testing.T) {
	t.Parallel()
	bad := ollamatest.Text(rehearsaltest.BranchJSON("x", "", rehearsaltest.File{Path: "../x", Content: "x"}))
	e := newEnv(t, rehearsaltest.Script{"minimal": bad, "idiomatic": ollamatest.Text(rehearsaltest.BranchJSON("x", ""))}, 0)
	ss, err := e.rehearse(2)
	require.ErrorIs(t, err, ErrNoValid)
	assert.Contains(t, err.Error(), "minimal: path")
	assert.Contains(t, err.Error(), "idiomatic: the branch proposes no files")
	assert.Equal(t, StatusFailed, ss.Status)
	got, err := e.svc.Get(context.Background(), ss.ID)
	require.NoError(t, err)
	assert.Equal(t, StatusFailed, got.Status)
	assert.NotEmpty(t, got.Failure)
}

func TestOneBranchTimesOut(t *testing.T) {
	t.Parallel()
	s := rehearsaltest.Three()
	s["idiomatic"] = s["idiomatic"].WithLatency(3 * time.Second)
	e := newEnv(t, s, 0)
	e.svc.CallTimeout = 500 * time.Millisecond
	ss, err := e.rehearse(3)
	require.NoError(t, err)
	assert.Len(t, ss.Branches, 2)
	require.Len(t, ss.Rounds[0].Skipped, 1)
	assert.Equal(t, Idiomatic, ss.Rounds[0].Skipped[0].Approach)
}

func TestScoringFormulas(t *testing.T) {
	t.Parallel()
	assert.InDelta(t, 1.0, LineDeltaScore(-20), 1e-9)
	assert.InDelta(t, 0.75, LineDeltaScore(100), 1e-9)
	assert.InDelta(t, 0.5, LineDeltaScore(200), 1e-9)
	assert.InDelta(t, 0.5, LineDeltaScore(5000), 1e-9)
	assert.Equal(t, BandHigh, BandOf(0.8))
	assert.Equal(t, BandMedium, BandOf(0.79))
	assert.Equal(t, BandMedium, BandOf(0.55))
	assert.Equal(t, BandLow, BandOf(0.549))
	assert.InDelta(t, 0.35+0.15+0.25+0.25, Composite(1, 1, 1, 1), 1e-9)
	assert.InDelta(t, 0.35*0+0.15*0.5+0.25*0.6+0.25*0.5, Composite(0, 0.5, 0.6, 0.5), 1e-9)

	s, ev := SelfAssessment("Confident, tested and verified")
	assert.InDelta(t, 0.9, s, 1e-9)
	assert.Contains(t, ev, "confident")
	s, _ = SelfAssessment("unsure; TODO: hack")
	assert.InDelta(t, 0.15, s, 1e-9)
	s, _ = SelfAssessment("")
	assert.InDelta(t, selfBase, s, 1e-9)

	h, _ := HeuristicTypeCheck([]File{{Path: "a.ts", ProposedContent: "function f(a, b: number): any { return a as any }\n"}})
	assert.InDelta(t, 1-0.15*3, h, 1e-9) // untyped a, ": any", "as any"
	h, _ = HeuristicTypeCheck([]File{{Path: "a.go", OriginalContent: "package a\nvar x any\n", ProposedContent: "package a\nvar x any\nvar y int\n"}})
	assert.InDelta(t, 1.0, h, 1e-9, "only added lines count")
	h, _ = HeuristicTypeCheck([]File{{Path: "a.md", ProposedContent: "any any any"}})
	assert.InDelta(t, 1.0, h, 1e-9)
}

func TestTasteAlignment(t *testing.T) {
	t.Parallel()
	b := Branch{Description: "uses table driven tests", Files: []File{{Path: "x_test.go", ProposedContent: "func TestTable(t *testing.T) { for _, tc := range cases {} }"}}}
	s, _, ev := TasteAlignment(b, nil)
	assert.InDelta(t, 0.5, s, 1e-9)
	assert.Contains(t, ev, "neutral")
	pats := []vault.Scored{
		{Node: vault.Node{ID: 1, Content: "Prefer table driven tests with cases"}},
		{Node: vault.Node{ID: 2, Content: "Wrap database migrations in transactions rollback"}},
	}
	s, hit, _ := TasteAlignment(b, pats)
	assert.InDelta(t, 0.5, s, 1e-9)
	assert.Equal(t, []uint64{1}, hit)
}

func TestRealCheckOnTempCopy(t *testing.T) {
	t.Parallel()
	if _, err := lookPath("go"); err != nil {
		t.Skip("go not on PATH")
	}
	s := rehearsaltest.Three()
	s["idiomatic"] = ollamatest.Text(rehearsaltest.BranchJSON("broken", "confident",
		rehearsaltest.File{Path: "calc/calc.go", Content: "package calc\n\nfunc Total( {\n"}))
	e := newEnv(t, s, 0)
	e.cfg.Checks = []string{"go vet ./..."}
	ss, err := e.rehearse(2)
	require.NoError(t, err)
	require.Len(t, ss.Results, 2)
	good, bad := ss.Results[0], ss.Results[1]
	assert.True(t, good.CheckRan)
	assert.True(t, good.CheckPassed, good.CheckOutput)
	assert.InDelta(t, 1.0, good.TypeCheck.Score, 1e-9)
	assert.True(t, bad.CheckRan)
	assert.False(t, bad.CheckPassed)
	assert.InDelta(t, 0.0, bad.TypeCheck.Score, 1e-9)
	assert.Contains(t, bad.CheckOutput, "go vet")
	// the workspace itself was not touched
	c, _ := e.read("calc/calc.go")
	assert.Equal(t, "package calc\n", c)
}

func TestApproveWritesOnlyThatBranch(t *testing.T) {
	t.Parallel()
	e := newEnv(t, rehearsaltest.Three(), 0)
	ctx := context.Background()
	ss, err := e.rehearse(3)
	require.NoError(t, err)
	ss, err = e.svc.Approve(ctx, ss.ID, "2", ApproveOptions{})
	require.NoError(t, err)
	win := ss.Branches[1]
	assert.Equal(t, StatusApproved, ss.Status)
	assert.Equal(t, win.ID, ss.Winner)
	require.NotNil(t, ss.UserApproved)
	assert.True(t, *ss.UserApproved)
	for _, f := range win.Files {
		got, ok := e.read(f.Path)
		require.True(t, ok, f.Path)
		assert.Equal(t, f.ProposedContent, got)
	}
	_, ok := e.read("calc/calc_test.go")
	assert.False(t, ok, "the defensive branch's test file is not written")
	assert.ElementsMatch(t, []string{"calc/calc.go", "calc/doc.go"}, ss.Written)
	cs, err := e.store.Get(ctx, ss.ChangesetID)
	require.NoError(t, err)
	assert.Equal(t, changes.StatusApplied, cs.Status)
	// learned preference with provenance
	require.NotZero(t, ss.PreferenceID)
	n, err := e.vault.Get(ctx, ss.PreferenceID)
	require.NoError(t, err)
	assert.Equal(t, vault.Preference, n.Type)
	assert.Contains(t, n.Content, "prefer idiomatic over minimal and defensive")
	assert.Equal(t, "rehearsal:"+itoa(ss.ID), n.Source)
	// a decided session cannot be decided again
	_, err = e.svc.Approve(ctx, ss.ID, "1", ApproveOptions{})
	require.ErrorIs(t, err, ErrNotPending)
	_, err = e.svc.Reject(ctx, ss.ID, "no")
	require.ErrorIs(t, err, ErrNotPending)
}

func TestApproveUnknownBranch(t *testing.T) {
	t.Parallel()
	e := newEnv(t, rehearsaltest.Three(), 0)
	ss, err := e.rehearse(2)
	require.NoError(t, err)
	_, err = e.svc.Approve(context.Background(), ss.ID, "7", ApproveOptions{})
	require.ErrorIs(t, err, ErrNoBranch)
	_, err = e.svc.Approve(context.Background(), 999, "1", ApproveOptions{})
	require.ErrorIs(t, err, ErrNotFound)
}

func TestApproveConflict(t *testing.T) {
	t.Parallel()
	e := newEnv(t, rehearsaltest.Three(), 0)
	ss, err := e.rehearse(2)
	require.NoError(t, err)
	e.write("calc/calc.go", "package calc // edited meanwhile\n")
	_, err = e.svc.Approve(context.Background(), ss.ID, "1", ApproveOptions{})
	require.ErrorIs(t, err, changes.ErrConflict)
	assert.Contains(t, err.Error(), "calc/calc.go")
	got, _ := e.read("calc/calc.go")
	assert.Equal(t, "package calc // edited meanwhile\n", got, "nothing written")
	still, err := e.svc.Get(context.Background(), ss.ID)
	require.NoError(t, err)
	assert.True(t, still.Pending())
	ss, err = e.svc.Approve(context.Background(), ss.ID, "1", ApproveOptions{Force: true})
	require.NoError(t, err)
	got, _ = e.read("calc/calc.go")
	assert.Equal(t, ss.Branches[0].Files[0].ProposedContent, got)
}

func TestRejectAll(t *testing.T) {
	t.Parallel()
	e := newEnv(t, rehearsaltest.Three(), 0)
	ctx := context.Background()
	ss, err := e.rehearse(2)
	require.NoError(t, err)
	ss, err = e.svc.Reject(ctx, ss.ID, "both ignore the spec")
	require.NoError(t, err)
	assert.Equal(t, StatusRejected, ss.Status)
	require.NotNil(t, ss.UserApproved)
	assert.False(t, *ss.UserApproved)
	assert.Equal(t, "both ignore the spec", ss.Reason)
	c, _ := e.read("calc/calc.go")
	assert.Equal(t, "package calc\n", c)
	assert.Contains(t, BuildRehearsalContext(ss), "both ignore the spec")

	// Rehearsing the same task again tells the new branches what was tried
	// and rejected.
	again, err := e.rehearse(2)
	require.NoError(t, err)
	require.Len(t, again.Context, 1)
	assert.Contains(t, again.Context[0], "<rehearsal_context>")
	reqs := e.srv.ChatRequests()
	sys := reqs[len(reqs)-1].Messages[0].Content
	assert.Contains(t, sys, "The user rejected every candidate: both ignore the spec")
}

func TestRegenerateRounds(t *testing.T) {
	t.Parallel()
	e := newEnv(t, rehearsaltest.Three(), 0)
	ctx := context.Background()
	ss, err := e.rehearse(2)
	require.NoError(t, err)
	ss, err = e.svc.Regenerate(ctx, ss.ID)
	require.NoError(t, err)
	require.Len(t, ss.Rounds, 2)
	assert.Equal(t, 2, ss.Branches[0].Round)
	assert.NotEqual(t, ss.Rounds[0].Branches[0].ID, ss.Rounds[1].Branches[0].ID)
	last := e.srv.ChatRequests()
	assert.Contains(t, last[len(last)-1].Messages[0].Content, "<previous_rehearsal_round>")
	list, err := e.svc.List(ctx, Filter{})
	require.NoError(t, err)
	assert.Len(t, list, 1, "regenerate stays in the same session")
}

func TestAutoSelectAtAutonomy3(t *testing.T) {
	t.Parallel()
	e := newEnv(t, rehearsaltest.Three(), 0)
	e.cfg.Autonomy = 3
	ss, err := e.svc.Rehearse(context.Background(), Request{Task: task("T1", "schema change"), Branches: 3, ApplyAuto: true})
	require.NoError(t, err)
	assert.Equal(t, StatusApproved, ss.Status)
	assert.True(t, ss.Auto)
	assert.Nil(t, ss.UserApproved, "unset when selected automatically")
	assert.Equal(t, ss.Ranked()[0].BranchID, ss.Winner)
	// No check ran on the branch: staged for the user, never written.
	assert.Empty(t, ss.Written)
	assert.Contains(t, ss.Reason, "not applied")
	require.NotZero(t, ss.ChangesetID)
	cs, err := e.store.Get(context.Background(), ss.ChangesetID)
	require.NoError(t, err)
	assert.Equal(t, changes.StatusPending, cs.Status)
	c, _ := e.read("calc/calc.go")
	assert.Equal(t, "package calc\n", c, "unverified work is not applied")
}

func TestAutoSelectAppliesACheckedBranch(t *testing.T) {
	t.Parallel()
	e := newEnv(t, rehearsaltest.Three(), 0)
	e.cfg.Autonomy = 3
	e.cfg.Checks = []string{"test -f calc/calc.go"}
	ss, err := e.svc.Rehearse(context.Background(), Request{Task: task("T1", "schema change"), Branches: 3, ApplyAuto: true})
	require.NoError(t, err)
	assert.Equal(t, StatusApproved, ss.Status)
	r, _ := ss.Result(ss.Winner)
	assert.True(t, r.CheckRan && r.CheckPassed)
	assert.False(t, r.TypeCheck.NotChecked)
	assert.Equal(t, "1.00", r.TypeCheck.ScoreText())
	assert.NotEmpty(t, ss.Written)
}

func TestCompositeOfLeavesNotCheckedOut(t *testing.T) {
	t.Parallel()
	tc := Dimension{Weight: WeightTypeCheck, Score: 1}
	ld := Dimension{Weight: WeightLineDelta, Score: 0.5}
	sa := Dimension{Weight: WeightSelfAssessment, Score: 0.6}
	ta := Dimension{Weight: WeightTasteAlignment, Score: 0.5}
	assert.InDelta(t, Composite(1, 0.5, 0.6, 0.5), CompositeOf(tc, ld, sa, ta), 1e-9, "all measured: the same as Composite")
	tc = Dimension{Weight: WeightTypeCheck, NotChecked: true}
	assert.InDelta(t, (0.15*0.5+0.25*0.6+0.25*0.5)/0.65, CompositeOf(tc, ld, sa, ta), 1e-3)
	assert.Zero(t, CompositeOf(tc))
	raw, err := json.Marshal(Result{TypeCheck: tc})
	require.NoError(t, err)
	assert.Contains(t, string(raw), `"typeCheckPass":{"score":0,"weight":0.35,"evidence":"","notChecked":true}`)
}

func TestLearningReinforcesAndDemotes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, rehearsaltest.Three(), 0)
	ctx := context.Background()
	good, err := e.vault.Add(ctx, vault.Node{Type: vault.Pattern, Content: "Totals: document exported functions with a doc comment; Mean average helper", Confidence: 0.6})
	require.NoError(t, err)
	bad, err := e.vault.Add(ctx, vault.Node{Type: vault.Pattern, Content: "Totals: return ErrOverflow errors on overflow checks", Confidence: 0.6})
	require.NoError(t, err)
	ss, err := e.rehearse(3)
	require.NoError(t, err)
	r2, _ := ss.Result(ss.Branches[1].ID)
	r3, _ := ss.Result(ss.Branches[2].ID)
	require.Contains(t, r2.Reflected, good.ID, r2.TasteAlignment.Evidence)
	require.Contains(t, r3.Reflected, bad.ID, r3.TasteAlignment.Evidence)
	_, err = e.svc.Approve(ctx, ss.ID, "2", ApproveOptions{})
	require.NoError(t, err)
	g, err := e.vault.Get(ctx, good.ID)
	require.NoError(t, err)
	b, err := e.vault.Get(ctx, bad.ID)
	require.NoError(t, err)
	assert.Greater(t, g.Confidence, 0.6)
	assert.Less(t, b.Confidence, 0.6)
	// the injected ids are recorded per branch for "why"
	assert.NotNil(t, ss.Branches[0].VaultNodeIDs)
}

func TestSessionsPersistAndList(t *testing.T) {
	t.Parallel()
	e := newEnv(t, rehearsaltest.Three(), 0)
	ctx := context.Background()
	a, err := e.rehearse(2)
	require.NoError(t, err)
	b, err := e.rehearse(2)
	require.NoError(t, err)
	_, err = e.svc.Reject(ctx, a.ID, "")
	require.NoError(t, err)
	all, err := e.svc.List(ctx, Filter{})
	require.NoError(t, err)
	require.Len(t, all, 2)
	assert.Equal(t, b.ID, all[0].ID, "newest first")
	pend, err := e.svc.List(ctx, Filter{Status: StatusPending})
	require.NoError(t, err)
	require.Len(t, pend, 1)
	assert.Equal(t, b.ID, pend[0].ID)
	// JSON field names of the CLI contract
	raw, err := json.Marshal(all[0])
	require.NoError(t, err)
	for _, k := range []string{`"id"`, `"taskId"`, `"agentName"`, `"branches"`, `"results"`, `"branchId"`, `"score"`, `"winner"`, `"userApproved"`} {
		assert.Contains(t, string(raw), k)
	}
	sum := FormatSummary(all[0])
	assert.Contains(t, sum, "Key differences")
	assert.Contains(t, sum, "Waiting for a decision")
}

func TestCanceled(t *testing.T) {
	t.Parallel()
	e := newEnv(t, rehearsaltest.Three(), 200*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := e.svc.Rehearse(ctx, Request{Task: task("T1", "x"), Force: true})
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrNoValid), err.Error())
}

func TestBuildHook(t *testing.T) {
	t.Parallel()
	e := newEnv(t, rehearsaltest.Three(), 0)
	var logs []string
	h := &Hook{Service: func() *Service { return e.svc }, Log: func(s string) { logs = append(logs, s) }}
	assert.True(t, h.ShouldRehearse(prd.Task{Description: "a schema change"}))
	first := buildReq("T9", 2)
	first.KnowledgeIDs = []string{"fact:f3", "docs:local:net/http"}
	out, err := h.Rehearse(context.Background(), first)
	require.NoError(t, err)
	assert.True(t, out.Waiting)
	assert.NotZero(t, out.SessionID)
	stored, err := e.svc.Get(context.Background(), out.SessionID)
	require.NoError(t, err)
	assert.Equal(t, first.KnowledgeIDs, stored.KnowledgeIDs, "the session keeps the knowledge its prompts carried")
	e.cfg.Autonomy = 4
	// Regression (issue 10): the build's autonomy governs its rehearsals,
	// 0 included: config 4 does not auto-select for a build at 0.
	out, err = h.Rehearse(context.Background(), buildReq("T10a", 2))
	require.NoError(t, err)
	assert.True(t, out.Waiting, "a build at autonomy 0 waits for the user whatever the config says")
	req := buildReq("T10", 3)
	req.Autonomy = 4
	out, err = h.Rehearse(context.Background(), req)
	require.NoError(t, err)
	assert.False(t, out.Waiting)
	assert.NotZero(t, out.ChangesetID, "auto-selected branch is staged for the build to apply")
	cs, err := e.store.Get(context.Background(), out.ChangesetID)
	require.NoError(t, err)
	assert.Equal(t, changes.StatusPending, cs.Status)
	e.cfg.Tier = workspace.TierFree
	_, err = h.Rehearse(context.Background(), buildReq("T11", 2))
	require.ErrorIs(t, err, ErrTier)
	require.Len(t, logs, 1)
	assert.Contains(t, logs[0], "rehearsal would have run")
}

// A resumed build asks again for a task it already rehearsed: the hook
// answers from the existing session instead of generating a second one.
func TestBuildHookReusesSessionOnResume(t *testing.T) {
	t.Parallel()
	e := newEnv(t, rehearsaltest.Three(), 0)
	h := &Hook{Service: func() *Service { return e.svc }}
	ctx := context.Background()
	req := buildReq("T20", 2)
	req.BuildID = "7"
	first, err := h.Rehearse(ctx, req)
	require.NoError(t, err)
	require.True(t, first.Waiting)

	again, err := h.Rehearse(ctx, req)
	require.NoError(t, err)
	assert.True(t, again.Waiting)
	assert.Equal(t, first.SessionID, again.SessionID, "no second session while the first waits")
	all, err := e.svc.List(ctx, Filter{})
	require.NoError(t, err)
	assert.Len(t, all, 1)

	// The user approves branch 2 meanwhile; the resumed build gets it.
	approved, err := e.svc.Approve(ctx, first.SessionID, "2", ApproveOptions{})
	require.NoError(t, err)
	after, err := h.Rehearse(ctx, req)
	require.NoError(t, err)
	assert.False(t, after.Waiting)
	assert.Equal(t, approved.ChangesetID, after.ChangesetID)

	// A rejected rehearsal blocks the task with the user's reason.
	req2 := buildReq("T21", 2)
	req2.BuildID = "7"
	second, err := h.Rehearse(ctx, req2)
	require.NoError(t, err)
	_, err = e.svc.Reject(ctx, second.SessionID, "none of these keep the old API")
	require.NoError(t, err)
	_, err = h.Rehearse(ctx, req2)
	require.ErrorIs(t, err, ErrRejected)
	assert.Contains(t, err.Error(), "keep the old API")
}
