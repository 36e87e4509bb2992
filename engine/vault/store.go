package vault

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/textindex"
	"github.com/nova-dev/nova/storage"
)

// Secondary indexes in vault_idx (see the package comment).
var (
	ixType = storage.Index{Bucket: storage.BucketVaultIndex, Name: "type"}
	ixTag  = storage.Index{Bucket: storage.BucketVaultIndex, Name: "tag"}
	ixUser = storage.Index{Bucket: storage.BucketVaultIndex, Name: "user"}
	ixConf = storage.Index{Bucket: storage.BucketVaultIndex, Name: "conf"}
	ixCore = storage.Index{Bucket: storage.BucketVaultIndex, Name: "core"}
	ixFrom = storage.Index{Bucket: storage.BucketVaultIndex, Name: "efrom"}
	ixTo   = storage.Index{Bucket: storage.BucketVaultIndex, Name: "eto"}
	ixRel  = storage.Index{Bucket: storage.BucketVaultIndex, Name: "erel"}
)

// revKey holds the change counter in vault_idx. Index keys always contain a
// 0x00 separator, so a key without one never collides with them.
var revKey = []byte("~rev")

var (
	nodeCodec = storage.Codec[Node]{Version: 1}
	edgeCodec = storage.Codec[Edge]{Version: 1}
)

// Bodies are stored as raw UTF-8 after a two-byte header ('b', version)
// rather than through storage.Codec: a body is opaque text of up to 1 MB and
// the index rebuild reads every one of them, so skipping JSON string
// unescaping matters there.
const bodyMagic, bodyVersion = 'b', 1

func encodeBody(s string) []byte {
	out := make([]byte, 0, len(s)+2)
	out = append(out, bodyMagic, bodyVersion)
	return append(out, s...)
}

func decodeBody(b []byte) string {
	if len(b) < 2 || b[0] != bodyMagic {
		return ""
	}
	return string(b[2:])
}

// confValue encodes a confidence so that byte order is numeric order.
func confValue(c float64) string {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], math.Float64bits(clamp01(c)+0)) // +0 turns -0 into 0
	return string(b[:])
}

func parseConfValue(b []byte) float64 {
	if len(b) != 8 {
		return 0
	}
	return math.Float64frombits(binary.BigEndian.Uint64(b))
}

func idValue(id uint64) string { return string(storage.Key(id)) }

// coreValue keys the core of a node's statement (see parseStatement), so
// duplicates and contradictions are found without scanning.
func coreValue(core string) string {
	sum := sha256.Sum256([]byte(core))
	return hex.EncodeToString(sum[:12])
}

type ixEntry struct {
	ix    storage.Index
	value string
}

func (e ixEntry) equal(o ixEntry) bool {
	return e.ix.Name == o.ix.Name && bytes.Equal(e.ix.Bucket, o.ix.Bucket) && e.value == o.value
}

// present reports whether the entry for id is stored.
func (e ixEntry) present(tx *bolt.Tx, id uint64) bool {
	b := tx.Bucket(e.ix.Bucket)
	return b != nil && b.Get(ixKey(e.ix, e.value, id)) != nil
}

func nodeEntries(n *Node) []ixEntry { return appendNodeEntries(make([]ixEntry, 0, 4+len(n.Tags)), n) }

// appendNodeEntries appends n's index entries to es.
func appendNodeEntries(es []ixEntry, n *Node) []ixEntry {
	es = append(es, ixEntry{ixType, string(n.Type)}, ixEntry{ixUser, n.UserID}, ixEntry{ixConf, confValue(n.Confidence)})
	for _, t := range n.Tags {
		es = append(es, ixEntry{ixTag, t})
	}
	if st, ok := parseStatement(n.Content); ok {
		es = append(es, ixEntry{ixCore, coreValue(st.core)})
	}
	return es
}

func edgeEntries(e *Edge) []ixEntry {
	return []ixEntry{{ixFrom, idValue(e.From)}, {ixTo, idValue(e.To)}, {ixRel, string(e.Relation)}}
}

func buckets(tx *bolt.Tx) (nodes, edges, bodies *bolt.Bucket, err error) {
	nodes, edges, bodies = tx.Bucket(storage.BucketVaultNodes), tx.Bucket(storage.BucketVaultEdges), tx.Bucket(storage.BucketVaultBodies)
	if nodes == nil || edges == nil || bodies == nil || tx.Bucket(storage.BucketVaultIndex) == nil {
		return nil, nil, nil, fmt.Errorf("vault buckets missing: %w", storage.ErrCorrupt)
	}
	return nodes, edges, bodies, nil
}

// getNode reads a node (without its body) in tx.
func getNode(tx *bolt.Tx, id uint64) (Node, error) {
	n, err := nodeCodec.Get(tx.Bucket(storage.BucketVaultNodes), storage.Key(id))
	if err != nil {
		if errors.Is(err, storage.ErrNotFound) {
			return Node{}, fmt.Errorf("node %d: %w", id, ErrNotFound)
		}
		return Node{}, fmt.Errorf("node %d: %w", id, err)
	}
	n.ID = id
	if n.Tags == nil {
		n.Tags = []string{}
	}
	return n, nil
}

func getBody(tx *bolt.Tx, id uint64) string {
	b := tx.Bucket(storage.BucketVaultBodies)
	if b == nil {
		return ""
	}
	return decodeBody(b.Get(storage.Key(id)))
}

func getEdge(tx *bolt.Tx, id uint64) (Edge, error) {
	e, err := edgeCodec.Get(tx.Bucket(storage.BucketVaultEdges), storage.Key(id))
	if err != nil {
		if errors.Is(err, storage.ErrNotFound) {
			return Edge{}, fmt.Errorf("edge %d: %w", id, ErrNotFound)
		}
		return Edge{}, fmt.Errorf("edge %d: %w", id, err)
	}
	e.ID = id
	return e, nil
}

func hasNode(tx *bolt.Tx, id uint64) bool {
	return tx.Bucket(storage.BucketVaultNodes).Get(storage.Key(id)) != nil
}

// writeSet records what a write transaction changed, for the change event and the
// embedding cache.
type writeSet struct {
	op    string
	nodes map[uint64]bool // written or removed nodes → whether their searchable text changed
	edges []uint64
	rev   uint64
	// ftsSink, when set, collects the full-text changes instead of applying them (a bulk
	// import applies them at the end, see importJournaled).
	ftsSink *textindex.Batch
	// coreSink, when set, collects the core index entries of the nodes written, for a
	// bulk import to write in key order at the end (see importJournaled).
	coreSink *coreBatch
	// archived are nodes the tier cap moved to the archive; notStored counts
	// learned nodes the cap left out.
	archived  []uint64
	notStored int
}

func newWriteSet(op string) *writeSet {
	return &writeSet{op: op, nodes: map[uint64]bool{}}
}

func (ws *writeSet) putNode(n *Node, textChanged bool) {
	ws.nodes[n.ID] = ws.nodes[n.ID] || textChanged
}

func (ws *writeSet) removeNode(id uint64) { ws.nodes[id] = true }

func (ws *writeSet) change() Change {
	c := Change{Op: ws.op, Revision: ws.rev}
	for id := range ws.nodes {
		c.Nodes = append(c.Nodes, id)
	}
	slices.Sort(c.Nodes)
	c.Edges = slices.Clone(ws.edges)
	slices.Sort(c.Edges)
	c.Edges = slices.Compact(c.Edges)
	c.Archived = slices.Clone(ws.archived)
	c.NotStored = ws.notStored
	return c
}

// update runs fn in one write transaction, bumps the revision, then applies
// the write set to the in-memory index and publishes the change.
func (v *Vault) update(ctx context.Context, op string, fn func(tx *bolt.Tx, ws *writeSet) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if v.db.ReadOnly() {
		return storage.ErrReadOnly
	}
	v.wmu.Lock()
	ws, err := v.updateLocked(op, fn)
	if err != nil {
		v.wmu.Unlock()
		return err
	}
	v.emb.forget(ws)
	v.wmu.Unlock()
	v.notify(ws.change())
	return nil
}

// updateLocked is update's transaction; the caller holds v.wmu, and applies the write
// set (forget, notify) once the commit succeeded.
func (v *Vault) updateLocked(op string, fn func(tx *bolt.Tx, ws *writeSet) error) (*writeSet, error) {
	var ws *writeSet
	write := func(tx *bolt.Tx) error {
		ws = newWriteSet(op)
		if _, _, _, err := buckets(tx); err != nil {
			return err
		}
		if journalPending(tx) {
			return errJournalPending
		}
		if err := ensureDerived(tx); err != nil {
			return err
		}
		if err := fn(tx, ws); err != nil {
			return err
		}
		rev, err := bumpRevision(tx)
		ws.rev = rev
		return err
	}
	err := v.db.Update(write)
	if errors.Is(err, errJournalPending) {
		if err = v.recoverImport(); err == nil {
			err = v.db.Update(write)
		}
	}
	return ws, err
}

func bumpRevision(tx *bolt.Tx) (uint64, error) {
	b := tx.Bucket(storage.BucketVaultIndex)
	rev := storage.ParseKey(b.Get(revKey)) + 1
	return rev, b.Put(revKey, storage.Key(rev))
}

// Revision returns the vault's change counter: it grows with every committed
// write, so a screen can tell whether its data is stale.
func (v *Vault) Revision(ctx context.Context) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	var rev uint64
	err := v.db.View(func(tx *bolt.Tx) error {
		if b := tx.Bucket(storage.BucketVaultIndex); b != nil {
			rev = storage.ParseKey(b.Get(revKey))
		}
		return nil
	})
	return rev, err
}

// ixBatch collects what a write defers to the end of its transaction: the secondary index
// entries of new records, the full-text changes and the counter deltas. Index entries are
// put in key order: bbolt keeps a leaf's inserts in one growing slice until commit, so many
// inserts in random order into one transaction are quadratic (memmove), while ascending
// inserts append. The full-text index and the counters are written once per transaction,
// term by term and key by key, whatever the number of nodes.
type ixBatch struct {
	groups map[string]*[]uint64 // name 0x00 value 0x00 → ids, in the order added
	n      int
	kbuf   []byte
	fts    textindex.Batch
	cnt    counterDelta
	// ftsSink, when set, receives the full-text changes at flush instead of the index.
	ftsSink *textindex.Batch
	// coreSink, when set, receives the core index entries instead of this batch (see
	// importJournaled: their keys are hashes, so a chunk's entries are spread over the
	// whole core range and every chunk would rewrite all its pages).
	coreSink *coreBatch
	// late, when set, receives the tag and core entries instead of this batch (see
	// lateIndex: a chunked import writes them once, at its first IndexStep).
	late *lateIndex
	// es is putNodeTx's scratch for a node's entries.
	es []ixEntry
}

// ixKey is storage.Index's key layout: name 0x00 value 0x00 id (8 bytes).
func ixKey(ix storage.Index, value string, id uint64) []byte {
	k := make([]byte, 0, len(ix.Name)+len(value)+10)
	k = append(k, ix.Name...)
	k = append(k, 0)
	k = append(k, value...)
	k = append(k, 0)
	return append(k, storage.Key(id)...)
}

// add defers one index entry. Entries are grouped by name and value (a handful of
// types, tags and confidences, one core per statement), so that flush sorts the groups,
// not every entry.
func (b *ixBatch) add(ix storage.Index, value string, id uint64) {
	if b.coreSink != nil && ix.Name == ixCore.Name && b.coreSink.add(value, id) {
		return
	}
	if b.late != nil && b.late.add(ix, value, id) {
		return
	}
	b.kbuf = append(append(append(append(b.kbuf[:0], ix.Name...), 0), value...), 0)
	g := b.groups[string(b.kbuf)]
	if g == nil {
		if b.groups == nil {
			b.groups = map[string]*[]uint64{}
		}
		g = new([]uint64)
		b.groups[string(b.kbuf)] = g
	}
	*g = append(*g, id)
	b.n++
}

func (b *ixBatch) counters() counterDelta {
	if b.cnt == nil {
		b.cnt = counterDelta{}
	}
	return b.cnt
}

// ftsBulk is the batch size from which the full-text buckets are filled densely (see
// appendMostly): a bulk write rewrites most of their pages.
const ftsBulk = 1000

func (b *ixBatch) flush(tx *bolt.Tx) error {
	if b.n > 0 {
		prefixes := make([]string, 0, len(b.groups))
		for p := range b.groups {
			prefixes = append(prefixes, p)
		}
		slices.Sort(prefixes)
		bk := tx.Bucket(storage.BucketVaultIndex)
		if b.n >= ftsBulk {
			appendMostly(bk)
		}
		empty := []byte{}
		for _, p := range prefixes {
			ids := *b.groups[p]
			if !slices.IsSorted(ids) {
				slices.Sort(ids)
			}
			for _, id := range ids {
				b.kbuf = binary.BigEndian.AppendUint64(append(b.kbuf[:0], p...), id)
				if err := bk.Put(b.kbuf, empty); err != nil { // Put copies the key
					return fmt.Errorf("index: %w", err)
				}
			}
		}
		b.groups, b.n = nil, 0
	}
	if b.fts.Len() > 0 && b.ftsSink != nil {
		b.ftsSink.Merge(&b.fts)
		b.fts.Reset()
	}
	if b.fts.Len() > 0 {
		st, err := ftsStore(tx)
		if err != nil {
			return err
		}
		if b.fts.Len() >= ftsBulk {
			appendMostly(st.terms, st.postings)
		}
		if err := ftsEngine().Apply(st, &b.fts); err != nil {
			return fmt.Errorf("full-text index: %w", err)
		}
		b.fts.Reset()
	}
	return b.cnt.flush(tx)
}

// coreBatch collects core index entries (see ixBatch.coreSink) without pointers: an
// import's 100,000 of them, held from its first chunk to its last, are not scanned by every
// garbage collection in between.
type coreBatch struct{ es []coreEntry }

type coreEntry struct {
	sum [coreSumLen]byte // the core's hash, as coreValue writes it in hex
	id  uint64
}

const coreSumLen = 12

// add records the entry of node id for core value v; false if v is not a coreValue.
func (c *coreBatch) add(v string, id uint64) bool {
	var e coreEntry
	if len(v) != 2*coreSumLen {
		return false
	}
	for i := range v {
		if c := v[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false // not lowercase hex: coreValue did not write it
		}
	}
	if _, err := hex.Decode(e.sum[:], []byte(v)); err != nil {
		return false
	}
	e.id = id
	c.es = append(c.es, e)
	return true
}

// flush writes the entries in key order (lowercase hex sorts as its bytes do).
func (c *coreBatch) flush(tx *bolt.Tx) error {
	slices.SortFunc(c.es, func(x, y coreEntry) int {
		return cmp.Or(bytes.Compare(x.sum[:], y.sum[:]), cmp.Compare(x.id, y.id))
	})
	bk := tx.Bucket(storage.BucketVaultIndex)
	if len(c.es) >= ftsBulk {
		appendMostly(bk)
	}
	var key []byte
	for _, e := range c.es {
		key = append(append(key[:0], ixCore.Name...), 0)
		key = hex.AppendEncode(key, e.sum[:])
		key = binary.BigEndian.AppendUint64(append(key, 0), e.id)
		if err := bk.Put(key, []byte{}); err != nil { // Put copies the key
			return fmt.Errorf("index: %w", err)
		}
	}
	c.es = nil
	return nil
}

// batchOf returns the caller's batch, or a fresh one to flush at the end of the call.
func batchOf(batch []*ixBatch) (b *ixBatch, deferred bool) {
	if len(batch) > 0 && batch[0] != nil {
		return batch[0], true
	}
	return &ixBatch{}, false
}

// indexedText returns the fields a stored node is indexed with, reading its body when
// the caller loaded the node without it.
func indexedText(tx *bolt.Tx, n *Node) []textindex.Field {
	c := *n
	if c.HasBody && c.Body == "" {
		c.Body = getBody(tx, c.ID)
	}
	return docFields(&c)
}

// putNodeTx stores n (assigning an id when n.ID is 0) and its index entries; old is the
// stored version being replaced, if any. With batch set, new index entries, the full-text
// change and the counter deltas are collected there (flush before commit); without, they
// are written at once.
func putNodeTx(tx *bolt.Tx, n *Node, old *Node, batch ...*ixBatch) error {
	b, deferred := batchOf(batch)
	nodes := tx.Bucket(storage.BucketVaultNodes)
	appendMostly(nodes, tx.Bucket(storage.BucketVaultBodies))
	if n.ID == 0 {
		id, err := storage.NextID(nodes)
		if err != nil {
			return err
		}
		n.ID = id
	} else if err := storage.RaiseSequence(nodes, n.ID); err != nil {
		return fmt.Errorf("node %d: %w", n.ID, err)
	}
	// The entries of a batch's node go through the batch's scratch slice (add copies them).
	entries := appendNodeEntries(b.es[:0], n)
	defer func() { b.es = entries[:0] }()
	if old != nil {
		// Only the entries that change are written: deleting and putting back an unchanged
		// key still dirties its page and the branch pages above it, and a reinforce (a
		// build task's learning) changes only the confidence entry (rewriting all of them
		// was ~100 of the 125 pages each build task committed at 100k nodes).
		oldEntries := nodeEntries(old)
		same := old.ID == n.ID
		for _, e := range oldEntries {
			if same && slices.ContainsFunc(entries, e.equal) {
				continue
			}
			if err := e.ix.Remove(tx, e.value, old.ID); err != nil {
				return fmt.Errorf("unindex node %d: %w", old.ID, err)
			}
		}
		if same {
			kept := entries[:0:0]
			for _, e := range entries {
				// An entry both versions have stays, unless it is missing (a damaged index
				// is repaired by any write of the node, as before).
				if slices.ContainsFunc(oldEntries, e.equal) && e.present(tx, n.ID) {
					continue
				}
				kept = append(kept, e)
			}
			entries = kept
		}
	}
	for _, e := range entries {
		if deferred {
			b.add(e.ix, e.value, n.ID)
			continue
		}
		if err := e.ix.Add(tx, e.value, n.ID); err != nil {
			return fmt.Errorf("index node %d: %w", n.ID, err)
		}
	}
	b.counters().node(old, n)
	if old == nil {
		b.fts.Put(n.ID, nil, docFields(n))
	} else {
		prev := indexedText(tx, old)
		if cur := docFields(n); !slices.Equal(prev, cur) {
			b.fts.Put(n.ID, prev, cur)
		}
	}
	rec := *n
	rec.Body = ""
	rec.HasBody = n.Body != ""
	raw, err := marshalNodeRecord(&rec)
	if err == nil {
		err = nodes.Put(storage.Key(n.ID), raw)
	}
	if err != nil {
		return fmt.Errorf("store node %d: %w", n.ID, err)
	}
	bodies := tx.Bucket(storage.BucketVaultBodies)
	if n.Body != "" {
		if err := bodies.Put(storage.Key(n.ID), encodeBody(n.Body)); err != nil {
			return fmt.Errorf("store body of node %d: %w", n.ID, err)
		}
	} else if old != nil && old.HasBody {
		if err := bodies.Delete(storage.Key(n.ID)); err != nil {
			return fmt.Errorf("delete body of node %d: %w", n.ID, err)
		}
	}
	if !deferred {
		return b.flush(tx)
	}
	return nil
}

// removeNodeTx deletes a node, its body, its index entries and every edge
// touching it.
func removeNodeTx(tx *bolt.Tx, ws *writeSet, id uint64) error {
	n, err := getNode(tx, id)
	if err != nil {
		return err
	}
	for _, e := range nodeEntries(&n) {
		if err := e.ix.Remove(tx, e.value, id); err != nil {
			return fmt.Errorf("unindex node %d: %w", id, err)
		}
	}
	b := &ixBatch{ftsSink: ws.ftsSink}
	b.counters().node(&n, nil)
	b.fts.Remove(id, indexedText(tx, &n))
	var edgeIDs []uint64
	collect := func(eid uint64) bool { edgeIDs = append(edgeIDs, eid); return true }
	ixFrom.IDs(tx, idValue(id), collect)
	ixTo.IDs(tx, idValue(id), collect)
	slices.Sort(edgeIDs)
	for _, eid := range slices.Compact(edgeIDs) {
		if err := removeEdgeTx(tx, ws, eid); err != nil {
			return err
		}
	}
	if err := tx.Bucket(storage.BucketVaultNodes).Delete(storage.Key(id)); err != nil {
		return fmt.Errorf("delete node %d: %w", id, err)
	}
	if err := tx.Bucket(storage.BucketVaultBodies).Delete(storage.Key(id)); err != nil {
		return fmt.Errorf("delete body of node %d: %w", id, err)
	}
	ws.removeNode(id)
	return b.flush(tx)
}

func putEdgeTx(tx *bolt.Tx, e *Edge, batch ...*ixBatch) error {
	b, deferred := batchOf(batch)
	edges := tx.Bucket(storage.BucketVaultEdges)
	appendMostly(edges)
	if e.ID == 0 {
		id, err := storage.NextID(edges)
		if err != nil {
			return err
		}
		e.ID = id
	} else if err := storage.RaiseSequence(edges, e.ID); err != nil {
		return fmt.Errorf("edge %d: %w", e.ID, err)
	}
	b.counters().edge(e, 1)
	for _, en := range edgeEntries(e) {
		if deferred {
			b.add(en.ix, en.value, e.ID)
			continue
		}
		if err := en.ix.Add(tx, en.value, e.ID); err != nil {
			return fmt.Errorf("index edge %d: %w", e.ID, err)
		}
	}
	raw, err := marshalEdgeRecord(e)
	if err == nil {
		err = edges.Put(storage.Key(e.ID), raw)
	}
	if err != nil {
		return fmt.Errorf("store edge %d: %w", e.ID, err)
	}
	if !deferred {
		return b.flush(tx)
	}
	return nil
}

func removeEdgeTx(tx *bolt.Tx, ws *writeSet, id uint64) error {
	e, err := getEdge(tx, id)
	if err != nil {
		return err
	}
	for _, en := range edgeEntries(&e) {
		if err := en.ix.Remove(tx, en.value, id); err != nil {
			return fmt.Errorf("unindex edge %d: %w", id, err)
		}
	}
	if err := tx.Bucket(storage.BucketVaultEdges).Delete(storage.Key(id)); err != nil {
		return fmt.Errorf("delete edge %d: %w", id, err)
	}
	ws.edges = append(ws.edges, id)
	cnt := counterDelta{}
	cnt.edge(&e, -1)
	return cnt.flush(tx)
}

// findEdge returns the id of an existing from→to edge of relation rel, or 0.
func findEdge(tx *bolt.Tx, from, to uint64, rel Relation) uint64 {
	var found uint64
	ixFrom.IDs(tx, idValue(from), func(eid uint64) bool {
		e, err := getEdge(tx, eid)
		if err == nil && e.To == to && e.Relation == rel {
			found = eid
			return false
		}
		return true
	})
	return found
}

// edgeIDsOf lists the edges leaving (out) or entering (in) a node.
func edgeIDsOf(tx *bolt.Tx, id uint64, out, in bool) []uint64 {
	var ids []uint64
	add := func(eid uint64) bool { ids = append(ids, eid); return true }
	if out {
		ixFrom.IDs(tx, idValue(id), add)
	}
	if in {
		ixTo.IDs(tx, idValue(id), add)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// confRange calls fn with (id, confidence) for nodes whose confidence is at
// least min, highest first when desc, until fn returns false.
func confRange(tx *bolt.Tx, minConf float64, desc bool, fn func(id uint64, conf float64) bool) {
	b := tx.Bucket(storage.BucketVaultIndex)
	if b == nil {
		return
	}
	p := []byte(ixConf.Name + "\x00")
	c := b.Cursor()
	parse := func(k []byte) (uint64, float64, bool) {
		if len(k) != len(p)+8+1+8 || !bytes.HasPrefix(k, p) {
			return 0, 0, false
		}
		return storage.ParseKey(k[len(k)-8:]), parseConfValue(k[len(p) : len(p)+8]), true
	}
	if !desc {
		start := append(slices.Clone(p), confValue(minConf)...)
		for k, _ := c.Seek(start); k != nil && bytes.HasPrefix(k, p); k, _ = c.Next() {
			if id, conf, ok := parse(k); ok && !fn(id, conf) {
				return
			}
		}
		return
	}
	// Descending: seek past the end of the prefix and walk back.
	end := append(slices.Clone(p[:len(p)-1]), 0x01)
	k, _ := c.Seek(end)
	if k == nil {
		k, _ = c.Last()
	} else {
		k, _ = c.Prev()
	}
	for ; k != nil && bytes.HasPrefix(k, p); k, _ = c.Prev() {
		id, conf, ok := parse(k)
		if !ok {
			continue
		}
		if conf < minConf {
			return
		}
		if !fn(id, conf) {
			return
		}
	}
}
