package vault_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/vault"
)

// Issue 11: `nova wisdom list --json` after opt-in and promote showed the
// language field unscrubbed, an AWS key in a tag (lowercased before
// scrubbing), and passwords written in prose.
func TestPromotedWisdomCarriesNoSecrets(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	require.NoError(t, e.v.Wisdom().SetOptIn(t.Context(), true))
	n := e.add(vault.Node{
		Type:       vault.Pattern,
		Confidence: 0.9,
		Title:      "Deploy notes, pwd hunter2",
		Content: "For staging the password is: P@ssw0rd!2024 and `mysql -u root -pMyS3cretPass shop` seeds it; " +
			"CI calls `curl -u admin:Adm1nPa55 https://ci.example.com`; the passphrase is correct-horse-battery-staple.",
		Language: "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
		Tags:     []string{"deploy", "AKIAIOSFODNN7EXAMPLE", "ana@example.com", "/home/ana/src"},
	})
	_, err := e.v.Wisdom().Promote(t.Context(), n.ID)
	require.NoError(t, err)
	list, err := e.v.Wisdom().List(t.Context(), "")
	require.NoError(t, err)
	require.Len(t, list, 1)
	out, err := json.Marshal(list)
	require.NoError(t, err)
	low := strings.ToLower(string(out))
	for _, leak := range []string{"hunter2", "p@ssw0rd!2024", "mys3cretpass", "adm1npa55", "correct-horse-battery-staple",
		"ghp_16c7e42f", "akiaiosfodnn7example", "ana@example.com", "/home/ana"} {
		assert.NotContains(t, low, leak)
	}
	assert.Equal(t, []string{"deploy"}, list[0].Node.Tags)
	assert.Empty(t, list[0].Node.Language)
	assert.Contains(t, list[0].Node.Content, "password is: "+vault.RedactedSecret, "the text still reads")
}

func TestLanguageSurvivesWhenItIsALanguage(t *testing.T) {
	t.Parallel()
	for _, l := range []string{"go", "typescript", "c++", "c#"} {
		assert.Equal(t, l, vault.Sanitize(vault.Node{Content: "x", Language: l}).Language)
	}
}
