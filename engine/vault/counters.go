package vault

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/storage"
)

// Counters (bucket vault_counts) answer Stats, Tags and the Home screen's counts without
// walking a bucket: every write transaction adds its deltas to them. Keys:
//
//	"nodes", "edges"        node and edge counts
//	"conf"                  sum of the nodes' confidences, in millionths
//	"tags"                  number of distinct tags
//	"type" 0x00 T           nodes of type T
//	"tag" 0x00 t            nodes carrying tag t
//	"erel" 0x00 R           edges of relation R
//	"~ok"                   present once the counters are complete (see ensureCounters)
//
// Values are 8-byte big-endian two's-complement integers; a count that reaches 0 is deleted.
var (
	cntNodes = "nodes"
	cntEdges = "edges"
	cntConf  = "conf"
	cntTags  = "tags"
	cntOK    = []byte("~ok")
)

func cntKey(name, value string) string { return name + "\x00" + value }

// confUnits converts a confidence to the integer units of the "conf" counter.
func confUnits(c float64) int64 { return int64(math.Round(clamp01(c) * 1e6)) }

// counterDelta accumulates one transaction's counter changes.
type counterDelta map[string]int64

func (d counterDelta) add(k string, n int64) { d[k] += n }

// node records a node's replacement: old (nil for a new node) by n (nil for a removal).
func (d counterDelta) node(old, n *Node) {
	d.count(old, -1)
	d.count(n, 1)
}

func (d counterDelta) count(x *Node, sign int64) {
	if x == nil {
		return
	}
	d.add(cntNodes, sign)
	d.add(cntConf, sign*confUnits(x.Confidence))
	d.add(cntKey(ixType.Name, string(x.Type)), sign)
	for _, t := range x.Tags {
		d.add(cntKey(ixTag.Name, t), sign)
	}
}

// edge records an edge added (sign 1) or removed (-1).
func (d counterDelta) edge(e *Edge, sign int64) {
	d.add(cntEdges, sign)
	d.add(cntKey(ixRel.Name, string(e.Relation)), sign)
}

func readCount(b *bolt.Bucket, k []byte) int64 {
	v := b.Get(k)
	if len(v) != 8 {
		return 0
	}
	return int64(binary.BigEndian.Uint64(v))
}

func putCount(b *bolt.Bucket, k []byte, n int64) error {
	if n == 0 {
		return b.Delete(k)
	}
	return b.Put(k, binary.BigEndian.AppendUint64(make([]byte, 0, 8), uint64(n)))
}

// flush adds the deltas to the stored counters, in key order.
func (d counterDelta) flush(tx *bolt.Tx) error {
	if len(d) == 0 {
		return nil
	}
	b := tx.Bucket(storage.BucketVaultCounts)
	if b == nil {
		return fmt.Errorf("vault counters missing: %w", storage.ErrCorrupt)
	}
	keys := make([]string, 0, len(d))
	for k, n := range d {
		if n != 0 {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	tagPrefix := cntKey(ixTag.Name, "")
	distinct := int64(0)
	for _, k := range keys {
		before := readCount(b, []byte(k))
		after := before + d[k]
		if len(k) > len(tagPrefix) && k[:len(tagPrefix)] == tagPrefix {
			switch {
			case before <= 0 && after > 0:
				distinct++
			case before > 0 && after <= 0:
				distinct--
			}
		}
		if err := putCount(b, []byte(k), after); err != nil {
			return fmt.Errorf("vault counters: %w", err)
		}
	}
	if distinct != 0 {
		if err := putCount(b, []byte(cntTags), readCount(b, []byte(cntTags))+distinct); err != nil {
			return fmt.Errorf("vault counters: %w", err)
		}
	}
	clear(d)
	return nil
}

// ensureCounters computes the counters from the buckets and indexes when they are not
// complete (a database written before they existed). It walks every node once.
func ensureCounters(tx *bolt.Tx) error {
	b := tx.Bucket(storage.BucketVaultCounts)
	if b == nil {
		return fmt.Errorf("vault counters missing: %w", storage.ErrCorrupt)
	}
	if b.Get(cntOK) != nil {
		return nil
	}
	c, err := walkCounts(tx)
	if err != nil {
		return err
	}
	for k, n := range c {
		if err := putCount(b, []byte(k), n); err != nil {
			return fmt.Errorf("vault counters: %w", err)
		}
	}
	return b.Put(cntOK, []byte{1})
}

// walkCounts computes every counter by walking the buckets and indexes: what Stats did
// before the counters existed, and what a test compares them with.
func walkCounts(tx *bolt.Tx) (map[string]int64, error) {
	nodes, edges, _, err := buckets(tx)
	if err != nil {
		return nil, err
	}
	c := map[string]int64{}
	c[cntNodes] = int64(nodes.Stats().KeyN)
	c[cntEdges] = int64(edges.Stats().KeyN)
	for _, ix := range []struct {
		name string
		vals map[string]int
	}{{ixType.Name, ixType.Values(tx)}, {ixTag.Name, ixTag.Values(tx)}, {ixRel.Name, ixRel.Values(tx)}} {
		for v, n := range ix.vals {
			c[cntKey(ix.name, v)] = int64(n)
		}
		if ix.name == ixTag.Name {
			c[cntTags] = int64(len(ix.vals))
		}
	}
	var sum int64
	confRange(tx, 0, false, func(_ uint64, conf float64) bool {
		sum += confUnits(conf)
		return true
	})
	c[cntConf] = sum
	return c, nil
}

// counts reads the counters, or walks the buckets when they are not complete yet (a
// read-only handle on a database no write has upgraded).
func counts(tx *bolt.Tx) (map[string]int64, error) {
	b := tx.Bucket(storage.BucketVaultCounts)
	if b == nil || b.Get(cntOK) == nil {
		return walkCounts(tx)
	}
	c := map[string]int64{}
	cur := b.Cursor()
	for k, v := cur.First(); k != nil; k, v = cur.Next() {
		if len(v) == 8 && !bytes.Equal(k, cntOK) {
			c[string(k)] = int64(binary.BigEndian.Uint64(v))
		}
	}
	return c, nil
}

// NodeCounts returns the node and edge counts of the vault in db from its counters (a
// few reads, whatever the vault's size): what the Home screen shows.
func NodeCounts(db *storage.DB) (nodes, edges int, err error) {
	err = db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketVaultCounts)
		if b == nil || b.Get(cntOK) == nil {
			if n, e := tx.Bucket(storage.BucketVaultNodes), tx.Bucket(storage.BucketVaultEdges); n != nil && e != nil {
				nodes, edges = n.Stats().KeyN, e.Stats().KeyN
			}
			return nil
		}
		nodes, edges = int(readCount(b, []byte(cntNodes))), int(readCount(b, []byte(cntEdges)))
		return nil
	})
	return nodes, edges, err
}

// nodeCount returns the number of nodes: the counter, or a walk of the bucket while the
// counters are not complete.
func nodeCount(tx *bolt.Tx) int {
	if b := tx.Bucket(storage.BucketVaultCounts); b != nil && b.Get(cntOK) != nil {
		return int(readCount(b, []byte(cntNodes)))
	}
	if b := tx.Bucket(storage.BucketVaultNodes); b != nil {
		return b.Stats().KeyN
	}
	return 0
}
