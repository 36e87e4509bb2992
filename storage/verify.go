package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"

	bolt "go.etcd.io/bbolt"
)

// fileLength checks that the file holds every page its meta page claims:
// a truncated file makes bbolt read past the end of its memory map, which
// faults. It reads the two meta pages with plain reads (never the map) and
// trusts only those whose checksum holds; the newest one wins, as in bbolt.
func fileLength(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return nil // Open reports it
	}
	defer func() { _ = f.Close() }()
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return nil
	}
	var best struct {
		ok               bool
		txid, pgid, size uint64
	}
	head := make([]byte, 16+64)
	for _, off := range []int64{0, -1} {
		if off < 0 {
			if !best.ok {
				// The second meta page sits one page in; the page size is in
				// the first one, or the OS page size when that is damaged.
				off = int64(os.Getpagesize())
			} else {
				off = int64(best.size)
			}
		}
		if _, err := f.ReadAt(head, off); err != nil && !errors.Is(err, io.EOF) {
			continue
		}
		m := head[16:]
		if binary.LittleEndian.Uint32(m[0:]) != 0xED0CDAED {
			continue
		}
		h := fnv.New64a()
		_, _ = h.Write(m[:56])
		if h.Sum64() != binary.LittleEndian.Uint64(m[56:]) {
			continue
		}
		txid := binary.LittleEndian.Uint64(m[48:])
		if !best.ok || txid > best.txid {
			best.ok, best.txid = true, txid
			best.pgid = binary.LittleEndian.Uint64(m[40:])
			best.size = uint64(binary.LittleEndian.Uint32(m[8:]))
		}
	}
	if !best.ok || best.size == 0 {
		return nil // bbolt's own meta checks report it
	}
	if want := best.pgid * best.size; uint64(st.Size()) < want {
		return fmt.Errorf("%w: the file is %d bytes but its pages need %d (it was cut short)", ErrCorrupt, st.Size(), want)
	}
	return nil
}

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

// verify is the structural check a writable Open runs: the file length,
// then a guarded walk of every page.
func (db *DB) verify() error {
	if err := fileLength(db.path); err != nil {
		db.damaged.Store(true)
		return err
	}
	return db.View(walk)
}
