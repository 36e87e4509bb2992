package facts_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/knowledge/facts"
	"github.com/nova-dev/nova/engine/secrets"
	"github.com/nova-dev/nova/storage"
)

const awsKey = "AKIAQ2RZ7PLMXW4TNB5Y"

// Issue 26, finding 4: a key an agent read was stored verbatim as a fact,
// could be promoted to the user level, and `knowledge search` then served it
// in every workspace.
func TestFactWithAnAWSKeyIsRedactedOnAddAndPromote(t *testing.T) {
	t.Parallel()
	fx := newService(t)
	ctx := context.Background()
	f, err := fx.s.Add(ctx, facts.NewFact{Content: "the deploy user's access key is " + awsKey + " (from .env)",
		Source: facts.Source{Type: facts.SourceAgent, Agent: "MARS"}, Tags: []string{"deploy", strings.ToLower(awsKey)}})
	require.NoError(t, err)
	assert.NotContains(t, f.Content, awsKey)
	assert.Contains(t, f.Content, secrets.Redacted)
	assert.Equal(t, []string{"deploy"}, f.Tags, "a tag carrying the key is dropped")
	stored, err := fx.s.Get(ctx, f.ID)
	require.NoError(t, err)
	assert.NotContains(t, stored.Content, awsKey)

	c, err := fx.s.Promote(ctx, f.ID, facts.User())
	require.NoError(t, err)
	require.NotNil(t, c.New)
	assert.NotContains(t, c.New.Content, awsKey)

	// Another workspace of the same user searches the user level.
	root := t.TempDir()
	db, err := storage.Open(filepath.Join(root, ".nova", "nova.db"), storage.Options{NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	other := facts.New(facts.Options{DB: db, UserPath: fx.userPath, Root: root, Author: "dev", Now: fx.clock.Now,
		UserLockTimeout: 100 * time.Millisecond})
	res, err := other.Search(ctx, "deploy access key", facts.SearchOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, res.Facts)
	for _, s := range res.Facts {
		assert.NotContains(t, strings.ToUpper(s.Content), awsKey)
	}
}

// Corrections redact their replacement and their reason.
func TestFactCorrectionRedacts(t *testing.T) {
	t.Parallel()
	fx := newService(t)
	ctx := context.Background()
	f := add(t, fx, "the staging database listens on 5432", facts.Workspace())
	c, err := fx.s.Correct(ctx, f.ID, "moved; the password is Vx7rQk29Mn now", "the staging database is postgres://app:Vx7rQk29Mn@db:6432/app", facts.Source{})
	require.NoError(t, err)
	require.NotNil(t, c.New)
	assert.NotContains(t, c.New.Content, "Vx7rQk29Mn")
	assert.NotContains(t, c.Old.Reason, "Vx7rQk29Mn")
}
