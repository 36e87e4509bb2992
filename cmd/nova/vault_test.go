package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type nodeJSON struct {
	ID           uint64   `json:"id"`
	Type         string   `json:"type"`
	Content      string   `json:"content"`
	Body         string   `json:"body"`
	Confidence   float64  `json:"confidence"`
	HelpfulCount int      `json:"helpfulCount"`
	Tags         []string `json:"tags"`
	UserID       string   `json:"userId"`
	IsGlobal     bool     `json:"isGlobal"`
	Source       string   `json:"source"`
	CreatedAt    string   `json:"createdAt"`
	UpdatedAt    string   `json:"updatedAt"`
	Score        float64  `json:"score"`
}

func initDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	r := runNova(t, dir, nil, "init")
	require.Equal(t, 0, r.code, r.stderr)
	return dir
}

// novaOK runs a command that must succeed and returns its stdout.
func novaOK(t *testing.T, dir string, args ...string) string {
	t.Helper()
	r := runNova(t, dir, nil, args...)
	require.Equal(t, 0, r.code, "nova %s\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.stdout, r.stderr)
	return r.stdout
}

// addNode runs `nova vault add ... --json` and returns the node's id.
func addNode(t *testing.T, dir string, args ...string) uint64 {
	t.Helper()
	var n nodeJSON
	novaJSON(t, dir, &n, append([]string{"vault", "add"}, args...)...)
	require.NotZero(t, n.ID)
	return n.ID
}

type statsJSON struct {
	Nodes         int            `json:"nodes"`
	Edges         int            `json:"edges"`
	ByType        map[string]int `json:"byType"`
	AvgConfidence float64        `json:"avgConfidence"`
	Conflicts     int            `json:"conflicts"`
}

func vaultStats(t *testing.T, dir string) statsJSON {
	t.Helper()
	var st statsJSON
	novaJSON(t, dir, &st, "vault", "stats")
	return st
}

func idStr(id uint64) string { return strconv.FormatUint(id, 10) }

// novaJSON runs a --json command and decodes its one document into v.
func novaJSON(t *testing.T, dir string, v any, args ...string) {
	t.Helper()
	r := runNova(t, dir, nil, append(args, "--json")...)
	require.Equal(t, 0, r.code, "nova %s\nstderr: %s", strings.Join(args, " "), r.stderr)
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	require.NoError(t, dec.Decode(v), r.stdout)
	assert.False(t, dec.More(), "exactly one JSON document")
}

func TestVaultCLIAddListSearchShowStats(t *testing.T) {
	t.Parallel()
	dir := initDir(t)
	base := vaultStats(t, dir) // `nova init` may seed starter patterns
	var n nodeJSON
	novaJSON(t, dir, &n, "vault", "add", "--type", "decision", "--content", "Keep the session in an httpOnly cookie",
		"--body", "Users stay logged in across reloads.", "--tags", "auth,Web", "--confidence", "0.9")
	assert.Equal(t, "Decision", n.Type)
	assert.InDelta(t, 0.9, n.Confidence, 1e-9)
	assert.Equal(t, []string{"auth", "web"}, n.Tags)
	assert.Equal(t, "local", n.UserID)
	assert.Equal(t, "manual", n.Source)
	assert.False(t, n.IsGlobal)
	assert.NotEmpty(t, n.CreatedAt)
	assert.NotEmpty(t, n.UpdatedAt)
	addNode(t, dir, "--type", "Pattern", "--content", "Retry transient failures with backoff", "--tags", "zzq-net")
	mistake := addNode(t, dir, "--type", "Mistake", "--content", "Forgot to close the response body", "--tags", "zzq-net")

	var list []nodeJSON
	novaJSON(t, dir, &list, "vault", "list")
	require.Len(t, list, base.Nodes+3)
	novaJSON(t, dir, &list, "vault", "list", "--tag", "zzq-net", "--type", "mistake")
	require.Len(t, list, 1)
	assert.Equal(t, mistake, list[0].ID)
	novaJSON(t, dir, &list, "vault", "list", "--newest", "--limit", "1")
	assert.Equal(t, mistake, list[0].ID)
	out := novaOK(t, dir, "vault", "list", "--limit", "2")
	assert.Contains(t, out, "2 of "+strconv.Itoa(base.Nodes+3)+" nodes")

	var hits []nodeJSON
	novaJSON(t, dir, &hits, "vault", "search", "users", "logged", "in", "across", "reloads")
	require.NotEmpty(t, hits)
	assert.Equal(t, n.ID, hits[0].ID, "the body is searched")
	assert.Positive(t, hits[0].Score)
	for i := 1; i < len(hits); i++ {
		assert.GreaterOrEqual(t, hits[i-1].Score, hits[i].Score, "best first")
	}
	novaJSON(t, dir, &hits, "vault", "search", "xylophonequartz")
	assert.Empty(t, hits)
	assert.Equal(t, "[]\n", runNova(t, dir, nil, "vault", "search", "xylophonequartz", "--json").stdout, "an empty result is [] not null")

	var show struct {
		nodeJSON
		Links []struct {
			Relation string `json:"relation"`
		} `json:"links"`
	}
	novaJSON(t, dir, &show, "vault", "show", idStr(n.ID))
	assert.Equal(t, "Users stay logged in across reloads.", show.Body)
	assert.NotNil(t, show.Links)
	out = novaOK(t, dir, "vault", "show", idStr(n.ID))
	assert.Contains(t, out, "httpOnly cookie")
	assert.Contains(t, out, "Users stay logged in")

	st := vaultStats(t, dir)
	assert.Equal(t, base.Nodes+3, st.Nodes)
	assert.Equal(t, base.Edges, st.Edges)
	assert.Equal(t, base.ByType["Decision"]+1, st.ByType["Decision"])
	assert.Equal(t, base.ByType["Mistake"]+1, st.ByType["Mistake"])
	assert.Len(t, st.ByType, 5)
	assert.Greater(t, st.AvgConfidence, 0.0)
}

func TestVaultCLIGraphCommands(t *testing.T) {
	t.Parallel()
	dir := initDir(t)
	base := vaultStats(t, dir)
	a := addNode(t, dir, "--type", "strategy", "--content", "Never use zzq global state")
	b := addNode(t, dir, "--type", "strategy", "--content", "Keep zzq handlers thin")
	c := addNode(t, dir, "--type", "strategy", "--content", "Validate zzq at the boundary")
	r := runNova(t, dir, nil, "vault", "add", "--type", "preference", "--content", "Always use zzq global state", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "contradicts node #"+idStr(a))
	var d nodeJSON
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &d))

	var edge struct {
		ID       uint64  `json:"id"`
		From     uint64  `json:"from"`
		To       uint64  `json:"to"`
		Relation string  `json:"relation"`
		Strength float64 `json:"strength"`
	}
	novaJSON(t, dir, &edge, "vault", "link", idStr(b), idStr(c), "--relation", "depends_on", "--strength", "0.8")
	assert.Equal(t, "depends_on", edge.Relation)
	assert.InDelta(t, 0.8, edge.Strength, 1e-9)
	novaOK(t, dir, "vault", "link", idStr(c), idStr(a), "--relation", "supports")

	var steps []struct {
		Node  nodeJSON `json:"node"`
		Depth int      `json:"depth"`
	}
	novaJSON(t, dir, &steps, "vault", "traverse", idStr(b), "--depth", "1")
	require.Len(t, steps, 2)
	assert.Equal(t, c, steps[1].Node.ID)
	novaJSON(t, dir, &steps, "vault", "traverse", idStr(b))
	require.Len(t, steps, 4, "b → c → a → d within the default depth 3")
	assert.Equal(t, d.ID, steps[3].Node.ID)
	assert.Equal(t, 3, steps[3].Depth)
	novaJSON(t, dir, &steps, "vault", "traverse", idStr(b), "--relation", "depends_on")
	assert.Len(t, steps, 2)

	var conflicts []struct {
		A nodeJSON `json:"a"`
		B nodeJSON `json:"b"`
	}
	novaJSON(t, dir, &conflicts, "vault", "conflicts")
	require.Len(t, conflicts, base.Conflicts+1)
	last := conflicts[len(conflicts)-1]
	assert.Equal(t, "Always use zzq global state", last.A.Content)
	assert.Equal(t, "Never use zzq global state", last.B.Content)

	var n nodeJSON
	novaJSON(t, dir, &n, "vault", "reinforce", idStr(b))
	assert.InDelta(t, 0.75, n.Confidence, 1e-9)
	novaJSON(t, dir, &n, "vault", "demote", idStr(b))
	assert.InDelta(t, 0.65, n.Confidence, 1e-9)
	r = runNova(t, dir, nil, "vault", "forget", idStr(a))
	assert.Equal(t, 2, r.code, "forget deletes: off a terminal it needs --yes")
	assert.Contains(t, r.stderr, "pass --yes")
	novaJSON(t, dir, &conflicts, "vault", "conflicts")
	assert.Len(t, conflicts, base.Conflicts+1, "a refused forget changed nothing")
	novaOK(t, dir, "vault", "forget", idStr(a), "--yes")
	novaJSON(t, dir, &conflicts, "vault", "conflicts")
	assert.Len(t, conflicts, base.Conflicts, "forgetting a node drops its edges")
	assert.Contains(t, runNova(t, dir, nil, "vault", "show", idStr(a)).stderr, "not found")
}

func TestVaultCLIBadInput(t *testing.T) {
	t.Parallel()
	dir := initDir(t)
	one := addNode(t, dir, "--type", "pattern", "--content", "one")
	two := addNode(t, dir, "--type", "pattern", "--content", "two")
	base := vaultStats(t, dir)
	missing := idStr(two + 1000)
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"vault", "add", "--type", "Recipe", "--content", "x"}, 2, `--type "Recipe" is not valid: use Strategy, Mistake, Preference, Pattern or Decision`},
		{[]string{"vault", "add", "--type", "pattern", "--content", "x", "--confidence", "1.5"}, 1, "outside 0–1"},
		{[]string{"vault", "add", "--type", "pattern", "--content", "  "}, 1, "must not be empty"},
		{[]string{"vault", "link", idStr(one), idStr(two), "--relation", "befriends"}, 2, `--relation "befriends" is not valid: use supports, contradicts, refines, replaces or depends_on`},
		{[]string{"vault", "link", idStr(one), missing, "--relation", "supports"}, 1, "not found"},
		{[]string{"vault", "link", idStr(one), idStr(two), "--relation", "supports", "--strength", "7"}, 1, "outside 0–1"},
		{[]string{"vault", "show", missing}, 1, "node " + missing + ": not found"},
		{[]string{"vault", "reinforce", missing}, 1, "not found"},
		{[]string{"vault", "forget", missing}, 1, "not found"},
		{[]string{"vault", "list", "--type", "nope"}, 2, `--type "nope" is not valid`},
		{[]string{"vault", "traverse", idStr(one), "--relation", "x"}, 2, `--relation "x" is not valid`},
		{[]string{"vault", "import", filepath.Join(dir, "missing.jsonl")}, 1, "no such file"},
		{[]string{"vault", "show", "abc"}, 2, "not a node id"},
		{[]string{"vault", "show"}, 2, "expected a node id"},
		{[]string{"vault", "add", "--content", "x"}, 2, "--type and --content are required"},
		{[]string{"vault", "link", idStr(one), idStr(two)}, 2, "--relation is required"},
		{[]string{"vault", "search"}, 2, "expected a query"},
		{[]string{"vault", "add", "--type", "pattern", "--content", "x", "--confidence", "high"}, 2, `--confidence must be a number, got "high"`},
		{[]string{"vault", "traverse", idStr(one), "--direction", "up"}, 2, "--direction"},
		{[]string{"wisdom", "report-harm", "0"}, 2, "not a wisdom pattern id"},
	}
	for _, c := range cases {
		r := runNova(t, dir, nil, c.args...)
		assert.Equal(t, c.code, r.code, "nova %s: %s", strings.Join(c.args, " "), r.stderr)
		assert.Contains(t, r.stderr, c.msg, strings.Join(c.args, " "))
		assert.Empty(t, r.stdout, "nothing on stdout for a failure: %s", strings.Join(c.args, " "))
	}
	assert.Equal(t, base, vaultStats(t, dir), "bad input changed nothing")
}

func TestVaultCLIExportImportRoundTrip(t *testing.T) {
	t.Parallel()
	src := initDir(t)
	a := addNode(t, src, "--type", "pattern", "--content", "Wrap errors", "--body", "with %w\nand context", "--tags", "go")
	b := addNode(t, src, "--type", "mistake", "--content", "Swallowed an error", "--confidence", "0")
	novaOK(t, src, "vault", "link", idStr(b), idStr(a), "--relation", "contradicts")
	st := vaultStats(t, src)
	file := filepath.Join(t.TempDir(), "vault.jsonl")
	var rep map[string]any
	novaJSON(t, src, &rep, "vault", "export", file)
	assert.InDelta(t, st.Nodes, rep["nodes"], 0)
	assert.InDelta(t, st.Edges, rep["edges"], 0)

	dst := initDir(t)
	var imp struct{ Nodes, Edges, Replaced int }
	novaJSON(t, dst, &imp, "vault", "import", file)
	assert.Equal(t, st.Nodes, imp.Nodes)
	assert.Equal(t, st.Edges, imp.Edges)
	again := filepath.Join(t.TempDir(), "again.jsonl")
	novaOK(t, dst, "vault", "export", again)
	first, err := os.ReadFile(file)
	require.NoError(t, err)
	second, err := os.ReadFile(again)
	require.NoError(t, err)
	la, lb := strings.Split(string(first), "\n"), strings.Split(string(second), "\n")
	assert.Equal(t, la[1:], lb[1:], "lossless: same nodes, edges, ids, timestamps (headers differ in exportedAt)")
	var n nodeJSON
	novaJSON(t, dst, &n, "vault", "show", idStr(b))
	assert.Zero(t, n.Confidence, "an explicit zero confidence survives")
	assert.Equal(t, "Swallowed an error", n.Content)

	stdout := novaOK(t, src, "vault", "export", "-")
	assert.Equal(t, 1+st.Nodes+st.Edges, strings.Count(stdout, "\n"))
}

func TestVaultCLIImportMalformedIsAllOrNothing(t *testing.T) {
	t.Parallel()
	dir := initDir(t)
	base := vaultStats(t, dir)
	file := filepath.Join(t.TempDir(), "bad.jsonl")
	require.NoError(t, os.WriteFile(file, []byte(strings.Join([]string{
		`{"kind":"node","id":9001,"type":"Pattern","content":"good"}`,
		`{"kind":"node","id":9002,"type":"Pattern","content":"bad","confidence":3}`,
		`this is not json`,
		`{"kind":"edge","id":9001,"from":9001,"to":9042,"relation":"supports"}`,
	}, "\n")), 0o644))
	r := runNova(t, dir, nil, "vault", "import", file)
	assert.Equal(t, 1, r.code)
	for _, want := range []string{"line 2:", "line 3:", "line 4:", "nothing imported"} {
		assert.Contains(t, r.stderr, want)
	}
	assert.Equal(t, base, vaultStats(t, dir), "nothing was imported")
	help := novaOK(t, dir, "vault", "import", "--help")
	assert.Contains(t, help, "whole-file-or-nothing")
}

func TestVaultCLIContextPreview(t *testing.T) {
	t.Parallel()
	dir := initDir(t)
	id := addNode(t, dir, "--type", "pattern", "--content", "Paginate zzqorders endpoints with a cursor")
	var vc struct {
		Text      string   `json:"text"`
		Tokens    int      `json:"tokens"`
		MaxTokens int      `json:"maxTokens"`
		NodeIDs   []uint64 `json:"nodeIds"`
	}
	novaJSON(t, dir, &vc, "vault", "context", "add", "pagination", "to", "the", "zzqorders", "endpoint", "--agent", "MARS")
	assert.Contains(t, vc.Text, "<taste_vault_context>")
	require.NotEmpty(t, vc.NodeIDs)
	assert.Equal(t, id, vc.NodeIDs[0])
	assert.LessOrEqual(t, vc.Tokens, vc.MaxTokens)
	assert.Equal(t, 1075, vc.MaxTokens, "15 % of the default 7168-token budget (numCtx 8192 minus the reply reserve)")
}

func TestWisdomCLI(t *testing.T) {
	t.Parallel()
	dir := initDir(t)
	good := idStr(addNode(t, dir, "--type", "pattern", "--content", "Review generated code before applying it", "--confidence", "0.9"))
	shaky := idStr(addNode(t, dir, "--type", "pattern", "--content", "Shaky idea", "--confidence", "0.5"))
	r := runNova(t, dir, nil, "wisdom", "promote", good)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "not opted in")
	novaOK(t, dir, "wisdom", "optin", "on")
	var res struct {
		Pattern struct {
			ID      uint64   `json:"id"`
			Status  string   `json:"status"`
			Backers []string `json:"backers"`
			Node    nodeJSON `json:"node"`
		} `json:"pattern"`
		Merged bool `json:"merged"`
	}
	novaJSON(t, dir, &res, "wisdom", "promote", good)
	assert.Equal(t, "pending", res.Pattern.Status)
	assert.True(t, res.Pattern.Node.IsGlobal)
	r = runNova(t, dir, nil, "wisdom", "promote", shaky)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "below 0.85")

	pid := idStr(res.Pattern.ID)
	// Backers and reporters are the workspace identity, never a flag (issue
	// 10): other users' backing arrives in their wisdom bundles.
	r = runNova(t, dir, nil, "wisdom", "endorse", pid, "--user", "bo")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "unknown flag: --user", "there is no --user flag any more")
	out := novaOK(t, dir, "wisdom", "endorse", pid)
	assert.Contains(t, out, "1 backer, pending", "endorsing again is still one backer")
	var list []struct {
		ID     uint64  `json:"id"`
		Status string  `json:"status"`
		Score  float64 `json:"score"`
	}
	novaJSON(t, dir, &list, "wisdom", "list", "--status", "pending")
	require.Len(t, list, 1)
	assert.Positive(t, list[0].Score)
	for range 3 {
		novaOK(t, dir, "wisdom", "report-harm", pid, "--reason", "broke the build")
	}
	var st struct {
		Patterns    int `json:"patterns"`
		Active      int `json:"active"`
		Demoted     int `json:"demoted"`
		HarmReports int `json:"harmReports"`
	}
	novaJSON(t, dir, &st, "wisdom", "stats")
	assert.Equal(t, 1, st.Patterns)
	assert.Equal(t, 0, st.Active)
	assert.Equal(t, 0, st.Demoted, "one reporter, however often")
	assert.Equal(t, 1, st.HarmReports)
	r = runNova(t, dir, nil, "wisdom", "report-harm", "77")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "not found")
	r = runNova(t, dir, nil, "wisdom", "list", "--status", "asleep")
	assert.Equal(t, 2, r.code, "a bad enum value is bad usage")
}
