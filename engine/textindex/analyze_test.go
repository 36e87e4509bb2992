package textindex

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAnalyzeIdentifiers(t *testing.T) {
	t.Parallel()
	cases := []struct {
		ident, words, joined string
	}{
		{"companyId", "company id", "companyid"},
		{"company_id", "company id", "companyid"},
		{"HTTPServer", "http server", "httpserver"},
		{"parseJSONBody", "parse json body", "parsejsonbody"},
		{"MAX_RETRY_COUNT", "max retry count", "maxretrycount"},
		{"base64Encode", "base64 encode", "base64encode"},
	}
	for _, c := range cases {
		got := Analyze(c.ident)
		for _, w := range Analyze(c.words) {
			assert.Contains(t, got, w, "%s should yield the parts of %q", c.ident, c.words)
		}
		assert.Subset(t, got, Analyze(c.joined), "%s should yield the joined form", c.ident)
	}
	// snake_case and camelCase spellings of one identifier meet.
	assert.ElementsMatch(t, Analyze("userId"), Analyze("user_id"))
	// Letter–digit boundaries do not split.
	for _, w := range []string{"i18n", "a11y", "utf8", "oauth2"} {
		assert.Equal(t, []string{w}, Analyze(w))
	}
}

func TestAnalyzeStopWordsAndShortTokens(t *testing.T) {
	t.Parallel()
	assert.Empty(t, Analyze("the and of to in is it a I"))
	assert.Empty(t, Analyze("!!! ... --- ***"))
	assert.Empty(t, Analyze(""))
	assert.Empty(t, Analyze(strings.Repeat("x", maxTokenLen+1)), "overlong tokens are dropped")
	assert.Equal(t, Analyze("database"), Analyze("the database"))
}

func TestStemConflation(t *testing.T) {
	t.Parallel()
	groups := [][]string{
		{"cache", "caches", "cached", "caching"},
		{"test", "tests", "tested", "testing"},
		{"deploy", "deploys", "deployed", "deploying", "deployment", "deployments"},
		{"validate", "validated", "validating", "validation", "validator"},
		{"query", "queries", "queried", "querying"},
		{"log", "logs", "logged", "logging", "logger"},
		{"retry", "retries", "retried", "retrying"},
		{"secure", "securely", "security"},
		{"optimize", "optimized", "optimizing", "optimization", "optimizer"},
		{"authenticate", "authenticated", "authentication"},
		{"handle", "handles", "handled", "handling", "handler"},
		{"render", "renders", "rendered", "rendering"},
		{"class", "classes"},
		{"use", "uses", "used", "using"},
		{"stop", "stopped", "stopping"},
	}
	for _, g := range groups {
		want := string(stem([]byte(g[0])))
		for _, w := range g[1:] {
			assert.Equal(t, want, string(stem([]byte(w))), "%s should conflate with %s", w, g[0])
		}
	}
	distinct := [][2]string{{"user", "use"}, {"string", "str"}, {"speed", "sped"}, {"add", "ad"}, {"status", "statu"}}
	for _, p := range distinct {
		assert.NotEqual(t, string(stem([]byte(p[0]))), p[1], "%s over-stemmed", p[0])
	}
}

func TestAnalyzePhrases(t *testing.T) {
	t.Parallel()
	assert.Contains(t, Analyze("users stay logged in"), "login")
	assert.Contains(t, Analyze("how to sign up"), "signup")
	assert.Contains(t, Analyze("log out everywhere"), "logout")
	assert.Contains(t, Analyze("works with a screen reader"), "screenreader")
	assert.Contains(t, Analyze("soft-deleted rows"), "softdelete")
	assert.Contains(t, Analyze("rate limiting"), "ratelimit")
	assert.NotContains(t, Analyze("login in"), "loginin")
	assert.NotContains(t, Analyze("the log file in the repo"), "login", "a stop word between breaks the phrase")
}

func TestAnalyzeUnicode(t *testing.T) {
	t.Parallel()
	assert.Equal(t, Analyze("cafe"), Analyze("Café"))
	assert.Equal(t, Analyze("cafe"), Analyze("CAFÉ"))
	assert.Equal(t, Analyze("cafe"), Analyze("cafe\u0301"), "combining accents are dropped")
	assert.Equal(t, Analyze("strasse"), Analyze("Straße"))
	assert.Equal(t, []string{"привет", "мир"}, Analyze("Привет, мир!"))
	assert.Equal(t, []string{"日本語"}, Analyze("日本語"))
	assert.Equal(t, Analyze("über schall"), Analyze("ÜberSchall")[:2], "camelCase splits non-ASCII too")
}

func TestAnalyzeMalformedInput(t *testing.T) {
	t.Parallel()
	inputs := []string{
		"\xff\xfe\xfd", "valid \xc3 broken", "a\x00b\x00companyId", string([]byte{0xe2, 0x82}),
		strings.Repeat("ab_", 10000), strings.Repeat("aB", 10000), strings.Repeat("é", 5000),
	}
	for _, in := range inputs {
		terms := Analyze(in)
		for _, term := range terms {
			assert.True(t, utf8.ValidString(term), "%q", term)
			assert.NotEmpty(t, term)
			assert.LessOrEqual(t, len(term), maxTokenLen)
		}
	}
	require.Contains(t, Analyze("a\x00b\x00companyId"), "company")
}

func TestConceptGroups(t *testing.T) {
	t.Parallel()
	shared := func(a, b string) bool {
		for _, g := range defaultConcepts[Analyze(a)[0]] {
			if slices.Contains(defaultConcepts[Analyze(b)[0]], g) {
				return true
			}
		}
		return false
	}
	assert.True(t, shared("login", "authentication"))
	assert.True(t, shared("signin", "session"))
	assert.True(t, shared("db", "database"))
	assert.True(t, shared("memoize", "cache"))
	assert.False(t, shared("login", "database"))
	assert.True(t, isConceptTerm(conceptTerm(3)))
	for _, group := range defaultSynonyms {
		for _, w := range group {
			terms := Analyze(w)
			assert.Len(t, terms, 1, "synonym %q should analyse to one term", w)
			assert.False(t, isConceptTerm(terms[0]))
		}
	}
}

func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{
		"", "companyId user_id HTTPServer", "users stay logged in", "Café Straße привет 日本語",
		"\xff\xfe", "a\u0301b", "MAX_RETRY_COUNT=3", "i18n a11y", "log in\x00sign up",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		terms := Analyze(s)
		for _, term := range terms {
			if term == "" || !utf8.ValidString(term) || len(term) > maxTokenLen {
				t.Fatalf("bad term %q from %q", term, s)
			}
		}
		again := Analyze(s)
		if strings.Join(terms, "\x00") != strings.Join(again, "\x00") {
			t.Fatalf("analysis of %q is not deterministic", s)
		}
	})
}

// splitTokens returns what split (the reference, rune by rune) and splitASCII emit for run.
func splitTokens(run string) (ref, fast []string) {
	var tz tokenizer
	tz.part, tz.comp = tz.arr[0][:0], tz.arr[1][:0]
	tz.split(run, func(tok []byte) { ref = append(ref, string(tok)) })
	var tz2 tokenizer
	tz2.splitASCII(run, func(tok []byte) {
		if cap(tok) < 16 {
			panic("token without packToken's slack")
		}
		fast = append(fast, string(tok))
	})
	return ref, fast
}

// asciiIdent maps b onto the bytes of an ASCII identifier run (letters, digits, underscores),
// capitals, digits and underscores frequent enough to meet every boundary rule.
func asciiIdent(b []byte) string {
	const alphabet = "aAbBzZ09_xXyY"
	out := make([]byte, len(b))
	for i, c := range b {
		if c >= 0x80 { // the whole range of a class, now and then
			out[i] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"[int(c)%63]
			continue
		}
		out[i] = alphabet[int(c)%len(alphabet)]
	}
	return string(out)
}

// TestSplitASCIIMatchesSplit: the byte-wise split of ASCII identifiers emits exactly what
// the rune-wise split does, on the boundary cases and on runs about maxTokenLen long.
func TestSplitASCIIMatchesSplit(t *testing.T) {
	t.Parallel()
	runs := []string{
		"companyId", "company_id", "HTTPServer", "parseJSONBody", "MAX_RETRY_COUNT",
		"base64Encode", "__init__", "_", "__", "A", "AB", "ABc", "aB", "a_b", "x1Y2z3",
		"IOError", "getHTTPResponseCode", "ID", "Id", "iD", "a__b", "_a_", "Z9", "9Z",
		strings.Repeat("a", 64) + "B", strings.Repeat("a", 65) + "Bc", strings.Repeat("Ab", 40),
		strings.Repeat("ab_", 30), strings.Repeat("x", 63) + "_y", strings.Repeat("Q", 70),
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaBbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaBbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbC",
	}
	for _, run := range runs {
		ref, fast := splitTokens(run)
		assert.Equal(t, ref, fast, "%q", run)
	}
}

func FuzzSplitASCII(f *testing.F) {
	for _, s := range []string{"companyId", "HTTPServer", "MAX_RETRY_COUNT", "a_b_C", "\x80\x81aZ"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		run := asciiIdent(b)
		ref, fast := splitTokens(run)
		if !slices.Equal(ref, fast) {
			t.Fatalf("%q: split %q, splitASCII %q", run, ref, fast)
		}
	})
}
