package patterns

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// listCorpus lists the corpus' *.md files (slash paths) and the meta ones among them, computed
// here independently of the package's own rules.
func listCorpus(t *testing.T, root string) (all, meta []string) {
	t.Helper()
	metaName := regexp.MustCompile(`(?i)^(readme\.md|index\.md|kiro-.*\.md|extraction-.*\.md)$`)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		if d.IsDir() || !strings.EqualFold(filepath.Ext(p), ".md") {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		require.NoError(t, err)
		rel = filepath.ToSlash(rel)
		all = append(all, rel)
		if metaName.MatchString(d.Name()) {
			meta = append(meta, rel)
		}
		return nil
	})
	require.NoError(t, err)
	sort.Strings(all)
	sort.Strings(meta)
	return all, meta
}

func TestScanCorpus(t *testing.T) {
	t.Parallel()
	root := corpusDir(t)
	all, meta := listCorpus(t, root)
	require.NotEmpty(t, all)

	var calls, last, lastTotal int
	monotonic := true
	res, err := Scan(context.Background(), root, ScanOptions{
		Parse: ParseOptions{Split: true},
		Progress: func(done, total int) {
			if calls > 0 && done != last+1 {
				monotonic = false
			}
			calls++
			last, lastTotal = done, total
		},
	})
	require.NoError(t, err)

	for _, e := range res.Errors {
		t.Errorf("corpus file failed: %s: %s", e.Path, e.Reason)
	}
	assert.Equal(t, len(all), res.Counts.Total)
	assert.Equal(t, res.Counts.Total, res.Counts.Parsed+res.Counts.Skipped+res.Counts.Errors)
	assert.Equal(t, len(res.Docs), res.Counts.Parsed)
	assert.Equal(t, len(meta), res.Counts.Skipped)
	skipped := make([]string, 0, len(res.Skipped))
	for _, s := range res.Skipped {
		skipped = append(skipped, s.Path)
		assert.NotEmpty(t, s.Reason)
	}
	assert.Equal(t, meta, skipped, "exactly the meta files are skipped")

	// Progress: (0,total), then one call per file, ending at (total,total).
	assert.Equal(t, len(all)+1, calls)
	assert.True(t, monotonic)
	assert.Equal(t, len(all), last)
	assert.Equal(t, len(all), lastTotal)

	reNum := regexp.MustCompile(`^[0-9]+-`)
	paths := make([]string, 0, len(res.Docs))
	for _, d := range res.Docs {
		paths = append(paths, d.SourceFile)
		assertDocInvariants(t, d)
		assert.NotEmpty(t, d.Description, "%s: description", d.SourceFile)
		assert.NotEmpty(t, d.Body, d.SourceFile)
		raw, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(d.SourceFile)))
		require.NoError(t, err)
		sum := sha256.Sum256(raw)
		assert.Equal(t, hex.EncodeToString(sum[:]), d.ContentHash, d.SourceFile)
		wantCat := strings.ToLower(reNum.ReplaceAllString(path.Base(path.Dir(d.SourceFile)), ""))
		assert.Equal(t, wantCat, d.Category, d.SourceFile)
		assert.Equal(t, strings.Contains(string(raw), "```"), len(d.CodeExamples) > 0, "%s: code examples found iff the file has fences", d.SourceFile)
		for _, s := range d.Sections {
			assert.Equal(t, d.SourceFile, s.ParentSourceFile)
			assert.Equal(t, d.SourceFile+"#"+s.Anchor, s.SourceFile)
			assert.NotEmpty(t, s.Title)
			assert.True(t, strings.HasPrefix(s.Body, "## "), "%s: section body starts at its heading", s.SourceFile)
		}
	}
	assert.True(t, sort.StringsAreSorted(paths), "docs are sorted by path")
}

// The result must not depend on how many workers ran.
func TestScanCorpusDeterministic(t *testing.T) {
	t.Parallel()
	root := corpusDir(t)
	one, err := Scan(context.Background(), root, ScanOptions{Workers: 1, Parse: ParseOptions{Split: true}})
	require.NoError(t, err)
	many, err := Scan(context.Background(), root, ScanOptions{Workers: 8, Parse: ParseOptions{Split: true}})
	require.NoError(t, err)
	assert.Equal(t, one, many)
}

func TestCorpusGolden(t *testing.T) {
	t.Parallel()
	corpusDir(t)
	cases := []struct {
		file        string
		title       string
		category    string
		typ         string
		priority    string
		reusability int
		confidence  float64
		descPrefix  string
		tags        []string
		sections    []string
	}{
		{
			file: "01-security/nova26-security-enforcement.md", title: "Nova26 Security Enforcement System",
			category: "security", typ: TypePattern, priority: "P1", reusability: 10, confidence: 0.95,
			descPrefix: "BistroLens has layered security:",
			tags:       []string{"security", "agent-output-security-scanner", "rate-limiting-for-llm-calls"},
			sections:   []string{"Agent Output Security Scanner", "Rate Limiting for LLM Calls", "Suspicion Scoring for Builds", "Content Safety for Generated Code"},
		},
		{
			file: "17-nova26-adaptations/enhanced-prd-format.md", title: "Nova26 Enhanced PRD Format",
			category: "nova26-adaptations", typ: TypePreference, priority: "P2", reusability: 9, confidence: 0.95,
			descPrefix: "BistroLens uses structured specs with:",
			// The trailing H2s are only visible thanks to the unmatched-fence recovery.
			tags: []string{"nova26-adaptations", "migration-from-v1-to-v2"},
		},
		{
			file: "09-hooks/use-debounce.md", title: "useDebounce Hook",
			category: "hooks", typ: TypePattern, priority: DefaultPriority, reusability: DefaultReusability, confidence: 0.90,
			descPrefix: "Debouncing delays the execution of a function",
			tags:       []string{"hooks", "debounce-hook-for-delayed-execution", "recommended-delays-by-use-case"},
		},
		{
			// `**Type:** Strategy` in the header beats the hooks→Pattern category mapping, and
			// the `**Tags:**` line feeds the tags.
			file: "03-auth-patterns/subscription-service.md", title: "Subscription Service",
			category: "auth-patterns", typ: TypeStrategy, priority: DefaultPriority, reusability: DefaultReusability, confidence: 0.90,
			tags: []string{"auth-patterns", "subscription", "stripe", "webhooks"},
		},
		{
			file: "08-testing-patterns/unit-testing.md", title: "Unit Testing Patterns",
			category: "testing-patterns", typ: TypeStrategy, priority: DefaultPriority, reusability: DefaultReusability, confidence: 0.90,
		},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			d, err := Parse(tc.file, readCorpus(t, tc.file), ParseOptions{Split: true})
			require.NoError(t, err)
			assertDocInvariants(t, d)
			assert.Equal(t, tc.title, d.Title)
			assert.Equal(t, tc.category, d.Category)
			assert.Equal(t, tc.typ, d.Type)
			assert.Equal(t, tc.priority, d.Priority)
			assert.Equal(t, tc.reusability, d.Reusability)
			assert.Equal(t, "typescript", d.Language)
			if tc.descPrefix != "" {
				assert.True(t, strings.HasPrefix(d.Description, tc.descPrefix), "description %q", d.Description)
			}
			for _, tag := range tc.tags {
				assert.Contains(t, d.Tags, tag)
			}
			nd := d.Draft(DraftOptions{})
			assert.InDelta(t, tc.confidence, nd.Confidence, 1e-9)
			assert.Equal(t, tc.typ, nd.Type)
			assert.Equal(t, tc.file, nd.Source)
			assert.True(t, nd.IsGlobal)
			assert.Equal(t, DefaultUser, nd.UserID)
			assert.Equal(t, len(d.CodeExamples), nd.CodeExampleCount)
			var titles []string
			for _, s := range d.Sections {
				titles = append(titles, s.Title)
			}
			assert.Equal(t, tc.sections, titles)
		})
	}
}
