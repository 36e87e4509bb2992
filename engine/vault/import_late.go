package vault

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/storage"
)

// lateIndex holds the tag and core index entries of the nodes a chunked import (ImportSteps)
// adds, from its first Step to its first IndexStep, which writes them all in key order.
//
// Why: the ids of a chunk come after every stored id, so most index entries of a chunk
// append at the end of their value's range; but an import of 10,000 files has ~2,700
// distinct tags and a core (a hash) per node, so each chunk's tag and core entries land in
// nearly every leaf of those ranges, and every chunk rewrote them all (materialising each
// leaf's keys in bbolt: ~45 MB of allocation per import, and its pages written again per
// chunk). Written once, each leaf is rewritten once.
//
// The entries are kept without pointers (one byte arena), so the garbage collector does not
// scan them between chunks. Until they are written, the import's nodes are not found by tag
// (nor by text: the full-text index follows the same rule); a node the import added and a
// later transaction of it replaces or removes has its entries written first (ImportTx.late).
type lateIndex struct {
	arena []byte      // name 0x00 value 0x00 of every entry, one after the other
	es    []lateEntry // in the order added
	minID uint64      // the smallest node id with an entry here (0: none)
}

type lateEntry struct {
	off, n uint32 // the entry's prefix in arena
	id     uint64
}

// lateIndexed says whether an entry of index ix waits for the first IndexStep.
func lateIndexed(ix storage.Index) bool {
	return ix.Name == ixTag.Name || ix.Name == ixCore.Name
}

// add keeps the entry of node id under value of ix; false when ix is not one to keep.
func (l *lateIndex) add(ix storage.Index, value string, id uint64) bool {
	if !lateIndexed(ix) || len(l.arena)+len(ix.Name)+len(value)+2 > 1<<32-1 {
		return false
	}
	off := len(l.arena)
	l.arena = append(append(append(append(l.arena, ix.Name...), 0), value...), 0)
	l.es = append(l.es, lateEntry{off: uint32(off), n: uint32(len(l.arena) - off), id: id})
	if l.minID == 0 || id < l.minID {
		l.minID = id
	}
	return true
}

// holds says whether node id may have entries here.
func (l *lateIndex) holds(id uint64) bool { return l.minID != 0 && id >= l.minID }

func (l *lateIndex) prefix(e lateEntry) []byte { return l.arena[e.off : e.off+e.n] }

// flush writes the entries in key order (prefix, then the big-endian id) and forgets them.
func (l *lateIndex) flush(tx *bolt.Tx) error {
	if len(l.es) == 0 {
		return nil
	}
	slices.SortFunc(l.es, func(x, y lateEntry) int {
		return cmp.Or(bytes.Compare(l.prefix(x), l.prefix(y)), cmp.Compare(x.id, y.id))
	})
	bk := tx.Bucket(storage.BucketVaultIndex)
	if bk == nil {
		return fmt.Errorf("vault index bucket missing: %w", storage.ErrCorrupt)
	}
	if len(l.es) >= ftsBulk {
		appendMostly(bk)
	}
	var key []byte
	empty := []byte{}
	for _, e := range l.es {
		key = binary.BigEndian.AppendUint64(append(key[:0], l.prefix(e)...), e.id)
		if err := bk.Put(key, empty); err != nil { // Put copies the key
			return fmt.Errorf("index: %w", err)
		}
	}
	return nil
}

// reset forgets the entries (once written and committed).
func (l *lateIndex) reset() { *l = lateIndex{} }
