package textindex

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// corpusDir returns the BistroLens pattern library of the shared test corpus, or skips.
func corpusDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("repository root not found")
		}
		dir = parent
	}
	lib := filepath.Join(dir, "..", "shared", "corpus", "nova26", "bistrolens-knowledge")
	if _, err := os.Stat(lib); err != nil {
		t.Skip("shared corpus not present")
	}
	return lib
}

// loadCorpus indexes every markdown file: the first heading is the title, the first prose
// line the summary, the whole file the body.
func loadCorpus(t *testing.T) (*Index, []string) {
	t.Helper()
	root := corpusDir(t)
	var paths []string
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, _ := filepath.Rel(root, p)
			paths = append(paths, filepath.ToSlash(rel))
		}
		return err
	}))
	slices.Sort(paths)
	require.Greater(t, len(paths), 50)
	docs := make([]Doc, len(paths))
	for i, p := range paths {
		raw, err := os.ReadFile(filepath.Join(root, p))
		require.NoError(t, err)
		var title, summary string
		for _, line := range strings.Split(string(raw), "\n") {
			line = strings.TrimSpace(line)
			switch {
			case title == "" && strings.HasPrefix(line, "# "):
				title = strings.TrimPrefix(line, "# ")
			case title != "" && summary == "" && line != "" && !strings.HasPrefix(line, "#") &&
				!strings.HasPrefix(line, "---") && !strings.HasPrefix(line, "```"):
				summary = line
			}
		}
		docs[i] = Doc{ID: uint64(i), Fields: []Field{Title(title), Summary(summary), Body(string(raw))}}
	}
	ix := New(Options{})
	ix.AddBatch(docs)
	return ix, paths
}

func TestCorpusParaphrasedQueries(t *testing.T) {
	t.Parallel()
	ix, paths := loadCorpus(t)
	cases := []struct {
		query string
		want  []string // acceptable path prefixes for the top 3
	}{
		{"how do I keep users logged in securely", []string{"03-auth-patterns/", "09-hooks/use-auth"}},
		{"retry failed requests with exponential backoff", []string{"07-error-handling/retry-logic"}},
		{"make the app usable with a screen reader", []string{"15-accessibility/", "08-design-system/nova26-accessibility"}},
		{"speed up slow rendering", []string{"14-performance/", "02-react-patterns/memo-optimization"}},
		{"paginate long lists", []string{"06-data-fetching/pagination"}},
		{"soft delete records instead of removing them", []string{"01-convex-patterns/soft-delete"}},
		{"debounce user typing", []string{"09-hooks/use-debounce"}},
		{"role based permissions", []string{"03-auth-patterns/rbac"}},
	}
	for _, c := range cases {
		hits := ix.Search(c.query, 3, nil)
		require.NotEmpty(t, hits, c.query)
		var got []string
		found := false
		for _, h := range hits {
			got = append(got, paths[h.ID])
			for _, w := range c.want {
				found = found || strings.HasPrefix(paths[h.ID], w)
			}
		}
		assert.True(t, found, "%q: top 3 %v, want one of %v", c.query, got, c.want)
	}
}
