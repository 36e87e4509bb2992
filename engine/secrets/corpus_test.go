package secrets

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type corpusCase struct{ shape, secret, text string }

// readCorpus reads testdata/secrets.txt: shape<TAB>secret<TAB>text, with
// "\n" in text standing for a newline.
func readCorpus(t testing.TB) []corpusCase {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "secrets.txt"))
	require.NoError(t, err)
	defer f.Close()
	var out []corpusCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.SplitN(line, "\t", 3)
		require.Len(t, parts, 3, "malformed corpus line %q", line)
		out = append(out, corpusCase{parts[0], parts[1], strings.ReplaceAll(parts[2], `\n`, "\n")})
	}
	require.NoError(t, sc.Err())
	return out
}

func readInnocent(t testing.TB) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "innocent.txt"))
	require.NoError(t, err)
	var out []string
	for line := range strings.Lines(string(data)) {
		line = strings.TrimRight(line, "\n")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, line)
	}
	return out
}

// Every secret shape of the corpus is gone from Redact's output, and the
// text around it stays (the first word of the line survives).
func TestCorpusSecretsAreRedacted(t *testing.T) {
	t.Parallel()
	cases := readCorpus(t)
	require.GreaterOrEqual(t, len(cases), 50)
	shapes := map[string]bool{}
	for _, c := range cases {
		assert.False(t, shapes[c.shape], "shape %s twice", c.shape)
		shapes[c.shape] = true
		require.Contains(t, c.text, c.secret, "%s: the secret is not in its own text", c.shape)
		out := Redact(c.text)
		assert.NotContains(t, out, c.secret, "%s: %q → %q", c.shape, c.text, out)
		assert.Contains(t, out, Redacted, c.shape)
		assert.Equal(t, out, Redact(out), "%s: not idempotent", c.shape)
	}
}

func TestInnocentLinesAreKept(t *testing.T) {
	t.Parallel()
	lines := readInnocent(t)
	require.GreaterOrEqual(t, len(lines), 20)
	for _, s := range lines {
		assert.Equal(t, s, Redact(s))
	}
}

// BenchmarkRedactProse: 2 KB of ordinary prose that names passwords,
// tokens and keys (every prose rule runs, nothing is redacted).
func BenchmarkRedactProse(b *testing.B) {
	s := strings.Repeat("Use the token from the config file; the password field must be validated and the api key rotated. Run go test before pushing. ", 16)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Redact(s)
	}
}

func TestRedactJSONKeepsJSONValid(t *testing.T) {
	t.Parallel()
	for _, c := range readCorpus(t) {
		doc, err := json.Marshal(map[string]any{"path": "notes.md", "content": c.text, "n": 3})
		require.NoError(t, err)
		out := RedactJSON(doc)
		require.True(t, json.Valid(out), "%s: %s", c.shape, out)
		var back map[string]any
		require.NoError(t, json.Unmarshal(out, &back))
		assert.NotContains(t, back["content"], c.secret, c.shape)
		assert.Equal(t, "notes.md", back["path"])
	}
	out := RedactJSON([]byte(`{"user":"svc","password":"swordfish9"}`))
	assert.NotContains(t, string(out), "swordfish9", "the key gives the value its context")
	assert.JSONEq(t, `{"command":"go test ./..."}`, string(RedactJSON([]byte(`{"command":"go test ./..."}`))))
	assert.True(t, json.Valid(RedactJSON([]byte(`not json, password is Hx7vQk29`))), "malformed input comes back as a JSON string")
	assert.NotContains(t, string(RedactJSON([]byte(`not json, password is Hx7vQk29`))), "Hx7vQk29")
}

func FuzzRedactJSON(f *testing.F) {
	f.Add([]byte(`{"password":"hunter2x","a":[1,"token: abcdef123456"]}`))
	f.Add([]byte(`{"content":"-----BEGIN RSA PRIVATE KEY-----\nMIIE"}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, b []byte) {
		out := RedactJSON(b)
		if len(bytes.TrimSpace(b)) > 0 && !json.Valid(out) {
			t.Fatalf("invalid JSON out of %q: %q", b, out)
		}
	})
}

// The anchored fast path (scan.go) finds the same secrets as running each
// rule's regexp over the whole text, on the corpus, the innocent lines and
// one generated example per gitleaks rule.
func TestAnchoredRulesFindWhatTheRegexpFinds(t *testing.T) {
	t.Parallel()
	var texts []string
	for _, c := range readCorpus(t) {
		texts = append(texts, c.text, strings.ToLower(c.text))
	}
	texts = append(texts, readInnocent(t)...)
	for _, r := range gitleaksRules {
		if ex, ok := exampleFor(t, r); ok {
			texts = append(texts, "we used "+ex+" in the deploy script", r.ID+" = "+ex)
		}
	}
	set := rules()
	n := 0
	for i := range set.list {
		r := &set.list[i]
		if r.anchored == nil {
			continue
		}
		n++
		for _, s := range texts {
			want := secretsOf(r, s, r.re.FindAllStringSubmatchIndex(s, -1))
			got := secretsOf(r, s, anchoredMatches(r, s, asciiLower(s)))
			for _, w := range want {
				assert.Contains(t, got, w, "%s on %q", r.ID, s)
			}
		}
	}
	assert.Greater(t, n, 50, "the generic rules and nova's prose rules are anchored")
}

func secretsOf(r *compiled, s string, ms [][]int) []string {
	var out []string
	for _, m := range ms {
		if a, b := secretSpan(m, r.SecretGroup); a >= 0 && b > a {
			out = append(out, s[a:b])
		}
	}
	return out
}
