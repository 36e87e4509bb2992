package yamldoc

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadDirKeepsGoodFilesAndNamesEveryBadOne(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret.yaml")
	require.NoError(t, os.WriteFile(outside, []byte("name: secret\n"), 0o600))
	for name, body := range map[string]string{
		"a.yaml":       "name: one\n",
		"b.yml":        "name: two\n",
		"c.yaml":       "name: one\n", // the same key as a.yaml
		".hidden.yaml": "name: hidden\n",
		"notes.txt":    "name: text\n",
	} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600))
	}
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "link.yaml")))

	type item struct {
		Name string `yaml:"name"`
	}
	var kept []string
	errs := ReadDir(dir, "thing", "name", func(file string, data []byte) (item, string, []error) {
		doc, err := Parse(file, "thing", data)
		if err != nil {
			return item{}, "", []error{err}
		}
		var it item
		return it, it.Name, doc.Decode(&it)
	}, func(it item) { kept = append(kept, it.Name) })

	assert.Equal(t, []string{"one", "two"}, kept)
	require.Len(t, errs, 2)
	assert.ErrorContains(t, errs[0], "c.yaml: name: thing \"one\" is already defined in "+filepath.Join(dir, "a.yaml"))
	assert.ErrorContains(t, errs[1], "link.yaml: not a regular file")

	assert.Empty(t, ReadDir(filepath.Join(dir, "missing"), "thing", "name",
		func(string, []byte) (item, string, []error) { return item{}, "", nil }, func(item) { t.Fatal("nothing to keep") }))
}
