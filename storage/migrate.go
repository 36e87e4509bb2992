package storage

import (
	"fmt"
	"strconv"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Migration moves the schema from Version-1 to Version.
type Migration struct {
	Version int
	Name    string
	Up      func(tx *bolt.Tx) error
}

// Migrations is the ordered list of schema migrations. Append only; never
// reorder or edit one that has shipped. Each has a test in migrate_test.go.
var Migrations = []Migration{
	{Version: 1, Name: "create buckets", Up: migrateCreateBuckets},
	{Version: 2, Name: "trust: wisdom sub-buckets, vault archive and tombstones", Up: migrateTrust},
	{Version: 3, Name: "knowledge: facts, their index and the docs cache", Up: migrateKnowledge},
	{Version: 4, Name: "create apply_journal", Up: createBuckets(BucketApplyJournal)},
	{Version: 5, Name: "orchestrator: goal runs and turns, session boards, artifacts and handoffs", Up: migrateOrchestrator},
	{Version: 6, Name: "vault full-text index, counters and import journal", Up: migrateVaultIndex},
	{Version: 7, Name: "library: workflow runs and blueprints", Up: migrateLibrary},
	{Version: 8, Name: "signed wisdom: the workspace key and trusted keys", Up: migrateWisdomKeys},
	{Version: 9, Name: "run index: every build, goal run and workflow run", Up: migrateRunIndex},
	{Version: 10, Name: "chat: sessions and their turns", Up: createBuckets(ChatBuckets...)},
	{Version: 11, Name: "team: shared records, their outbox, sync state, members and refusals", Up: createBuckets(TeamBuckets...)},
	{Version: 12, Name: "repository map: files and their symbols", Up: createBuckets(CodemapBuckets...)},
	{Version: 13, Name: "team: the items an author marked shared", Up: createBuckets(BucketTeamShared)},
}

// createBuckets is the migration that adds new top-level buckets.
func createBuckets(names ...[]byte) func(tx *bolt.Tx) error {
	return func(tx *bolt.Tx) error {
		for _, name := range names {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return fmt.Errorf("create bucket %s: %w", name, err)
			}
		}
		return nil
	}
}

// SchemaVersion is the schema this binary writes: the last migration's.
var SchemaVersion = Migrations[len(Migrations)-1].Version

func migrateCreateBuckets(tx *bolt.Tx) error {
	for _, name := range registryV1 {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return fmt.Errorf("create bucket %s: %w", name, err)
		}
	}
	meta := tx.Bucket(BucketMeta)
	if meta.Get(metaCreatedKey) == nil {
		return meta.Put(metaCreatedKey, []byte(time.Now().UTC().Format(time.RFC3339)))
	}
	return nil
}

// migrateTrust creates the vault's archive and tombstone buckets and the
// nested buckets of wisdom (which earlier versions created on first use).
func migrateTrust(tx *bolt.Tx) error {
	for _, name := range [][]byte{BucketVaultArchive, BucketVaultTombstones} {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return fmt.Errorf("create bucket %s: %w", name, err)
		}
	}
	w, err := tx.CreateBucketIfNotExists(BucketWisdom)
	if err != nil {
		return fmt.Errorf("create bucket %s: %w", BucketWisdom, err)
	}
	for _, name := range wisdomNested2 {
		if _, err := w.CreateBucketIfNotExists(name); err != nil {
			return fmt.Errorf("create bucket %s/%s: %w", BucketWisdom, name, err)
		}
	}
	return nil
}

// migrateWisdomKeys creates the nested buckets of wisdom that hold the
// workspace's signing key and the keys it trusts.
func migrateWisdomKeys(tx *bolt.Tx) error {
	w := tx.Bucket(BucketWisdom)
	if w == nil {
		return fmt.Errorf("bucket %s missing: %w", BucketWisdom, ErrCorrupt)
	}
	for _, name := range [][]byte{WisdomKeys, WisdomTrusted} {
		if _, err := w.CreateBucketIfNotExists(name); err != nil {
			return fmt.Errorf("create bucket %s/%s: %w", BucketWisdom, name, err)
		}
	}
	return nil
}

// checkFresh refuses a schema-less file that holds buckets.
func (db *DB) checkFresh() error {
	var names []string
	err := db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
			names = append(names, string(name))
			return nil
		})
	})
	if err != nil {
		return fmt.Errorf("open %s: %w%s", db.path, err, withWhatToDo(err))
	}
	if len(names) > 0 {
		return fmt.Errorf("open %s: %w: it holds %d buckets but no readable schema version (the meta bucket is damaged); %s",
			db.path, ErrCorrupt, len(names), whatToDo)
	}
	return nil
}

// migrateKnowledge creates the knowledge layer's buckets: facts, their
// indexes and the documentation cache.
func migrateKnowledge(tx *bolt.Tx) error {
	for _, name := range [][]byte{BucketFacts, BucketFactsIndex, BucketDocsCache} {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return fmt.Errorf("create bucket %s: %w", name, err)
		}
	}
	return nil
}

// migrateOrchestrator creates the buckets of orchestrator runs (goal runs
// and their turns, an id space of their own) and of session boards (boards,
// the full content of their artifacts, task handoffs).
func migrateOrchestrator(tx *bolt.Tx) error {
	for _, name := range [][]byte{BucketGoalRuns, BucketGoalTurns, BucketBoards, BucketBoardArtifacts, BucketBoardHandoffs} {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return fmt.Errorf("create bucket %s: %w", name, err)
		}
	}
	return nil
}

// migrateVaultIndex adds the buckets of the vault's persisted full-text index, counters and
// import journal, and drops the full-text snapshot they replace ("~textindex" in vault_idx). The buckets
// start empty: the vault fills them from the nodes in its first write transaction (a
// read-only process meanwhile searches a copy built in memory).
func migrateVaultIndex(tx *bolt.Tx) error {
	for _, name := range [][]byte{BucketVaultTerms, BucketVaultPostings, BucketVaultCounts, BucketVaultJournal} {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return fmt.Errorf("create bucket %s: %w", name, err)
		}
	}
	if b := tx.Bucket(BucketVaultIndex); b != nil {
		if err := b.Delete([]byte("~textindex")); err != nil {
			return fmt.Errorf("drop the full-text snapshot: %w", err)
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

// migrateLibrary creates the buckets of workflow runs (their own id space)
// and blueprints (specs, versions, uses).
func migrateLibrary(tx *bolt.Tx) error {
	for _, name := range LibraryBuckets {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return fmt.Errorf("create bucket %s: %w", name, err)
		}
	}
	return nil
}

func readSchema(tx *bolt.Tx) int {
	meta := tx.Bucket(BucketMeta)
	if meta == nil {
		return 0
	}
	v, err := strconv.Atoi(string(meta.Get(metaSchemaKey)))
	if err != nil {
		return 0
	}
	return v
}

func writeSchema(tx *bolt.Tx, v int) error {
	meta, err := tx.CreateBucketIfNotExists(BucketMeta)
	if err != nil {
		return err
	}
	return meta.Put(metaSchemaKey, []byte(strconv.Itoa(v)))
}

func runMigrations(db *DB, list []Migration) error {
	current, err := db.SchemaVersion()
	if err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	latest := 0
	if len(list) > 0 {
		latest = list[len(list)-1].Version
	}
	if current > latest {
		return fmt.Errorf("%s has schema %d, this nova knows %d: %w (upgrade nova)", db.path, current, latest, ErrSchemaTooNew)
	}
	if current == latest {
		return nil
	}
	if current == 0 {
		// Schema 0 is a file bbolt initialised and nova never migrated:
		// no bucket at all. Anything else without a readable schema is a
		// damaged file, never "no database yet", and is not written to.
		if err := db.checkFresh(); err != nil {
			return err
		}
	}
	if db.readOnly {
		if current == 0 {
			return fmt.Errorf("open %s: %w", db.path, ErrNoDatabase)
		}
		return fmt.Errorf("%s: %w from schema %d to %d (%w; run any nova command that writes)", db.path, ErrNeedsMigration, current, latest, ErrReadOnly)
	}
	return db.Update(func(tx *bolt.Tx) error {
		for _, m := range list {
			if m.Version <= current {
				continue
			}
			if err := m.Up(tx); err != nil {
				return fmt.Errorf("migration %d (%s): %w", m.Version, m.Name, err)
			}
			if err := writeSchema(tx, m.Version); err != nil {
				return fmt.Errorf("migration %d: write schema: %w", m.Version, err)
			}
		}
		return nil
	})
}
