package patterns

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/vault/vaulttest"
)

// The parser was rewritten for speed (one pass over the lines, ranges into the file text
// instead of new strings, pooled scratch). Its output must not change: the digests in
// testdata/parse-digests.golden were recorded with the parser as it was before (main at
// 7c26aa0) and this test compares today's output with them, file by file for the real
// corpus and the fuzz seeds, per library for the generated ones.
//
// A deliberate change of the parser's output updates them:
//
//	go test ./engine/patterns -run TestParseOutputUnchanged -update-parse-digests
var updateParseDigests = flag.Bool("update-parse-digests", false, "rewrite testdata/parse-digests.golden")

const parseDigestsFile = "testdata/parse-digests.golden"

// parseDigest is the SHA-256 of Parse's result (the Doc as JSON, or the error's text).
func parseDigest(tb testing.TB, rel string, data []byte, split bool) string {
	tb.Helper()
	d, err := Parse(rel, data, ParseOptions{Split: split})
	var out []byte
	if err != nil {
		out = []byte("error: " + err.Error())
	} else {
		out, err = json.Marshal(d)
		require.NoError(tb, err)
	}
	sum := sha256.Sum256(out)
	return hex.EncodeToString(sum[:])
}

// digestOf hashes a list of digests into one.
func digestOf(parts []string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\n")))
	return hex.EncodeToString(sum[:])
}

// equalityInputs are extra hand-written inputs for the parser's corner cases (on top of the
// fuzz seeds): indented and tab-indented fences, unclosed fences, CRLF, setext headings,
// lists with continuations, HTML comments, quotes, field lines.
var equalityInputs = []string{
	"# T\n\n  ```go\n  a := 1\n\tb := 2\n    c := 3\n  ```\n\nprose after the code block.\n",
	"# T\n\n- item\n    ```ts\n    x()\n   y()\n  z()\n    ```\n- next item with words\n",
	"# T\n\n```\nnever closed\n",
	"# T\n\n```go\nnever closed, no newline",
	"# T\n\n```go\nclosed without newline\n```",
	"# T\r\n\r\n## Pattern 1: A\r\n\r\nSome prose words here.\r\n\r\n## Pattern 2: B\r\n\r\nMore prose words here.\r\n",
	"Title here\n===\n\nSub title\n---\n\nA paragraph of a few words.\n",
	"# T\n\n**Category:** x\n**Type:** weird\n**Priority:** urgent\n**Reusability:** 8.5/10\n**Tags:** A b, C_d\n\nWords words words.\n",
	"# T\n\n<!-- a comment\nstill\n-->\n\n> quote line\nlazy continuation\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
	"# T\n\nLead in with words:\n\n1. one thing\n2. two things\n   continued here\n\nAnd the paragraph after it.\n",
	"---\ntitle: Front *matter*\ntags: [a, b]\nreusability: 7\n---\n# Heading\n\n*Extracted from somewhere*\n\n_just a note_\n",
	"# Dup\n\n## Pattern A\n\ntext words here\n\n## Pattern A\n\ntext words again\n\n## Pattern A\n\nand again words\n",
	"\uFEFF# T\n\n~~~~python\nprint(1)\n~~~\n~~~~~\n\nafter the tilde fence words.\n",
	"# T\n\n   ```\n   indented bare fence\n   ```\n\n```` md\n```\ninner\n```\n````\n",
	"# T\n\nline one  \nline `two` with **bold** and __under__ and a [link](x) and ![img](y)\n",
	"# T\n\n## Overview\n\nshort\n\n## When to use\n\n- a\n- b\n\n## Benefits\n\nx\n",
	"# T\n\n## Setup\n\n```sh\nrun it\n```\n\n## Usage\n\n- call it\n",
	"####### not a heading\n#hashtag\n# Real #\n\n***\n- - -\n___\n\nwords words words\n",
}

// equalityCorpora computes the current digests of every input set. The keys are stable
// names; the corpus entries exist only where ../shared/corpus does.
func equalityCorpora(t *testing.T) map[string]string {
	t.Helper()
	got := map[string]string{}
	for i, s := range fuzzSeeds {
		for _, split := range []bool{false, true} {
			got[fmt.Sprintf("seed/%02d/split=%v", i, split)] = parseDigest(t, "fz/file.md", []byte(s), split)
		}
	}
	for i, s := range equalityInputs {
		for _, split := range []bool{false, true} {
			got[fmt.Sprintf("input/%02d/split=%v", i, split)] = parseDigest(t, "eq/file.md", []byte(s), split)
		}
	}
	if dir, ok := findCorpus(); ok {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !isMarkdown(d.Name()) {
				return err
			}
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			for _, split := range []bool{false, true} {
				got[fmt.Sprintf("corpus/%s/split=%v", rel, split)] = parseDigest(t, rel, data, split)
			}
			return nil
		})
		require.NoError(t, err)
		// The whole scan (walk, read, parse, sort) of the corpus.
		res, err := Scan(context.Background(), dir, ScanOptions{Parse: ParseOptions{Split: true}})
		require.NoError(t, err)
		got["scan/corpus"] = scanDigest(t, res)
	}
	lib := t.TempDir()
	require.NoError(t, vaulttest.WriteLibrary(lib, 2000))
	for _, split := range []bool{false, true} {
		res, err := Scan(context.Background(), lib, ScanOptions{Parse: ParseOptions{Split: split}})
		require.NoError(t, err)
		require.Equal(t, 2000, res.Counts.Parsed)
		got[fmt.Sprintf("scan/writeLibrary2000/split=%v", split)] = scanDigest(t, res)
	}
	synth := t.TempDir()
	generateLibrary(t, synth, 500)
	res, err := Scan(context.Background(), synth, ScanOptions{Parse: ParseOptions{Split: true}})
	require.NoError(t, err)
	got["scan/synthetic500"] = scanDigest(t, res)
	return got
}

func scanDigest(t *testing.T, res ScanResult) string {
	t.Helper()
	parts := make([]string, 0, len(res.Docs)+1)
	for _, d := range res.Docs {
		b, err := json.Marshal(d)
		require.NoError(t, err)
		sum := sha256.Sum256(b)
		parts = append(parts, d.SourceFile+" "+hex.EncodeToString(sum[:]))
	}
	b, err := json.Marshal(struct {
		Skipped []SkippedFile
		Errors  []FileError
		Counts  Counts
	}{res.Skipped, res.Errors, res.Counts})
	require.NoError(t, err)
	parts = append(parts, string(b))
	return digestOf(parts)
}

func TestParseOutputUnchanged(t *testing.T) {
	got := equalityCorpora(t)
	if *updateParseDigests {
		keys := make([]string, 0, len(got))
		for k := range got {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		for _, k := range keys {
			fmt.Fprintf(&b, "%s %s\n", k, got[k])
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(parseDigestsFile), 0o755))
		require.NoError(t, os.WriteFile(parseDigestsFile, []byte(b.String()), 0o644))
		t.Logf("wrote %d digests to %s", len(keys), parseDigestsFile)
		return
	}
	f, err := os.Open(parseDigestsFile)
	require.NoError(t, err)
	defer func() { _ = f.Close() }()
	want := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), " ")
		require.True(t, ok, "malformed line %q", sc.Text())
		want[k] = v
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, want)
	checked := 0
	for k, v := range got {
		w, ok := want[k]
		if !ok {
			continue // e.g. a corpus file added after the digests were recorded
		}
		checked++
		assert.Equal(t, w, v, "Parse output changed for %s", k)
	}
	// The seeds, the hand-written inputs and the generated libraries are always there.
	assert.GreaterOrEqual(t, checked, 2*(len(fuzzSeeds)+len(equalityInputs))+3)
}
