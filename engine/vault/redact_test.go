package vault_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/vault"
)

// Issue 26, finding 2: prose secrets left through wisdom bundles ("Set
// PGPASSWORD to X", "secret being X", "Credentials are admin / X", "the
// password being X", "The pass phrase is X"), and so did a harm report's
// reason.
func TestBundleExportCarriesNoProseSecrets(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withOptIn, func(o *vault.Options) { o.Identity = "dev@example.org" })
	w := e.v.Wisdom()
	notes := map[string]string{
		"Qm7vKx29Lp": "Before a migration run, Set PGPASSWORD to Qm7vKx29Lp and keep the shell open.",
		"Zr4nWq81Ty": "Webhooks are signed, the secret being Zr4nWq81Ty, so verify the header before parsing.",
		"Hb6sPe53Cu": "The staging console needs a login. Credentials are admin / Hb6sPe53Cu for now.",
		"Jd2fMa97Xo": "Seed the cache with redis-cli, the password being Jd2fMa97Xo on every developer box.",
		"Wt8gLr46Ni": "Backups are encrypted with age. The pass phrase is Wt8gLr46Ni and lives in the team vault.",
	}
	var last uint64
	for _, text := range notes {
		n := e.add(vault.Node{Type: vault.Pattern, Confidence: 0.9, Content: text, Tags: []string{"ops"}})
		res, err := w.Promote(t.Context(), n.ID)
		require.NoError(t, err)
		last = res.Pattern.ID
	}
	_, err := w.ReportHarm(t.Context(), last, "it broke prod; the token is Pv3kRd75Ga now")
	require.NoError(t, err)
	var buf bytes.Buffer
	b, err := w.ExportBundle(t.Context(), &buf)
	require.NoError(t, err)
	require.Len(t, b.Patterns, len(notes))
	for secret := range notes {
		assert.NotContains(t, buf.String(), secret)
	}
	assert.NotContains(t, buf.String(), "Pv3kRd75Ga", "the harm reason is redacted too")
	var text strings.Builder
	for _, p := range b.Patterns {
		text.WriteString(p.Content + "\n" + p.Harm + "\n")
	}
	assert.Equal(t, len(notes)+1, strings.Count(text.String(), vault.RedactedSecret), text.String())
	assert.Contains(t, text.String(), "verify the header before parsing", "the text around a secret stays")
}

// Vault node writes redact: Add, Update and Learn never store a key an
// agent read, and a tag carrying one is dropped.
func TestVaultWritesRedactSecrets(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	n := e.add(vault.Node{Type: vault.Pattern, Title: "deploy with AKIAQ2RZ7PLMXW4TNB5Y",
		Content: "the deploy key is AKIAQ2RZ7PLMXW4TNB5Y", Body: "export GITHUB_TOKEN=ghp_a8Kq2Lm9Zx4Rt7Vb1Nc6Wp3Ys5Hd0Jf8Ge2U",
		Tags: []string{"deploy", "akiaq2rz7plmxw4tnb5y"}})
	got, err := e.v.Get(t.Context(), n.ID)
	require.NoError(t, err)
	all := strings.ToLower(got.Title + got.Content + got.Body + strings.Join(got.Tags, " "))
	assert.NotContains(t, all, "akiaq2rz7plmxw4tnb5y")
	assert.NotContains(t, all, "ghp_a8kq2lm9")
	assert.Equal(t, []string{"deploy"}, got.Tags)
	assert.Equal(t, "the deploy key is "+vault.RedactedSecret, got.Content)

	content := "the password for the staging db is Fq9mZt41Ke"
	up, err := e.v.Update(t.Context(), n.ID, vault.Patch{Content: &content})
	require.NoError(t, err)
	assert.NotContains(t, up.Content, "Fq9mZt41Ke")

	res, err := e.v.Learn(t.Context(), vault.Node{Type: vault.Pattern, Content: "remember: mysql -u root -pLw3xNc82Bq shop seeds the data"})
	require.NoError(t, err)
	learned, err := e.v.Get(t.Context(), res.Node.ID)
	require.NoError(t, err)
	assert.NotContains(t, learned.Content, "Lw3xNc82Bq")
}
