package importer

import (
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzImportFile runs arbitrary file contents through the whole import path (parse, dedup,
// node mapping, one write transaction, re-import, undo) against one vault: nothing panics, the
// counts add up, a re-import of the same bytes is a no-op and undo leaves the vault as it was.
func FuzzImportFile(f *testing.F) {
	f.Add([]byte(multiPattern), true)
	f.Add([]byte(pattern("Seed", "A seed pattern for the fuzzer.")), false)
	f.Add([]byte("---\ntitle: x\ntags: [a, b]\n---\n"), false)
	f.Add([]byte("# T\n\n```\nunclosed fence\n"), true)
	f.Add([]byte("\xff\xfe\x00bad"), false)
	e := newEnv(f, Config{})
	f.Fuzz(func(t *testing.T, data []byte, split bool) {
		before := e.stats(t)
		fsys := fstest.MapFS{
			"01-fuzz/input.md":        {Data: data},
			"01-fuzz/zz-neighbour.md": {Data: []byte(pattern("Neighbour", "A fixed file next to the fuzzed one."))},
		}
		src := FSSource("fuzz", fsys)
		res, err := e.im.Import(ctx, src, Options{Split: split, User: "fuzz"})
		require.NoError(t, err)
		assert.Equal(t, res.Files, res.Loaded+res.Skipped+res.Errors)
		again, err := e.im.Import(ctx, src, Options{Split: split, User: "fuzz"})
		require.NoError(t, err)
		assert.Zero(t, again.Batch, "re-importing the same bytes writes nothing")
		if res.Batch != 0 {
			_, err := e.im.Undo(ctx, res.Batch)
			require.NoError(t, err)
		}
		assert.Equal(t, before, e.stats(t))
	})
}
