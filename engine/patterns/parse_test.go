package patterns

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A small multi-pattern file written for these tests.
const twoPatterns = `# Queue Helpers

## Source
Extracted from the nova test suite.

**Priority:** P1
**Reusability:** 8/10

---

## Overview

Queue helpers keep background work bounded so that a burst of events never exhausts memory.

## Pattern 1: Bounded Channel

A fixed-size channel drops the oldest item when full.

` + "```go" + `
ch := make(chan int, 8)
` + "```" + `

### Back Pressure

Callers block instead of dropping.

## Pattern 2: Worker Pool

**Reusability:** 10/10

A pool of workers drains the queue concurrently.

` + "```ts" + `
const pool = new Pool(4);
` + "```" + `

` + "```tsx" + `
<Pool size={4} />
` + "```" + `

## Anti-Patterns

- Unbounded slices used as queues.
`

func TestParseBasics(t *testing.T) {
	t.Parallel()
	d, err := Parse(`05-queues\queue-helpers.md`, []byte(twoPatterns), ParseOptions{})
	require.NoError(t, err)
	assertDocInvariants(t, d)
	assert.Equal(t, "05-queues/queue-helpers.md", d.SourceFile, "backslashes become slashes")
	assert.Equal(t, "Queue Helpers", d.Title)
	assert.Equal(t, "queues", d.Category)
	assert.Equal(t, TypePattern, d.Type)
	assert.Equal(t, "P1", d.Priority)
	assert.Equal(t, 8, d.Reusability)
	assert.Equal(t, "Queue helpers keep background work bounded so that a burst of events never exhausts memory.", d.Description)
	assert.Equal(t, []string{"queues", "bounded-channel", "worker-pool"}, d.Tags, "generic and provenance headings are not tags")
	require.Len(t, d.CodeExamples, 3)
	assert.Equal(t, CodeExample{Language: "go", Info: "go", Code: "ch := make(chan int, 8)\n", Line: 19, Heading: "Pattern 1: Bounded Channel"}, d.CodeExamples[0])
	assert.Equal(t, "typescript", d.CodeExamples[1].Language)
	assert.Equal(t, "typescript", d.CodeExamples[2].Language)
	assert.Equal(t, "typescript", d.Language, "2 typescript blocks beat 1 go block")
	assert.Nil(t, d.Sections, "sections only in split mode")
	assert.Equal(t, twoPatterns, d.Body)
	assert.Equal(t, "1", d.Fields["priority"][1:])
}

func TestParseSplit(t *testing.T) {
	t.Parallel()
	d, err := Parse("05-queues/queue-helpers.md", []byte(twoPatterns), ParseOptions{Split: true})
	require.NoError(t, err)
	require.Len(t, d.Sections, 2)

	s1, s2 := d.Sections[0], d.Sections[1]
	assert.Equal(t, "Bounded Channel", s1.Title)
	assert.Equal(t, "Pattern 1: Bounded Channel", s1.Heading)
	assert.Equal(t, "pattern-1-bounded-channel", s1.Anchor)
	assert.Equal(t, "05-queues/queue-helpers.md#pattern-1-bounded-channel", s1.SourceFile)
	assert.Equal(t, "05-queues/queue-helpers.md", s1.ParentSourceFile)
	assert.Equal(t, 15, s1.Line)
	assert.Equal(t, "A fixed-size channel drops the oldest item when full.", s1.Description)
	assert.Equal(t, "go", s1.Language)
	assert.Len(t, s1.CodeExamples, 1)
	assert.Equal(t, []string{"queues", "bounded-channel", "back-pressure"}, s1.Tags)
	assert.Equal(t, "P1", s1.Priority)
	assert.Equal(t, 8, s1.Reusability)
	assert.True(t, strings.HasPrefix(s1.Body, "## Pattern 1: Bounded Channel\n"))
	assert.Contains(t, s1.Body, "Callers block instead of dropping.")
	assert.NotContains(t, s1.Body, "Worker Pool")

	assert.Equal(t, "Worker Pool", s2.Title)
	assert.Equal(t, 10, s2.Reusability, "a section's own **Reusability:** line wins")
	assert.Equal(t, "typescript", s2.Language)
	assert.Len(t, s2.CodeExamples, 2)
	assert.NotContains(t, s2.Body, "Anti-Patterns", "a section ends at the next H2")

	drafts := d.SectionDrafts(DraftOptions{User: "alice"})
	require.Len(t, drafts, 2)
	assert.Equal(t, NodeDraft{
		Type: TypePattern, Title: "Worker Pool", Content: "A pool of workers drains the queue concurrently.",
		Body: s2.Body, Tags: s2.Tags, Confidence: 0.95, Language: "typescript",
		Source: "05-queues/queue-helpers.md#pattern-2-worker-pool", Priority: "P1", Reusability: 10,
		Category: "queues", CodeExampleCount: 2, IsGlobal: true, UserID: "alice", ContentHash: d.ContentHash,
		ParentSource: "05-queues/queue-helpers.md", Anchor: "pattern-2-worker-pool",
	}, drafts[1])

	// One "## Pattern" heading is not a multi-pattern file.
	single := strings.Replace(twoPatterns, "## Pattern 2: Worker Pool", "## Worker Pool", 1)
	d, err = Parse("q.md", []byte(single), ParseOptions{Split: true})
	require.NoError(t, err)
	assert.Nil(t, d.Sections)
	assert.Nil(t, d.SectionDrafts(DraftOptions{}))
}

func TestParseSplitCorpusFile(t *testing.T) {
	t.Parallel()
	const file = "04-ui-components/toast-notifications.md"
	data := readCorpus(t, file)
	d, err := Parse(file, data, ParseOptions{Split: true})
	require.NoError(t, err)
	// Expected sections: the H2 lines starting with "## Pattern" outside code fences.
	var want []string
	inFence := false
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "```") {
			inFence = !inFence
		}
		if !inFence && strings.HasPrefix(l, "## Pattern") {
			want = append(want, strings.TrimPrefix(l, "## "))
		}
	}
	require.GreaterOrEqual(t, len(want), 2, "the file is a multi-pattern file")
	require.Len(t, d.Sections, len(want))
	for i, s := range d.Sections {
		assert.Equal(t, want[i], s.Heading)
		assert.NotEmpty(t, s.Description, s.Heading)
		assert.NotEmpty(t, s.CodeExamples, s.Heading)
		assert.Equal(t, "ui-components", s.Tags[0])
	}
	for _, nd := range d.SectionDrafts(DraftOptions{}) {
		assert.Equal(t, TypePreference, nd.Type, "ui → Preference")
		assert.Equal(t, file, nd.ParentSource)
	}
}

func TestParseFrontMatterOverride(t *testing.T) {
	t.Parallel()
	src := `---
title: Retry Budget
description: Cap retries per request so that an outage does not multiply load.
tags: [Resilience, "Back Off", resilience]
priority: high
reusability: "7/10"
category: 03-Reliability Notes
type: strategy
owner: platform
---
# Something Else

**Priority:** P3
**Reusability:** 2/10
**Type:** Preference

## Overview

This paragraph is not the description because front matter gives one.
`
	d, err := Parse("misc/retry.md", []byte(src), ParseOptions{})
	require.NoError(t, err)
	assertDocInvariants(t, d)
	assert.Equal(t, "Retry Budget", d.Title)
	assert.Equal(t, "Cap retries per request so that an outage does not multiply load.", d.Description)
	assert.Equal(t, "reliability-notes", d.Category)
	assert.Equal(t, TypeStrategy, d.Type)
	assert.Equal(t, "P1", d.Priority)
	assert.Equal(t, 7, d.Reusability)
	assert.Equal(t, []string{"reliability-notes", "resilience", "back-off"}, d.Tags)
	assert.Equal(t, "platform", d.FrontMatter["owner"])
	assert.True(t, strings.HasPrefix(d.Body, "# Something Else\n"), "body excludes front matter")

	// Comma-separated tags and numeric priority/reusability are accepted too.
	d, err = Parse("x.md", []byte("---\ntags: a, b\npriority: 0\nreusability: 9\n---\n# T\n"), ParseOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"general", "a", "b"}, d.Tags)
	assert.Equal(t, "P0", d.Priority)
	assert.Equal(t, 9, d.Reusability)

	// Whatever YAML decodes to, the Doc still encodes as JSON (for --json output).
	d, err = Parse("x.md", []byte("---\nx: .inf\ny: [.nan, 1]\nz: {1: a}\n---\n# T\n"), ParseOptions{})
	require.NoError(t, err)
	out, err := json.Marshal(d)
	require.NoError(t, err)
	assert.Contains(t, string(out), `"x":"+Inf"`)
}

// aliasBomb is a "billion laughs" front matter: 9^8 values once the aliases are expanded.
const aliasBomb = "---\na: &a [1,2,3]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n" +
	"d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n" +
	"g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\nh: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n---\n# T\n"

func TestParseBadInputs(t *testing.T) {
	t.Parallel()
	huge := "# Big\n\n" + strings.Repeat("word ", (1<<20)/5+10)
	cases := []struct {
		name string
		data []byte
		want error
		line int
	}{
		{"zero bytes", nil, ErrEmpty, 0},
		{"whitespace only", []byte(" \n\t\n  "), ErrEmpty, 0},
		{"NUL bytes", []byte("# Title\n\nsome text\x00\x01more"), ErrBinary, 3},
		{"mostly control characters", bytes.Repeat([]byte{0x01, 0x02, 0x1b, 'a'}, 300), ErrBinary, 0},
		{"huge", []byte(huge), ErrTooLarge, 0},
		{"latin-1", []byte("# Caf\xe9\n\nA short note about caf\xe9 menus.\n"), ErrNotUTF8, 1},
		{"utf-16", []byte("\xff\xfe#\x00 \x00T\x00"), ErrNotUTF8, 0},
		{"headless list", []byte("- one\n- two\n"), ErrHeadless, 0},
		{"headless code", []byte("```go\nfunc main() {}\n```\n"), ErrHeadless, 0},
		{"headless table", []byte("| a | b |\n|---|---|\n| 1 | 2 |\n"), ErrHeadless, 0},
		{"front matter not closed", []byte("---\ntitle: x\n# Heading\n"), ErrFrontMatter, 1},
		{"front matter bad yaml", []byte("---\ntitle: ok\ntags: [a, b\n---\n# T\n"), ErrFrontMatter, 0},
		{"front matter not a mapping", []byte("---\n- a\n- b\n---\n# T\n"), ErrFrontMatter, 2},
		{"front matter bad type", []byte("---\ntitle: T\ntype: Gadget\n---\n# T\n"), ErrFrontMatter, 3},
		{"front matter bad priority", []byte("---\npriority: soon\n---\n# T\n"), ErrFrontMatter, 2},
		{"front matter bad reusability", []byte("---\nreusability: 42\n---\n# T\n"), ErrFrontMatter, 2},
		{"front matter tags map", []byte("---\ntags: {a: 1}\n---\n# T\n"), ErrFrontMatter, 2},
		{"front matter duplicate key", []byte("---\ntitle: a\ntitle: b\n---\n# T\n"), ErrFrontMatter, 3},
		{"front matter alias bomb", []byte(aliasBomb), ErrFrontMatter, 6}, // the line of the alias that went over the limit
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse("cat/file.md", tc.data, ParseOptions{})
			require.Error(t, err)
			assert.ErrorIs(t, err, tc.want)
			var pe *ParseError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, "cat/file.md", pe.Path)
			if tc.line > 0 {
				assert.Equal(t, tc.line, pe.Line, pe.Error())
			}
			assert.NotEmpty(t, pe.Reason())
			assert.True(t, strings.HasPrefix(err.Error(), "cat/file.md: "), err.Error())
		})
	}
}

func TestParseYAMLErrorLine(t *testing.T) {
	t.Parallel()
	// The broken line is the 4th line of the file (3rd of the YAML).
	_, err := Parse("a.md", []byte("---\ntitle: ok\ndescription: fine\n  bad: : indent\n---\n# T\n"), ParseOptions{})
	var pe *ParseError
	require.ErrorAs(t, err, &pe)
	assert.ErrorIs(t, err, ErrFrontMatter)
	assert.GreaterOrEqual(t, pe.Line, 2)
	assert.LessOrEqual(t, pe.Line, 5)
}

func TestParseUnsafePath(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"", ".", "/etc/passwd.md", "../x.md", `..\..\x.md`, "a/../../x.md", "C:/x.md", "a\x00.md"} {
		_, err := Parse(p, []byte("# T\n"), ParseOptions{})
		assert.ErrorIs(t, err, ErrUnsafePath, "%q", p)
	}
	d, err := Parse("./a/./b/../c.md", []byte("# T\n"), ParseOptions{})
	require.NoError(t, err)
	assert.Equal(t, "a/c.md", d.SourceFile)
	assert.Equal(t, "a", d.Category)
}

func TestParseTitleFallbacks(t *testing.T) {
	t.Parallel()
	d, err := Parse("02-misc/use-local_storage.md", []byte("Keep small settings in local storage and fall back when it is full.\n"), ParseOptions{})
	require.NoError(t, err, "prose without a heading is not headless")
	assert.Equal(t, "Use Local Storage", d.Title)
	assert.Equal(t, "misc", d.Category)
	assert.Equal(t, "Keep small settings in local storage and fall back when it is full.", d.Description)

	d, err = Parse("x/notes.md", []byte("## Only A Subheading\n\n- a list item\n"), ParseOptions{})
	require.NoError(t, err, "a heading is enough")
	assert.Equal(t, "Notes", d.Title, "no H1 → file name")
	assert.Equal(t, "Notes: Only A Subheading.", d.Description, "outline of the headings when there is no prose")

	d, err = Parse("x/list.md", []byte("# List Only\n\n- first item\n- second item\n"), ParseOptions{})
	require.NoError(t, err)
	assert.Equal(t, "first item; second item.", d.Description, "list text as the last resort")

	d, err = Parse("x/setext.md", []byte("Setext **Title**\n================\n\nBody text that explains the idea.\n"), ParseOptions{})
	require.NoError(t, err)
	assert.Equal(t, "Setext Title", d.Title)

	d, err = Parse("root.md", []byte("\uFEFF# With BOM\r\n\r\nWindows line endings are fine here.\r\n"), ParseOptions{})
	require.NoError(t, err)
	assert.Equal(t, "With BOM", d.Title)
	assert.Equal(t, "general", d.Category, "files in the root")
	assert.Equal(t, "Windows line endings are fine here.", d.Description)
}

func TestDescriptionRules(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("lorem ipsum dolor ", 60)
	cases := []struct {
		name, src, want string
	}{
		{
			"fields and provenance skipped",
			"# T\n\n## Source\nExtracted from somewhere else entirely.\n\n**Category:** x\n**Priority:** P1\n\n## Details\n\n*Last updated: today*\n\nThe real explanation of this pattern is here.\n",
			"The real explanation of this pattern is here.",
		},
		{
			"overview preferred over pattern section",
			"# T\n\n## Pattern: Thing\n\nPattern prose comes first in the file.\n\n## Overview\n\nOverview prose wins anyway.\n",
			"Overview prose wins anyway.",
		},
		{
			"intro before pattern section",
			"# T\n\nIntro prose under the title.\n\n## Pattern: Thing\n\nPattern prose.\n",
			"Intro prose under the title.",
		},
		{
			"lead-in with list and follow-up",
			"# T\n\n## Overview\n\nThe helper offers three modes:\n- **fast** mode\n- `safe` mode\n- [strict](http://x) mode\n\nPick one per call site.\n",
			"The helper offers three modes: fast mode; safe mode; strict mode. Pick one per call site.",
		},
		{
			"lead-in before code is skipped",
			"# T\n\n## Pattern: A\n\nUse these fields:\n\n```ts\nx\n```\n\n## Pattern: B\n\n```ts\ny\n```\n",
			"T: A, B.",
		},
		{
			"inline markup removed",
			"# T\n\n## Overview\n\nCall `__proto__`-safe **merge** on _every_ [input](https://x.y) ~~now~~ here.\n",
			"Call __proto__-safe merge on every input now here.",
		},
		{
			"word-boundary cut",
			"# T\n\n## Overview\n\n" + long + "\n",
			"",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d, err := Parse("c/x.md", []byte(tc.src), ParseOptions{})
			require.NoError(t, err)
			if tc.want != "" {
				assert.Equal(t, tc.want, d.Description)
				return
			}
			assert.LessOrEqual(t, utf8.RuneCountInString(d.Description), MaxDescriptionRunes)
			assert.True(t, strings.HasSuffix(d.Description, "…"))
			body := strings.TrimSuffix(d.Description, "…")
			assert.True(t, strings.HasSuffix(body, "lorem") || strings.HasSuffix(body, "ipsum") || strings.HasSuffix(body, "dolor"), "cut on a word boundary: %q", body[len(body)-20:])
		})
	}
}

func TestTruncateWordsMultibyte(t *testing.T) {
	t.Parallel()
	s := strings.Repeat("héllo wörld ", 100)
	got := truncateWords(s, 50)
	assert.True(t, utf8.ValidString(got))
	assert.LessOrEqual(t, utf8.RuneCountInString(got), 50)
	assert.Equal(t, "abc", truncateWords("abc", 50))
	noSpace := strings.Repeat("é", 600)
	assert.Equal(t, MaxDescriptionRunes, utf8.RuneCountInString(truncateWords(noSpace, MaxDescriptionRunes)))
}

func TestTagRule(t *testing.T) {
	t.Parallel()
	src := "# T\n\n**Tags:** Go, error-handling, Go\n\n## Overview\nx y z.\n## Examples\n## Pattern 3: Don't Panic!\n## 2. Retry — With Jitter\n## Anti-Patterns (What NOT to Do)\n## When to Use This Pattern\n## Related Patterns\n## Adapted from Somewhere\n## 2024\n## Error Handling\n## " + strings.Repeat("very long heading words ", 5) + "\n"
	d, err := Parse("07-error-handling/x.md", []byte(src), ParseOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"error-handling", "go", "dont-panic", "retry-with-jitter", "very-long-heading-words-very-long-heading-words"}, d.Tags)
	for _, tag := range d.Tags {
		assert.LessOrEqual(t, utf8.RuneCountInString(tag), 48)
	}
}

func TestFencesAndLanguage(t *testing.T) {
	t.Parallel()
	src := "# T\n\n- step one\n  ```bash\n  npm run build\n  ```\n\n~~~json\n{}\n~~~\n\n````markdown\n```js\nnested\n```\n````\n\n```\nplain\n```\n\n```sh {title=x}\nls\n```\n"
	d, err := Parse("c/x.md", []byte(src), ParseOptions{})
	require.NoError(t, err)
	var langs []string
	for _, ex := range d.CodeExamples {
		langs = append(langs, ex.Language)
	}
	assert.Equal(t, []string{"shell", "json", "markdown", "", "shell"}, langs)
	assert.Equal(t, "npm run build\n", d.CodeExamples[0].Code, "list indentation is stripped")
	assert.Equal(t, "```js\nnested\n```\n", d.CodeExamples[2].Code, "longer fences nest shorter ones")
	assert.Equal(t, "shell", d.Language)

	d, err = Parse("c/y.md", []byte("# T\n\n```yaml\na: 1\n```\n\n```text\nout\n```\n"), ParseOptions{})
	require.NoError(t, err)
	assert.Equal(t, "yaml", d.Language, "data formats count when there is no code")

	d, err = Parse("c/z.md", []byte("# T\n\nSome prose here please.\n"), ParseOptions{})
	require.NoError(t, err)
	assert.Empty(t, d.Language)
	assert.Empty(t, d.CodeExamples)
}

func TestUnclosedFences(t *testing.T) {
	t.Parallel()
	// A bare fence left open at the end is ignored: the heading after it still counts.
	d, err := Parse("c/x.md", []byte("# T\n\n```ts\na\n```\n\n```\n\n## Later Section\n\nMore prose after the stray fence.\n"), ParseOptions{})
	require.NoError(t, err)
	assert.Contains(t, d.Tags, "later-section")
	require.Len(t, d.Warnings, 1)
	assert.Contains(t, d.Warnings[0], "line 7")

	// A fence with a language left open runs to the end, as CommonMark says.
	d, err = Parse("c/y.md", []byte("# T\n\nIntro text for the file.\n\n```python\n# not a heading\nx = 1\n"), ParseOptions{})
	require.NoError(t, err)
	require.Len(t, d.CodeExamples, 1)
	assert.Equal(t, "# not a heading\nx = 1\n", d.CodeExamples[0].Code)
	assert.Equal(t, "T", d.Title)
	assert.NotEmpty(t, d.Warnings)
}

func TestHeaderFieldWarnings(t *testing.T) {
	t.Parallel()
	d, err := Parse("c/x.md", []byte("# T\n\n**Priority:** whenever\n**Reusability:** [1-10]\n**Type:** Gizmo\n\n## Overview\n\nText of the overview here.\n"), ParseOptions{})
	require.NoError(t, err)
	assert.Equal(t, DefaultPriority, d.Priority)
	assert.Equal(t, DefaultReusability, d.Reusability)
	assert.Equal(t, TypeForCategory("c"), d.Type)
	assert.Len(t, d.Warnings, 3)

	// Fields below the first content H2 are not header fields.
	d, err = Parse("c/x.md", []byte("# T\n\n## Overview\n\nText of the overview here.\n\n**Priority:** P0\n"), ParseOptions{})
	require.NoError(t, err)
	assert.Equal(t, DefaultPriority, d.Priority)
}

func TestTypeForCategory(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		// seed table
		"security": TypePattern, "code-governance": TypePattern, "image-governance": TypePattern,
		"api-cost-protection": TypePattern, "cost-protection": TypePattern, "database-patterns": TypePattern,
		"error-handling": TypePattern, "deployment": TypePattern,
		"steering-system": TypeStrategy, "quality-gates": TypeStrategy, "testing-strategies": TypeStrategy,
		"monitoring": TypeStrategy, "business-logic": TypeStrategy, "ai-prompts": TypeStrategy,
		"design-system": TypePreference, "i18n": TypePreference, "performance": TypePreference,
		"documentation": TypePreference, "nova-adaptations": TypePreference,
		// keyword map
		"convex-patterns": TypePattern, "react-patterns": TypePattern, "hooks": TypePattern,
		"auth-patterns": TypePattern, "ui-components": TypePreference, "form-patterns": TypePattern,
		"data-fetching": TypePattern, "testing-patterns": TypeStrategy, "utilities": TypePattern,
		"validation": TypePattern, "routing": TypePattern, "state-management": TypePattern,
		"accessibility": TypePreference, "nova26-adaptations": TypePreference,
		"anti-patterns": TypeMistake, "architecture-decisions": TypeDecision,
		"guides": TypePattern, "api-gateway": TypePattern, "ux-writing": TypePreference,
		// raw folder names work too
		"08-testing-patterns": TypeStrategy, "01-security": TypePattern, "17-nova26-adaptations": TypePreference,
		"": TypePattern,
	}
	for cat, want := range cases {
		assert.Equal(t, want, TypeForCategory(cat), "%q", cat)
	}
}

func TestNormalizeCategory(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"01-security": "security", "17-nova26-adaptations": "nova26-adaptations", "07 Error Handling": "error-handling",
		"2fa": "2fa", "01": "01", "hooks": "hooks", "10_utilities": "utilities",
	}
	for in, want := range cases {
		assert.Equal(t, want, NormalizeCategory(in), "%q", in)
	}
}

func TestConfidence(t *testing.T) {
	t.Parallel()
	assert.InDelta(t, 0.90, Confidence("hooks", 5, DraftOptions{}), 1e-9)
	assert.InDelta(t, 0.95, Confidence("security", 10, DraftOptions{}), 1e-9)
	assert.InDelta(t, 0.85, Confidence("security", 0, DraftOptions{}), 1e-9)
	assert.InDelta(t, 0.99, Confidence("security", 10, DraftOptions{BaseConfidence: 0.95}), 1e-9, "capped")
	assert.InDelta(t, 0.75, Confidence("security", 5, DraftOptions{BaseConfidence: 0.7}), 1e-9)
	assert.InDelta(t, 0.95, Confidence("nova26-adaptations", 0, DraftOptions{}), 1e-9)
	assert.InDelta(t, 0.8, Confidence("nova26-adaptations", 9, DraftOptions{AdaptationConfidence: 0.8}), 1e-9)
	assert.InDelta(t, 0.0, Confidence("x", 5, DraftOptions{BaseConfidence: -3}), 1e-9)
}

func TestDraft(t *testing.T) {
	t.Parallel()
	d, err := Parse("05-queues/queue-helpers.md", []byte(twoPatterns), ParseOptions{})
	require.NoError(t, err)
	nd := d.Draft(DraftOptions{})
	assert.Equal(t, NodeDraft{
		Type: TypePattern, Title: "Queue Helpers", Content: d.Description, Body: d.Body, Tags: d.Tags,
		Confidence: 0.93, Language: "typescript", Source: "05-queues/queue-helpers.md", Priority: "P1",
		Reusability: 8, Category: "queues", CodeExampleCount: 3, IsGlobal: true, UserID: DefaultUser,
		ContentHash: d.ContentHash,
	}, nd)
	nd.Tags[0] = "changed"
	assert.Equal(t, "queues", d.Tags[0], "the draft owns its tag slice")

	d, err = Parse("x/t.md", []byte("# Only Title\n\n```go\nx\n```\n"), ParseOptions{})
	require.NoError(t, err)
	assert.Equal(t, "Only Title", d.Draft(DraftOptions{User: "bob"}).Content, "title when there is no description")
	assert.Equal(t, "bob", d.Draft(DraftOptions{User: "bob"}).UserID)
}

func TestIsMetaFile(t *testing.T) {
	t.Parallel()
	for _, n := range []string{"README.md", "readme.MD", "a/b/INDEX.md", "KIRO-TASK.md", "kiro-x.md", "EXTRACTION-SUMMARY.md", `dir\Extraction-list.md`} {
		assert.True(t, IsMetaFile(n), n)
	}
	for _, n := range []string{"readme.txt", "use-index.md", "KIRO.md", "my-README.md", "EXTRACTION.md"} {
		assert.False(t, IsMetaFile(n), n)
	}
}

func TestParseErrorFormatting(t *testing.T) {
	t.Parallel()
	e := &ParseError{Path: "a.md", Line: 3, Err: ErrFrontMatter, Detail: "bad"}
	assert.Equal(t, "a.md: line 3: malformed front matter: bad", e.Error())
	assert.ErrorIs(t, e, ErrFrontMatter)
	assert.Equal(t, "empty file", (&ParseError{Err: ErrEmpty}).Reason())
}
