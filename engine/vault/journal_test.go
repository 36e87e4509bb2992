package vault_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/vault"
)

// journalFixture is a vault with nodes and edges, and a dump that replaces some of them
// and adds many more: large enough, with a chunk of 5 records, for 18 transactions of
// records and a few of the index.
func journalFixture(t *testing.T) (*testEnv, string) {
	t.Helper()
	return journalFixtureChunk(t, 5)
}

func journalFixtureChunk(t *testing.T, chunk int) (*testEnv, string) {
	t.Helper()
	e := newEnv(t, withTier(vault.TierPremium))
	a := e.add(vault.Node{Type: vault.Pattern, Title: "Retries", Content: "Retry with backoff", Body: "jitter and caps", Tags: []string{"net"}})
	b := e.add(vault.Node{Type: vault.Mistake, Content: "Never swallow errors", Tags: []string{"errors"}})
	e.link(a.ID, b.ID, vault.Supports)
	var sb strings.Builder
	sb.WriteString(`{"kind":"node","id":` + itoa(a.ID) + `,"type":"Strategy","content":"replaced by the import","tags":["imported"]}` + "\n")
	for i := 10; i < 80; i++ {
		sb.WriteString(`{"kind":"node","id":` + itoa(uint64(i)) + `,"type":"Pattern","content":"imported note ` + itoa(uint64(i)) + ` about queues","body":"long text ` + itoa(uint64(i)) + `","tags":["bulk"]}` + "\n")
	}
	sb.WriteString(`{"kind":"edge","id":1,"from":10,"to":` + itoa(b.ID) + `,"relation":"refines"}` + "\n") // replaces edge 1
	for i := 2; i < 20; i++ {
		sb.WriteString(`{"kind":"edge","id":` + itoa(uint64(i)) + `,"from":` + itoa(uint64(9+i)) + `,"to":10,"relation":"supports"}` + "\n")
	}
	vault.SetImportChunk(e.v, chunk)
	return e, sb.String()
}

// dump is the vault's content as an export without its header (which has a time).
func dump(t *testing.T, v *vault.Vault) []string {
	t.Helper()
	var buf bytes.Buffer
	_, err := v.Export(t.Context(), &buf)
	require.NoError(t, err)
	return strings.Split(strings.TrimSpace(buf.String()), "\n")[1:]
}

func TestLargeImportInChunksMatchesOneTransaction(t *testing.T) {
	t.Parallel()
	e, file := journalFixture(t)
	one, _ := journalFixture(t)
	vault.SetImportChunk(one.v, 1_000_000)
	chunks := 0
	vault.SetImportChunkHook(e.v, func(int) error { chunks++; return nil })
	rep, err := e.v.Import(t.Context(), strings.NewReader(file))
	require.NoError(t, err)
	want, err := one.v.Import(t.Context(), strings.NewReader(file))
	require.NoError(t, err)
	assert.Equal(t, want, rep)
	assert.Equal(t, vault.ImportReport{Nodes: 71, Edges: 19, Replaced: 2}, rep)
	assert.Greater(t, chunks, 18, "90 records in chunks of 5, then the index in steps")
	assert.Equal(t, dump(t, one.v), dump(t, e.v))
	hits, err := e.v.Search(t.Context(), "queues", vault.SearchOptions{Limit: 100})
	require.NoError(t, err)
	assert.Len(t, hits, 70, "every imported node is searchable")
	assert.Equal(t, []string{"add", "add", "link", "import"}, e.ops(), "one event for the whole import")
	e.verify()
}

// importSteps is the number of hook calls of the fixture's import: 18 record chunks (90
// records in chunks of 5), then the steps of the index phase but its last.
func importSteps(t *testing.T) int {
	e, file := journalFixture(t)
	n := 0
	vault.SetImportChunkHook(e.v, func(int) error { n++; return nil })
	_, err := e.v.Import(t.Context(), strings.NewReader(file))
	require.NoError(t, err)
	require.Greater(t, n, 19, "at least two steps of the index phase before the last")
	return n
}

func TestLargeImportRollsBackOnFailure(t *testing.T) {
	t.Parallel()
	n := importSteps(t)
	for _, stop := range []int{0, 5, 17, 18, n - 1} { // records phase, then index phase
		e, file := journalFixture(t)
		before := dump(t, e.v)
		beforeStats, err := e.v.Stats(t.Context())
		require.NoError(t, err)
		boom := errors.New("disk full")
		vault.SetImportChunkHook(e.v, func(chunk int) error {
			if chunk == stop {
				return boom
			}
			return nil
		})
		_, err = e.v.Import(t.Context(), strings.NewReader(file))
		require.ErrorIs(t, err, boom)
		assert.Equal(t, before, dump(t, e.v), "stop after chunk %d: everything is as before", stop)
		st, err := e.v.Stats(t.Context())
		require.NoError(t, err)
		beforeStats.Revision = st.Revision
		assert.Equal(t, beforeStats, st)
		hits, err := e.v.Search(t.Context(), "queues", vault.SearchOptions{})
		require.NoError(t, err)
		assert.Empty(t, hits, "rolled-back nodes are not searchable")
		hits, err = e.v.Search(t.Context(), "backoff", vault.SearchOptions{})
		require.NoError(t, err)
		assert.Len(t, hits, 1, "the replaced node is searchable again")
		e.verify()
		e.add(vault.Node{Type: vault.Pattern, Content: "a write after the failed import"})
		e.verify()
	}
}

func TestLargeImportRollsBackOnCancel(t *testing.T) {
	t.Parallel()
	e, file := journalFixture(t)
	before := dump(t, e.v)
	ctx, cancel := context.WithCancel(t.Context())
	vault.SetImportChunkHook(e.v, func(chunk int) error {
		if chunk == 3 {
			cancel()
		}
		return nil
	})
	_, err := e.v.Import(ctx, strings.NewReader(file))
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, before, dump(t, e.v))
	e.verify()
}

// TestInterruptedImportIsRolledBackByTheNextWrite: a process killed during a large import
// leaves its journal; the next write, in any process, rolls the import back first.
func TestInterruptedImportIsRolledBackByTheNextWrite(t *testing.T) {
	t.Parallel()
	n := importSteps(t)
	for _, crash := range []int{6, n - 1} { // records phase, index phase
		t.Run(itoa(uint64(crash)), func(t *testing.T) {
			t.Parallel()
			interruptedImport(t, crash)
		})
	}
}

func interruptedImport(t *testing.T, crash int) {
	e, file := journalFixture(t)
	before := dump(t, e.v)
	vault.SetImportChunkHook(e.v, func(chunk int) error {
		if chunk == crash {
			return vault.ErrSimulatedCrash
		}
		return nil
	})
	_, err := e.v.Import(t.Context(), strings.NewReader(file))
	require.ErrorIs(t, err, vault.ErrSimulatedCrash)
	e.reopen(true)
	problems, err := e.v.Verify(t.Context())
	require.NoError(t, err)
	assert.Contains(t, problems, "an import did not finish: the next write rolls it back")
	e.reopen(false)
	n := e.add(vault.Node{Type: vault.Decision, Content: "zeppelin written after the crash"})
	assert.Equal(t, append(before[:2:2], append([]string{dump(t, e.v)[2]}, before[2:]...)...), dump(t, e.v),
		"the import is gone, the new node is there")
	got, err := e.v.Get(t.Context(), n.ID)
	require.NoError(t, err)
	assert.Equal(t, "zeppelin written after the crash", got.Content)
	hits, err := e.v.Search(t.Context(), "zeppelin", vault.SearchOptions{})
	require.NoError(t, err)
	assert.Equal(t, []uint64{n.ID}, scoredIDs(hits))
	info := e.v.IndexInfo()
	assert.True(t, info.Persisted, "the write rebuilt the index if the import had reached it")
	e.verify()
}

// TestLargeImportRejectsBadLinesReadLate: a large dump is written while it is read; a bad
// line after chunks were written still rejects the whole file, reports every bad line, and
// leaves the vault as it was.
func TestLargeImportRejectsBadLinesReadLate(t *testing.T) {
	t.Parallel()
	e, _ := journalFixture(t)
	before := dump(t, e.v)
	var sb strings.Builder
	for i := 10; i < 60; i++ {
		if i == 40 {
			sb.WriteString(`{"kind":"node","id":40,"type":"Recipe","content":"bad type"}` + "\n")
			continue
		}
		sb.WriteString(`{"kind":"node","id":` + itoa(uint64(i)) + `,"type":"Pattern","content":"note ` + itoa(uint64(i)) + `"}` + "\n")
	}
	sb.WriteString(`{"kind":"edge","id":7,"from":10,"to":999,"relation":"supports"}` + "\n")
	sb.WriteString(`{not json` + "\n")
	_, err := e.v.Import(t.Context(), strings.NewReader(sb.String()))
	var ie *vault.ImportError
	require.ErrorAs(t, err, &ie)
	var lines []int
	for _, l := range ie.Lines {
		lines = append(lines, l.Line)
	}
	assert.Equal(t, []int{31, 52, 51}, lines, "every bad line, the edge checked last")
	assert.Equal(t, before, dump(t, e.v), "nothing imported")
	e.verify()
}
