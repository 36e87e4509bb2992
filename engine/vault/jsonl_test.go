package vault_test

import (
	"bufio"
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/vault"
)

func TestExportImportRoundTripIsLossless(t *testing.T) {
	t.Parallel()
	src := newEnv(t)
	a := src.add(vault.Node{Type: vault.Pattern, Title: "Errors", Content: "Wrap errors with %w", Body: "Long body\n\twith \"quotes\" and <html> & ünïcödé",
		Tags: []string{"go", "errors"}, Confidence: 0.83, Language: "go", Source: "patterns/07-errors/wrap.md",
		Meta: map[string]string{"category": "errors", "contentHash": "abc"}})
	b := src.add(vault.Node{Type: vault.Mistake, Content: "Compared errors with ==", UserID: "bo"})
	src.clock.Advance(time.Minute)
	_, err := src.v.Update(t.Context(), b.ID, vault.Patch{IsGlobal: vault.Ptr(true), GlobalSuccessCount: vault.Ptr(3), HelpfulCount: vault.Ptr(2)})
	require.NoError(t, err)
	c := src.add(vault.Node{Type: vault.Decision, Content: "zero confidence survives"})
	_, err = src.v.Update(t.Context(), c.ID, vault.Patch{Confidence: vault.Ptr(0.0)})
	require.NoError(t, err)
	require.NoError(t, src.v.Remove(t.Context(), c.ID-0)) // leave a gap in the ids
	d := src.add(vault.Node{Type: vault.Decision, Content: "after the gap", Confidence: 0.01})
	e1 := src.link(b.ID, a.ID, vault.Contradicts)
	e2, err := src.v.Link(t.Context(), d.ID, a.ID, vault.DependsOn, 0.25)
	require.NoError(t, err)

	var buf bytes.Buffer
	st, err := src.v.Export(t.Context(), &buf)
	require.NoError(t, err)
	assert.Equal(t, vault.ExportStats{Nodes: 3, Edges: 2}, st)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	require.Len(t, lines, 6, "header, 3 nodes, 2 edges")
	assert.Contains(t, lines[0], `"kind":"header"`)

	dst := newEnv(t)
	rep, err := dst.v.Import(t.Context(), bytes.NewReader(buf.Bytes()))
	require.NoError(t, err)
	assert.Equal(t, vault.ImportReport{Nodes: 3, Edges: 2}, rep)
	for _, id := range []uint64{a.ID, b.ID, d.ID} {
		want, err := src.v.Get(t.Context(), id)
		require.NoError(t, err)
		got, err := dst.v.Get(t.Context(), id)
		require.NoError(t, err)
		assert.Equal(t, want, got, "node %d", id)
	}
	for _, want := range []vault.Edge{e1, e2} {
		got, err := dst.v.Edge(t.Context(), want.ID)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	var again bytes.Buffer
	_, err = dst.v.Export(t.Context(), &again)
	require.NoError(t, err)
	assert.Equal(t, lines[1:], strings.Split(strings.TrimSpace(again.String()), "\n")[1:], "export → import → export is stable")
	next := dst.add(vault.Node{Type: vault.Pattern, Content: "new"})
	assert.Greater(t, next.ID, d.ID, "imported ids advance the sequence")
	hits, err := dst.v.Search(t.Context(), "quotes html", vault.SearchOptions{})
	require.NoError(t, err)
	assert.Equal(t, []uint64{a.ID}, scoredIDs(hits), "imported bodies are searchable")
	dst.verify()
}

func TestImportRejectsTheWholeFileAndNamesEveryBadLine(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	existing := e.add(vault.Node{Type: vault.Pattern, Content: "keep me"})
	file := strings.Join([]string{
		`{"kind":"header","format":"nova-vault","version":1}`,
		`{"kind":"node","id":10,"type":"Pattern","content":"fine"}`,
		`{"kind":"node","id":11,"type":"Recipe","content":"bad type"}`,
		``,
		`{"kind":"node","id":12,"type":"Pattern","content":"x","confidence":1.5}`,
		`{not json`,
		`{"kind":"edge","id":1,"from":10,"to":99,"relation":"supports"}`,
		`{"kind":"edge","id":2,"from":10,"to":1,"relation":"loves"}`,
		`{"kind":"node","id":10,"type":"Pattern","content":"duplicate id"}`,
		`{"kind":"node","type":"Pattern","content":"no id"}`,
		`{"kind":"node","id":13,"type":"Pattern","content":"   "}`,
		`{"kind":"thing"}`,
		`[1,2,3]`,
		`{"kind":"edge","id":3,"from":10,"to":1,"relation":"supports","strength":"strong"}`,
	}, "\n")
	_, err := e.v.Import(t.Context(), strings.NewReader(file))
	require.Error(t, err)
	assert.ErrorIs(t, err, vault.ErrInvalid)
	var ie *vault.ImportError
	require.ErrorAs(t, err, &ie)
	var lines []int
	for _, l := range ie.Lines {
		lines = append(lines, l.Line)
	}
	assert.Equal(t, []int{3, 5, 6, 8, 9, 10, 11, 12, 13, 14, 7}, lines)
	msg := err.Error()
	for _, want := range []string{"line 3:", "Recipe", "line 5:", "outside 0–1", "line 6:", "not a JSON object", "line 7:", "node 99",
		"line 8:", "loves", "line 9:", "already defined on line 2", "line 10:", "missing id", "line 11:", "content is empty",
		"line 12:", "unknown kind", "nothing imported"} {
		assert.Contains(t, msg, want)
	}
	st, _ := e.v.Stats(t.Context())
	assert.Equal(t, 1, st.Nodes, "nothing was imported")
	_, err = e.v.Get(t.Context(), existing.ID)
	require.NoError(t, err)
}

func TestImportEdgesMayReferToExistingNodes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.add(vault.Node{Type: vault.Pattern, Content: "already here"})
	file := `{"kind":"node","id":5,"type":"Strategy","content":"imported"}` + "\n" +
		`{"kind":"edge","id":9,"from":5,"to":` + itoa(a.ID) + `,"relation":"refines","strength":0.4}`
	rep, err := e.v.Import(t.Context(), strings.NewReader(file))
	require.NoError(t, err)
	assert.Equal(t, vault.ImportReport{Nodes: 1, Edges: 1}, rep)
	rel, err := e.v.Related(t.Context(), a.ID, vault.Refines)
	require.NoError(t, err)
	require.Len(t, rel, 1)
	assert.Equal(t, uint64(5), rel[0].Node.ID)
	e.verify()
}

func TestImportReplacesExistingIDs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.add(vault.Node{Type: vault.Pattern, Content: "old text", Tags: []string{"old"}})
	file := `{"kind":"node","id":` + itoa(a.ID) + `,"type":"Decision","content":"new text","tags":["new"],"confidence":0.9}`
	rep, err := e.v.Import(t.Context(), strings.NewReader(file))
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Replaced)
	got, err := e.v.Get(t.Context(), a.ID)
	require.NoError(t, err)
	assert.Equal(t, "new text", got.Content)
	assert.Equal(t, vault.Decision, got.Type)
	old, err := e.v.ByTag(t.Context(), "old", 0)
	require.NoError(t, err)
	assert.Empty(t, old)
	hits, err := e.v.Search(t.Context(), "old text", vault.SearchOptions{})
	require.NoError(t, err)
	for _, h := range hits {
		assert.NotEqual(t, "old text", h.Content)
	}
	e.verify()
}

func TestImportLargeFileInOneTransaction(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withTier(vault.TierPremium)) // more nodes than the free tier keeps
	var b strings.Builder
	for i := 1; i <= 3000; i++ {
		b.WriteString(`{"kind":"node","id":` + itoa(uint64(i)) + `,"type":"Pattern","content":"bulk entry","tags":["bulk"]}` + "\n")
	}
	for i := 2; i <= 3000; i++ {
		b.WriteString(`{"kind":"edge","id":` + itoa(uint64(i)) + `,"from":` + itoa(uint64(i)) + `,"to":1,"relation":"supports"}` + "\n")
	}
	rep, err := e.v.Import(t.Context(), strings.NewReader(b.String()))
	require.NoError(t, err)
	assert.Equal(t, 3000, rep.Nodes)
	assert.Equal(t, 2999, rep.Edges)
	assert.Equal(t, []string{"import"}, e.ops(), "one transaction, one event")
	e.verify()
}

func TestParseJSONLToleratesCRLFBlankLinesAndMissingKind(t *testing.T) {
	t.Parallel()
	in := "\r\n" + `{"id":1,"type":"pattern","content":"a"}` + "\r\n\r\n" + `{"id":2,"type":"mistake","content":"b","confidence":0.2}` + "\n" +
		`{"id":3,"from":1,"to":2,"relation":"depends-on"}`
	d, err := vault.ParseJSONL(strings.NewReader(in), nil)
	require.NoError(t, err)
	require.Len(t, d.Nodes, 2)
	assert.Equal(t, vault.Pattern, d.Nodes[0].Type)
	assert.InDelta(t, vault.DefaultConfidence, d.Nodes[0].Confidence, 1e-9, "a missing confidence gets the default")
	assert.InDelta(t, 0.2, d.Nodes[1].Confidence, 1e-9)
	require.Len(t, d.Edges, 1)
	assert.Equal(t, vault.DependsOn, d.Edges[0].Relation)
	assert.InDelta(t, vault.DefaultStrength, d.Edges[0].Strength, 1e-9)
}

func TestParseJSONLRejectsHugeLinesAndNewerVersions(t *testing.T) {
	t.Parallel()
	huge := `{"id":1,"type":"pattern","content":"` + strings.Repeat("x", vault.MaxLineLen) + `"}`
	in := `{"kind":"header","format":"nova-vault","version":99}` + "\n" + huge + "\n" + `{"id":2,"type":"pattern","content":"ok"}`
	_, err := vault.ParseJSONL(strings.NewReader(in), nil)
	var ie *vault.ImportError
	require.ErrorAs(t, err, &ie)
	require.Len(t, ie.Lines, 2)
	assert.Equal(t, 1, ie.Lines[0].Line)
	assert.Contains(t, ie.Lines[0].Error(), "newer")
	assert.Equal(t, 2, ie.Lines[1].Line)
	assert.Contains(t, ie.Lines[1].Error(), "longer than")
}

func TestParseJSONLCapsTheReport(t *testing.T) {
	t.Parallel()
	in := strings.Repeat("garbage\n", 80)
	_, err := vault.ParseJSONL(strings.NewReader(in), nil)
	var ie *vault.ImportError
	require.ErrorAs(t, err, &ie)
	assert.Len(t, ie.Lines, 50)
	assert.Equal(t, 30, ie.More)
	assert.Contains(t, err.Error(), "and 30 more")
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestImportReadErrorIsReported(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, err := e.v.Import(t.Context(), bufio.NewReader(failingReader{}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "disk on fire")
}

func itoa(u uint64) string {
	const digits = "0123456789"
	if u == 0 {
		return "0"
	}
	var b []byte
	for u > 0 {
		b = append([]byte{digits[u%10]}, b...)
		u /= 10
	}
	return string(b)
}
