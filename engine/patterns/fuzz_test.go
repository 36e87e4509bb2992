package patterns

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzSeeds start FuzzParse; TestParseOutputUnchanged checks Parse's output on them too.
var fuzzSeeds = []string{
	"", "# T\n", twoPatterns, aliasBomb, "---\n---\n# T\n", "---\ntitle: x\n", "```\n", "````\n```\n",
	"# T\n\n```\n## H\n", "Title\n===\n", "- a\n  ```go\n  x\n  ```\n", "| a |\n|---|\n",
	"<!-- c\n# T\n", "> q\n# T\n", "# T\n\n**Priority:** P9\n**Reusability:** 99/10\n",
	"# `a` **b** _c_ [d](e) ![f](g)\n\nx y z.\n", "\uFEFF# T\r\n\r\nw x y\r\n", "# T\n\n## Pattern\n\n## Pattern 2\n",
	"**x:** y\n", "#\n##\n###### x\n####### y\n", "\\`\\*a\\*\\`", "``` ``` ```\n",
}

// FuzzParse checks that Parse never panics (a recovered panic surfaces as errParserBug) and that
// every Doc it returns keeps the documented invariants.
//
//	go test -fuzz FuzzParse ./engine/patterns/
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, true)
	}
	if dir, ok := findCorpus(); ok {
		for _, rel := range []string{"01-security/nova26-security-enforcement.md", "17-nova26-adaptations/enhanced-prd-format.md", "09-hooks/use-debounce.md"} {
			if data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel))); err == nil {
				f.Add(string(data), true)
			}
		}
	}
	f.Fuzz(func(t *testing.T, src string, split bool) {
		d, err := Parse("fz/file.md", []byte(src), ParseOptions{Split: split, MaxSize: 256 << 10})
		if err != nil {
			if errors.Is(err, errParserBug) {
				t.Fatalf("parser panicked: %v", err)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error is not a *ParseError: %T %v", err, err)
			}
			return
		}
		if d.Title == "" || d.Category == "" || d.ContentHash == "" {
			t.Fatalf("missing title/category/hash: %+v", d)
		}
		if utf8.RuneCountInString(d.Description) > MaxDescriptionRunes || !utf8.ValidString(d.Description) {
			t.Fatalf("bad description %q", d.Description)
		}
		if len(d.Priority) != 2 || d.Priority[0] != 'P' || d.Reusability < 0 || d.Reusability > 10 {
			t.Fatalf("bad priority/reusability %q %d", d.Priority, d.Reusability)
		}
		for _, tag := range d.Tags {
			if tag == "" || strings.ContainsAny(tag, " _A") || strings.HasPrefix(tag, "-") || strings.HasSuffix(tag, "-") || utf8.RuneCountInString(tag) > 48 && tag != d.Category {
				t.Fatalf("bad tag %q", tag)
			}
		}
		for _, s := range d.Sections {
			if !strings.HasPrefix(s.SourceFile, "fz/file.md#") || utf8.RuneCountInString(s.Description) > MaxDescriptionRunes {
				t.Fatalf("bad section %+v", s)
			}
		}
		_ = d.Draft(DraftOptions{})
		_ = d.SectionDrafts(DraftOptions{})
	})
}
