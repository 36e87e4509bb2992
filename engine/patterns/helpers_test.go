package patterns

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// findCorpus locates ../shared/corpus/nova26/bistrolens-knowledge relative to the repository
// root (the directory holding go.mod).
func findCorpus() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
	c := filepath.Join(dir, "..", "shared", "corpus", "nova26", "bistrolens-knowledge")
	if st, err := os.Stat(c); err != nil || !st.IsDir() {
		return "", false
	}
	return c, true
}

// corpusDir returns the corpus directory or skips the test when it is absent.
func corpusDir(tb testing.TB) string {
	tb.Helper()
	c, ok := findCorpus()
	if !ok {
		tb.Skip("corpus ../shared/corpus/nova26/bistrolens-knowledge not present")
	}
	return c
}

// readCorpus reads one corpus file by its slash path relative to the corpus root.
func readCorpus(tb testing.TB, rel string) []byte {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join(corpusDir(tb), filepath.FromSlash(rel)))
	require.NoError(tb, err)
	return data
}

// writeFiles creates files (slash paths → content) under dir.
func writeFiles(tb testing.TB, dir string, files map[string]string) {
	tb.Helper()
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		require.NoError(tb, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(tb, os.WriteFile(p, []byte(content), 0o644))
	}
}

var reKebabTag = regexp.MustCompile(`^[\p{Ll}\p{Lo}\p{N}]+(-[\p{Ll}\p{Lo}\p{N}]+)*$`)

// assertDocInvariants checks what must hold for every successfully parsed Doc.
func assertDocInvariants(t *testing.T, d Doc) {
	t.Helper()
	assert.NotEmpty(t, d.Title, "%s: title", d.SourceFile)
	assert.LessOrEqual(t, utf8.RuneCountInString(d.Description), MaxDescriptionRunes, "%s: description length", d.SourceFile)
	assert.True(t, utf8.ValidString(d.Description), "%s: description is UTF-8", d.SourceFile)
	assert.NotEmpty(t, d.Category, "%s: category", d.SourceFile)
	assert.Contains(t, NodeTypes(), d.Type, "%s: type", d.SourceFile)
	assert.Regexp(t, `^P[0-9]$`, d.Priority, "%s: priority", d.SourceFile)
	assert.GreaterOrEqual(t, d.Reusability, 0, "%s: reusability", d.SourceFile)
	assert.LessOrEqual(t, d.Reusability, 10, "%s: reusability", d.SourceFile)
	assert.Len(t, d.ContentHash, 64, "%s: hash", d.SourceFile)
	assert.False(t, strings.HasPrefix(d.SourceFile, "/") || strings.Contains(d.SourceFile, `\`), "%s: slash-relative", d.SourceFile)
	seen := map[string]bool{}
	for _, tag := range d.Tags {
		assert.Regexp(t, reKebabTag, tag, "%s: tag %q", d.SourceFile, tag)
		assert.False(t, seen[tag], "%s: duplicate tag %q", d.SourceFile, tag)
		seen[tag] = true
	}
	if assert.NotEmpty(t, d.Tags, d.SourceFile) {
		assert.Equal(t, d.Category, d.Tags[0], "%s: first tag is the category", d.SourceFile)
	}
}
