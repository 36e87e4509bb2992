package storage

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	bolt "go.etcd.io/bbolt"
)

// RecoverReport says what Recover copied and what it lost.
type RecoverReport struct {
	Source string `json:"source"`
	Target string `json:"target"`
	// Buckets has one entry per bucket of the source that could be listed,
	// plus one per registered bucket that could not be found.
	Buckets []BucketRecovery `json:"buckets"`
	// Copied is the number of records written to Target.
	Copied int `json:"copied"`
	// Lost is the number of records known to be lost; when a bucket's
	// expected count is unknown, more may be lost (see Complete).
	Lost int `json:"lost"`
	// Complete is true when every record of every bucket was copied.
	Complete bool `json:"complete"`
	// SchemaAssumed is set when the schema version was unreadable and the
	// target was stamped with this binary's schema.
	SchemaAssumed bool `json:"schemaAssumed,omitempty"`
}

// BucketRecovery is one bucket's part of a RecoverReport.
type BucketRecovery struct {
	Name   string `json:"name"`
	Copied int    `json:"copied"`
	// Expected is the record count the bucket's pages claim, -1 when those
	// pages cannot be read.
	Expected int `json:"expected"`
	// Lost is Expected - Copied, or -1 when Expected is unknown.
	Lost int `json:"lost"`
	// Problems lists what could not be read (damaged pages, skipped ranges).
	Problems []string `json:"problems,omitempty"`
}

// maxSkips bounds how often Recover jumps over a damaged page in one
// bucket before it gives the rest of the bucket up.
const maxSkips = 256

// Recover copies every readable bucket and record of the database at src
// (damaged, or simply refused by Open) into a new database at dst, and
// reports per bucket what it copied and what it lost. src is opened
// read-only and never written; dst must not exist (ErrExists) and is
// written to a temporary file first, so a failed Recover leaves nothing
// behind. Memory faults and bbolt panics on damaged pages are recovered:
// Recover skips past a damaged page where it can and goes on.
func Recover(ctx context.Context, src, dst string, opts Options) (RecoverReport, error) {
	rep := RecoverReport{Source: src, Target: dst}
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	absSrc, err := filepath.Abs(src)
	if err != nil {
		return rep, fmt.Errorf("recover: %w", err)
	}
	absDst, err := filepath.Abs(dst)
	if err != nil {
		return rep, fmt.Errorf("recover: %w", err)
	}
	if absSrc == absDst {
		return rep, fmt.Errorf("recover: the target must be a new file, not %s itself", src)
	}
	if _, err := os.Lstat(absDst); err == nil {
		return rep, fmt.Errorf("recover: %s: %w; choose a new file name", dst, ErrExists)
	}
	st, err := os.Stat(absSrc)
	if err != nil {
		return rep, fmt.Errorf("recover: %w", err)
	}
	if st.Size() == 0 {
		return rep, fmt.Errorf("recover: %s is empty (0 bytes): there is nothing to recover; %w", src, ErrCorrupt)
	}
	timeout := opts.LockTimeout
	if timeout <= 0 {
		timeout = DefaultLockTimeout
	}
	var sdb *bolt.DB
	err = guarded(func() error {
		var oerr error
		sdb, oerr = bolt.Open(absSrc, 0o400, &bolt.Options{ReadOnly: true, Timeout: timeout})
		return oerr
	})
	if err != nil {
		if errors.Is(err, ErrCorrupt) {
			return rep, fmt.Errorf("recover: %s: its meta pages cannot be read (%w); nothing can be recovered, restore a backup", src, err)
		}
		return rep, classifyOpenError(src, err)
	}
	defer func() { _ = sdb.Close() }()

	tmp, err := os.CreateTemp(filepath.Dir(absDst), ".nova-recover-*")
	if err != nil {
		return rep, fmt.Errorf("recover: %w", err)
	}
	tmpPath := tmp.Name()
	_ = tmp.Close()
	_ = os.Remove(tmpPath) // bbolt creates it afresh
	ok := false
	defer func() {
		if !ok {
			_ = os.Remove(tmpPath)
		}
	}()
	ddb, err := bolt.Open(tmpPath, 0o600, &bolt.Options{Timeout: timeout, NoSync: opts.NoSync})
	if err != nil {
		return rep, fmt.Errorf("recover: create %s: %w", tmpPath, err)
	}
	r := &recoverer{ctx: ctx, src: sdb, dst: ddb}
	copyErr := r.run(&rep)
	closeErr := ddb.Close()
	if err := errors.Join(copyErr, closeErr); err != nil {
		return rep, fmt.Errorf("recover: %w", err)
	}
	// Stamp a schema when the meta bucket was lost, then let Open create
	// missing buckets and check the result.
	if rep.SchemaAssumed {
		if err := stampSchema(tmpPath); err != nil {
			return rep, fmt.Errorf("recover: %w", err)
		}
	}
	db, err := Open(tmpPath, Options{NoSync: opts.NoSync})
	if err != nil {
		return rep, fmt.Errorf("recover: the recovered copy does not open: %w", err)
	}
	if err := db.Close(); err != nil {
		return rep, fmt.Errorf("recover: %w", err)
	}
	if err := place(tmpPath, absDst, false); err != nil {
		if errors.Is(err, os.ErrExist) {
			return rep, fmt.Errorf("recover: %s: %w; choose a new file name", dst, ErrExists)
		}
		return rep, fmt.Errorf("recover: %w", err)
	}
	ok = true
	rep.Complete = true
	for _, b := range rep.Buckets {
		rep.Copied += b.Copied
		if b.Lost > 0 {
			rep.Lost += b.Lost
		}
		if b.Lost != 0 || len(b.Problems) > 0 {
			rep.Complete = false
		}
	}
	return rep, nil
}

func stampSchema(path string) error {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: DefaultLockTimeout})
	if err != nil {
		return err
	}
	err = db.Update(func(tx *bolt.Tx) error {
		// Stamping this binary's schema asserts every bucket it knows.
		for _, name := range Registry {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		meta := tx.Bucket(BucketMeta)
		if meta.Get(metaSchemaKey) == nil {
			return meta.Put(metaSchemaKey, []byte(strconv.Itoa(SchemaVersion)))
		}
		return nil
	})
	return errors.Join(err, db.Close())
}

type recoverer struct {
	ctx      context.Context
	src, dst *bolt.DB
}

// pending is a batch of records waiting to be written to the target.
type pending struct {
	path [][]byte // bucket path
	k, v [][]byte
}

func (r *recoverer) run(rep *RecoverReport) error {
	var names [][]byte
	listErr := guarded(func() error {
		return r.src.View(func(tx *bolt.Tx) error {
			return tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
				names = append(names, bytes.Clone(name))
				return nil
			})
		})
	})
	seen := map[string]bool{}
	for _, name := range names {
		seen[string(name)] = true
		br, err := r.bucket([][]byte{name})
		if err != nil {
			return err
		}
		rep.Buckets = append(rep.Buckets, br)
	}
	for _, name := range Registry {
		if seen[string(name)] {
			continue
		}
		br := BucketRecovery{Name: string(name), Expected: -1, Lost: -1}
		msg := "bucket not found"
		if listErr != nil {
			msg = "bucket not found: the list of buckets is damaged (" + listErr.Error() + ")"
		}
		br.Problems = append(br.Problems, msg)
		rep.Buckets = append(rep.Buckets, br)
	}
	schemaOK := false
	_ = guarded(func() error {
		return r.src.View(func(tx *bolt.Tx) error {
			schemaOK = readSchema(tx) > 0
			return nil
		})
	})
	rep.SchemaAssumed = !schemaOK
	return nil
}

// bucket copies one bucket (path names it, nested buckets included).
func (r *recoverer) bucket(path [][]byte) (BucketRecovery, error) {
	br := BucketRecovery{Name: string(bytes.Join(path, []byte("/"))), Expected: -1, Lost: -1}
	var seq uint64
	if err := guarded(func() error {
		return r.src.View(func(tx *bolt.Tx) error {
			if b := lookup(tx, path); b != nil {
				br.Expected = b.Stats().KeyN
				seq = b.Sequence()
			}
			return nil
		})
	}); err != nil {
		br.Expected = -1
		br.Problems = append(br.Problems, "its record count cannot be read: "+err.Error())
	}
	if err := r.dst.Update(func(tx *bolt.Tx) error {
		_, err := create(tx, path)
		return err
	}); err != nil {
		return br, err
	}

	var (
		last      []byte // last key read
		inclusive bool   // read from last itself (after a skip)
		started   bool
		skips     int
		nested    [][]byte
		maxKey    uint64
	)
	for {
		if err := r.ctx.Err(); err != nil {
			return br, err // a cancelled recovery leaves nothing behind
		}
		batch := pending{path: path}
		var done bool
		readErr := guarded(func() error {
			return r.src.View(func(tx *bolt.Tx) error {
				b := lookup(tx, path)
				if b == nil {
					done = true
					return nil
				}
				c := b.Cursor()
				var k, v []byte
				switch {
				case !started:
					k, v = c.First()
				default:
					k, v = c.Seek(last)
					if k != nil && !inclusive && bytes.Equal(k, last) {
						k, v = c.Next()
					}
				}
				inclusive = false
				for ; k != nil; k, v = c.Next() {
					key := bytes.Clone(k)
					if v == nil {
						started, last = true, key
						nested = append(nested, key)
						continue
					}
					val := bytes.Clone(v) // may fault: nothing is recorded before it is read whole
					started, last = true, key
					batch.k = append(batch.k, key)
					batch.v = append(batch.v, val)
					if len(batch.k) == 1000 {
						return nil // write this batch, then go on after last
					}
				}
				done = true
				return nil
			})
		})
		if err := r.write(batch); err != nil {
			return br, err
		}
		br.Copied += len(batch.k)
		for _, k := range batch.k {
			if len(k) == 8 {
				maxKey = max(maxKey, binary.BigEndian.Uint64(k))
			}
		}
		if readErr != nil {
			// A damaged page: jump past it and go on.
			skips++
			if skips > maxSkips {
				br.Problems = append(br.Problems, fmt.Sprintf("gave up after %d damaged pages: %v", maxSkips, readErr))
				break
			}
			next, ok := r.skip(path, last, started)
			if !ok {
				br.Problems = append(br.Problems, "the rest of the bucket is unreadable: "+readErr.Error())
				break
			}
			br.Problems = append(br.Problems, fmt.Sprintf("skipped a damaged page after key %x", last))
			last, inclusive = next, true
			continue
		}
		if done {
			break
		}
	}
	seq = max(seq, maxKey)
	if seq > 0 {
		if err := r.dst.Update(func(tx *bolt.Tx) error {
			b, err := create(tx, path)
			if err != nil {
				return err
			}
			return b.SetSequence(seq)
		}); err != nil {
			return br, err
		}
	}
	if br.Expected >= 0 {
		br.Lost = max(br.Expected-br.Copied, 0)
	}
	for _, n := range nested {
		sub, err := r.bucket(append(append([][]byte{}, path...), n))
		if err != nil {
			return br, err
		}
		br.Copied += sub.Copied
		if br.Lost >= 0 && sub.Lost >= 0 {
			br.Lost += sub.Lost
		}
		br.Problems = append(br.Problems, sub.Problems...)
	}
	return br, nil
}

// skip finds a key after last from which the cursor can read again: it
// seeks to last+step (big-endian increment) with growing steps, and
// returns the first key it could reach.
func (r *recoverer) skip(path [][]byte, last []byte, started bool) ([]byte, bool) {
	if !started || len(last) == 0 {
		last = make([]byte, 8) // the first page was damaged: probe from id 0
	}
	for shift := uint(0); shift < 64; shift += 4 {
		probe := addBE(last, uint64(1)<<shift)
		if probe == nil {
			return nil, false
		}
		var found []byte
		err := guarded(func() error {
			return r.src.View(func(tx *bolt.Tx) error {
				b := lookup(tx, path)
				if b == nil {
					return nil
				}
				k, _ := b.Cursor().Seek(probe)
				found = bytes.Clone(k)
				return nil
			})
		})
		if err != nil {
			continue
		}
		if found == nil {
			return nil, false // nothing readable after the damage
		}
		return found, true
	}
	return nil, false
}

func (r *recoverer) write(p pending) error {
	if len(p.k) == 0 {
		return nil
	}
	return r.dst.Update(func(tx *bolt.Tx) error {
		b, err := create(tx, p.path)
		if err != nil {
			return err
		}
		for i := range p.k {
			if err := b.Put(p.k[i], p.v[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

func lookup(tx *bolt.Tx, path [][]byte) *bolt.Bucket {
	b := tx.Bucket(path[0])
	for _, n := range path[1:] {
		if b == nil {
			return nil
		}
		b = b.Bucket(n)
	}
	return b
}

func create(tx *bolt.Tx, path [][]byte) (*bolt.Bucket, error) {
	b, err := tx.CreateBucketIfNotExists(path[0])
	for _, n := range path[1:] {
		if err != nil {
			return nil, err
		}
		b, err = b.CreateBucketIfNotExists(n)
	}
	return b, err
}

// addBE adds n to key read as a big-endian number (key padded to 8
// bytes); nil on overflow.
func addBE(key []byte, n uint64) []byte {
	out := bytes.Clone(key)
	for len(out) < 8 {
		out = append(out, 0)
	}
	carry := n
	for i := len(out) - 1; i >= 0 && carry > 0; i-- {
		sum := uint64(out[i]) + carry&0xff
		out[i] = byte(sum)
		carry = carry>>8 + sum>>8
	}
	if carry > 0 {
		return nil
	}
	return out
}
