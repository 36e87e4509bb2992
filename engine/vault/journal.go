package vault

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/textindex"
	"github.com/nova-dev/nova/storage"
)

// importChunk is the most records a JSONL import writes in one transaction: one
// transaction holds in memory everything it writes (twice, at commit), so a 100k-node
// import in one transaction needed about 600 MB.
const importChunk = 10_000

// The import journal (bucket vault_journal) makes a multi-transaction import whole or
// nothing. Keys:
//
//	"~import"     present while an import is under way: JSON {"startedAt", "phase"}
//	'n' id (8)    a node id that existed before the import: its record
//	'b' id (8)    that node's body, when it had one
//	'e' id (8)    an edge id that existed before the import: its record
//	'N'/'E' seq   node/edge ids that did not exist, one list per transaction
//	              (uvarint deltas): 100,000 new nodes are a few keys, not 100,000
//
// A large import has two phases. "records": each chunk's transaction writes its nodes and
// edges (with their secondary index entries and counters, except the core entries) and its
// journal entries, while the full-text changes and the core entries are only collected;
// one more transaction then writes the core entries in key order. "index": the collected changes are applied to
// the full-text index range of terms by range of terms, each range in one transaction, so
// every page of the index is written once (chunk transactions would each rewrite most of
// it: a chunk's terms are spread over the whole dictionary). The last transaction writes
// the index record and empties the journal. Rolling back restores every id journaled to
// what it held (removing it when it held nothing), edges first, without touching the
// full-text index; if the "index" phase had begun, the index is dropped and the next write
// rebuilds it from the nodes.
var journalMarker = []byte("~import")

type journalHeader struct {
	StartedAt time.Time `json:"startedAt"`
	Phase     string    `json:"phase"` // "records", then "index"
}

// ftsStepPostings bounds the postings one transaction of the "index" phase writes.
const ftsStepPostings = 400_000

var journalCodec = storage.Codec[journalHeader]{Version: 1}

func journalKey(kind byte, id uint64) []byte {
	return append([]byte{kind}, storage.Key(id)...)
}

// journalIDs collects one transaction's journal entries for ids that did not exist.
type journalIDs struct{ nodes, edges []uint64 }

// node records what node id held before the import.
func (f *journalIDs) node(tx *bolt.Tx, j *bolt.Bucket, id uint64, old *Node) error {
	if old == nil {
		f.nodes = append(f.nodes, id)
		return nil
	}
	raw := tx.Bucket(storage.BucketVaultNodes).Get(storage.Key(id))
	if err := j.Put(journalKey('n', id), append([]byte(nil), raw...)); err != nil {
		return err
	}
	if body := tx.Bucket(storage.BucketVaultBodies).Get(storage.Key(id)); body != nil {
		return j.Put(journalKey('b', id), append([]byte(nil), body...))
	}
	return nil
}

// edge records what edge id held before the import.
func (f *journalIDs) edge(j *bolt.Bucket, id uint64, old *Edge) error {
	if old == nil {
		f.edges = append(f.edges, id)
		return nil
	}
	raw, err := edgeCodec.Marshal(*old)
	if err != nil {
		return err
	}
	return j.Put(journalKey('e', id), raw)
}

// flush writes the lists of new ids.
func (f *journalIDs) flush(j *bolt.Bucket) error {
	for _, l := range []struct {
		kind byte
		ids  []uint64
	}{{'N', f.nodes}, {'E', f.edges}} {
		if len(l.ids) == 0 {
			continue
		}
		seq, err := j.NextSequence()
		if err != nil {
			return err
		}
		if err := j.Put(journalKey(l.kind, seq), packIDs(l.ids)); err != nil {
			return err
		}
	}
	return nil
}

func packIDs(ids []uint64) []byte {
	sorted := slices.Sorted(slices.Values(ids))
	b := make([]byte, 0, 2*len(ids))
	prev := uint64(0)
	for _, id := range sorted {
		b = binary.AppendUvarint(b, id-prev)
		prev = id
	}
	return b
}

func unpackIDs(b []byte) ([]uint64, error) {
	var ids []uint64
	prev := uint64(0)
	for len(b) > 0 {
		d, n := binary.Uvarint(b)
		if n <= 0 {
			return nil, fmt.Errorf("import journal: bad id list: %w", storage.ErrCorrupt)
		}
		prev += d
		ids = append(ids, prev)
		b = b[n:]
	}
	return ids, nil
}

// chunk returns the records per import transaction.
func (v *Vault) chunk() int {
	if v.importChunk > 0 {
		return v.importChunk
	}
	return importChunk
}

// importJournaled writes a large dump in transactions of v.chunk() records under the
// journal (see importChunk). Nothing else writes meanwhile: it holds the write lock.
func (v *Vault) importJournaled(ctx context.Context, src *importSource) (rep ImportReport, err error) {
	v.wmu.Lock()
	ws := newWriteSet("import")
	ws.ftsSink = &textindex.Batch{}
	ws.coreSink = &coreBatch{}
	defer func() {
		v.emb.forget(ws)
		v.wmu.Unlock()
		v.notify(ws.change())
	}()
	if err := v.recoverImport(); err != nil {
		return ImportReport{}, err
	}
	step := func(fn func(tx *bolt.Tx, j *bolt.Bucket) error) error {
		return v.db.Update(func(tx *bolt.Tx) error {
			if err := ensureDerived(tx); err != nil {
				return err
			}
			j := tx.Bucket(storage.BucketVaultJournal)
			if j == nil {
				return fmt.Errorf("import journal missing: %w", storage.ErrCorrupt)
			}
			if err := fn(tx, j); err != nil {
				return err
			}
			rev, err := bumpRevision(tx)
			ws.rev = rev
			return err
		})
	}
	mark := func(j *bolt.Bucket, phase string) error {
		raw, err := journalCodec.Marshal(journalHeader{StartedAt: v.now(), Phase: phase})
		if err != nil {
			return err
		}
		return j.Put(journalMarker, raw)
	}
	rollback := func(cause error) (ImportReport, error) {
		if rerr := v.rollbackImport(ws); rerr != nil {
			return ImportReport{}, errors.Join(cause, fmt.Errorf("roll back the import: %w (the next write retries)", rerr))
		}
		return ImportReport{}, cause
	}
	if err := step(func(_ *bolt.Tx, j *bolt.Bucket) error { return mark(j, "records") }); err != nil {
		return ImportReport{}, err
	}
	size := v.chunk()
	chunk := 0
	hook := func() error {
		if v.chunkHook == nil {
			return nil
		}
		err := v.chunkHook(chunk)
		chunk++
		return err
	}
	plan := ftsEngine().NewPlan()
	write := func(cn []Node, ce []Edge) error {
		err := step(func(tx *bolt.Tx, j *bolt.Bucket) error {
			return importRecords(ctx, tx, ws, cn, ce, &rep, j)
		})
		if err == nil {
			// Analysed now, so that the chunk's text can go with its records.
			err = plan.Add(ws.ftsSink)
			ws.ftsSink = &textindex.Batch{}
		}
		if err == nil {
			err = hook()
		}
		v.db.ReleaseMapped()
		return err
	}
	for {
		if err := ctx.Err(); err != nil {
			return rollback(err)
		}
		cn, err := src.nodes(size)
		if err == nil && len(cn) == 0 {
			break
		}
		if err == nil {
			err = src.capError(v.opts.Tier, cn)
		}
		if err == nil {
			err = write(cn, nil)
		}
		if errors.Is(err, errSimulatedCrash) {
			return ImportReport{}, err // as if the process died here: no roll back
		}
		if err != nil {
			return rollback(err)
		}
	}
	edges, err := src.allEdges()
	if err != nil {
		return rollback(err)
	}
	for len(edges) > 0 {
		if err := ctx.Err(); err != nil {
			return rollback(err)
		}
		ce := edges[:min(size, len(edges))]
		err := write(nil, ce)
		if errors.Is(err, errSimulatedCrash) {
			return ImportReport{}, err
		}
		if err != nil {
			return rollback(err)
		}
		edges = edges[len(ce):]
	}
	// The core index entries, in key order in one transaction: written chunk by chunk,
	// their hashed keys made every chunk rewrite the whole core range (a third of the
	// pages an import wrote).
	if len(ws.coreSink.es) > 0 {
		if err := ctx.Err(); err != nil {
			return rollback(err)
		}
		err := step(func(tx *bolt.Tx, _ *bolt.Bucket) error { return ws.coreSink.flush(tx) })
		v.db.ReleaseMapped()
		if err == nil {
			err = hook()
		}
		if errors.Is(err, errSimulatedCrash) {
			return ImportReport{}, err
		}
		if err != nil {
			return rollback(err)
		}
	}
	ws.coreSink = nil
	// The full-text index, range of terms by range of terms; the last step empties the
	// journal in its transaction.
	for done := false; !done; {
		if err := ctx.Err(); err != nil {
			return rollback(err)
		}
		err := step(func(tx *bolt.Tx, j *bolt.Bucket) error {
			st, err := ftsStore(tx)
			if err != nil {
				return err
			}
			appendMostly(st.terms, st.postings)
			if err := mark(j, "index"); err != nil {
				return err
			}
			if done, err = plan.Step(st, ftsStepPostings*max(size, 1)/importChunk); err != nil {
				return fmt.Errorf("full-text index: %w", err)
			}
			if done {
				return clearBucket(j)
			}
			return nil
		})
		v.db.ReleaseMapped()
		if err == nil && !done {
			err = hook()
		}
		if errors.Is(err, errSimulatedCrash) {
			return ImportReport{}, err
		}
		if err != nil {
			done = false
			return rollback(err)
		}
	}
	return rep, nil
}

// errSimulatedCrash, returned by a test's chunk hook, stops an import without rolling it
// back, as a killed process would.
var errSimulatedCrash = errors.New("simulated crash")

func clearBucket(b *bolt.Bucket) error {
	var keys [][]byte
	c := b.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		keys = append(keys, append([]byte(nil), k...))
	}
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// errJournalPending stops a write transaction that finds an import journal: the caller
// rolls the import back and retries.
var errJournalPending = errors.New("an interrupted import is pending roll back")

// journalPending reports whether an import left its journal (a process killed during a
// large import).
func journalPending(tx *bolt.Tx) bool {
	j := tx.Bucket(storage.BucketVaultJournal)
	return j != nil && j.Get(journalMarker) != nil
}

// recoverImport rolls back an import that a killed process left half done. It runs
// before a write when the journal is pending; callers hold v.wmu.
func (v *Vault) recoverImport() error {
	pending := false
	if err := v.db.View(func(tx *bolt.Tx) error { pending = journalPending(tx); return nil }); err != nil {
		return err
	}
	if !pending {
		return nil
	}
	slog.Warn("vault: rolling back an import that did not finish (the process was stopped during it)")
	ws := newWriteSet("import")
	err := v.rollbackImport(ws)
	v.emb.forget(ws)
	v.notify(ws.change())
	return err
}

// rollbackImport restores every journaled id to what it held before the import, in
// transactions of v.chunk() entries, edges first, then empties the journal. The full-text
// index is left alone: the import had not touched it yet, or, if its "index" phase had
// begun, it is dropped at the end and the next write rebuilds it.
func (v *Vault) rollbackImport(ws *writeSet) error {
	ws.ftsSink = &textindex.Batch{} // discarded
	size := v.chunk()
	for _, kind := range []byte{'E', 'e', 'N', 'n'} {
		for {
			done := false
			err := v.db.Update(func(tx *bolt.Tx) error {
				j := tx.Bucket(storage.BucketVaultJournal)
				if j == nil {
					return fmt.Errorf("import journal missing: %w", storage.ErrCorrupt)
				}
				type entry struct {
					key, val []byte
				}
				var batch []entry
				c := j.Cursor()
				for k, val := c.Seek([]byte{kind}); k != nil && k[0] == kind && len(batch) < size; k, val = c.Next() {
					if len(k) == 9 {
						batch = append(batch, entry{append([]byte(nil), k...), append([]byte(nil), val...)})
					}
					if kind == 'N' || kind == 'E' {
						break // a list is a transaction's worth
					}
				}
				done = len(batch) == 0 || (kind != 'N' && kind != 'E' && len(batch) < size)
				for _, en := range batch {
					id := storage.ParseKey(en.key[1:])
					var err error
					switch kind {
					case 'E', 'N':
						var ids []uint64
						if ids, err = unpackIDs(en.val); err != nil {
							return err
						}
						for _, id := range ids {
							if kind == 'E' {
								err = restoreEdge(tx, ws, id, nil)
							} else {
								err = restoreNode(tx, j, ws, id, nil)
							}
							if err != nil {
								return err
							}
						}
					case 'e':
						err = restoreEdge(tx, ws, id, en.val)
					default:
						err = restoreNode(tx, j, ws, id, en.val)
					}
					if err != nil {
						return err
					}
					if err := j.Delete(en.key); err != nil {
						return err
					}
				}
				rev, err := bumpRevision(tx)
				ws.rev = rev
				return err
			})
			if err != nil {
				return err
			}
			if done {
				break
			}
		}
	}
	return v.db.Update(func(tx *bolt.Tx) error {
		j := tx.Bucket(storage.BucketVaultJournal)
		if j == nil {
			return nil
		}
		h, _ := journalCodec.Unmarshal(j.Get(journalMarker))
		if h.Phase == "index" {
			if err := tx.Bucket(storage.BucketVaultTerms).Delete(textindex.MetaKey()); err != nil {
				return err
			}
		}
		return clearBucket(j)
	})
}

// restoreEdge puts back what edge id held before the import (nothing when old is empty).
func restoreEdge(tx *bolt.Tx, ws *writeSet, id uint64, old []byte) error {
	if _, err := getEdge(tx, id); err == nil {
		if err := removeEdgeTx(tx, ws, id); err != nil {
			return err
		}
	}
	if len(old) == 0 {
		return nil
	}
	e, err := edgeCodec.Unmarshal(old)
	if err != nil {
		return fmt.Errorf("import journal: edge %d: %w", id, err)
	}
	e.ID = id
	ws.edges = append(ws.edges, id)
	return putEdgeTx(tx, &e)
}

// restoreNode puts back what node id held before the import (nothing when old is empty).
func restoreNode(tx *bolt.Tx, j *bolt.Bucket, ws *writeSet, id uint64, old []byte) error {
	cur, err := getNode(tx, id)
	exists := err == nil
	if len(old) == 0 {
		if !exists {
			return nil
		}
		return removeNodeTx(tx, ws, id)
	}
	n, err := nodeCodec.Unmarshal(old)
	if err != nil {
		return fmt.Errorf("import journal: node %d: %w", id, err)
	}
	n.ID = id
	if n.Tags == nil {
		n.Tags = []string{}
	}
	if n.HasBody {
		n.Body = decodeBody(j.Get(journalKey('b', id)))
		if err := j.Delete(journalKey('b', id)); err != nil {
			return err
		}
	}
	var prev *Node
	if exists {
		prev = &cur
	}
	ws.putNode(&n, true)
	b := &ixBatch{ftsSink: ws.ftsSink}
	if err := putNodeTx(tx, &n, prev, b); err != nil {
		return err
	}
	return b.flush(tx)
}
