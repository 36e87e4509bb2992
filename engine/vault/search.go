package vault

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/textindex"
	"github.com/nova-dev/nova/storage"
)

// IndexInfo describes the full-text index.
type IndexInfo struct {
	// Ready says searches can run without building anything (always, unless the database
	// predates the persisted index and the handle is read-only: see fts.go).
	Ready bool `json:"ready"`
	// Docs is the number of nodes indexed.
	Docs int `json:"docs"`
	// Persisted says the index is the one stored in the database (not an in-memory copy).
	Persisted bool `json:"persisted"`
}

// Warm prepares searching in the background: on a read-only handle over a database without
// a current index it builds the in-memory copy, so the first search does not wait for it;
// otherwise there is nothing to do. It returns at once.
func (v *Vault) Warm() {
	if !v.db.ReadOnly() {
		return
	}
	v.bgWG.Go(func() { _ = v.WaitIndex(v.bgCtx) })
}

// IndexInfo reports the state of the full-text index.
func (v *Vault) IndexInfo() IndexInfo {
	var info IndexInfo
	_ = v.searchStore(context.Background(), func(tx *bolt.Tx, st textindex.Store) error {
		s, err := ftsEngine().Stats(st)
		_, inMemory := st.(*textindex.MemStore)
		info = IndexInfo{Ready: err == nil, Docs: s.Docs, Persisted: err == nil && !inMemory}
		return nil
	})
	return info
}

// WaitIndex makes sure searches can run (see Warm) and returns once they can.
func (v *Vault) WaitIndex(ctx context.Context) error {
	return v.searchStore(ctx, func(*bolt.Tx, textindex.Store) error { return nil })
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
	// ResultTypes and Exclude drop results after the ranking and the limit (unlike Type,
	// which filters what is ranked): the results are those a caller dropping them itself
	// would keep, in the same order, without reading the nodes dropped.
	ResultTypes []NodeType
	Exclude     []uint64
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
	// coverageFloor is the share of its BM25 score a hit keeps when its key fields hold
	// none of the query's words (see textindex.Hit.Coverage); one holding all keeps it all.
	// 0.7 fixed the ranking of issue 16 and scored best on the paraphrase set (MRR 0.699
	// against 0.696 at 0.8 or without).
	coverageFloor = 0.7
	embedWeight   = 0.4
)

type cand struct {
	id    uint64
	rel   float64
	score float64
	typ   NodeType // when typOK
	typOK bool
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
	if len(o.ResultTypes) > 0 || len(o.Exclude) > 0 {
		kept := cands[:0]
		for _, c := range cands {
			// A node whose type the ranking did not read is kept here and checked below.
			if slices.Contains(o.Exclude, c.id) || (len(o.ResultTypes) > 0 && c.typOK && !slices.Contains(o.ResultTypes, c.typ)) {
				continue
			}
			kept = append(kept, c)
		}
		cands = kept
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
		if n, ok := byID[c.id]; ok && (len(o.ResultTypes) == 0 || slices.Contains(o.ResultTypes, n.Type)) {
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
// It runs in one read transaction: the query's terms, the filter's index
// entries and the hits' records, a few dozen keys whatever the vault's size.
func (v *Vault) candidates(ctx context.Context, query string, o SearchOptions, tag string) ([]cand, error) {
	need := o.Limit
	if v.opts.Embedder != nil && v.opts.EmbedModel != "" && !o.NoEmbeddings {
		need = max(o.Limit*2, 10)
	}
	k := max(need*4, 40)
	var cands []cand
	err := v.searchStore(ctx, func(tx *bolt.Tx, st textindex.Store) error {
		var f func(uint64) bool
		if o.Type != "" || tag != "" || o.MinConfidence > 0 {
			allowed := filterIDs(tx, o, tag)
			f = func(id uint64) bool {
				_, ok := slices.BinarySearch(allowed, id)
				return ok
			}
		}
		hits, err := ftsEngine().Search(st, query, k, f)
		if err != nil {
			return fmt.Errorf("search: %w", err)
		}
		if len(hits) == 0 || hits[0].Score <= 0 {
			return nil
		}
		nodes := tx.Bucket(storage.BucketVaultNodes)
		// Relevance is BM25 scaled by coverage: a node that holds every word of the query in
		// its title, summary or tags outranks one that matches some of them at length.
		top := 0.0
		for i := range hits {
			hits[i].Score *= coverageFloor + (1-coverageFloor)*hits[i].Coverage
			top = max(top, hits[i].Score)
		}
		cands = make([]cand, 0, len(hits))
		for _, h := range hits {
			m, err := rankOf(nodes, storage.Key(h.ID))
			if err != nil {
				continue // undecodable
			}
			rel := h.Score / top
			cands = append(cands, cand{id: h.ID, rel: rel, score: blend(rel, m.Confidence, m.HelpfulCount), typ: m.typ, typOK: m.typOK})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sortCands(cands)
	return cands, nil
}

// rankNode is the part of a stored node that candidate ranking reads (see rankOf): decoding
// into it skips the title, content and tags strings (decoding whole records was ~8 % of a
// build task's CPU at 100k nodes; encoding/json skips unknown fields without allocating).
type rankNode struct {
	Confidence   float64 `json:"confidence"`
	HelpfulCount int     `json:"helpfulCount"`
	// typ is the node's type when scanRank read it (typOK); encoding/json leaves it unknown.
	typ   NodeType
	typOK bool
}

// rankCodec reads nodeCodec's records (same version) into a rankNode.
var rankCodec = storage.Codec[rankNode]{Version: nodeCodec.Version}

// filterIDs returns, ascending, the ids of the nodes that pass the type, tag and
// confidence filters of o, from the secondary indexes.
func filterIDs(tx *bolt.Tx, o SearchOptions, tag string) []uint64 {
	var lists [][]uint64
	collect := func(ix storage.Index, value string) {
		var l []uint64
		ix.IDs(tx, value, func(id uint64) bool { l = append(l, id); return true })
		lists = append(lists, l)
	}
	if o.Type != "" {
		collect(ixType, string(o.Type))
	}
	if tag != "" {
		collect(ixTag, tag)
	}
	if o.MinConfidence > 0 {
		var l []uint64
		confRange(tx, o.MinConfidence, false, func(id uint64, _ float64) bool { l = append(l, id); return true })
		slices.Sort(l)
		lists = append(lists, l)
	}
	slices.SortFunc(lists, func(a, b []uint64) int { return cmp.Compare(len(a), len(b)) })
	out := lists[0]
	for _, l := range lists[1:] {
		out = intersectSorted(out, l)
	}
	return out
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
	for id, changed := range ws.nodes {
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
