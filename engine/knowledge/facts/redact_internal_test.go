package facts

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/storage"
)

// A fact stored before facts were redacted on write keeps its secret in
// the workspace file, but promoting it to the user level redacts the copy.
func TestPromoteRedactsAFactStoredVerbatim(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	db, err := storage.Open(filepath.Join(root, ".nova", "nova.db"), storage.Options{NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	home := t.TempDir()
	s := New(Options{DB: db, UserPath: UserPath(func(k string) string { return map[string]string{"NOVA_HOME": home}[k] }),
		Root: root, Author: "dev", UserLockTimeout: 100 * time.Millisecond})
	ctx := context.Background()
	raw := Fact{Content: "ci reads AWS_ACCESS_KEY_ID=AKIAQ2RZ7PLMXW4TNB5Y", Scope: Workspace(), Source: Source{Type: SourceAgent},
		Confidence: 0.7, Tags: []string{}, Author: "dev", ValidFrom: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	require.NoError(t, s.write(ctx, false, func(tx *bolt.Tx) ([]Fact, error) {
		return []Fact{raw}, putFact(tx, false, &raw, nil)
	}))
	require.Contains(t, raw.Content, "AKIAQ2RZ7PLMXW4TNB5Y", "the old fact is verbatim")
	c, err := s.Promote(ctx, raw.ID, User())
	require.NoError(t, err)
	require.NotNil(t, c.New)
	assert.NotContains(t, c.New.Content, "AKIAQ2RZ7PLMXW4TNB5Y")
	u, err := s.Get(ctx, c.New.ID)
	require.NoError(t, err)
	assert.NotContains(t, u.Content, "AKIAQ2RZ7PLMXW4TNB5Y")
}

// A search never serves a secret, even from a fact stored verbatim.
func TestSearchRedactsAFactStoredVerbatim(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	db, err := storage.Open(filepath.Join(root, ".nova", "nova.db"), storage.Options{NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	s := New(Options{DB: db, UserPath: filepath.Join(t.TempDir(), "user.db"), Root: root, Author: "dev", UserLockTimeout: 100 * time.Millisecond})
	ctx := context.Background()
	raw := Fact{Content: "the ci deploy reads AWS_ACCESS_KEY_ID=AKIAQ2RZ7PLMXW4TNB5Y", Scope: Workspace(), Source: Source{Type: SourceAgent},
		Confidence: 0.7, Tags: []string{}, Author: "dev", ValidFrom: time.Now().UTC()}
	require.NoError(t, s.write(ctx, false, func(tx *bolt.Tx) ([]Fact, error) {
		return []Fact{raw}, putFact(tx, false, &raw, nil)
	}))
	res, err := s.Search(ctx, "ci deploy aws access key", SearchOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, res.Facts)
	for _, f := range res.Facts {
		assert.NotContains(t, f.Content, "AKIAQ2RZ7PLMXW4TNB5Y")
	}
}
