package importer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	nova "github.com/nova-dev/nova"
	"github.com/nova-dev/nova/engine/patterns"
	"github.com/nova-dev/nova/engine/vault"
)

var ctx = context.Background()

// smallLib is a library written for these tests: two categories, one meta file.
func smallLib() map[string]string {
	return map[string]string{
		"README.md":                     "# About this library\n\nMeta file.\n",
		"01-caching/cache-aside.md":     pattern("Cache Aside", "Read through the cache first and fill it on a miss, so hot keys stay in memory while cold ones expire."),
		"01-caching/write-through.md":   pattern("Write Through", "Every write goes to the store and to the cache in one step, which keeps both consistent at the cost of write latency."),
		"01-caching/ttl-jitter.md":      pattern("TTL Jitter", "Spread expiry times with random jitter so that thousands of entries do not expire in the same second."),
		"02-testing/golden-files.md":    pattern("Golden Files", "Compare rendered output with a checked-in golden file and regenerate it with an update flag."),
		"02-testing/table-driven.md":    pattern("Table Driven Tests", "List inputs and expectations in a slice of cases and run each case as a named subtest."),
		"02-testing/fuzz-the-parser.md": pattern("Fuzz the Parser", "Give every parser a fuzz target seeded with real inputs so that panics are found before users find them."),
	}
}

func TestReimportUnchangedIsNoOp(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{})
	dir := writeLib(t, smallLib())
	first, err := e.im.Import(ctx, DirSource(dir), Options{})
	require.NoError(t, err)
	assert.Equal(t, 6, first.Loaded)
	assert.Equal(t, 1, first.Meta)
	snap := e.snapshot(t)
	batches, err := e.im.Batches(ctx)
	require.NoError(t, err)

	second, err := e.im.Import(ctx, DirSource(dir), Options{})
	require.NoError(t, err)
	assert.Zero(t, second.Batch)
	assert.Zero(t, second.Loaded)
	assert.Equal(t, 6, second.Unchanged)
	assert.Equal(t, 7, second.Skipped)
	for _, n := range second.Nodes {
		if n.SourceFile != "README.md" {
			assert.Contains(t, n.Reason, "unchanged since batch")
			assert.NotZero(t, n.ID)
		}
	}
	assert.Equal(t, snap, e.snapshot(t))
	again, err := e.im.Batches(ctx)
	require.NoError(t, err)
	assert.Len(t, again, len(batches), "no batch is recorded for a no-op")
}

func TestChangedFileUpdatesInPlace(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{})
	dir := writeLib(t, smallLib())
	first, err := e.im.Import(ctx, DirSource(dir), Options{})
	require.NoError(t, err)
	id := reportsBySource(first)["01-caching/write-through.md"].ID
	require.NotZero(t, id)
	edgesBefore, err := e.v.Edges(ctx, id)
	require.NoError(t, err)
	require.NotEmpty(t, edgesBefore)
	// The vault learned something about the node: the update keeps it.
	_, err = e.v.IncrementHelpful(ctx, id)
	require.NoError(t, err)
	dumpBefore := e.nodeDump(t)
	statsBefore := e.stats(t)

	writeFiles(t, dir, map[string]string{"01-caching/write-through.md": pattern("Write Through",
		"Writes go to the store and the cache together. Prefer it when reads follow writes closely.", "**Reusability:** 9/10")})
	second, err := e.im.Import(ctx, DirSource(dir), Options{})
	require.NoError(t, err)
	rep := reportsBySource(second)["01-caching/write-through.md"]
	assert.Equal(t, ActionUpdated, rep.Action)
	assert.Equal(t, id, rep.ID, "a changed file keeps its node id")
	assert.Equal(t, 1, second.Updated)
	assert.Equal(t, 5, second.Unchanged)
	assert.Equal(t, 1, second.NodesUpdated)
	assert.Zero(t, second.NodesAdded)

	n, err := e.v.Get(ctx, id)
	require.NoError(t, err)
	assert.Contains(t, n.Content, "Prefer it when reads follow writes closely")
	assert.Equal(t, 1, n.HelpfulCount)
	edgesAfter, err := e.v.Edges(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, edgesBefore, edgesAfter, "a changed file keeps its edges")
	assert.Equal(t, statsBefore, e.stats(t))

	// Undo restores the previous value exactly; the file imports as "updated" again.
	_, err = e.im.Undo(ctx, second.Batch)
	require.NoError(t, err)
	assert.Equal(t, dumpBefore, e.nodeDump(t))
	third, err := e.im.Import(ctx, DirSource(dir), Options{DryRun: true})
	require.NoError(t, err)
	assert.Equal(t, ActionUpdated, reportsBySource(third)["01-caching/write-through.md"].Action)
}

func TestUndoRestoresCountsExactly(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{})
	// A node that is not from an import survives everything.
	manual, err := e.v.Add(ctx, vault.Node{Type: vault.Preference, Content: "Prefer small pull requests over big ones"})
	require.NoError(t, err)
	s0, d0 := e.stats(t), e.nodeDump(t)

	dir := writeLib(t, smallLib())
	b1, err := e.im.Import(ctx, DirSource(dir), Options{Split: true})
	require.NoError(t, err)
	s1, d1 := e.stats(t), e.nodeDump(t)
	assert.Equal(t, s0.Nodes+6, s1.Nodes)

	// Batch 2 adds a file in the middle of a category, changes one and drops nothing.
	writeFiles(t, dir, map[string]string{
		"01-caching/read-repair.md":  pattern("Read Repair", "When a read finds a stale replica it writes the fresh value back before answering."),
		"02-testing/golden-files.md": pattern("Golden Files", "Golden files hold expected output; review their diffs like code."),
	})
	b2, err := e.im.Import(ctx, DirSource(dir), Options{Split: true})
	require.NoError(t, err)
	assert.Equal(t, 1, b2.New)
	assert.Equal(t, 1, b2.Updated)
	assert.Positive(t, b2.EdgesRemoved, "the category chain is re-threaded around the new file")

	_, err = e.im.Undo(ctx, b1.Batch)
	assert.ErrorIs(t, err, ErrUndoBlocked, "batch 2 changed nodes of batch 1")

	_, err = e.im.Undo(ctx, b2.Batch)
	require.NoError(t, err)
	assert.Equal(t, s1, e.stats(t))
	assert.Equal(t, d1, e.nodeDump(t), "undo restores nodes, bodies, ids and edges exactly")
	_, err = e.im.Undo(ctx, b2.Batch)
	assert.ErrorIs(t, err, ErrAlreadyUndone)

	_, err = e.im.Undo(ctx, b1.Batch)
	require.NoError(t, err)
	assert.Equal(t, s0, e.stats(t))
	assert.Equal(t, d0, e.nodeDump(t))
	_, err = e.v.Get(ctx, manual.ID)
	assert.NoError(t, err)

	_, err = e.im.Undo(ctx, 999)
	assert.ErrorIs(t, err, ErrBatchNotFound)

	// After undoing everything the library imports as new again.
	b3, err := e.im.Import(ctx, DirSource(dir), Options{})
	require.NoError(t, err)
	assert.Equal(t, 7, b3.New)
	list, err := e.im.Batches(ctx)
	require.NoError(t, err)
	require.Len(t, list, 3)
	assert.Equal(t, b3.Batch, list[0].ID, "newest first")
	assert.NotNil(t, list[1].UndoneAt)
}

func TestDryRunWritesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{})
	dir := writeLib(t, smallLib())
	snap := e.snapshot(t)
	dry, err := e.im.Import(ctx, DirSource(dir), Options{DryRun: true, Split: true})
	require.NoError(t, err)
	assert.True(t, dry.DryRun)
	assert.Zero(t, dry.Batch)
	assert.Equal(t, snap, e.snapshot(t))
	for _, n := range dry.Nodes {
		if n.Action == ActionNew {
			assert.Zero(t, n.ID, "a dry run invents no ids")
		}
	}
	real, err := e.im.Import(ctx, DirSource(dir), Options{Split: true})
	require.NoError(t, err)
	for _, f := range []func(Result) int{
		func(r Result) int { return r.Loaded }, func(r Result) int { return r.NodesAdded },
		func(r Result) int { return r.EdgesAdded }, func(r Result) int { return r.Skipped },
	} {
		assert.Equal(t, f(dry), f(real))
	}
	// A dry run after a change predicts the update exactly, and still writes nothing.
	writeFiles(t, dir, map[string]string{"02-testing/zz-new.md": pattern("Snapshot Review", "Snapshots are reviewed in code review.")})
	snap = e.snapshot(t)
	dry2, err := e.im.Import(ctx, DirSource(dir), Options{DryRun: true, Split: true})
	require.NoError(t, err)
	assert.Equal(t, snap, e.snapshot(t))
	real2, err := e.im.Import(ctx, DirSource(dir), Options{Split: true})
	require.NoError(t, err)
	assert.Equal(t, dry2.NodesAdded, real2.NodesAdded)
	assert.Equal(t, dry2.EdgesAdded, real2.EdgesAdded)
	assert.Equal(t, dry2.EdgesRemoved, real2.EdgesRemoved)
}

const multiPattern = `# Retry Toolkit

Three small patterns for calls that fail now and then.

## Pattern 1: Exponential Backoff

Wait longer after each failure, doubling the delay up to a cap.

` + "```go\nd := base << attempt\n```" + `

## Pattern 2: Jitter

Add randomness to the delay so clients do not retry in lockstep.

## Pattern 3: Retry Budget

Stop retrying when more than a tenth of the calls are retries.
`

func TestSplitSectionsRefineTheirFile(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{})
	dir := writeLib(t, map[string]string{"07-resilience/retry-toolkit.md": multiPattern})
	res, err := e.im.Import(ctx, DirSource(dir), Options{Split: true})
	require.NoError(t, err)
	file := reportsBySource(res)["07-resilience/retry-toolkit.md"]
	assert.Equal(t, 3, file.Sections)
	var sections []NodeReport
	for _, n := range res.Nodes {
		if n.ParentSource != "" {
			sections = append(sections, n)
		}
	}
	require.Len(t, sections, 3)
	assert.Equal(t, 4, e.stats(t).Nodes)
	for _, s := range sections {
		assert.True(t, strings.HasPrefix(s.SourceFile, "07-resilience/retry-toolkit.md#"), s.SourceFile)
		rel, err := e.v.Related(ctx, s.ID, vault.Refines)
		require.NoError(t, err)
		require.Len(t, rel, 1)
		assert.Equal(t, file.ID, rel[0].Node.ID)
	}
	assert.Equal(t, 3, e.stats(t).ByRelation[string(vault.Refines)])
	d1 := e.nodeDump(t)

	// Change one section and drop another: the kept ones keep their ids.
	changed := strings.Replace(multiPattern, "doubling the delay up to a cap", "doubling the delay up to a ceiling of thirty seconds", 1)
	changed = changed[:strings.Index(changed, "## Pattern 3")]
	writeFiles(t, dir, map[string]string{"07-resilience/retry-toolkit.md": changed})
	res2, err := e.im.Import(ctx, DirSource(dir), Options{Split: true})
	require.NoError(t, err)
	assert.Equal(t, 1, res2.NodesRemoved)
	assert.Equal(t, 3, res2.NodesUpdated)
	reps := reportsBySource(res2)
	assert.Equal(t, sections[0].ID, reps[sections[0].SourceFile].ID)
	assert.Equal(t, 3, e.stats(t).Nodes)
	require.NotEmpty(t, reps["07-resilience/retry-toolkit.md"].Warnings)

	_, err = e.im.Undo(ctx, res2.Batch)
	require.NoError(t, err)
	assert.Equal(t, d1, e.nodeDump(t), "the removed section comes back with its id and edge")

	// Without split, the same file is one node.
	e2 := newEnv(t, Config{})
	res3, err := e2.im.Import(ctx, DirSource(dir), Options{})
	require.NoError(t, err)
	assert.Equal(t, 1, res3.NodesAdded)
}

func TestCategoryChainsAreSupportsEdges(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{})
	dir := writeLib(t, smallLib())
	res, err := e.im.Import(ctx, DirSource(dir), Options{})
	require.NoError(t, err)
	reps := reportsBySource(res)
	chain := func(paths ...string) {
		t.Helper()
		for i := 0; i+1 < len(paths); i++ {
			rel, err := e.v.Related(ctx, reps[paths[i]].ID, vault.Supports)
			require.NoError(t, err)
			var tos []uint64
			for _, l := range rel {
				if l.Direction == "out" {
					tos = append(tos, l.Node.ID)
				}
			}
			assert.Equal(t, []uint64{reps[paths[i+1]].ID}, tos, "%s supports %s", paths[i], paths[i+1])
		}
	}
	chain("01-caching/cache-aside.md", "01-caching/ttl-jitter.md", "01-caching/write-through.md")
	chain("02-testing/fuzz-the-parser.md", "02-testing/golden-files.md", "02-testing/table-driven.md")
	assert.Equal(t, 4, e.stats(t).ByRelation[string(vault.Supports)])

	// A new file in the middle of a category is threaded in; the old link goes.
	writeFiles(t, dir, map[string]string{"01-caching/negative-caching.md": pattern("Negative Caching", "Cache the absence of a value too, briefly, so repeated misses do not hammer the store.")})
	res2, err := e.im.Import(ctx, DirSource(dir), Options{})
	require.NoError(t, err)
	for k, v := range reportsBySource(res2) {
		reps[k] = v
	}
	chain("01-caching/cache-aside.md", "01-caching/negative-caching.md", "01-caching/ttl-jitter.md", "01-caching/write-through.md")
	assert.Equal(t, 5, e.stats(t).ByRelation[string(vault.Supports)])
	assert.Equal(t, 1, res2.EdgesRemoved)
	assert.Equal(t, 2, res2.EdgesAdded)

	// Batch 2 re-threaded links of batch 1's nodes: batch 1 cannot be undone before it.
	_, err = e.im.Undo(ctx, res.Batch)
	assert.ErrorIs(t, err, ErrUndoBlocked)
	_, err = e.im.Undo(ctx, res2.Batch)
	require.NoError(t, err)
	chain("01-caching/cache-aside.md", "01-caching/ttl-jitter.md", "01-caching/write-through.md")
	_, err = e.im.Undo(ctx, res.Batch)
	require.NoError(t, err)
	assert.Equal(t, stats{ByRelation: map[string]int{}}, e.stats(t))
}

func TestNearDuplicates(t *testing.T) {
	t.Parallel()
	body := "Keep configuration in one typed struct, load it once at startup, validate every field with a clear message naming the file and the line, and pass the struct down explicitly instead of reading globals from deep inside the code. Defaults live next to the field definitions, environment overrides are applied after the file and before validation, and nothing reads the environment after startup."
	lib := map[string]string{
		"01-config/typed-config.md": pattern("Typed Config", body),
		// The same text with a trailing sentence: a near-duplicate.
		"02-misc/config-struct.md": pattern("Typed Config", body+" Tests build the struct directly."),
		"02-misc/unrelated.md":     pattern("Log Levels", "Use debug for developers, info for operators and error only when someone must act."),
	}
	e := newEnv(t, Config{})
	dir := writeLib(t, lib)
	res, err := e.im.Import(ctx, DirSource(dir), Options{})
	require.NoError(t, err)
	reps := reportsBySource(res)
	dup := reps["02-misc/config-struct.md"]
	assert.Equal(t, ActionDuplicate, dup.Action)
	assert.Equal(t, "01-config/typed-config.md", dup.DuplicateOf)
	assert.GreaterOrEqual(t, dup.Similarity, DefaultDedupThreshold)
	assert.Contains(t, dup.Reason, "near-duplicate")
	assert.Equal(t, 1, res.Duplicates)
	assert.Equal(t, 2, e.stats(t).Nodes)

	// Against the vault: the same files from another library (another user namespace).
	other := writeLib(t, map[string]string{"x/copy-of-log-levels.md": lib["02-misc/unrelated.md"]})
	res2, err := e.im.Import(ctx, DirSource(other), Options{User: "someone-else"})
	require.NoError(t, err)
	r2 := reportsBySource(res2)["x/copy-of-log-levels.md"]
	assert.Equal(t, ActionDuplicate, r2.Action)
	assert.Contains(t, r2.DuplicateOf, "02-misc/unrelated.md")
	assert.Zero(t, res2.Batch, "nothing to write")

	// The threshold is configurable: at 1.0 only identical texts are duplicates.
	strict := newEnv(t, Config{DedupThreshold: 1})
	res3, err := strict.im.Import(ctx, DirSource(dir), Options{})
	require.NoError(t, err)
	assert.Equal(t, ActionNew, reportsBySource(res3)["02-misc/config-struct.md"].Action)
	// And it can be switched off.
	off := newEnv(t, Config{})
	res4, err := off.im.Import(ctx, DirSource(dir), Options{NoDedup: true})
	require.NoError(t, err)
	assert.Zero(t, res4.Duplicates)
	// Out-of-range options are refused.
	_, err = e.im.Import(ctx, DirSource(dir), Options{DedupThreshold: 1.5})
	assert.ErrorIs(t, err, ErrBadOption)
	_, err = e.im.Import(ctx, DirSource(dir), Options{BaseConfidence: -1})
	assert.ErrorIs(t, err, ErrBadOption)
}

// fakeEmbedder maps texts to vectors with a function; it counts calls.
type fakeEmbedder struct {
	mu    sync.Mutex
	calls int
	fn    func(ctx context.Context, inputs []string) ([][]float32, error)
}

func (f *fakeEmbedder) Embed(ctx context.Context, _ string, inputs []string) ([][]float32, error) {
	f.mu.Lock()
	f.calls++
	f.mu.Unlock()
	return f.fn(ctx, inputs)
}

func TestEmbeddingDuplicates(t *testing.T) {
	t.Parallel()
	lib := map[string]string{
		"a/retry-with-backoff.md":  pattern("Retry With Backoff", "Wait longer after every failed call."),
		"b/back-off-on-failure.md": pattern("Back Off On Failure", "Each failure doubles the pause before the next attempt."),
		"c/colour-tokens.md":       pattern("Colour Tokens", "Name colours by role, never by hue."),
	}
	dir := writeLib(t, lib)
	// Texts about retrying map to one direction, the rest to another.
	emb := &fakeEmbedder{fn: func(_ context.Context, in []string) ([][]float32, error) {
		out := make([][]float32, len(in))
		for i, s := range in {
			if strings.Contains(strings.ToLower(s), "fail") {
				out[i] = []float32{1, 0.01, 0}
			} else {
				out[i] = []float32{0, 0, 1}
			}
		}
		return out, nil
	}}
	e := newEnv(t, Config{Embedder: emb, EmbedModel: "nomic-embed-text"})
	res, err := e.im.Import(ctx, DirSource(dir), Options{})
	require.NoError(t, err)
	rep := reportsBySource(res)["b/back-off-on-failure.md"]
	assert.Equal(t, ActionDuplicate, rep.Action)
	assert.Equal(t, "a/retry-with-backoff.md", rep.DuplicateOf)
	assert.Contains(t, rep.Reason, "embedding")
	assert.Positive(t, emb.calls)
	// Nothing new to compare (the duplicate left out): a re-import does not call the model.
	calls := emb.calls
	again, err := e.im.Import(ctx, DirSource(dir), Options{Exclude: []string{"b/back-off-on-failure.md"}})
	require.NoError(t, err)
	assert.Zero(t, again.Batch)
	assert.Equal(t, calls, emb.calls)

	// A failing model: a warning, and the import goes on.
	bad := &fakeEmbedder{fn: func(context.Context, []string) ([][]float32, error) {
		return nil, errors.New("ollama: connection refused")
	}}
	e2 := newEnv(t, Config{Embedder: bad, EmbedModel: "nomic-embed-text"})
	res2, err := e2.im.Import(ctx, DirSource(dir), Options{})
	require.NoError(t, err)
	assert.Equal(t, 3, res2.Loaded)
	require.NotEmpty(t, res2.Warnings)
	assert.Contains(t, res2.Warnings[0], "connection refused")

	// A model that hangs: bounded by the timeout.
	slow := &fakeEmbedder{fn: func(ctx context.Context, _ []string) ([][]float32, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	e3 := newEnv(t, Config{Embedder: slow, EmbedModel: "nomic-embed-text", EmbedTimeout: 100 * time.Millisecond})
	start := time.Now()
	res3, err := e3.im.Import(ctx, DirSource(dir), Options{})
	require.NoError(t, err)
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.Equal(t, 3, res3.Loaded)
	assert.NotEmpty(t, res3.Warnings)
}

func TestCancelLeavesNothingHalfWritten(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{})
	dir := writeLib(t, smallLib())
	snap := e.snapshot(t)
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	_, err := e.im.Import(cctx, DirSource(dir), Options{Progress: func(p Progress) {
		if p.Phase == PhaseWrite && p.Done == 3 {
			cancel()
		}
	}})
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, snap, e.snapshot(t), "a cancelled import leaves nothing behind")

	// Progress: scan, dedup, write and commit, each reaching its total.
	last := map[Phase]Progress{}
	_, err = e.im.Import(ctx, DirSource(dir), Options{Progress: func(p Progress) {
		if prev, ok := last[p.Phase]; ok {
			assert.GreaterOrEqual(t, p.Done, prev.Done)
		}
		last[p.Phase] = p
	}})
	require.NoError(t, err)
	for _, ph := range []Phase{PhaseScan, PhaseDedup, PhaseWrite, PhaseCommit} {
		require.Contains(t, last, ph)
		assert.Equal(t, last[ph].Total, last[ph].Done, ph)
	}
}

func TestBadFilesAreReportedAndTheRestImports(t *testing.T) {
	t.Parallel()
	lib := smallLib()
	lib["03-bad/empty.md"] = "   \n"
	lib["03-bad/binary.md"] = "\x00\x01\x02garbage"
	lib["03-bad/broken-front-matter.md"] = "---\ntitle: [unclosed\n---\n# X\n\ntext\n"
	dir := writeLib(t, lib)
	e := newEnv(t, Config{})
	res, err := e.im.Import(ctx, DirSource(dir), Options{})
	require.NoError(t, err)
	assert.Equal(t, 3, res.Errors)
	assert.Equal(t, 6, res.Loaded)
	require.Len(t, res.ErrorDetails, 3)
	for _, d := range res.ErrorDetails {
		assert.True(t, strings.HasPrefix(d.Path, "03-bad/"), d.Path)
		assert.NotEmpty(t, d.Reason)
	}
	assert.Equal(t, res.Files, res.Loaded+res.Skipped+res.Errors)

	_, err = e.im.Import(ctx, DirSource(filepath.Join(dir, "missing")), Options{})
	assert.ErrorIs(t, err, ErrNoSource)
	_, err = e.im.Import(ctx, DirSource(filepath.Join(dir, "README.md")), Options{})
	assert.ErrorIs(t, err, ErrNoSource)
}

func TestSymlinksEscapingTheRootAreRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on windows")
	}
	t.Parallel()
	outside := writeLib(t, map[string]string{"secret.md": pattern("Secret", "Outside the library.")})
	dir := writeLib(t, smallLib())
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, "01-caching", "escape.md")))
	require.NoError(t, os.Symlink("../../"+filepath.Base(outside)+"/secret.md", filepath.Join(dir, "02-testing", "relative-escape.md")))
	require.NoError(t, os.Symlink("cache-aside.md", filepath.Join(dir, "01-caching", "inside-link.md")))
	e := newEnv(t, Config{})
	res, err := e.im.Import(ctx, DirSource(dir), Options{NoDedup: true})
	require.NoError(t, err)
	reps := reportsBySource(res)
	for _, p := range []string{"01-caching/escape.md", "02-testing/relative-escape.md"} {
		assert.Equal(t, ActionError, reps[p].Action, p)
		assert.Contains(t, reps[p].Reason, "symlink", p)
	}
	assert.Equal(t, ActionNew, reps["01-caching/inside-link.md"].Action, "a link inside the root is fine")
	page, err := e.v.List(ctx, vault.ListOptions{Query: "Outside the library"})
	require.NoError(t, err)
	assert.Zero(t, page.Total)
}

func TestExcludeUserAndConfidence(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{BaseConfidence: 0.7})
	dir := writeLib(t, map[string]string{
		"01-a/one.md":              pattern("One", "**Reusability:** 8/10\n\nFirst pattern text."),
		"01-a/two.md":              pattern("Two", "Second pattern text about something else."),
		"17-team-adaptations/x.md": pattern("Adapted", "An adaptation of the first pattern for this team."),
	})
	res, err := e.im.Import(ctx, DirSource(dir), Options{Exclude: []string{"01-a/two.md"}, User: "team-lib"})
	require.NoError(t, err)
	reps := reportsBySource(res)
	assert.Equal(t, ActionSkipped, reps["01-a/two.md"].Action)
	assert.Equal(t, 1, res.Excluded)
	n, err := e.v.Get(ctx, reps["01-a/one.md"].ID)
	require.NoError(t, err)
	assert.Equal(t, "team-lib", n.UserID)
	assert.InDelta(t, 0.78, n.Confidence, 1e-9, "the configured base confidence + reusability/100")
	a, err := e.v.Get(ctx, reps["17-team-adaptations/x.md"].ID)
	require.NoError(t, err)
	assert.InDelta(t, 0.95, a.Confidence, 1e-9)
	assert.Equal(t, vault.Preference, a.Type)

	// Options override the configuration.
	e2 := newEnv(t, Config{})
	res2, err := e2.im.Import(ctx, DirSource(dir), Options{BaseConfidence: 0.9})
	require.NoError(t, err)
	n2, err := e2.v.Get(ctx, reportsBySource(res2)["01-a/one.md"].ID)
	require.NoError(t, err)
	assert.InDelta(t, 0.98, n2.Confidence, 1e-9)
}

func TestRecentSources(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{})
	got, err := e.im.RecentSources(ctx)
	require.NoError(t, err)
	assert.Empty(t, got)
	for i := range maxRecent + 3 {
		require.NoError(t, e.im.RememberSource(ctx, filepath.Join("/libs", string(rune('a'+i)))))
	}
	require.NoError(t, e.im.RememberSource(ctx, "/libs/c"))
	got, err = e.im.RecentSources(ctx)
	require.NoError(t, err)
	assert.Len(t, got, maxRecent)
	assert.Equal(t, "/libs/c", got[0])
	assert.Equal(t, "/libs/k", got[1])
}

func TestStarterLibraryFromTheBinary(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{})
	sub, err := fsSub(nova.Defaults, ".nova/patterns")
	require.NoError(t, err)
	// Count the shipped files independently.
	var md, meta int
	for _, f := range listFS(t, sub) {
		if strings.HasSuffix(strings.ToLower(f), ".md") {
			md++
			if metaName.MatchString(filepath.Base(f)) {
				meta++
			}
		}
	}
	res, err := e.im.Import(ctx, FSSource("embedded:.nova/patterns", sub), Options{User: StarterUser})
	require.NoError(t, err)
	assert.Equal(t, md, res.Files)
	assert.Equal(t, meta, res.Meta)
	assert.Zero(t, res.Errors, res.ErrorDetails)
	assert.Equal(t, md-meta, res.Loaded, "the starter library has no near-duplicates")
	again, err := e.im.Import(ctx, FSSource("embedded:.nova/patterns", sub), Options{User: StarterUser})
	require.NoError(t, err)
	assert.Zero(t, again.Batch)
}

func TestImportFromMapFS(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"01-x/a.md": {Data: []byte(pattern("A", "Alpha text for the map file system."))},
		"01-x/b.md": {Data: []byte(pattern("B", "Beta text, quite different from alpha."))},
	}
	e := newEnv(t, Config{})
	res, err := e.im.Import(ctx, FSSource("mem", fsys), Options{})
	require.NoError(t, err)
	assert.Equal(t, 2, res.Loaded)
	assert.Equal(t, "mem", res.Source)
	_ = patterns.DefaultUser
}
