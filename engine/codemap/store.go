package codemap

import (
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/storage"
)

// fileRec is a file's record in codemap_files: what the next update
// compares against.
type fileRec struct {
	Size  int64  `json:"z"`
	MTime int64  `json:"m"` // unix nanoseconds
	Hash  string `json:"h"` // sha-256 hex of the content ("" when not read)
	Lang  string `json:"g"`
	Skip  string `json:"s,omitempty"` // why the file is left out
	// V is the parser version that read the file: a newer nova parses
	// every file again.
	V int `json:"v"`
}

// parserVersion changes whenever what the parsers extract changes.
const parserVersion = 3

var (
	recCodec  = storage.Codec[fileRec]{Version: 1}
	symsCodec = storage.Codec[FileSyms]{Version: 1}
)

// loadRecs reads every file record.
func loadRecs(tx *bolt.Tx) (map[string]fileRec, error) {
	b := tx.Bucket(storage.BucketCodemapFiles)
	if b == nil {
		return nil, fmt.Errorf("bucket %s missing: %w", storage.BucketCodemapFiles, storage.ErrCorrupt)
	}
	out := make(map[string]fileRec, b.Stats().KeyN)
	err := b.ForEach(func(k, v []byte) error {
		r, err := recCodec.Unmarshal(v)
		if err != nil {
			return nil // a record nova cannot read: the file is parsed again
		}
		out[string(k)] = r
		return nil
	})
	return out, err
}

// loadSyms reads the symbols of the given paths (all when paths is nil).
func loadSyms(tx *bolt.Tx, paths []string) (map[string]FileSyms, error) {
	b := tx.Bucket(storage.BucketCodemapSyms)
	if b == nil {
		return nil, fmt.Errorf("bucket %s missing: %w", storage.BucketCodemapSyms, storage.ErrCorrupt)
	}
	out := map[string]FileSyms{}
	read := func(k, v []byte) {
		if s, err := symsCodec.Unmarshal(v); err == nil {
			out[string(k)] = s
		}
	}
	if paths == nil {
		return out, b.ForEach(func(k, v []byte) error { read(k, v); return nil })
	}
	for _, p := range paths {
		if v := b.Get([]byte(p)); v != nil {
			read([]byte(p), v)
		}
	}
	return out, nil
}

// change is one file's new state to write (syms nil: none; gone: delete).
type change struct {
	path string
	rec  fileRec
	syms *FileSyms
	gone bool
}

func writeChanges(tx *bolt.Tx, changes []change) error {
	files, syms := tx.Bucket(storage.BucketCodemapFiles), tx.Bucket(storage.BucketCodemapSyms)
	if files == nil || syms == nil {
		return fmt.Errorf("codemap buckets missing: %w", storage.ErrCorrupt)
	}
	for _, c := range changes {
		k := []byte(c.path)
		if c.gone {
			if err := files.Delete(k); err != nil {
				return err
			}
			if err := syms.Delete(k); err != nil {
				return err
			}
			continue
		}
		if err := recCodec.Put(files, k, c.rec); err != nil {
			return err
		}
		if c.syms != nil {
			if err := symsCodec.Put(syms, k, *c.syms); err != nil {
				return err
			}
		} else if c.rec.Skip != "" {
			if err := syms.Delete(k); err != nil {
				return err
			}
		}
	}
	return nil
}
