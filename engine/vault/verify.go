package vault

import (
	"bytes"
	"context"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/textindex"
	"github.com/nova-dev/nova/storage"
)

// maxProblems bounds what Verify reports.
const maxProblems = 100

// Verify checks the vault's invariants in one read transaction: every node
// decodes and has exactly its index entries, every index entry points to an
// existing node or edge, every edge joins two existing nodes, a node with
// HasBody has a body, the counters match the buckets, and the full-text
// index holds exactly the postings of the nodes' text. It returns the
// problems found (none when consistent).
func (v *Vault) Verify(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var problems []string
	report := func(format string, a ...any) {
		if len(problems) < maxProblems {
			problems = append(problems, fmt.Sprintf(format, a...))
		}
	}
	err := v.db.View(func(tx *bolt.Tx) error {
		nodes, edges, bodies, err := buckets(tx)
		if err != nil {
			return err
		}
		want := map[string]bool{}
		c := nodes.Cursor()
		for k, val := c.First(); k != nil; k, val = c.Next() {
			id := storage.ParseKey(k)
			n, err := nodeCodec.Unmarshal(val)
			if err != nil {
				report("node %d: %v", id, err)
				continue
			}
			n.ID = id
			for _, e := range nodeEntries(&n) {
				want[string(ixKey(e.ix, e.value, id))] = true
			}
			if n.HasBody && bodies.Get(k) == nil {
				report("node %d: body missing", id)
			}
		}
		c = edges.Cursor()
		for k, val := c.First(); k != nil; k, val = c.Next() {
			id := storage.ParseKey(k)
			e, err := edgeCodec.Unmarshal(val)
			if err != nil {
				report("edge %d: %v", id, err)
				continue
			}
			e.ID = id
			for _, end := range []uint64{e.From, e.To} {
				if nodes.Get(storage.Key(end)) == nil {
					report("edge %d: node %d does not exist", id, end)
				}
			}
			for _, en := range edgeEntries(&e) {
				want[string(ixKey(en.ix, en.value, id))] = true
			}
		}
		c = bodies.Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			if nodes.Get(k) == nil {
				report("body %d: node does not exist", storage.ParseKey(k))
			}
		}
		ix := tx.Bucket(storage.BucketVaultIndex).Cursor()
		for k, _ := ix.First(); k != nil; k, _ = ix.Next() {
			if bytes.IndexByte(k, 0) < 0 {
				continue // counters such as ~rev
			}
			if !want[string(k)] {
				report("index entry %q points to nothing", k)
			}
			delete(want, string(k))
		}
		for k := range want {
			report("index entry %q is missing", k)
		}
		verifyDerived(tx, report)
		return nil
	})
	return problems, err
}

// verifyDerived compares the counters and the full-text index with what the nodes and
// edges say (both are only checked once built).
func verifyDerived(tx *bolt.Tx, report func(format string, a ...any)) {
	if journalPending(tx) {
		report("an import did not finish: the next write rolls it back")
	}
	if b := tx.Bucket(storage.BucketVaultCounts); b != nil && b.Get(cntOK) != nil {
		want, err := walkCounts(tx)
		if err != nil {
			report("counters: %v", err)
			return
		}
		got, _ := counts(tx)
		keys := map[string]bool{}
		for k, n := range want {
			if n != 0 {
				keys[k] = true
			}
		}
		for k := range got {
			keys[k] = true
		}
		for k := range keys {
			if got[k] != want[k] {
				report("counter %q is %d, want %d", k, got[k], want[k])
			}
		}
	}
	st, err := ftsStore(tx)
	if err != nil {
		report("full-text index: %v", err)
		return
	}
	eng := ftsEngine()
	if _, err := eng.Stats(st); err != nil {
		return // not built yet: the next write builds it
	}
	b, err := nodesBatch(tx)
	if err != nil {
		report("full-text index: %v", err)
		return
	}
	fresh := &textindex.MemStore{}
	err = eng.Init(fresh)
	if err == nil {
		err = eng.Apply(fresh, b)
	}
	if err != nil {
		report("full-text index: %v", err)
		return
	}
	for _, p := range eng.Compare(st, fresh, maxProblems) {
		report("full-text index: %s", p)
	}
}
