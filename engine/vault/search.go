package vault

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/textindex"
	"github.com/nova-dev/nova/storage"
)

// rebuildThreshold is the number of nodes one write may change before the
// in-memory index is dropped (and rebuilt on next use) instead of updated.
const rebuildThreshold = 20_000

const (
	stIdle = iota
	stBuilding
	stReady
)

// docMeta is what ranking needs of a node without reading bbolt.
type docMeta struct {
	typ     NodeType
	conf    float64
	helpful int
	tags    []string
}

// searchState owns the BM25 index (engine/textindex) over title, content,
// tags and full body of every node. It is built from bbolt on first use (in
// the background after Warm) and then follows every committed write.
type searchState struct {
	v *Vault

	mu     sync.RWMutex
	status int
	ix     *textindex.Index
	meta   map[uint64]docMeta
	dirty  map[uint64]bool // changed while a build was reading
	gen    uint64          // bumped by invalidate; a build of an older generation is discarded
	done   chan struct{}   // closed when the current build ends
	err    error           // error of the last failed build
	info   IndexInfo

	// Revisions (the vault's "~rev") behind the index, for the snapshot (see
	// snapshot.go): rev is the last write the index reflects, dirtyRev the
	// last write seen while building, savedRev that of the stored snapshot.
	rev, dirtyRev, savedRev uint64
}

// IndexInfo describes the in-memory index.
type IndexInfo struct {
	Ready     bool          `json:"ready"`
	Building  bool          `json:"building"`
	Docs      int           `json:"docs"`
	Skipped   int           `json:"skipped"` // undecodable records left out
	BuildTime time.Duration `json:"buildTime"`
	// FromSnapshot says the index was loaded from the stored snapshot
	// instead of being rebuilt from the nodes.
	FromSnapshot bool `json:"fromSnapshot"`
}

func newSearchState(v *Vault) *searchState { return &searchState{v: v} }

// Warm starts building the full-text index in the background, so the first
// search does not wait for it. It returns at once.
func (v *Vault) Warm() {
	s := v.search
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.status == stIdle {
		s.startLocked()
	}
}

// IndexInfo reports the state of the in-memory full-text index.
func (v *Vault) IndexInfo() IndexInfo {
	s := v.search
	s.mu.RLock()
	defer s.mu.RUnlock()
	info := s.info
	info.Ready = s.status == stReady
	info.Building = s.status == stBuilding
	if s.ix != nil {
		info.Docs = s.ix.Len()
	}
	return info
}

// WaitIndex builds the index if needed and waits until it is ready.
func (v *Vault) WaitIndex(ctx context.Context) error { return v.search.ensure(ctx) }

func (s *searchState) startLocked() {
	s.status = stBuilding
	s.dirty = map[uint64]bool{}
	s.dirtyRev = 0
	s.err = nil
	done := make(chan struct{})
	s.done = done
	gen := s.gen
	s.v.bgWG.Add(1)
	go s.build(gen, done)
}

func (s *searchState) ensure(ctx context.Context) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		s.mu.Lock()
		switch s.status {
		case stReady:
			s.mu.Unlock()
			return nil
		case stIdle:
			s.startLocked()
		}
		done := s.done
		s.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			return ctx.Err()
		}
		s.mu.Lock()
		if s.status == stIdle && s.err != nil && s.done == done {
			err := s.err
			s.mu.Unlock()
			return err
		}
		s.mu.Unlock()
	}
}

func (s *searchState) build(gen uint64, done chan struct{}) {
	// Close waits only while the build reads the database; indexing the
	// text that was read needs no database and is skipped after Close.
	var once sync.Once
	release := func() { once.Do(s.v.bgWG.Done) }
	defer release()
	start := time.Now()
	ix, meta, skipped, rev, fromSnap, err := s.v.snapshotOrLoad(s.v.bgCtx, release)
	s.mu.Lock()
	defer func() {
		close(done)
		s.mu.Unlock()
	}()
	switch {
	case s.gen != gen:
		s.status = stIdle // invalidated meanwhile; the next ensure starts over
		return
	case err != nil:
		s.status = stIdle
		s.err = fmt.Errorf("build vault search index: %w", err)
		return
	}
	if len(s.dirty) > 0 {
		ids := make([]uint64, 0, len(s.dirty))
		for id := range s.dirty {
			ids = append(ids, id)
		}
		if err := s.v.syncIDs(ix, meta, ids); err != nil {
			s.status = stIdle
			s.err = fmt.Errorf("build vault search index: %w", err)
			return
		}
	}
	s.ix, s.meta, s.dirty = ix, meta, nil
	s.status = stReady
	s.rev = max(rev, s.dirtyRev)
	if fromSnap {
		s.savedRev = rev
	}
	s.info = IndexInfo{Skipped: skipped, BuildTime: time.Since(start), FromSnapshot: fromSnap}
}

// snapshotOrLoad returns the index from the stored snapshot when it is
// current, else rebuilds it from the nodes (loadIndex). rev is the revision
// the result reflects. A snapshot that cannot be used is logged, never fatal.
func (v *Vault) snapshotOrLoad(ctx context.Context, release func()) (*textindex.Index, map[uint64]docMeta, int, uint64, bool, error) {
	ix, meta, skipped, rev, found, err := v.loadSnapshot()
	if err == nil && found {
		release()
		return ix, meta, skipped, rev, true, nil
	}
	if err != nil {
		logSnapshotFallback(err)
	}
	ix, meta, skipped, rev, err = v.loadIndex(ctx, release)
	return ix, meta, skipped, rev, false, err
}

// syncIDs re-reads nodes from bbolt into the index (removing deleted ones).
func (v *Vault) syncIDs(ix *textindex.Index, meta map[uint64]docMeta, ids []uint64) error {
	return v.db.View(func(tx *bolt.Tx) error {
		for _, id := range ids {
			n, err := getNode(tx, id)
			if errors.Is(err, ErrNotFound) {
				ix.Remove(id)
				delete(meta, id)
				continue
			}
			if err != nil {
				continue
			}
			if n.HasBody {
				n.Body = getBody(tx, id)
			}
			ix.Add(id, docFields(&n)...)
			meta[id] = metaOf(&n)
		}
		return nil
	})
}

// apply brings the index in step with a committed write. It runs under
// v.wmu, so commits are applied in order.
func (s *searchState) apply(ws *writeSet) {
	s.mu.Lock()
	defer s.mu.Unlock()
	// Every write bumps the revision, also those that change no node (edges):
	// the index then reflects the new revision as it is.
	switch s.status {
	case stBuilding:
		s.dirtyRev = max(s.dirtyRev, ws.rev)
	case stReady:
		s.rev = max(s.rev, ws.rev)
	}
	if len(ws.nodes) == 0 {
		return
	}
	if ws.rebuild {
		s.invalidateLocked()
		return
	}
	switch s.status {
	case stBuilding:
		for id := range ws.nodes {
			s.dirty[id] = true
		}
	case stReady:
		var batch []textindex.Doc
		for id, n := range ws.nodes {
			if n == nil {
				s.ix.Remove(id)
				delete(s.meta, id)
				continue
			}
			s.meta[id] = metaOf(n)
			if ws.text[id] {
				batch = append(batch, textindex.Doc{ID: id, Fields: docFields(n)})
			}
		}
		slices.SortFunc(batch, func(a, b textindex.Doc) int { return cmpU64(a.ID, b.ID) })
		s.ix.AddBatch(batch)
	}
}

func (s *searchState) invalidateLocked() {
	s.gen++
	if s.status == stReady {
		s.status = stIdle
		s.ix, s.meta = nil, nil
	}
}

func docFields(n *Node) []textindex.Field {
	return []textindex.Field{
		textindex.Title(n.Title), textindex.Summary(n.Content), textindex.Tags(n.Tags...), textindex.Body(n.Body),
	}
}

func metaOf(n *Node) docMeta {
	return docMeta{typ: n.Type, conf: n.Confidence, helpful: n.HelpfulCount, tags: slices.Clone(n.Tags)}
}

// liteNode is the part of a stored node the index needs; decoding into it
// skips timestamps and the rest.
type liteNode struct {
	Type         NodeType `json:"type"`
	Title        string   `json:"title"`
	Content      string   `json:"content"`
	Confidence   float64  `json:"confidence"`
	HelpfulCount int      `json:"helpfulCount"`
	Tags         []string `json:"tags"`
	HasBody      bool     `json:"hasBody"`
}

var liteCodec = storage.Codec[liteNode]{Version: 1}

type rawRec struct {
	id  uint64
	val []byte
}

// loadIndex reads every node and body in one read transaction, decodes them
// on all processors and builds a fresh index. Undecodable records are
// skipped and counted. rev is the revision read in the same transaction.
func (v *Vault) loadIndex(ctx context.Context, release func()) (*textindex.Index, map[uint64]docMeta, int, uint64, error) {
	var (
		docs    []textindex.Doc
		metas   []docMeta
		ok      []bool
		skipped int
		rev     uint64
	)
	err := v.db.View(func(tx *bolt.Tx) error {
		nodesB, _, bodiesB, err := buckets(tx)
		if err != nil {
			return err
		}
		rev = storage.ParseKey(tx.Bucket(storage.BucketVaultIndex).Get(revKey))
		var recs, bodies []rawRec
		c := nodesB.Cursor()
		for k, val := c.First(); k != nil; k, val = c.Next() {
			if val != nil {
				recs = append(recs, rawRec{storage.ParseKey(k), val})
			}
		}
		bc := bodiesB.Cursor()
		for k, val := bc.First(); k != nil; k, val = bc.Next() {
			bodies = append(bodies, rawRec{storage.ParseKey(k), val})
		}
		docs = make([]textindex.Doc, len(recs))
		metas = make([]docMeta, len(recs))
		ok = make([]bool, len(recs))
		workers := max(1, min(runtime.GOMAXPROCS(0), len(recs)/512))
		var wg sync.WaitGroup
		errs := make([]error, workers)
		for w := range workers {
			lo, hi := w*len(recs)/workers, (w+1)*len(recs)/workers
			wg.Go(func() {
				for i := lo; i < hi; i++ {
					if (i-lo)%2048 == 0 && ctx.Err() != nil {
						errs[w] = ctx.Err()
						return
					}
					r := recs[i]
					ln, err := liteCodec.Unmarshal(r.val)
					if err != nil || strings.TrimSpace(ln.Content) == "" {
						continue
					}
					n := Node{ID: r.id, Type: ln.Type, Title: ln.Title, Content: ln.Content, Tags: ln.Tags,
						Confidence: ln.Confidence, HelpfulCount: ln.HelpfulCount}
					if ln.HasBody {
						j := sort.Search(len(bodies), func(j int) bool { return bodies[j].id >= r.id })
						if j < len(bodies) && bodies[j].id == r.id {
							n.Body = decodeBody(bodies[j].val)
						}
					}
					docs[i] = textindex.Doc{ID: r.id, Fields: docFields(&n)}
					metas[i] = metaOf(&n)
					ok[i] = true
				}
			})
		}
		wg.Wait()
		return errors.Join(errs...)
	})
	release()
	if err != nil {
		return nil, nil, 0, 0, err
	}
	kept := docs[:0]
	meta := make(map[uint64]docMeta, len(docs))
	for i := range docs {
		if !ok[i] {
			skipped++
			continue
		}
		kept = append(kept, docs[i])
		meta[docs[i].ID] = metas[i]
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, 0, 0, err
	}
	ix := textindex.New(indexOptions())
	ix.AddBatch(kept)
	return ix, meta, skipped, rev, nil
}

// SearchOptions configures Search.
type SearchOptions struct {
	// Limit is the most results (0 means 10).
	Limit int
	// Type, Tag and MinConfidence filter the results.
	Type          NodeType
	Tag           string
	MinConfidence float64
	// NoEmbeddings skips the embedding re-rank even when it is configured.
	NoEmbeddings bool
}

// Scored is a search result: the node (without body) and its score.
type Scored struct {
	Node
	// Score is the final score, 0–1: relevance blended with confidence and
	// helpfulness (and embedding similarity when re-ranked).
	Score float64 `json:"score"`
	// Relevance is the BM25 score relative to the best hit, 0–1.
	Relevance float64 `json:"relevance"`
}

// Weights of the blended score. Relevance gates: a node that shares no term
// (after stemming, synonyms and typo tolerance) with the query never ranks.
const (
	blendRelevance  = 0.55
	blendConfidence = 0.30
	blendHelpful    = 0.15
	helpfulSat      = 20 // helpfulCount at which the helpful factor saturates
	embedWeight     = 0.4
)

type cand struct {
	id    uint64
	rel   float64
	score float64
}

// Search ranks nodes for a free-text query: BM25F over title, content, tags
// and full body (so paraphrases reach a node through its body and the
// synonym map), blended with confidence and helpfulness, optionally
// re-ranked with embeddings. An empty query returns no results.
func (v *Vault) Search(ctx context.Context, query string, o SearchOptions) ([]Scored, error) {
	if o.Limit <= 0 {
		o.Limit = 10
	}
	if o.Type != "" && !o.Type.Valid() {
		t, err := ParseNodeType(string(o.Type))
		if err != nil {
			return nil, err
		}
		o.Type = t
	}
	if err := checkConfidence(o.MinConfidence, "minimum confidence"); err != nil {
		return nil, err
	}
	tag := strings.TrimLeft(strings.ToLower(cleanKey(o.Tag)), "#")
	if strings.TrimSpace(query) == "" {
		return []Scored{}, nil
	}
	if err := v.search.ensure(ctx); err != nil {
		return nil, err
	}
	cands, err := v.candidates(ctx, query, o, tag)
	if err != nil {
		return nil, err
	}
	if len(cands) == 0 {
		return []Scored{}, nil
	}
	if !o.NoEmbeddings {
		if err := v.rerank(ctx, query, cands, max(o.Limit*2, 10)); err != nil {
			return nil, err
		}
	}
	if len(cands) > o.Limit {
		cands = cands[:o.Limit]
	}
	ids := make([]uint64, len(cands))
	for i, c := range cands {
		ids[i] = c.id
	}
	nodes, err := v.GetMany(ctx, ids, false)
	if err != nil {
		return nil, err
	}
	byID := make(map[uint64]Node, len(nodes))
	for _, n := range nodes {
		byID[n.ID] = n
	}
	out := make([]Scored, 0, len(cands))
	for _, c := range cands {
		if n, ok := byID[c.id]; ok {
			out = append(out, Scored{Node: n, Score: round6(c.score), Relevance: round6(c.rel)})
		}
	}
	return out, nil
}

func blend(rel, conf float64, helpful int) float64 {
	h := math.Min(1, math.Log1p(float64(max(helpful, 0)))/math.Log1p(helpfulSat))
	return rel * (blendRelevance + blendConfidence*conf + blendHelpful*h)
}

func sortCands(cs []cand) {
	slices.SortStableFunc(cs, func(a, b cand) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmpU64(a.id, b.id))
	})
}

// candidates returns the BM25 top max(4×need, 40) hits, blended and sorted,
// where need is the limit (twice it, at least 10, when embeddings re-rank).
// The blend re-orders within that window: relevance gates, confidence and
// helpfulness re-order the relevant (a BM25 top-k re-rank; widening the
// window when scores are flat cost 5× at p95 on 100k nodes for rare gains).
func (v *Vault) candidates(ctx context.Context, query string, o SearchOptions, tag string) ([]cand, error) {
	s := v.search
	need := o.Limit
	if v.opts.Embedder != nil && v.opts.EmbedModel != "" && !o.NoEmbeddings {
		need = max(o.Limit*2, 10)
	}
	k := max(need*4, 40)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s.mu.RLock()
		if s.status != stReady { // invalidated since ensure
			s.mu.RUnlock()
			if err := s.ensure(ctx); err != nil {
				return nil, err
			}
			continue
		}
		var f func(uint64) bool
		if o.Type != "" || tag != "" || o.MinConfidence > 0 {
			f = func(id uint64) bool {
				m, ok := s.meta[id]
				return ok && (o.Type == "" || m.typ == o.Type) && m.conf >= o.MinConfidence &&
					(tag == "" || slices.Contains(m.tags, tag))
			}
		}
		hits := s.ix.Search(query, k, f)
		cands := make([]cand, 0, len(hits))
		if len(hits) > 0 && hits[0].Score > 0 {
			top := hits[0].Score
			for _, h := range hits {
				m := s.meta[h.ID]
				rel := h.Score / top
				cands = append(cands, cand{id: h.ID, rel: rel, score: blend(rel, m.conf, m.helpful)})
			}
		}
		s.mu.RUnlock()
		sortCands(cands)
		return cands, nil
	}
}

// GetRelevantPatterns returns the nodes most relevant to a task context,
// best first (see Search). It works offline; embeddings only re-rank.
func (v *Vault) GetRelevantPatterns(ctx context.Context, context string, limit int) ([]Scored, error) {
	return v.Search(ctx, context, SearchOptions{Limit: limit})
}

// embedState caches node embeddings and remembers a failing server.
type embedState struct {
	mu        sync.Mutex
	vecs      map[uint64]embVec
	downUntil time.Time
}

type embVec []float32

// embedCooldown is how long embeddings are skipped after a failure, so an
// unreachable Ollama costs one timeout, not one per query.
const (
	embedCooldown = 30 * time.Second
	embedMaxCache = 50_000
	embedTextLen  = 2000
)

func (e *embedState) forget(ws *writeSet) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for id, changed := range ws.text {
		if changed {
			delete(e.vecs, id)
		}
	}
}

// rerank re-scores the first n candidates with embedding similarity when an
// embedder is configured and answers in time; otherwise it leaves them.
func (v *Vault) rerank(ctx context.Context, query string, cands []cand, n int) error {
	if v.opts.Embedder == nil || v.opts.EmbedModel == "" {
		return nil
	}
	e := v.emb
	e.mu.Lock()
	down := time.Now().Before(e.downUntil)
	e.mu.Unlock()
	if down {
		return nil
	}
	head := cands[:min(n, len(cands))]
	ids := make([]uint64, len(head))
	for i, c := range head {
		ids[i] = c.id
	}
	e.mu.Lock()
	var missing []uint64
	for _, id := range ids {
		if _, ok := e.vecs[id]; !ok {
			missing = append(missing, id)
		}
	}
	e.mu.Unlock()
	inputs := []string{truncate(query, embedTextLen)}
	if len(missing) > 0 {
		nodes, err := v.GetMany(ctx, missing, false)
		if err != nil {
			return err
		}
		missing = missing[:0]
		for _, nd := range nodes {
			missing = append(missing, nd.ID)
			inputs = append(inputs, truncate(strings.TrimSpace(nd.Title+"\n"+nd.Content+"\n"+strings.Join(nd.Tags, " ")), embedTextLen))
		}
	}
	ectx, cancel := context.WithTimeout(ctx, v.opts.EmbedTimeout)
	vecs, err := v.opts.Embedder.Embed(ectx, v.opts.EmbedModel, inputs)
	cancel()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil || len(vecs) != len(inputs) {
		e.mu.Lock()
		e.downUntil = time.Now().Add(embedCooldown)
		e.mu.Unlock()
		return nil
	}
	qv := vecs[0]
	e.mu.Lock()
	if len(e.vecs) > embedMaxCache {
		clear(e.vecs)
	}
	for i, id := range missing {
		e.vecs[id] = vecs[i+1]
	}
	sims := make([]float64, len(head))
	okAll := true
	for i, id := range ids {
		vec, ok := e.vecs[id]
		if !ok || len(vec) != len(qv) {
			okAll = false
			break
		}
		sims[i] = math.Max(0, cosine(qv, vec))
	}
	e.mu.Unlock()
	if !okAll {
		return nil
	}
	for i := range head {
		head[i].score = (1-embedWeight)*head[i].score + embedWeight*sims[i]
	}
	sortCands(head)
	return nil
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8RuneStart(s[i]) {
		i--
	}
	return s[:i]
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
