package textindex_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/nova-dev/nova/engine/textindex"
)

func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// Each small write to an in-memory index keeps only about what it stores:
// the term records used to be carved from a fresh 64 KiB slab per write,
// which the index then kept alive for good (~65 KB per fact written in the
// owner, issue 26 finding 6). Not parallel: it measures the heap.
func TestSmallWritesKeepLittleHeap(t *testing.T) {
	ix := textindex.New(textindex.Options{})
	write := func(i int) {
		ix.Upsert(uint64(i+1), textindex.Summary(fmt.Sprintf("note %d: the cache key names tenant%d and shard%d", i, i, i%7)),
			textindex.Tags("soak"))
	}
	for i := range 200 {
		write(i)
	}
	const n = 1000
	before := liveHeap()
	for i := range n {
		write(200 + i)
	}
	after := liveHeap()
	perWrite := (float64(after) - float64(before)) / n
	t.Logf("live heap per small write: %.0f bytes", perWrite)
	assert.Less(t, perWrite, 4096.0, "a one-document write keeps a few hundred bytes, not a slab")
	assert.Equal(t, 1200, ix.Len())
}
