package textindex

import (
	"bytes"
	"slices"
	"sync"
)

// champCache keeps decoded champion lists by term, with the stored bytes each was decoded
// from. A search whose term's stored champion list has the same bytes copies the decoded
// postings instead of decoding thousands of them again: a build task's two vault searches
// decoded the same frequent terms' lists, ~3 % of its CPU at 100k nodes, and the lists only
// change when a write moves a term's best documents. A list with other bytes (another
// index, or a write since) is decoded afresh, so no result ever depends on the cache.
type champCache struct {
	mu    sync.Mutex
	m     map[string]*champEntry
	bytes int
}

type champEntry struct {
	raw   []byte // the stored value the postings were decoded from
	docs  []uint64
	tfs   []uint32
	codes []uint32
	bend  []int32
	bmax  []float64
}

// champCacheBytes bounds the cache (a few hundred frequent terms' lists); past it the cache
// starts over.
const champCacheBytes = 4 << 20

func (e *champEntry) size() int {
	return len(e.raw) + 16*len(e.docs) + 12*len(e.bend) + 64
}

// load fills the (reset) cursor c with term's list when the cache holds it decoded from raw.
func (cc *champCache) load(term string, raw []byte, c *cursor) bool {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	ce := cc.m[term]
	if ce == nil || !bytes.Equal(ce.raw, raw) {
		return false
	}
	c.docs = append(c.docs[:0], ce.docs...)
	c.tfs = append(c.tfs[:0], ce.tfs...)
	c.codes = append(c.codes[:0], ce.codes...)
	c.bend = append(c.bend[:0], ce.bend...)
	c.bmax = append(c.bmax[:0], ce.bmax...)
	return true
}

// store keeps the list the (just loaded) cursor c holds, decoded from raw.
func (cc *champCache) store(term string, raw []byte, c *cursor) {
	ce := &champEntry{raw: bytes.Clone(raw), docs: slices.Clone(c.docs), tfs: slices.Clone(c.tfs),
		codes: slices.Clone(c.codes), bend: slices.Clone(c.bend), bmax: slices.Clone(c.bmax)}
	n := ce.size()
	if n > champCacheBytes/8 {
		return
	}
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if old := cc.m[term]; old != nil {
		cc.bytes -= old.size()
	}
	if cc.m == nil || cc.bytes+n > champCacheBytes {
		cc.m, cc.bytes = map[string]*champEntry{}, 0
	}
	cc.m[term] = ce
	cc.bytes += n
}
