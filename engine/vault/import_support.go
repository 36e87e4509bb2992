package vault

// Support for bulk importers (engine/importer): one vault write transaction
// that the caller drives node by node and shares with its own buckets, plus
// restores with the same ids for undo. Written by the importer's owner; the
// rest of the package does not depend on it.

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"slices"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/textindex"
	"github.com/nova-dev/nova/storage"
)

// ReadTx is a read view of the vault inside a bbolt transaction (see
// Vault.WithReadTx and Vault.WithImportTx). It must not be used after the callback returns.
type ReadTx struct {
	v  *Vault
	tx *bolt.Tx
	// nodes is a cursor over vault_nodes kept for Has (see has).
	nodes *bolt.Cursor
}

// Bolt returns the underlying transaction, so a caller can read (and, in an
// ImportTx, write) its own buckets atomically with the vault.
func (r *ReadTx) Bolt() *bolt.Tx { return r.tx }

// Has reports whether node id exists.
func (r *ReadTx) Has(id uint64) bool { return id != 0 && r.has(id) }

// has is hasNode through a cursor kept for the transaction: a bulk import asks it for every
// node of every chain edge (three times per edge), and Bucket.Get makes a cursor, and grows
// its stack, every time. Seek places the cursor from the root, so it sees what the
// transaction wrote since the last call.
func (r *ReadTx) has(id uint64) bool {
	if r.nodes == nil {
		b := r.tx.Bucket(storage.BucketVaultNodes)
		if b == nil {
			return false
		}
		r.nodes = b.Cursor()
	}
	var key [8]byte
	binary.BigEndian.PutUint64(key[:], id)
	k, v := r.nodes.Seek(key[:])
	return v != nil && bytes.Equal(k, key[:])
}

// Get returns a node, with its body when withBody is set.
func (r *ReadTx) Get(id uint64, withBody bool) (Node, error) {
	n, err := getNode(r.tx, id)
	if err != nil {
		return Node{}, err
	}
	if withBody && n.HasBody {
		n.Body = getBody(r.tx, id)
	}
	return n, nil
}

// Body returns a node's body ("" when it has none).
func (r *ReadTx) Body(id uint64) string { return getBody(r.tx, id) }

// ForEachNode calls fn with every node (without body) in id order until fn
// returns false. Undecodable records are skipped.
func (r *ReadTx) ForEachNode(fn func(n Node) bool) {
	c := r.tx.Bucket(storage.BucketVaultNodes).Cursor()
	for k, raw := c.First(); k != nil; k, raw = c.Next() {
		n, err := nodeCodec.Unmarshal(raw)
		if err != nil {
			continue
		}
		n.ID = storage.ParseKey(k)
		if n.Tags == nil {
			n.Tags = []string{}
		}
		if !fn(n) {
			return
		}
	}
}

// Edge returns one edge.
func (r *ReadTx) Edge(id uint64) (Edge, error) { return getEdge(r.tx, id) }

// FindEdge returns the from→to edge of relation rel, if there is one.
func (r *ReadTx) FindEdge(from, to uint64, rel Relation) (Edge, bool) {
	id := findEdge(r.tx, from, to, rel)
	if id == 0 {
		return Edge{}, false
	}
	e, err := getEdge(r.tx, id)
	return e, err == nil
}

// Edges returns the edges touching node id (both directions), by id.
func (r *ReadTx) Edges(id uint64) []Edge {
	var out []Edge
	for _, eid := range edgeIDsOf(r.tx, id, true, true) {
		if e, err := getEdge(r.tx, eid); err == nil {
			out = append(out, e)
		}
	}
	return out
}

// WithReadTx runs fn in a read-only transaction of the vault's database.
func (v *Vault) WithReadTx(ctx context.Context, fn func(r *ReadTx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return v.db.View(func(tx *bolt.Tx) error {
		if _, _, _, err := buckets(tx); err != nil {
			return err
		}
		return fn(&ReadTx{v: v, tx: tx})
	})
}

// ImportTx is one vault write transaction driven by a bulk importer. Every
// write is validated like the public calls; when fn returns an error (or
// ctx is cancelled and fn returns ctx.Err()) nothing is written.
//
// New index entries are collected and put in key order just before the
// commit (see ixBatch), so importing 10,000 files in one transaction stays
// linear. Reads of edges through ImportTx see the edges it added; before an
// operation that would need the deferred entries in bbolt (removing a node or
// edge added in the same transaction) they are flushed first.
type ImportTx struct {
	ReadTx
	ws    *writeSet
	nodes int
	// net counts nodes added minus nodes removed, for the tier cap.
	net int

	batch   *ixBatch
	sink    *textindex.Batch    // collects the full-text changes instead of the index (nil: applied)
	rebuild bool                // index every node again at the end (RebuildTextIndex)
	fresh   map[uint64]bool     // nodes whose index entries are deferred
	pending map[edgeKey]uint64  // edges added in this transaction
	byNode  map[uint64][]uint64 // node → edges added in this transaction
	pendIDs map[uint64]bool     // ids of those edges

	// late holds the tag and core entries of the chunked import's earlier steps (nil: not
	// a step of one); deferLate sends this transaction's to it too (a Step).
	late      *lateIndex
	deferLate bool
}

type edgeKey struct {
	from, to uint64
	rel      Relation
}

// WithImportTx runs fn in one write transaction (op "import" in Change). The
// in-memory search index and OnChange follow the commit as for every write.
// An import is a user write: it should call Reserve with the number of nodes
// it will add before adding them; whatever it does, a transaction that ends
// with more nodes than it started and over the tier's cap is rolled back with
// a *CapError.
func (v *Vault) WithImportTx(ctx context.Context, fn func(t *ImportTx) error) error {
	return v.update(ctx, "import", func(tx *bolt.Tx, ws *writeSet) error {
		return v.importTx(tx, ws, nil, fn)
	})
}

// importTx runs fn as one ImportTx. Every full-text change of the transaction (the deferred
// ones of Add and Replace, and those of Remove, which removeNodeTx would otherwise apply node
// by node: undoing 2,500 imported nodes took 6 s) goes to one batch, in order: sink when
// set (ImportSteps), else applied once at the end.
func (v *Vault) importTx(tx *bolt.Tx, ws *writeSet, sink *textindex.Batch, fn func(t *ImportTx) error) error {
	own := sink == nil
	if own {
		sink = &textindex.Batch{}
	}
	t := &ImportTx{ReadTx: ReadTx{v: v, tx: tx}, ws: ws}
	t.setSink(sink)
	if err := fn(t); err != nil {
		return err
	}
	// Flushed first: the node counter includes the deferred adds only then.
	if err := t.flush(); err != nil {
		return err
	}
	if own && t.sink == sink {
		if err := applyText(tx, sink); err != nil {
			return err
		}
	}
	if t.rebuild {
		st, err := ftsStore(tx)
		if err != nil {
			return err
		}
		if err := rebuildIndex(tx, st); err != nil {
			return err
		}
	}
	if t.net > 0 {
		return CheckCap(v.opts.Tier, nodeCount(tx)-t.net, t.net)
	}
	return nil
}

// ImportSteps writes a bulk import in several transactions (engine/importer's chunked
// Apply); see WithImportSteps.
type ImportSteps struct {
	v   *Vault
	all *writeSet
	// plan holds the analysed full-text changes of the committed steps, for IndexStep;
	// planErr is why one could not be added.
	plan      *textindex.Plan
	planErr   error
	committed bool
	// late holds the tag and core index entries of the Steps, for the first IndexStep.
	late lateIndex
}

// WithImportSteps runs fn with the vault's write lock held throughout, so no other write
// of this process comes between the transactions fn runs through the ImportSteps. Each
// transaction is what WithImportTx runs (validation, index entries, tier cap check,
// revision), except for the full-text index: Step only collects its changes, and the
// IndexStep transactions that follow write them range of terms by range of terms, so that
// no transaction holds the whole index. Until the first IndexStep the index holds nothing
// of the import. The embedding cache follows every committed transaction, OnChange once,
// after fn returns.
func (v *Vault) WithImportSteps(ctx context.Context, fn func(s *ImportSteps) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if v.db.ReadOnly() {
		return storage.ErrReadOnly
	}
	v.wmu.Lock()
	s := &ImportSteps{v: v, all: newWriteSet("import"), plan: ftsEngine().NewPlan()}
	err := fn(s)
	v.wmu.Unlock()
	if s.committed {
		v.notify(s.all.change())
	}
	return err
}

// Step runs fn in one write transaction. Its full-text changes are analysed for IndexStep
// once it commits; when it fails they are dropped with it. A step runs even when the
// context of WithImportSteps is cancelled (a caller may need one to roll back): fn checks
// it.
func (s *ImportSteps) Step(fn func(t *ImportTx) error) error {
	sink := &textindex.Batch{}
	step := func(t *ImportTx) error {
		t.deferLate = true
		t.batch.late = &s.late
		return fn(t)
	}
	if err := s.run(step, sink); err != nil {
		return err
	}
	if s.planErr == nil {
		if err := s.plan.Add(sink); err != nil {
			s.planErr = fmt.Errorf("full-text index: %w", err)
		}
	}
	return nil
}

// Once runs fn in one write transaction that writes its full-text changes itself, as
// WithImportTx does: an import small enough for one transaction.
func (s *ImportSteps) Once(fn func(t *ImportTx) error) error { return s.run(fn, nil) }

// IndexStep writes the next range of the full-text changes of the steps before it (about
// budget postings; budget <= 0: all) in one write transaction, then runs fn in it with
// done, which says whether that was the last range: the index record is written with it,
// and the index then holds the whole import. No Step may follow the first IndexStep.
func (s *ImportSteps) IndexStep(budget int, fn func(t *ImportTx, done bool) error) (done bool, err error) {
	if s.planErr != nil {
		return false, s.planErr
	}
	err = s.run(func(t *ImportTx) error {
		st, err := ftsStore(t.tx)
		if err != nil {
			return err
		}
		// The steps' tag and core entries, once (see lateIndex).
		if err := s.late.flush(t.tx); err != nil {
			return err
		}
		appendMostly(st.terms, st.postings)
		if done, err = s.plan.Step(st, budget); err != nil {
			return fmt.Errorf("full-text index: %w", err)
		}
		return fn(t, done)
	}, nil)
	if err != nil {
		// The plan is part way: a failed range is not retried.
		s.planErr = fmt.Errorf("full-text index: an earlier range failed: %w", err)
		return false, err
	}
	s.late.reset()
	return done, nil
}

// Unindexed runs fn in one write transaction whose full-text changes are dropped: it
// undoes steps whose text never reached the index (see ImportTx.DropText).
func (s *ImportSteps) Unindexed(fn func(t *ImportTx) error) error {
	return s.run(func(t *ImportTx) error {
		t.DropText()
		return fn(t)
	}, nil)
}

func (s *ImportSteps) run(fn func(t *ImportTx) error, sink *textindex.Batch) error {
	ws, err := s.v.updateLocked("import", func(tx *bolt.Tx, ws *writeSet) error {
		return s.v.importTx(tx, ws, sink, func(t *ImportTx) error {
			t.late = &s.late
			return fn(t)
		})
	})
	if err != nil {
		return err
	}
	s.v.emb.forget(ws)
	for id, changed := range ws.nodes {
		s.all.nodes[id] = s.all.nodes[id] || changed
	}
	s.all.edges = append(s.all.edges, ws.edges...)
	s.all.archived = append(s.all.archived, ws.archived...)
	s.all.notStored += ws.notStored
	s.all.rev = max(s.all.rev, ws.rev)
	s.committed = true
	return nil
}

// DropText makes the transaction leave the full-text index alone: its changes are
// collected and dropped. It is for undoing writes whose text never reached the index (the
// steps of an import that stopped before ImportSteps.Final): restoring or removing their
// nodes must not touch postings they never had. Call it before any write.
func (t *ImportTx) DropText() { t.setSink(&textindex.Batch{}) }

// setSink sends the transaction's full-text changes to b.
func (t *ImportTx) setSink(b *textindex.Batch) {
	t.sink = b
	t.ws.ftsSink = b
	if t.batch == nil {
		t.reset()
	}
	t.batch.ftsSink = b
}

// applyText writes full-text changes into the index, as ixBatch.flush does.
func applyText(tx *bolt.Tx, b *textindex.Batch) error {
	if b.Len() == 0 {
		return nil
	}
	st, err := ftsStore(tx)
	if err != nil {
		return err
	}
	if b.Len() >= ftsBulk {
		appendMostly(st.terms, st.postings)
	}
	if err := ftsEngine().Apply(st, b); err != nil {
		return fmt.Errorf("full-text index: %w", err)
	}
	return nil
}

// RebuildTextIndex makes the transaction end by indexing every node again (after DropText
// and whatever fn writes): for rolling back an import whose text was partly written (an
// IndexStep committed, the last did not), which no change list can take out exactly.
func (t *ImportTx) RebuildTextIndex() { t.rebuild = true }

// Reserve checks, before anything is written, that adding n nodes keeps the
// vault within its tier's cap (the same rule as every user write); it
// returns a *CapError otherwise.
func (t *ImportTx) Reserve(n int) error {
	_, err := t.v.reserve(t.tx, t.ws, ByUser, n, 0)
	return err
}

func (t *ImportTx) reset() {
	t.batch = &ixBatch{ftsSink: t.sink}
	if t.deferLate {
		t.batch.late = t.late
	}
	t.fresh = map[uint64]bool{}
	t.pending = map[edgeKey]uint64{}
	t.byNode = map[uint64][]uint64{}
	t.pendIDs = map[uint64]bool{}
}

// flush puts the deferred index entries (in key order).
func (t *ImportTx) flush() error {
	if err := t.batch.flush(t.tx); err != nil {
		return err
	}
	t.reset()
	return nil
}

// settle flushes when id (a node) or edge has deferred index entries (the late ones of a
// chunked import's earlier steps included: they are written in this transaction).
func (t *ImportTx) settle(node, edge uint64) error {
	if node != 0 && t.late != nil && t.late.holds(node) {
		if err := t.late.flush(t.tx); err != nil {
			return err
		}
		// Forgotten now: when this transaction fails, the import it belongs to is rolled
		// back (its nodes go, whatever their entries).
		t.late.reset()
	}
	if (node != 0 && (t.fresh[node] || len(t.byNode[node]) > 0 || t.batch.fts.Has(node))) || (edge != 0 && t.pendIDs[edge]) {
		return t.flush()
	}
	return nil
}

func (t *ImportTx) touched() { t.nodes++ }

// FindEdge returns the from→to edge of relation rel, including edges added in
// this transaction.
func (t *ImportTx) FindEdge(from, to uint64, rel Relation) (Edge, bool) {
	if id, ok := t.pending[edgeKey{from, to, rel}]; ok {
		e, err := getEdge(t.tx, id)
		return e, err == nil
	}
	return t.ReadTx.FindEdge(from, to, rel)
}

// Edges returns the edges touching node id, including edges added in this
// transaction, by id.
func (t *ImportTx) Edges(id uint64) []Edge {
	out := t.ReadTx.Edges(id)
	for _, eid := range t.byNode[id] {
		if e, err := getEdge(t.tx, eid); err == nil {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b Edge) int { return cmpU64(a.ID, b.ID) })
	return slices.CompactFunc(out, func(a, b Edge) bool { return a.ID == b.ID })
}

// Add stores a new node (validated as by Vault.Add) and returns it with its id.
func (t *ImportTx) Add(n Node) (Node, error) {
	p, err := t.add(n)
	if err != nil {
		return Node{}, err
	}
	return p.clone(), nil
}

// AddID is Add for a caller that needs the new node's id only and gives n away (a bulk
// import): no copy of the node is made, neither for it nor of n's tags and meta, which AddID
// may keep and change.
func (t *ImportTx) AddID(n Node) (uint64, error) {
	if n.Tags == nil {
		n.Tags = []string{} // as clone leaves it
	}
	p, err := t.v.prepareOwned(n)
	if err == nil {
		err = t.put(&p)
	}
	if err != nil {
		return 0, err
	}
	return p.ID, nil
}

func (t *ImportTx) add(n Node) (Node, error) {
	p, err := t.v.prepare(n)
	if err == nil {
		err = t.put(&p)
	}
	if err != nil {
		return Node{}, err
	}
	return p, nil
}

// put stores p, prepared as a new node.
func (t *ImportTx) put(p *Node) error {
	if err := putNodeTx(t.tx, p, nil, t.batch); err != nil {
		return err
	}
	t.fresh[p.ID] = true
	t.ws.putNode(p, true)
	t.touched()
	t.net++
	return nil
}

// Replace overwrites every field of node n.ID with n (validated), keeping
// its id, its creation time and its edges; UpdatedAt becomes now.
func (t *ImportTx) Replace(n Node) (Node, error) {
	if err := t.settle(n.ID, 0); err != nil {
		return Node{}, err
	}
	old, err := getNode(t.tx, n.ID)
	if err != nil {
		return Node{}, err
	}
	n = n.clone()
	if err := n.normalize(t.v.opts.UserID, true); err != nil {
		return Node{}, err
	}
	n.CreatedAt = old.CreatedAt
	n.UpdatedAt = t.v.now()
	if err := putNodeTx(t.tx, &n, &old, t.batch); err != nil {
		return Node{}, err
	}
	t.fresh[n.ID] = true
	t.ws.putNode(&n, true)
	t.touched()
	return n.clone(), nil
}

// Restore writes n exactly as given (same id and timestamps), replacing the
// node with that id if it exists: the inverse of Replace and Remove, for undo.
// n should carry its body (Get with withBody).
func (t *ImportTx) Restore(n Node) error {
	if n.ID == 0 {
		return invalidf("restore: node has no id")
	}
	if err := t.settle(n.ID, 0); err != nil {
		return err
	}
	n = n.clone()
	created, updated := n.CreatedAt, n.UpdatedAt
	if err := n.normalize(t.v.opts.UserID, false); err != nil {
		return fmt.Errorf("restore node %d: %w", n.ID, err)
	}
	n.CreatedAt, n.UpdatedAt = created, updated
	var oldp *Node
	if old, err := getNode(t.tx, n.ID); err == nil {
		oldp = &old
	}
	if err := putNodeTx(t.tx, &n, oldp, t.batch); err != nil {
		return err
	}
	t.fresh[n.ID] = true
	t.ws.putNode(&n, true)
	t.touched()
	return nil
}

// Remove deletes a node and every edge touching it.
func (t *ImportTx) Remove(id uint64) error {
	if err := t.settle(id, 0); err != nil {
		return err
	}
	if err := removeNodeTx(t.tx, t.ws, id); err != nil {
		return err
	}
	t.touched()
	t.net--
	return nil
}

// Link adds a from→to edge unless one of that relation exists already;
// created says whether it was added. Strength 0 means DefaultStrength.
func (t *ImportTx) Link(from, to uint64, rel Relation, strength float64) (e Edge, created bool, err error) {
	if !rel.Valid() {
		if rel, err = ParseRelation(string(rel)); err != nil {
			return Edge{}, false, err
		}
	}
	if err := checkConfidence(strength, "strength"); err != nil {
		return Edge{}, false, err
	}
	if strength == 0 {
		strength = DefaultStrength
	}
	if from == to {
		return Edge{}, false, invalidf("node %d cannot link to itself", from)
	}
	for _, id := range []uint64{from, to} {
		if !t.has(id) {
			return Edge{}, false, fmt.Errorf("link %d → %d: node %d: %w", from, to, id, ErrNotFound)
		}
	}
	if ex, ok := t.FindEdge(from, to, rel); ok {
		return ex, false, nil
	}
	e = Edge{From: from, To: to, Relation: rel, Strength: strength, CreatedAt: t.v.now()}
	if err := t.putEdge(&e); err != nil {
		return Edge{}, false, err
	}
	return e, true, nil
}

func (t *ImportTx) putEdge(e *Edge) error {
	if err := putEdgeTx(t.tx, e, t.batch); err != nil {
		return err
	}
	t.pending[edgeKey{e.From, e.To, e.Relation}] = e.ID
	t.byNode[e.From] = append(t.byNode[e.From], e.ID)
	t.byNode[e.To] = append(t.byNode[e.To], e.ID)
	t.pendIDs[e.ID] = true
	t.ws.edges = append(t.ws.edges, e.ID)
	return nil
}

// Unlink removes an edge.
func (t *ImportTx) Unlink(id uint64) error {
	if err := t.settle(0, id); err != nil {
		return err
	}
	return removeEdgeTx(t.tx, t.ws, id)
}

// RestoreEdge writes e with its id, for undo. Both endpoints must exist
// (ErrNotFound); an edge that exists already is left as it is.
func (t *ImportTx) RestoreEdge(e Edge) error {
	if e.ID == 0 {
		return invalidf("restore: edge has no id")
	}
	if !e.Relation.Valid() || e.From == e.To {
		return invalidf("restore edge %d: bad relation or self link", e.ID)
	}
	for _, id := range []uint64{e.From, e.To} {
		if !hasNode(t.tx, id) {
			return fmt.Errorf("restore edge %d: node %d: %w", e.ID, id, ErrNotFound)
		}
	}
	if _, err := getEdge(t.tx, e.ID); err == nil {
		return nil
	}
	return t.putEdge(&e)
}

// CheckNode reports whether Add would accept n (ErrInvalid otherwise), without writing.
func (v *Vault) CheckNode(n Node) error {
	_, err := v.prepare(n)
	return err
}
