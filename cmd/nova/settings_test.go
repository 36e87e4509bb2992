package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	nova "github.com/nova-dev/nova"
	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/workspace"
)

func envFrom(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// A client whose config.yaml is the one its owner parsed (same sum, same
// nova version) skips parsing it: the answer — the fields that differ, or
// the error — is the one the full path (workspace.Load) gives, for every
// combination of the two environments; when the shortcut cannot know, it
// says so and the full path runs.
func TestClientSettingsDiffMatchesLoad(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	_, err := workspace.Init(root, nova.Defaults)
	require.NoError(t, err)

	envs := map[string]map[string]string{
		"none":          {},
		"host":          {"OLLAMA_HOST": "127.0.0.1:1"},
		"other host":    {"OLLAMA_HOST": "10.0.0.2:11434"},
		"tier":          {"NOVA_TIER": "premium"},
		"old tier name": {"NOVA26_TIER": "premium"},
		"host and tier": {"OLLAMA_HOST": "127.0.0.1:1", "NOVA_TIER": "premium"},
		"autonomy":      {"NOVA_AUTONOMY": "4"},
		"key":           {"CONTEXT7_API_KEY": "secret"},
		"bad autonomy":  {"NOVA_AUTONOMY": "9"},
	}
	shortcuts := 0
	for ownerName, ownerEnv := range envs {
		ow, err := workspace.Load(root, envFrom(ownerEnv))
		if err != nil {
			continue // such an owner never starts
		}
		require.NotEmpty(t, ow.ConfigSum)
		info := engine.Info{Root: root, Overrides: ow.Overrides, ConfigSum: ow.ConfigSum}
		for mineName, mineEnv := range envs {
			env := newEnv(&IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}, envFrom(mineEnv), root)
			env.Version = "v-test"
			want, wantErr := settingsDiff(env, root, ow.Config)
			got, gotErr := clientSettingsDiff(env, root, ow.Config, info, "v-test")
			name := "owner " + ownerName + ", command " + mineName
			assert.Equal(t, want, got, name)
			if wantErr != nil {
				assert.EqualError(t, gotErr, wantErr.Error(), name)
			} else {
				assert.NoError(t, gotErr, name)
			}
			if _, ok, _ := sameFileSettingsDiff(env, root, ow.Config, info, "v-test"); ok {
				shortcuts++
			}
			// The owner's environment set a field this one does not: only
			// the file knows its value, so the full path answers (unless
			// this environment is invalid: that error is the same either way).
			for _, o := range ow.Overrides {
				if wantErr != nil {
					break
				}
				tierSet := mineEnv["NOVA_TIER"] != "" || mineEnv["NOVA26_TIER"] != ""
				if mineEnv[o.Env] == "" && (o.Field != "tier" || !tierSet) {
					_, ok, _ := sameFileSettingsDiff(env, root, ow.Config, info, "v-test")
					assert.False(t, ok, name)
				}
			}
		}
	}
	assert.Greater(t, shortcuts, 20, "most combinations take the shortcut")
}

// The shortcut never applies to an owner of another version, one that did
// not say what it parsed (older owners, no file), or a file changed since.
func TestClientSettingsDiffFallsBack(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	_, err := workspace.Init(root, nova.Defaults)
	require.NoError(t, err)
	ow, err := workspace.Load(root, envFrom(nil))
	require.NoError(t, err)
	env := newEnv(&IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}, envFrom(nil), root)
	env.Version = "v-test"
	info := engine.Info{Root: root, ConfigSum: ow.ConfigSum}

	_, ok, err := sameFileSettingsDiff(env, root, ow.Config, info, "v-test")
	require.NoError(t, err)
	require.True(t, ok, "same file, same version, same environment")

	_, ok, _ = sameFileSettingsDiff(env, root, ow.Config, info, "v-other")
	assert.False(t, ok, "another nova version")
	_, ok, _ = sameFileSettingsDiff(env, root, ow.Config, engine.Info{Root: root}, "v-test")
	assert.False(t, ok, "an owner that sent no sum")

	// The user edits config.yaml under a running owner: the full path
	// parses it, and a broken file is this command's error, as without an
	// owner.
	path := filepath.Join(root, workspace.DirName, workspace.ConfigName)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NotEqual(t, 5, ow.Config.Autonomy)
	require.NoError(t, workspace.SetConfigValue(path, "autonomy", "5"))
	_, ok, _ = sameFileSettingsDiff(env, root, ow.Config, info, "v-test")
	assert.False(t, ok, "a file changed since the owner read it")
	diff, err := clientSettingsDiff(env, root, ow.Config, info, "v-test")
	require.NoError(t, err)
	assert.Equal(t, []string{"autonomy"}, diff, "the edited field differs from the owner's")
	require.NoError(t, os.WriteFile(path, append(data, []byte("\nautonomy: [\n")...), 0o600))
	_, err = clientSettingsDiff(env, root, ow.Config, info, "v-test")
	assert.Error(t, err, "a broken config.yaml fails the command")
}
