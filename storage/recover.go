package storage

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
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
	// Rebuilt lists the buckets of derived data (DerivedBuckets) left empty
	// in the copy because something was lost: what survived of them would
	// disagree with the records copied, and nova rebuilds them from those
	// records (the vault's counters and full-text index).
	Rebuilt []string `json:"rebuilt,omitempty"`
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
	// LostAtMost bounds Lost when it is unknown, for buckets keyed by
	// sequence ids: the ids issued (the bucket's counter) that were not
	// copied (records deleted earlier count too). 0 when not known.
	LostAtMost int `json:"lostAtMost,omitempty"`
	// Problems lists what could not be read (damaged pages, skipped ranges).
	Problems []string `json:"problems,omitempty"`
}

// Recover copies every readable bucket and record of the database at src
// (damaged, or simply refused by Open) into a new database at dst, and
// reports per bucket what it copied and what it lost. src is read with the
// bounds-checked page reader (rawpages.go, never bbolt's cursors) under a
// shared lock, and never written; a damaged page is skipped with what it
// held, and every other page is still read. dst must not exist (ErrExists)
// and is written to a temporary file first, so a failed Recover leaves
// nothing behind.
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
	// Hold bbolt's shared lock so no nova writes the file meanwhile, but
	// read it with the bounds-checked reader (rawpages.go): bbolt's cursors
	// fault, panic or loop forever on damaged pages.
	lock, err := os.Open(absSrc)
	if err != nil {
		return rep, fmt.Errorf("recover: %w", err)
	}
	defer func() { _ = lock.Close() }()
	if err := flockShared(lock, timeout); err != nil {
		return rep, fmt.Errorf("%w: %s is locked by another nova process (close it first)", ErrInUse, src)
	}
	raw, err := openRaw(absSrc)
	if err != nil {
		return rep, fmt.Errorf("recover: %s: its meta pages cannot be read (%w); nothing can be recovered, restore a backup", src, err)
	}
	defer func() { _ = raw.Close() }()

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
	r := &recoverer{ctx: ctx, raw: raw, dst: ddb, w: &treeWalker{r: raw, keepGoing: true}}
	copyErr := guarded(func() error { return r.run(&rep) }) // the map of src, should it be cut meanwhile
	closeErr := ddb.Close()
	if err := errors.Join(copyErr, closeErr); err != nil {
		return rep, fmt.Errorf("recover: %w", err)
	}
	// Every bucket this binary knows exists in the copy, empty when it was
	// lost (the readers of a workspace refuse a file that lacks one, and a
	// current schema runs no migration that would create it); a schema is
	// stamped when the meta bucket was lost. Open then checks the result.
	complete := true
	for _, b := range rep.Buckets {
		if b.Lost != 0 || len(b.Problems) > 0 {
			complete = false
		}
	}
	if !complete {
		for _, name := range DerivedBuckets {
			rep.Rebuilt = append(rep.Rebuilt, string(name))
		}
		for i := range rep.Buckets {
			b := &rep.Buckets[i]
			if slices.ContainsFunc(DerivedBuckets, func(n []byte) bool { return string(n) == b.Name }) {
				// Not records lost: data nova computes again from the others.
				b.Copied, b.Expected, b.Lost, b.LostAtMost = 0, 0, 0, 0
				b.Problems = append(b.Problems, "left empty: nova rebuilds it from the records copied")
			}
		}
	}
	if err := completeSchema(tmpPath, rep.SchemaAssumed, !complete); err != nil {
		return rep, fmt.Errorf("recover: %w", err)
	}
	db, err := Open(tmpPath, Options{NoSync: opts.NoSync, noFingerprint: true})
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
	rep.Complete = complete
	for _, b := range rep.Buckets {
		rep.Copied += b.Copied
		if b.Lost > 0 {
			rep.Lost += b.Lost
		}
	}
	return rep, nil
}

// completeSchema creates every registered bucket (and wisdom's nested ones)
// the file lacks, makes the index of runs again from the runs copied, and, with stamp, writes this binary's schema version (the
// copied one was unreadable or absent). Creating
// a later migration's buckets early is harmless: migrations create theirs
// only if they do not exist. With resetDerived, the DerivedBuckets are
// emptied.
func completeSchema(path string, stamp, resetDerived bool) error {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: DefaultLockTimeout})
	if err != nil {
		return err
	}
	err = db.Update(func(tx *bolt.Tx) error {
		if resetDerived {
			for _, name := range DerivedBuckets {
				if err := tx.DeleteBucket(name); err != nil && !errors.Is(err, berrors.ErrBucketNotFound) {
					return err
				}
			}
		}
		for _, name := range Registry {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		w := tx.Bucket(BucketWisdom)
		for _, name := range WisdomNested {
			if _, err := w.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		// The index of runs is derived from the runs: made again from those
		// copied, so it never names a run the copy lost (or misses one).
		if err := tx.DeleteBucket(BucketRunIndex); err != nil && !errors.Is(err, berrors.ErrBucketNotFound) {
			return err
		}
		if err := migrateRunIndex(tx); err != nil {
			return err
		}
		if meta := tx.Bucket(BucketMeta); stamp || meta.Get(metaSchemaKey) == nil {
			return meta.Put(metaSchemaKey, []byte(strconv.Itoa(SchemaVersion)))
		}
		return nil
	})
	return errors.Join(err, db.Close())
}

type recoverer struct {
	ctx context.Context
	raw *rawFile
	dst *bolt.DB
	w   *treeWalker
}

// pending is a batch of records waiting to be written to the target.
type pending struct {
	path [][]byte // bucket path
	k, v [][]byte
}

func (r *recoverer) run(rep *RecoverReport) error {
	seen := map[string]bool{}
	schemaOK := false
	var top []rawEntry
	listStart := len(r.w.problems)
	_ = r.w.tree(r.raw.root, 0, func(e rawEntry) error {
		if e.bucket {
			top = append(top, rawEntry{key: bytes.Clone(e.key), value: bytes.Clone(e.value), bucket: true})
		}
		return nil
	})
	listProblems := append([]string(nil), r.w.problems[listStart:]...)
	for _, e := range top {
		seen[string(e.key)] = true
		br, err := r.bucket([][]byte{e.key}, e.value, 1)
		if err != nil {
			return err
		}
		rep.Buckets = append(rep.Buckets, br)
		if bytes.Equal(e.key, BucketMeta) {
			schemaOK = r.hasSchema(e.value)
		}
	}
	for _, name := range Registry {
		if seen[string(name)] {
			continue
		}
		br := BucketRecovery{Name: string(name), Expected: -1, Lost: -1}
		msg := "bucket not found"
		if len(listProblems) > 0 {
			msg = "bucket not found: the list of buckets is damaged (" + listProblems[0] + ")"
		}
		msg += "; the copy has it empty"
		br.Problems = append(br.Problems, msg)
		rep.Buckets = append(rep.Buckets, br)
	}
	rep.SchemaAssumed = !schemaOK
	return nil
}

// hasSchema reports whether the meta bucket holds a readable schema.
func (r *recoverer) hasSchema(header []byte) bool {
	ok := false
	w := &treeWalker{r: r.raw, keepGoing: true}
	_ = w.bucket(header, 1, func(e rawEntry) error {
		if !e.bucket && bytes.Equal(e.key, metaSchemaKey) {
			n, err := strconv.Atoi(string(e.value))
			ok = err == nil && n > 0
		}
		return nil
	})
	return ok
}

// bucket copies one bucket (path names it, nested buckets included) from
// its on-disk header.
func (r *recoverer) bucket(path [][]byte, header []byte, depth int) (BucketRecovery, error) {
	br := BucketRecovery{Name: string(bytes.Join(path, []byte("/"))), Expected: -1, Lost: -1}
	if err := r.dst.Update(func(tx *bolt.Tx) error {
		_, err := create(tx, path)
		return err
	}); err != nil {
		return br, err
	}
	var seq, maxKey uint64
	if len(header) >= bucketHeaderLen {
		seq = binary.LittleEndian.Uint64(header[8:])
	}
	start := len(r.w.problems)
	batch := pending{path: path}
	var nested []rawEntry
	var writeErr error
	sequenced, skipped := len(path) == 1 && isSequenceBucket(path[0]), 0
	_ = r.w.bucket(header, depth, func(e rawEntry) error {
		if err := r.ctx.Err(); err != nil {
			writeErr = err
			return err
		}
		if e.bucket {
			nested = append(nested, rawEntry{key: bytes.Clone(e.key), value: bytes.Clone(e.value), bucket: true})
			return nil
		}
		if len(e.key) == 8 {
			k := binary.BigEndian.Uint64(e.key)
			if sequenced && (k == 0 || k > MaxID) {
				// Damage: nova never issues such an id, and the copy's counter
				// must stay below what NextID accepts.
				skipped++
				return nil
			}
			maxKey = max(maxKey, k)
		}
		batch.k = append(batch.k, bytes.Clone(e.key))
		batch.v = append(batch.v, bytes.Clone(e.value))
		if len(batch.k) == 1000 {
			if err := r.write(batch); err != nil {
				writeErr = err
				return err
			}
			br.Copied += len(batch.k)
			batch = pending{path: path}
		}
		return nil
	})
	if writeErr != nil {
		return br, writeErr // a cancelled recovery leaves nothing behind
	}
	if err := r.write(batch); err != nil {
		return br, err
	}
	br.Copied += len(batch.k)
	if skipped > 0 {
		br.Problems = append(br.Problems, fmt.Sprintf("%d records with ids nova never issues (damaged keys) were left out", skipped))
	}
	if seq > MaxID {
		br.Problems = append(br.Problems, fmt.Sprintf("its id counter was damaged (%d): the copy's starts after the largest id copied", seq))
		seq = 0
	}
	br.Problems = append(br.Problems, r.w.problems[start:]...)
	if len(br.Problems) == 0 {
		br.Expected, br.Lost = br.Copied, 0
	} else if len(path) == 1 && isSequenceBucket(path[0]) && seq > uint64(br.Copied) {
		br.LostAtMost = int(min(seq-uint64(br.Copied), uint64(MaxID)))
	}
	if seq = max(seq, maxKey); seq > 0 {
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
	for _, n := range nested {
		sub, err := r.bucket(append(append([][]byte{}, path...), n.key), n.value, depth+1)
		if err != nil {
			return br, err
		}
		br.Copied += sub.Copied
		if br.Lost >= 0 && sub.Lost >= 0 {
			br.Lost += sub.Lost
			br.Expected += sub.Expected
		} else {
			br.Lost, br.Expected = -1, -1
		}
		br.Problems = append(br.Problems, sub.Problems...)
	}
	return br, nil
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

func isSequenceBucket(name []byte) bool {
	for _, b := range SequenceBuckets {
		if bytes.Equal(b, name) {
			return true
		}
	}
	return false
}
