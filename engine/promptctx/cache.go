package promptctx

import (
	"context"
	"sync"
	"sync/atomic"
)

// DefaultCacheEntries is how many specialist contexts a Cache keeps.
const DefaultCacheEntries = 64

// Cache keeps the context a specialist was given — its taste-vault block
// (with global wisdom) and its playbook block — so that the next time the
// same agent gets the same task text (the lead delegating a task again, a
// retry of a build task) the blocks are reused instead of searched again
// (the vault search embeds the query on the model server: the slow part on
// a small machine). An entry is reused only while Revision gives the value
// it was made under, so a vault or playbook change is seen at once. The
// knowledge block is never cached: it counts what it retrieves.
//
// A Cache is safe for concurrent use; the zero value is not usable, make
// one with NewCache.
type Cache struct {
	// revision names the state of the sources a request's context is
	// drawn from (the vault's change counter, the agent's playbook rules
	// and their confidence, the tier's global wisdom).
	revision func(ctx context.Context, req Request) (string, error)
	max      int

	mu      sync.Mutex
	entries map[cacheKey]cacheEntry
	order   []cacheKey // oldest first

	hits, misses atomic.Int64
}

type cacheKey struct {
	agent, task, tier string
	budget            int
	vaultShare        float64
	playbookShare     float64
}

type cacheEntry struct {
	rev      string
	vault    string
	playbook string
	vaultIDs []uint64
	items    []Item
}

// NewCache makes a cache of at most max entries (DefaultCacheEntries when
// max <= 0) whose entries hold while revision returns what it returned
// when they were made.
func NewCache(max int, revision func(ctx context.Context, req Request) (string, error)) *Cache {
	if max <= 0 {
		max = DefaultCacheEntries
	}
	return &Cache{revision: revision, max: max, entries: map[cacheKey]cacheEntry{}}
}

// Stats returns how many lookups reused an entry and how many built one.
func (c *Cache) Stats() (hits, misses int64) { return c.hits.Load(), c.misses.Load() }

// rev reads the sources' revision for req ("" and false when it cannot:
// nothing is cached then).
func (c *Cache) rev(ctx context.Context, req Request) (string, bool) {
	if c == nil || c.revision == nil {
		return "", false
	}
	r, err := c.revision(ctx, req)
	return r, err == nil
}

func (c *Cache) get(k cacheKey, rev string) (cacheEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[k]
	if !ok || e.rev != rev {
		c.misses.Add(1)
		return cacheEntry{}, false
	}
	c.hits.Add(1)
	return e, true
}

func (c *Cache) put(k cacheKey, e cacheEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[k]; !ok {
		c.order = append(c.order, k)
		for len(c.order) > c.max {
			delete(c.entries, c.order[0])
			c.order = c.order[1:]
		}
	}
	c.entries[k] = e
}
