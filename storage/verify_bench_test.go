package storage

import (
	"fmt"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// BenchmarkRawVerify is the structural check every Open runs before bbolt
// maps the file, on a database of about 30 MB (100,000 records of 300
// bytes).
func BenchmarkRawVerify(b *testing.B) {
	path := filepath.Join(b.TempDir(), "nova.db")
	db, err := Open(path, Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	for chunk := range 10 {
		if err := db.Update(func(tx *bolt.Tx) error {
			bk := tx.Bucket(BucketVaultNodes)
			for i := range 10_000 {
				if err := bk.Put([]byte(fmt.Sprintf("%02d%08d", chunk, i)), make([]byte, 300)); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if err := rawVerify(path); err != nil {
			b.Fatal(err)
		}
	}
}
