package storage

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// schema1DB writes a database exactly as schema 1 left it: migration 1 only.
func schema1DB(t *testing.T, seed func(tx *bolt.Tx) error) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "nova.db")
	raw, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	require.NoError(t, err)
	require.NoError(t, raw.Update(func(tx *bolt.Tx) error {
		if err := migrateCreateBuckets(tx); err != nil {
			return err
		}
		if err := writeSchema(tx, 1); err != nil {
			return err
		}
		if seed != nil {
			return seed(tx)
		}
		return nil
	}))
	require.NoError(t, raw.Close())
	return path
}

func TestMigration1CreatesOnlyItsBuckets(t *testing.T) {
	t.Parallel()
	path := schema1DB(t, nil)
	raw, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second, ReadOnly: true})
	require.NoError(t, err)
	defer func() { _ = raw.Close() }()
	require.NoError(t, raw.View(func(tx *bolt.Tx) error {
		for _, name := range registryV1 {
			assert.NotNil(t, tx.Bucket(name), string(name))
		}
		assert.Nil(t, tx.Bucket(BucketVaultArchive), "vault_archive belongs to migration 2")
		assert.Nil(t, tx.Bucket(BucketVaultTombstones), "vault_tombstones belongs to migration 2")
		assert.Nil(t, tx.Bucket(BucketWisdom).Bucket(WisdomPatterns), "wisdom's nested buckets belong to migration 2")
		assert.Nil(t, tx.Bucket(BucketApplyJournal), "apply_journal belongs to migration 3")
		return nil
	}))
}

func TestMigration2CreatesArchiveTombstonesAndWisdomBuckets(t *testing.T) {
	t.Parallel()
	path := schema1DB(t, nil)
	db, err := Open(path, Options{})
	require.NoError(t, err)
	defer func() { _ = db.Close() }()
	v, err := db.SchemaVersion()
	require.NoError(t, err)
	assert.Equal(t, SchemaVersion, v)
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		assert.NotNil(t, tx.Bucket(BucketVaultArchive))
		assert.NotNil(t, tx.Bucket(BucketVaultTombstones))
		w := tx.Bucket(BucketWisdom)
		require.NotNil(t, w)
		for _, name := range WisdomNested {
			assert.NotNil(t, w.Bucket(name), "wisdom/%s", name)
		}
		return nil
	}))
}

// A schema-1 database whose wisdom buckets were created on first use (as
// older novas did) keeps their content through migration 2.
func TestMigration2KeepsWisdomCreatedBeforeIt(t *testing.T) {
	t.Parallel()
	path := schema1DB(t, func(tx *bolt.Tx) error {
		p, err := tx.Bucket(BucketWisdom).CreateBucket(WisdomPatterns)
		if err != nil {
			return err
		}
		if err := p.Put(Key(7), []byte(`{"v":1,"d":{"status":"pending"}}`)); err != nil {
			return err
		}
		o, err := tx.Bucket(BucketWisdom).CreateBucket(WisdomOptIn)
		if err != nil {
			return err
		}
		return o.Put([]byte("alice"), []byte("1"))
	})
	db, err := Open(path, Options{})
	require.NoError(t, err)
	defer func() { _ = db.Close() }()
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		w := tx.Bucket(BucketWisdom)
		assert.JSONEq(t, `{"v":1,"d":{"status":"pending"}}`, string(w.Bucket(WisdomPatterns).Get(Key(7))))
		assert.Equal(t, "1", string(w.Bucket(WisdomOptIn).Get([]byte("alice"))))
		assert.NotNil(t, w.Bucket(WisdomBundles))
		return nil
	}))
}

func TestMigration2IsIdempotentOnItsOwnBuckets(t *testing.T) {
	t.Parallel()
	db, _ := openTemp(t)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		require.NoError(t, tx.Bucket(BucketVaultArchive).Put(Key(1), []byte("x")))
		return migrateTrust(tx)
	}))
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		assert.Equal(t, "x", string(tx.Bucket(BucketVaultArchive).Get(Key(1))), "re-running keeps data")
		return nil
	}))
}

// Migration 4 adds the apply journal to a schema-3 database.
func TestMigration4CreatesTheApplyJournal(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "nova.db")
	db, err := Open(path, Options{Migrations: Migrations[:3]})
	require.NoError(t, err)
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		assert.Nil(t, tx.Bucket(BucketApplyJournal), "apply_journal belongs to migration 4")
		return nil
	}))
	require.NoError(t, db.Close())
	db, err = Open(path, Options{Migrations: Migrations[:4]})
	require.NoError(t, err)
	defer func() { _ = db.Close() }()
	v, err := db.SchemaVersion()
	require.NoError(t, err)
	assert.Equal(t, 4, v)
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		assert.NotNil(t, tx.Bucket(BucketApplyJournal))
		return nil
	}))
}

// The package comment is the one schema tree: it names every top-level
// bucket and every nested bucket declared in buckets.go, and every migration.
func TestDocNamesEveryBucketAndMigration(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	doc := string(data)
	for _, name := range Registry {
		assert.Contains(t, doc, "//\t"+string(name)+" ", "storage/doc.go must document bucket %s", name)
	}
	for _, name := range WisdomNested {
		assert.Contains(t, doc, "//\t  "+string(name)+" ", "storage/doc.go must document wisdom/%s", name)
	}
	for _, m := range Migrations {
		assert.Contains(t, doc, "//\t"+strconv.Itoa(m.Version)+"  ", "storage/doc.go must list migration %d", m.Version)
	}
}

// Migration 3 adds the knowledge buckets to a schema-2 database and keeps
// everything the earlier migrations made.
func TestMigration3CreatesKnowledgeBuckets(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "nova.db")
	db, err := Open(path, Options{Migrations: Migrations[:2]})
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		assert.Nil(t, tx.Bucket(BucketFacts), "facts belongs to migration 3")
		assert.Nil(t, tx.Bucket(BucketDocsCache), "docs_cache belongs to migration 3")
		return tx.Bucket(BucketVaultArchive).Put(Key(3), []byte("kept"))
	}))
	require.NoError(t, db.Close())
	db, err = Open(path, Options{Migrations: Migrations[:3]})
	require.NoError(t, err)
	defer func() { _ = db.Close() }()
	v, err := db.SchemaVersion()
	require.NoError(t, err)
	assert.Equal(t, 3, v)
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		for _, name := range [][]byte{BucketFacts, BucketFactsIndex, BucketDocsCache} {
			assert.NotNil(t, tx.Bucket(name), string(name))
		}
		assert.Equal(t, "kept", string(tx.Bucket(BucketVaultArchive).Get(Key(3))))
		return nil
	}))
}

func TestMigration3IsIdempotentOnItsOwnBuckets(t *testing.T) {
	t.Parallel()
	db, _ := openTemp(t)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		require.NoError(t, tx.Bucket(BucketFacts).Put(Key(1), []byte("f")))
		return migrateKnowledge(tx)
	}))
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		assert.Equal(t, "f", string(tx.Bucket(BucketFacts).Get(Key(1))), "re-running keeps data")
		return nil
	}))
}

func TestUserFileHasItsOwnSchema(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "home", "user.db")
	db, err := Open(path, Options{Migrations: UserMigrations, LockTimeout: 100 * time.Millisecond})
	require.NoError(t, err)
	v, err := db.SchemaVersion()
	require.NoError(t, err)
	assert.Equal(t, UserMigrations[len(UserMigrations)-1].Version, v)
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		assert.NotNil(t, tx.Bucket(BucketFacts))
		assert.Nil(t, tx.Bucket(BucketVaultNodes), "the user file holds no workspace buckets")
		return nil
	}))
	require.NoError(t, db.Close())
	ro, err := Open(path, Options{Migrations: UserMigrations, ReadOnly: true})
	require.NoError(t, err)
	require.NoError(t, ro.Close())
}

// Migration 5 adds the orchestrator's buckets (goal runs, their turns,
// session boards, artifacts, handoffs) to a schema-4 database; agent runs
// keep their bucket and goal runs start an id space of their own.
func TestMigration5CreatesGoalRunAndBoardBuckets(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "nova.db")
	db, err := Open(path, Options{Migrations: Migrations[:4]})
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		assert.Nil(t, tx.Bucket(BucketGoalRuns), "goal_runs belongs to migration 5")
		assert.Nil(t, tx.Bucket(BucketBoards), "boards belongs to migration 5")
		require.NoError(t, tx.Bucket(BucketFacts).Put(Key(2), []byte("fact")))
		return tx.Bucket(BucketRuns).Put(Key(4), []byte(`{"v":1,"d":{"agent":"MARS"}}`))
	}))
	require.NoError(t, db.Close())
	db, err = Open(path, Options{Migrations: Migrations[:5]})
	require.NoError(t, err)
	defer func() { _ = db.Close() }()
	v, err := db.SchemaVersion()
	require.NoError(t, err)
	assert.Equal(t, 5, v)
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		for _, name := range [][]byte{BucketGoalRuns, BucketGoalTurns, BucketBoards, BucketBoardArtifacts, BucketBoardHandoffs} {
			assert.NotNil(t, tx.Bucket(name), string(name))
		}
		assert.NotNil(t, tx.Bucket(BucketRuns).Get(Key(4)), "agent runs keep their bucket")
		assert.Equal(t, "fact", string(tx.Bucket(BucketFacts).Get(Key(2))), "earlier migrations keep their data")
		assert.Equal(t, 0, tx.Bucket(BucketGoalRuns).Stats().KeyN, "goal runs start their own id space")
		return nil
	}))
}

func TestMigration5IsIdempotentOnItsOwnBuckets(t *testing.T) {
	t.Parallel()
	db, _ := openTemp(t)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		require.NoError(t, tx.Bucket(BucketBoards).Put([]byte("r12345678"), []byte("x")))
		return migrateOrchestrator(tx)
	}))
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		assert.Equal(t, "x", string(tx.Bucket(BucketBoards).Get([]byte("r12345678"))), "re-running keeps data")
		return nil
	}))
}

// Migration 6 adds the vault's full-text, counter and journal buckets to a
// schema-5 database, drops the full-text snapshot they replace and keeps
// everything else.
func TestMigration6AddsVaultIndexBuckets(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "nova.db")
	db, err := Open(path, Options{Migrations: Migrations[:5]})
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		assert.Nil(t, tx.Bucket(BucketVaultTerms), "vault_terms belongs to migration 6")
		ix := tx.Bucket(BucketVaultIndex)
		if err := ix.Put([]byte("~textindex"), []byte("NVVS old snapshot")); err != nil {
			return err
		}
		if err := ix.Put([]byte("~rev"), Key(7)); err != nil {
			return err
		}
		return tx.Bucket(BucketFacts).Put(Key(3), []byte("kept"))
	}))
	require.NoError(t, db.Close())
	db, err = Open(path, Options{Migrations: Migrations[:6]})
	require.NoError(t, err)
	defer func() { _ = db.Close() }()
	v, err := db.SchemaVersion()
	require.NoError(t, err)
	assert.Equal(t, 6, v)
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		for _, name := range [][]byte{BucketVaultTerms, BucketVaultPostings, BucketVaultCounts, BucketVaultJournal} {
			assert.NotNil(t, tx.Bucket(name), string(name))
		}
		assert.Nil(t, tx.Bucket(BucketVaultIndex).Get([]byte("~textindex")), "the old snapshot is dropped")
		assert.Equal(t, Key(7), tx.Bucket(BucketVaultIndex).Get([]byte("~rev")), "other keys are kept")
		assert.Equal(t, "kept", string(tx.Bucket(BucketFacts).Get(Key(3))), "migration 3's data stays")
		return nil
	}))
}

func TestMigration6IsIdempotentOnItsOwnBuckets(t *testing.T) {
	t.Parallel()
	db, _ := openTemp(t)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		require.NoError(t, tx.Bucket(BucketVaultCounts).Put([]byte("nodes"), Key(1)))
		return migrateVaultIndex(tx)
	}))
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		assert.Equal(t, Key(1), tx.Bucket(BucketVaultCounts).Get([]byte("nodes")), "re-running keeps data")
		return nil
	}))
}

// The first command after an upgrade is often a read: a read-only open of
// an older schema migrates the file once, then reads it.
func TestReadOnlyOpenOfAnOlderSchemaMigratesFirst(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "nova.db")
	db, err := Open(path, Options{Migrations: Migrations[:2]})
	require.NoError(t, err)
	require.NoError(t, db.Close())

	ro, err := Open(path, Options{ReadOnly: true})
	require.NoError(t, err)
	defer func() { _ = ro.Close() }()
	assert.True(t, ro.ReadOnly())
	v, err := ro.SchemaVersion()
	require.NoError(t, err)
	assert.Equal(t, SchemaVersion, v)
	require.NoError(t, ro.View(func(tx *bolt.Tx) error {
		assert.NotNil(t, tx.Bucket(BucketApplyJournal), "buckets of the later migrations exist")
		return nil
	}))
}

// While another process reads the file, the upgrade cannot take the
// exclusive lock: the read fails with what to do, and nothing is written.
func TestReadOnlyOpenOfAnOlderSchemaInUseSaysWhatToDo(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "nova.db")
	db, err := Open(path, Options{Migrations: Migrations[:2]})
	require.NoError(t, err)
	require.NoError(t, db.Close())
	other, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	require.NoError(t, err)
	defer func() { _ = other.Close() }()

	_, err = Open(path, Options{ReadOnly: true, LockTimeout: 100 * time.Millisecond})
	require.ErrorIs(t, err, ErrNeedsMigration)
	require.ErrorIs(t, err, ErrReadOnly)
	assert.Contains(t, err.Error(), "another nova process has it open")
	require.NoError(t, other.View(func(tx *bolt.Tx) error {
		assert.Nil(t, tx.Bucket(BucketApplyJournal), "nothing was migrated")
		return nil
	}))
}

// Migration 8 adds the signing-key buckets of wisdom to a schema-7
// database and keeps its patterns.
func TestMigration8CreatesWisdomKeyBuckets(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "nova.db")
	db, err := Open(path, Options{Migrations: Migrations[:7]})
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		w := tx.Bucket(BucketWisdom)
		assert.Nil(t, w.Bucket(WisdomKeys), "keys belongs to migration 8")
		return w.Bucket(WisdomPatterns).Put(Key(1), []byte("pattern"))
	}))
	require.NoError(t, db.Close())
	db, err = Open(path, Options{Migrations: Migrations[:8]})
	require.NoError(t, err)
	defer func() { _ = db.Close() }()
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		w := tx.Bucket(BucketWisdom)
		assert.NotNil(t, w.Bucket(WisdomKeys))
		assert.NotNil(t, w.Bucket(WisdomTrusted))
		assert.Equal(t, "pattern", string(w.Bucket(WisdomPatterns).Get(Key(1))))
		return nil
	}))
}

// Migration 9 indexes the builds, goal runs and workflow runs a schema-8
// database holds, with their parents, and leaves the records themselves
// alone; running it again is harmless.
func TestMigration9IndexesEveryRun(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "nova.db")
	db, err := Open(path, Options{Migrations: Migrations[:8]})
	require.NoError(t, err)
	created := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	put := func(tx *bolt.Tx, bucket []byte, id uint64, doc string) error {
		return tx.Bucket(bucket).Put(Key(id), append([]byte{'n', 1}, doc...))
	}
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		assert.Nil(t, tx.Bucket(BucketRunIndex), "run_index belongs to migration 9")
		for _, p := range []struct {
			bucket []byte
			id     uint64
			doc    string
		}{
			{BucketBuilds, 1, `{"id":1,"name":"api","status":"running","createdAt":"2026-11-01T09:00:00Z","updatedAt":"2026-11-01T09:05:00Z","prd":{"tasks":[]}}`},
			{BucketBuilds, 2, `{"id":2,"name":"goal run","status":"paused","goalRunId":1,"createdAt":"2026-11-01T09:00:00Z"}`},
			{BucketBuilds, 3, `{"id":3,"name":"review: step","status":"interrupted","createdAt":"2026-11-01T09:00:00Z"}`},
			{BucketGoalRuns, 1, `{"id":1,"goal":"add a health endpoint","status":"completed","buildId":2,"createdAt":"2026-11-01T09:00:00Z"}`},
			{BucketGoalRuns, 2, `{"id":2,"goal":"` + strings.Repeat("é", 300) + `","status":"stopped","reason":"turn limit"}`},
			{BucketWorkflowRuns, 1, `{"id":1,"workflow":"review","name":"Review","status":"running","steps":[{"id":"s","buildId":3}]}`},
			{BucketWorkflowRuns, 2, `not json`},
		} {
			if err := put(tx, p.bucket, p.id, p.doc); err != nil {
				return err
			}
		}
		return nil
	}))
	require.NoError(t, db.Close())

	db, err = Open(path, Options{Migrations: Migrations[:9]})
	require.NoError(t, err)
	defer func() { _ = db.Close() }()
	got := map[string]runIndexEntry{}
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		idx := tx.Bucket(BucketRunIndex)
		require.NotNil(t, idx)
		for _, k := range RunIndexKinds {
			require.NotNil(t, idx.Bucket(k), string(k))
			if err := idx.Bucket(k).ForEach(func(key, v []byte) error {
				e, err := runIndexCodec.Unmarshal(v)
				require.NoError(t, err)
				assert.Equal(t, ParseKey(key), e.ID)
				got[e.Kind+strconv.FormatUint(e.ID, 10)] = e
				return nil
			}); err != nil {
				return err
			}
		}
		assert.JSONEq(t, `{"id":1,"workflow":"review","name":"Review","status":"running","steps":[{"id":"s","buildId":3}]}`,
			string(tx.Bucket(BucketWorkflowRuns).Get(Key(1))[2:]), "the runs' own records stay as they were")
		return nil
	}))
	require.Len(t, got, 6, "every decodable run, the undecodable one left out")
	assert.Equal(t, runIndexEntry{Kind: "build", ID: 1, Status: "running", Title: "api", Created: created, Updated: created.Add(5 * time.Minute)}, got["build1"])
	assert.Equal(t, runIndexOwner{Kind: "goal", ID: 1}, got["build2"].Parent)
	assert.Equal(t, runIndexOwner{Kind: "workflow", ID: 1}, got["build3"].Parent)
	assert.Equal(t, "interrupted", got["build3"].Status)
	assert.Equal(t, "done", got["goal1"].Status, "completed is done")
	assert.Equal(t, "failed", got["goal2"].Status, "stopped is failed")
	assert.Equal(t, "turn limit", got["goal2"].Reason)
	assert.LessOrEqual(t, len(got["goal2"].Title), RunIndexTitleMax)
	assert.True(t, utf8.ValidString(got["goal2"].Title))
	assert.Equal(t, "Review", got["workflow1"].Title)
	assert.Equal(t, "running", got["workflow1"].Status, "the index keeps what was stored; an open makes it interrupted")
	require.NoError(t, db.Update(migrateRunIndex))
}

// Migration 10 adds the chat buckets to a schema-9 database and keeps what
// the earlier migrations made.
func TestMigration10CreatesChatBuckets(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "nova.db")
	db, err := Open(path, Options{Migrations: Migrations[:9]})
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		assert.Nil(t, tx.Bucket(BucketChatSessions), "chat_sessions belongs to migration 10")
		assert.Nil(t, tx.Bucket(BucketChatTurns), "chat_turns belongs to migration 10")
		return tx.Bucket(BucketRuns).Put(Key(1), []byte("kept"))
	}))
	require.NoError(t, db.Close())
	db, err = Open(path, Options{Migrations: Migrations[:10]})
	require.NoError(t, err)
	defer func() { _ = db.Close() }()
	v, err := db.SchemaVersion()
	require.NoError(t, err)
	assert.Equal(t, 10, v)
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		assert.NotNil(t, tx.Bucket(BucketChatSessions))
		assert.NotNil(t, tx.Bucket(BucketChatTurns))
		assert.NotNil(t, tx.Bucket(BucketRunIndex))
		assert.Equal(t, "kept", string(tx.Bucket(BucketRuns).Get(Key(1))))
		return nil
	}))
}

// Migration 11 adds the team buckets to a schema-10 database and keeps what
// the earlier migrations made.
func TestMigration11CreatesTeamBuckets(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "nova.db")
	db, err := Open(path, Options{Migrations: Migrations[:10]})
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		for _, name := range TeamBuckets {
			assert.Nil(t, tx.Bucket(name), "%s belongs to migration 11", name)
		}
		return tx.Bucket(BucketWisdom).Bucket(WisdomKeys).Put([]byte("self"), []byte("seed"))
	}))
	require.NoError(t, db.Close())
	db, err = Open(path, Options{Migrations: Migrations[:11]})
	require.NoError(t, err)
	defer func() { _ = db.Close() }()
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		for _, name := range TeamBuckets {
			assert.NotNil(t, tx.Bucket(name), "migration 11 creates %s", name)
		}
		assert.NotNil(t, tx.Bucket(BucketChatSessions))
		assert.Equal(t, "seed", string(tx.Bucket(BucketWisdom).Bucket(WisdomKeys).Get([]byte("self"))))
		return nil
	}))
	v, err := db.SchemaVersion()
	require.NoError(t, err)
	assert.Equal(t, 11, v)
}

// Migration 12 adds the repository map's buckets to a schema-11 database
// and keeps what it held.
func TestMigration12CreatesCodemapBuckets(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "nova.db")
	db, err := Open(path, Options{Migrations: Migrations[:11]})
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		for _, name := range CodemapBuckets {
			assert.Nil(t, tx.Bucket(name), "%s belongs to migration 12", name)
		}
		return tx.Bucket(BucketRuns).Put(Key(1), []byte("run"))
	}))
	require.NoError(t, db.Close())
	db, err = Open(path, Options{Migrations: Migrations[:12]})
	require.NoError(t, err)
	defer func() { _ = db.Close() }()
	v, err := db.SchemaVersion()
	require.NoError(t, err)
	assert.Equal(t, 12, v)
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		for _, name := range CodemapBuckets {
			assert.NotNil(t, tx.Bucket(name), "%s", name)
		}
		assert.Equal(t, "run", string(tx.Bucket(BucketRuns).Get(Key(1))))
		return nil
	}))
}

// Migration 13 adds the team's shared marks to a schema-12 database and
// keeps what the team buckets held.
func TestMigration13CreatesTeamSharedMarks(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "nova.db")
	db, err := Open(path, Options{Migrations: Migrations[:12]})
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		assert.Nil(t, tx.Bucket(BucketTeamShared), "team_shared belongs to migration 13")
		return tx.Bucket(BucketTeamRecords).Put([]byte("id"), []byte("record"))
	}))
	require.NoError(t, db.Close())
	db, err = Open(path, Options{Migrations: Migrations[:13]})
	require.NoError(t, err)
	defer func() { _ = db.Close() }()
	v, err := db.SchemaVersion()
	require.NoError(t, err)
	assert.Equal(t, 13, v)
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		assert.NotNil(t, tx.Bucket(BucketTeamShared))
		assert.Equal(t, "record", string(tx.Bucket(BucketTeamRecords).Get([]byte("id"))))
		return nil
	}))
}
