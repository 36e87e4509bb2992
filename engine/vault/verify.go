package vault

import (
	"bytes"
	"context"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/storage"
)

// maxProblems bounds what Verify reports.
const maxProblems = 100

// Verify checks the vault's invariants in one read transaction: every node
// decodes and has exactly its index entries, every index entry points to an
// existing node or edge, every edge joins two existing nodes, and a node
// with HasBody has a body. It returns the problems found (none when
// consistent).
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
		return nil
	})
	return problems, err
}
