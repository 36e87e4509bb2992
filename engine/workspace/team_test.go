package workspace

import (
	"time"

	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSetTeamConfigAddsThenUpdatesTheSection(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(path, []byte("# mine\ntier: free\n"), 0o644))
	require.NoError(t, SetTeamConfig(path, map[string]string{"url": "nats://127.0.0.1:4222", "admin": "ed25519:abc"}, []string{"url", "admin"}))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	cfg, err := ParseConfig(path, data)
	require.NoError(t, err)
	assert.Equal(t, "nats://127.0.0.1:4222", cfg.Team.URL)
	assert.Equal(t, "ed25519:abc", cfg.Team.Admin)
	assert.Contains(t, string(data), "# mine")
	require.NoError(t, SetTeamConfig(path, map[string]string{"url": "nats://10.0.0.2:4222", "name": "core"}, []string{"url", "name"}))
	data, err = os.ReadFile(path)
	require.NoError(t, err)
	cfg, err = ParseConfig(path, data)
	require.NoError(t, err)
	assert.Equal(t, "nats://10.0.0.2:4222", cfg.Team.URL)
	assert.Equal(t, "core", cfg.Team.Name)
	assert.Equal(t, "ed25519:abc", cfg.Team.Admin)
}

func TestTeamConfigIsValidated(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{
		"team:\n  url: http://x\n",
		"team:\n  url: nats://h:4222\n  name: 'a b'\n",
		"team:\n  url: nats://h:4222\n  token: t\n  nkey: f\n",
		"team:\n  url: nats://h:4222\n  replicas: 9\n",
		"team:\n  url: nats://h:4222\n  retention:\n    maxAge: soon\n",
		"team:\n  url: nats://h:4222\n  retention:\n    maxAge: 5m\n",
		"team:\n  url: nats://h:4222\n  retention:\n    maxBytes: -1\n",
	} {
		_, err := ParseConfig("config.yaml", []byte(bad))
		assert.Error(t, err, bad)
	}
	cfg, err := ParseConfig("config.yaml", []byte("team:\n  url: nats://a:4222,nats://b:4222\n  token: ${NOVA_TEAM_TOKEN}\n"+
		"  retention:\n    maxAge: 168h\n    maxBytes: 268435456\n"))
	require.NoError(t, err)
	assert.True(t, cfg.Team.Joined())
	assert.Equal(t, 168*time.Hour, time.Duration(cfg.Team.Retention.MaxAge))
	assert.Equal(t, int64(256<<20), cfg.Team.Retention.MaxBytes)
}
