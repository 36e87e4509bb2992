package docs

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/textindex"
	"github.com/nova-dev/nova/storage"
)

// Entry is one cached piece of documentation (bucket docs_cache).
type Entry struct {
	Source  string `json:"source"`
	Library string `json:"library"`
	Topic   string `json:"topic,omitempty"`
	// Version is the exact version of local docs (go.mod, package.json).
	Version string `json:"version,omitempty"`
	// LibraryID is the Context7 library the text came from.
	LibraryID string `json:"libraryId,omitempty"`
	// Origin says where local docs were read (module cache, vendor, …).
	Origin    string    `json:"origin,omitempty"`
	Title     string    `json:"title"`
	Content   string    `json:"content"`
	FetchedAt time.Time `json:"fetchedAt"`
	ExpiresAt time.Time `json:"expiresAt"`
	// Tokens is the content's estimated size (ceil(runes/4)).
	Tokens int `json:"tokens"`
}

// EntryInfo describes a cached entry without its content (listings).
type EntryInfo struct {
	Ref       string    `json:"ref"`
	Source    string    `json:"source"`
	Library   string    `json:"library"`
	Topic     string    `json:"topic"`
	Version   string    `json:"version,omitempty"`
	LibraryID string    `json:"libraryId,omitempty"`
	Title     string    `json:"title"`
	FetchedAt time.Time `json:"fetchedAt"`
	ExpiresAt time.Time `json:"expiresAt"`
	// Stale: past its TTL (it is refreshed on the next fetch that reaches
	// the network, served as it is otherwise).
	Stale  bool `json:"stale"`
	Tokens int  `json:"tokens"`
	Bytes  int  `json:"bytes"`
}

// Stats summarises the cache.
type Stats struct {
	Entries  int            `json:"entries"`
	Stale    int            `json:"stale"`
	Bytes    int            `json:"bytes"`
	Tokens   int            `json:"tokens"`
	BySource map[string]int `json:"bySource"`
	Oldest   time.Time      `json:"oldest,omitzero"`
	Newest   time.Time      `json:"newest,omitzero"`
}

// MaxStoredChars bounds the text kept per entry (a fetch shows at most its
// token budget of it).
const MaxStoredChars = 64 << 10

// indexChars is how much of an entry the search index reads.
const indexChars = 16 << 10

var (
	entryCodec = storage.Codec[Entry]{Version: 1}
	revKey     = []byte("~rev")
)

// Cache is the documentation cache in a workspace database, with a
// full-text index over it for knowledge searches.
type Cache struct {
	db  *storage.DB
	now func() time.Time

	mu      sync.Mutex
	ix      *textindex.Index
	ixRev   uint64
	ixReady bool
	ids     map[string]uint64 // key bytes → index id
	keys    map[uint64]string // index id → key bytes
	meta    map[uint64]hitMeta
	nextID  uint64
}

type hitMeta struct {
	key     Key
	library string
	topic   string
	title   string
	version string
	text    string // the indexed prefix, for snippets
}

// NewCache returns the cache over db (buckets from the knowledge
// migration). now may be nil.
func NewCache(db *storage.DB, now func() time.Time) *Cache {
	if now == nil {
		now = time.Now
	}
	return &Cache{db: db, now: now}
}

// Get returns the entry at key; storage.ErrNotFound when absent.
func (c *Cache) Get(ctx context.Context, k Key) (Entry, error) {
	if err := ctx.Err(); err != nil {
		return Entry{}, err
	}
	var e Entry
	err := c.db.View(func(tx *bolt.Tx) error {
		var err error
		e, err = entryCodec.Get(tx.Bucket(storage.BucketDocsCache), k.Bytes())
		return err
	})
	return e, err
}

// Put stores an entry at key. The content is cut to MaxStoredChars.
func (c *Cache) Put(ctx context.Context, k Key, e Entry) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	e.Content, _ = cut(e.Content, MaxStoredChars)
	e.Tokens = EstimateTokens(e.Content)
	var before uint64
	err := c.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketDocsCache)
		if b == nil {
			return fmt.Errorf("docs cache: %w (bucket missing)", storage.ErrCorrupt)
		}
		before = readRev(b)
		if err := entryCodec.Put(b, k.Bytes(), e); err != nil {
			return err
		}
		return writeRev(b, before+1)
	})
	if err != nil {
		return fmt.Errorf("cache docs: %w", err)
	}
	c.mu.Lock()
	if c.ixReady && c.ixRev == before {
		c.upsertLocked(k, e)
		c.ixRev = before + 1
	}
	c.mu.Unlock()
	return nil
}

// List describes the cached entries, newest first; library, when set,
// keeps the entries of that library (case-insensitive, either its name or
// its Context7 id).
func (c *Cache) List(ctx context.Context, library string) ([]EntryInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	lib := strings.ToLower(CleanName(library))
	now := c.now()
	var out []EntryInfo
	err := c.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketDocsCache)
		if b == nil {
			return nil
		}
		return b.ForEach(func(kb, v []byte) error {
			k, ok := keyFromBytes(kb)
			if !ok {
				return nil
			}
			e, err := entryCodec.Unmarshal(v)
			if err != nil {
				return nil // a damaged entry is skipped; a fetch replaces it
			}
			if lib != "" && !matchesLibrary(k, e, lib) {
				return nil
			}
			out = append(out, info(k, e, now))
			return nil
		})
	})
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].FetchedAt.Equal(out[j].FetchedAt) {
			return out[i].FetchedAt.After(out[j].FetchedAt)
		}
		return out[i].Ref < out[j].Ref
	})
	if out == nil {
		out = []EntryInfo{}
	}
	return out, err
}

func matchesLibrary(k Key, e Entry, lib string) bool {
	return strings.ToLower(k.Library) == lib || strings.ToLower(e.Library) == lib ||
		strings.ToLower(e.LibraryID) == lib || strings.ToLower(strings.TrimPrefix(e.LibraryID, "/")) == lib
}

func info(k Key, e Entry, now time.Time) EntryInfo {
	return EntryInfo{Ref: k.Ref(), Source: e.Source, Library: e.Library, Topic: e.Topic, Version: e.Version,
		LibraryID: e.LibraryID, Title: e.Title, FetchedAt: e.FetchedAt, ExpiresAt: e.ExpiresAt,
		Stale: !e.ExpiresAt.After(now), Tokens: e.Tokens, Bytes: len(e.Content)}
}

// Clear removes the entries of a library (see List), or every entry when
// library is empty, and returns how many it removed. It is a cache: the
// next fetch fetches again.
func (c *Cache) Clear(ctx context.Context, library string) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	lib := strings.ToLower(CleanName(library))
	n := 0
	var before uint64
	var removed [][]byte
	err := c.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketDocsCache)
		if b == nil {
			return nil
		}
		before = readRev(b)
		cur := b.Cursor()
		for kb, v := cur.First(); kb != nil; kb, v = cur.Next() {
			k, ok := keyFromBytes(kb)
			if !ok {
				continue
			}
			if lib != "" {
				e, err := entryCodec.Unmarshal(v)
				if err != nil || !matchesLibrary(k, e, lib) {
					continue
				}
			}
			removed = append(removed, bytes.Clone(kb))
		}
		for _, kb := range removed {
			if err := b.Delete(kb); err != nil {
				return err
			}
			n++
		}
		if n == 0 {
			return nil
		}
		return writeRev(b, before+1)
	})
	if err != nil {
		return 0, fmt.Errorf("clear docs cache: %w", err)
	}
	if n > 0 {
		c.mu.Lock()
		if c.ixReady && c.ixRev == before {
			for _, kb := range removed {
				c.removeLocked(string(kb))
			}
			c.ixRev = before + 1
		}
		c.mu.Unlock()
	}
	return n, nil
}

// Remove deletes one entry by its reference (docs:SOURCE:LIBRARY#TOPIC);
// storage.ErrNotFound when there is none.
func (c *Cache) Remove(ctx context.Context, ref string) error {
	k, err := ParseRef(ref)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	kb := k.Bytes()
	var before uint64
	err = c.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketDocsCache)
		if b == nil || b.Get(kb) == nil {
			return fmt.Errorf("docs %s: %w", ref, storage.ErrNotFound)
		}
		before = readRev(b)
		if err := b.Delete(kb); err != nil {
			return err
		}
		return writeRev(b, before+1)
	})
	if err != nil {
		return err
	}
	c.mu.Lock()
	if c.ixReady && c.ixRev == before {
		c.removeLocked(string(kb))
		c.ixRev = before + 1
	}
	c.mu.Unlock()
	return nil
}

// Stats summarises the cache.
func (c *Cache) Stats(ctx context.Context) (Stats, error) {
	list, err := c.List(ctx, "")
	if err != nil {
		return Stats{}, err
	}
	s := Stats{BySource: map[string]int{}}
	for _, e := range list {
		s.Entries++
		s.Bytes += e.Bytes
		s.Tokens += e.Tokens
		s.BySource[e.Source]++
		if e.Stale {
			s.Stale++
		}
		if s.Oldest.IsZero() || e.FetchedAt.Before(s.Oldest) {
			s.Oldest = e.FetchedAt
		}
		if e.FetchedAt.After(s.Newest) {
			s.Newest = e.FetchedAt
		}
	}
	return s, nil
}

// Count is how many entries the cache holds, without reading them (Home's
// counts; Stats reads every entry).
func (c *Cache) Count(ctx context.Context) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	n := 0
	err := c.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketDocsCache)
		if b == nil {
			return nil
		}
		return b.ForEach(func(kb, _ []byte) error {
			if _, ok := keyFromBytes(kb); ok {
				n++
			}
			return nil
		})
	})
	if err != nil {
		return 0, fmt.Errorf("count docs: %w", err)
	}
	return n, nil
}

func readRev(b *bolt.Bucket) uint64 {
	v := b.Get(revKey)
	if len(v) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(v)
}

func writeRev(b *bolt.Bucket, rev uint64) error {
	v := make([]byte, 8)
	binary.BigEndian.PutUint64(v, rev)
	return b.Put(revKey, v)
}

// Hit is one search result over the cache.
type Hit struct {
	Key     Key
	Library string
	Topic   string
	Title   string
	Version string
	Snippet string
	// Score is 0–1: Coverage × (½ + ½ the BM25 score relative to the best
	// hit), so that the best of weak matches does not look perfect.
	Score float64
	// Coverage is how much of the query the entry contains, 0–1 on an
	// absolute scale (textindex.CoverageShare, counting at most
	// CoverageTerms query terms).
	Coverage float64
}

// Calibration of docs hits on an absolute scale. BM25 scores only compare
// entries of one cache and are read relative to the best one, so a lone doc
// sharing one word with the query used to score as a perfect match (and be
// injected into build prompts, outranking literal matches elsewhere).
const (
	// MinCoverage: an entry containing less of the query is not a hit (one
	// of two query terms passes, two of five, four of a long text).
	MinCoverage = 0.4
	// CoverageTerms: an entry containing this many distinct query terms
	// covers a longer query (a task's text) fully.
	CoverageTerms = 8
)

// Search ranks the cached entries for a query (BM25 over title, library,
// topic and the first 16 KB of the text), keeps those covering at least
// MinCoverage of it, and scores them by coverage × (½ + ½ relevance). The index
// is built on first use and rebuilt when another process changed the cache.
func (c *Cache) Search(ctx context.Context, query string, limit int) ([]Hit, error) {
	if strings.TrimSpace(query) == "" {
		return []Hit{}, nil
	}
	if limit <= 0 {
		limit = 10
	}
	if err := c.ensureIndex(ctx); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	// Ask for more: some of the best BM25 hits may cover too little.
	hits := c.ix.Search(query, max(limit*3, 30), nil)
	out := make([]Hit, 0, len(hits))
	if len(hits) == 0 || hits[0].Score <= 0 {
		return out, nil
	}
	top := hits[0].Score
	texts := make([]string, 0, cap(out))
	for _, h := range hits {
		m, ok := c.meta[h.ID]
		if !ok {
			continue
		}
		covered, terms := c.ix.Coverage(query, h.ID)
		cov := textindex.CoverageShare(covered, terms, 0, CoverageTerms)
		if cov < MinCoverage {
			continue
		}
		out = append(out, Hit{Key: m.key, Library: m.library, Topic: m.topic, Title: m.title, Version: m.version,
			Score: cov * (0.5 + 0.5*h.Score/top), Coverage: cov})
		texts = append(texts, m.text)
	}
	idx := make([]int, len(out))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return out[idx[i]].Score > out[idx[j]].Score })
	ranked := make([]Hit, 0, min(len(idx), limit))
	for _, i := range idx[:min(len(idx), limit)] {
		h := out[i]
		h.Snippet = Snippet(texts[i], query, 300) // only for what is returned
		ranked = append(ranked, h)
	}
	return ranked, nil
}

// ensureIndex (re)builds the index when it is missing or behind the store.
func (c *Cache) ensureIndex(ctx context.Context) error {
	var rev uint64
	if err := c.db.View(func(tx *bolt.Tx) error {
		if b := tx.Bucket(storage.BucketDocsCache); b != nil {
			rev = readRev(b)
		}
		return nil
	}); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ixReady && c.ixRev == rev {
		return nil
	}
	c.ix = textindex.New(textindex.Options{})
	c.ids, c.keys, c.meta, c.nextID = map[string]uint64{}, map[uint64]string{}, map[uint64]hitMeta{}, 0
	var docs []textindex.Doc
	err := c.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketDocsCache)
		if b == nil {
			return nil
		}
		rev = readRev(b)
		return b.ForEach(func(kb, v []byte) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			k, ok := keyFromBytes(kb)
			if !ok {
				return nil
			}
			e, err := entryCodec.Unmarshal(v)
			if err != nil {
				return nil
			}
			docs = append(docs, c.docLocked(string(kb), k, e))
			return nil
		})
	})
	if err != nil {
		c.ixReady = false
		return err
	}
	c.ix.AddBatch(docs)
	c.ixRev, c.ixReady = rev, true
	return nil
}

func (c *Cache) docLocked(kb string, k Key, e Entry) textindex.Doc {
	id, ok := c.ids[kb]
	if !ok {
		c.nextID++
		id = c.nextID
		c.ids[kb], c.keys[id] = id, kb
	}
	text, _ := cut(e.Content, indexChars)
	c.meta[id] = hitMeta{key: k, library: e.Library, topic: e.Topic, title: e.Title, version: e.Version, text: text}
	return textindex.Doc{ID: id, Fields: []textindex.Field{
		textindex.Title(e.Title), textindex.Summary(e.Library + " " + e.Topic),
		textindex.Tags(e.Library, e.Topic), textindex.Body(text),
	}}
}

func (c *Cache) upsertLocked(k Key, e Entry) {
	d := c.docLocked(string(k.Bytes()), k, e)
	c.ix.Upsert(d.ID, d.Fields...)
}

func (c *Cache) removeLocked(kb string) {
	id, ok := c.ids[kb]
	if !ok {
		return
	}
	c.ix.Remove(id)
	delete(c.ids, kb)
	delete(c.keys, id)
	delete(c.meta, id)
}

// indexFold finds lower-case w in s ignoring ASCII case, without
// allocating (snippets run on every hit of every search); a word with
// non-ASCII letters falls back to lower-casing a bounded prefix of s.
func indexFold(s, w string) int {
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf {
			prefix, _ := cut(s, 32<<10)
			return strings.Index(strings.ToLower(prefix), w)
		}
	}
	if w == "" {
		return 0
	}
	first := w[0]
	for i := 0; i+len(w) <= len(s); i++ {
		if lowerASCII(s[i]) != first {
			continue
		}
		j := 1
		for j < len(w) && lowerASCII(s[i+j]) == w[j] {
			j++
		}
		if j == len(w) {
			return i
		}
	}
	return -1
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// EstimateTokens is nova's token estimate: ceil(runes/4).
func EstimateTokens(s string) int { return (utf8.RuneCountInString(s) + 3) / 4 }

// TruncatedMarker ends text cut to a budget.
const TruncatedMarker = "\n...[truncated]"

// Truncate cuts text to maxTokens (ceil(runes/4)), marker included, and
// reports whether it cut.
func Truncate(text string, maxTokens int) (string, bool) {
	if maxTokens <= 0 || EstimateTokens(text) <= maxTokens {
		return text, false
	}
	keep := maxTokens*4 - utf8.RuneCountInString(TruncatedMarker)
	s, _ := cut(text, max(keep, 0))
	return s + TruncatedMarker, true
}

// cut keeps the first n runes of s.
func cut(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos], true
		}
		i++
	}
	return s, false
}

// Snippet returns up to n runes of text around the first word of query it
// finds (case-insensitive), white space collapsed; the start otherwise.
func Snippet(text, query string, n int) string {
	start := -1
	for _, w := range strings.Fields(strings.ToLower(query)) {
		w = strings.Trim(w, `.,;:!?"'()[]{}`)
		if utf8.RuneCountInString(w) < 3 {
			continue
		}
		if i := indexFold(text, w); i >= 0 && (start < 0 || i < start) {
			start = i
		}
	}
	if start > len(text) { // an offset in lower-cased text that changed length
		start = 0
	}
	if start > 0 {
		// Back up to about a third of the window, on a rune boundary.
		back := start - n/3
		if back < 0 {
			back = 0
		}
		for back > 0 && !utf8.RuneStart(text[back]) {
			back--
		}
		start = back
	} else {
		start = 0
	}
	s, cutEnd := cut(text[start:], n*2)
	s = strings.Join(strings.Fields(s), " ")
	s, more := cut(s, n)
	if start > 0 {
		s = "…" + s
	}
	if more || cutEnd {
		s += "…"
	}
	return s
}
