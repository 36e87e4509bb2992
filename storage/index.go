package storage

import (
	"bytes"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Index is a secondary index stored in a shared index bucket. Entries are
// keys of the form name 0x00 value 0x00 id(8 bytes big-endian) with empty
// values, so a prefix scan lists the ids for one value in id order.
type Index struct {
	Bucket []byte
	Name   string
}

func (ix Index) prefix(value string) []byte {
	p := make([]byte, 0, len(ix.Name)+len(value)+2)
	p = append(p, ix.Name...)
	p = append(p, 0)
	p = append(p, value...)
	return append(p, 0)
}

func (ix Index) key(value string, id uint64) []byte {
	return append(ix.prefix(value), Key(id)...)
}

// Add records id under value.
func (ix Index) Add(tx *bolt.Tx, value string, id uint64) error {
	b := tx.Bucket(ix.Bucket)
	if b == nil {
		return berrors.ErrBucketNotFound
	}
	return b.Put(ix.key(value, id), []byte{})
}

// Remove deletes the entry for id under value.
func (ix Index) Remove(tx *bolt.Tx, value string, id uint64) error {
	b := tx.Bucket(ix.Bucket)
	if b == nil {
		return nil
	}
	return b.Delete(ix.key(value, id))
}

// IDs lists the ids recorded under value, ascending. fn may stop the scan by
// returning false.
func (ix Index) IDs(tx *bolt.Tx, value string, fn func(id uint64) bool) {
	b := tx.Bucket(ix.Bucket)
	if b == nil {
		return
	}
	p := ix.prefix(value)
	c := b.Cursor()
	for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, _ = c.Next() {
		if len(k) != len(p)+8 {
			continue
		}
		if !fn(ParseKey(k[len(p):])) {
			return
		}
	}
}

// Values lists the distinct values of the index with their entry counts.
func (ix Index) Values(tx *bolt.Tx) map[string]int {
	out := map[string]int{}
	b := tx.Bucket(ix.Bucket)
	if b == nil {
		return out
	}
	p := append([]byte(ix.Name), 0)
	c := b.Cursor()
	for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, _ = c.Next() {
		rest := k[len(p):]
		if len(rest) < 9 {
			continue
		}
		out[string(rest[:len(rest)-9])]++
	}
	return out
}
