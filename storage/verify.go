package storage

import (
	"bytes"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// walk reads every bucket, key and value once, in the calling goroutine
// (so that, under guarded, a memory fault or a bad page becomes an error),
// and checks that keys are in order. bbolt's own Check runs on a goroutine
// of its own, where a fault would kill the process, so it only runs after
// walk has touched every page it will read.
func walk(tx *bolt.Tx) error {
	return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
		return walkBucket(b, string(name))
	})
}

func walkBucket(b *bolt.Bucket, path string) error {
	c := b.Cursor()
	var prev []byte
	var sink byte
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if prev != nil && bytes.Compare(prev, k) >= 0 {
			return fmt.Errorf("%w: bucket %s: keys out of order after %x", ErrCorrupt, path, prev)
		}
		prev = k
		sink ^= k[len(k)-1]
		if v == nil {
			sub := b.Bucket(k)
			if sub == nil {
				return fmt.Errorf("%w: bucket %s: key %x has no value", ErrCorrupt, path, k)
			}
			if err := walkBucket(sub, path+"/"+string(k)); err != nil {
				return err
			}
			continue
		}
		if len(v) > 0 {
			sink ^= v[0] ^ v[len(v)-1] // touch both ends: a bad offset faults here
		}
	}
	_ = sink
	return nil
}
