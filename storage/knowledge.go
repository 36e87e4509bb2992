package storage

import (
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Buckets of the knowledge layer (engine/knowledge), created by the
// "knowledge buckets" migration; the user-level file holds BucketFacts and
// BucketFactsIndex too (UserMigrations).
var (
	// BucketFacts holds scoped, temporal facts by id.
	BucketFacts = []byte("facts")
	// BucketFactsIndex holds the facts' secondary indexes and change counter.
	BucketFactsIndex = []byte("facts_idx")
	// BucketDocsCache holds fetched and local documentation by cache key.
	BucketDocsCache = []byte("docs_cache")
)

// KnowledgeBuckets lists the buckets the knowledge migration creates.
var KnowledgeBuckets = [][]byte{BucketFacts, BucketFactsIndex, BucketDocsCache}

func migrateKnowledgeBuckets(tx *bolt.Tx) error {
	for _, name := range KnowledgeBuckets {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return fmt.Errorf("create bucket %s: %w", name, err)
		}
	}
	return nil
}

// UserMigrations is the schema of the user-level file (facts at `user`
// scope, shared by all of a user's workspaces; see the package comment).
// It has its own version sequence, independent of Migrations.
var UserMigrations = []Migration{
	{Version: 1, Name: "user facts", Up: migrateUserFacts},
}

func migrateUserFacts(tx *bolt.Tx) error {
	for _, name := range [][]byte{BucketMeta, BucketFacts, BucketFactsIndex} {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return fmt.Errorf("create bucket %s: %w", name, err)
		}
	}
	return nil
}
