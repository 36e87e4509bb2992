package textindex

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWordTokens(t *testing.T) {
	t.Parallel()
	got := WordTokens("Validate INPUT, validate output; café-crème a")
	assert.Equal(t, map[string]struct{}{
		"validate": {}, "input": {}, "output": {}, "cafe": {}, "creme": {}, "a": {},
	}, got)
	assert.Empty(t, WordTokens(" ... \xff "))
}

func TestJaccard(t *testing.T) {
	t.Parallel()
	cases := []struct {
		a, b string
		want float64
	}{
		{"a b c", "a b d", 2.0 / 4},
		{"a b c", "A, B. C!", 1},
		{"a b c", "x y z", 0},
		{"a a a b", "a b", 1},
		{"", "", 1},
		{"", "a", 0},
		{"one two three four", "one two", 0.5},
	}
	for _, c := range cases {
		assert.InDelta(t, c.want, Jaccard(c.a, c.b), 1e-12, "%q vs %q", c.a, c.b)
		assert.InDelta(t, c.want, Jaccard(c.b, c.a), 1e-12, "symmetric")
	}
	// The dedup thresholds nova uses: a reworded lesson is a duplicate, a different one is not.
	dup := Jaccard("Always validate user input on the server before saving it",
		"Always validate the user input on the server before saving")
	assert.GreaterOrEqual(t, dup, 0.7)
	other := Jaccard("Always validate user input on the server before saving it",
		"Prefer table-driven tests with parallel subtests")
	assert.Less(t, other, 0.65)
}

func TestShingles(t *testing.T) {
	t.Parallel()
	ws := WordShingles("The quick brown fox, the quick", 2)
	assert.Equal(t, map[string]struct{}{
		"the quick": {}, "quick brown": {}, "brown fox": {}, "fox the": {},
	}, ws)
	assert.Equal(t, map[string]struct{}{"only two": {}}, WordShingles("only two", 3))
	assert.Empty(t, WordShingles("!!!", 2))
	assert.Len(t, WordShingles("a b c", 0), 3, "k < 1 counts as 1")

	cs := CharShingles("Ab  cd", 3)
	assert.Equal(t, map[string]struct{}{"ab ": {}, "b c": {}, " cd": {}}, cs)
	assert.Equal(t, map[string]struct{}{"xy": {}}, CharShingles("xy", 5))
	assert.Len(t, CharShingles("日本語です", 2), 4, "windows are runes, not bytes")
	assert.Empty(t, CharShingles("", 3))
}

func TestNewMinHasherErrors(t *testing.T) {
	t.Parallel()
	for _, p := range [][2]int{{0, 1}, {10, 3}, {10, 0}, {-4, 2}} {
		_, err := NewMinHasher(p[0], p[1])
		assert.ErrorIs(t, err, ErrMinHashParams, "%v", p)
	}
	m, err := NewMinHasher(128, 16)
	require.NoError(t, err)
	assert.Equal(t, 128, m.NumHashes())
	assert.Equal(t, 16, m.Bands())
	assert.InDelta(t, math.Pow(1.0/16, 1.0/8), m.Threshold(), 1e-12)
}

// randomSetPair returns two word sets over a shared pool with a chosen overlap.
func randomSetPair(rng *rand.Rand, size int, keep float64) (map[string]struct{}, map[string]struct{}) {
	a, b := map[string]struct{}{}, map[string]struct{}{}
	for len(a) < size {
		a[fmt.Sprintf("w%d", rng.IntN(1_000_000))] = struct{}{}
	}
	for w := range a {
		if rng.Float64() < keep {
			b[w] = struct{}{}
		}
	}
	for len(b) < size {
		b[fmt.Sprintf("v%d", rng.IntN(1_000_000))] = struct{}{}
	}
	return a, b
}

func TestMinHashEstimatesJaccard(t *testing.T) {
	t.Parallel()
	m, err := NewMinHasher(256, 32)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(3, 4))
	sumErr, maxErr := 0.0, 0.0
	const pairs = 60
	for i := range pairs {
		a, b := randomSetPair(rng, 50+rng.IntN(300), float64(i)/pairs)
		truth := JaccardSets(a, b)
		est := m.SignatureOf(a).Similarity(m.SignatureOf(b))
		d := math.Abs(est - truth)
		sumErr += d
		maxErr = max(maxErr, d)
	}
	// Standard error with 256 hashes is at most 0.031.
	assert.Less(t, sumErr/pairs, 0.035, "mean absolute error")
	assert.Less(t, maxErr, 0.13, "max absolute error")

	// Text signatures estimate Jaccard on words.
	x := "always wrap errors with a short lowercase context and the original error"
	y := "always wrap errors with short context and keep the original error value"
	assert.InDelta(t, Jaccard(x, y), m.Signature(x).Similarity(m.Signature(y)), 0.15)

	// Deterministic: a second MinHasher makes the same signatures.
	m2, err := NewMinHasher(256, 32)
	require.NoError(t, err)
	assert.Equal(t, m.Signature(x), m2.Signature(x))
	assert.InDelta(t, 1.0, m.Signature("").Similarity(m.Signature("")), 0)
	assert.InDelta(t, 0.0, m.Signature("").Similarity(m.Signature("word")), 0)
	assert.InDelta(t, 0.0, m.Signature(x).Similarity(m.Signature(x)[:10]), 0, "length mismatch")
}

func TestLSHFindsNearDuplicates(t *testing.T) {
	t.Parallel()
	const threshold = 0.7
	m, err := NewMinHasher(128, SuggestBands(128, threshold))
	require.NoError(t, err)
	lsh := NewLSH(m)
	rng := rand.New(rand.NewPCG(9, 9))
	g := newGenerator(77)
	texts := make([]string, 400)
	for i := range texts {
		var b strings.Builder
		g.text(&b, 600+rng.IntN(800))
		texts[i] = b.String()
		require.NoError(t, lsh.Add(uint64(i), m.Signature(texts[i])))
	}
	require.Equal(t, len(texts), lsh.Len())

	// A near-duplicate: a few words changed and a sentence appended.
	for i := 0; i < len(texts); i += 10 {
		words := strings.Fields(texts[i])
		for range len(words) / 20 {
			words[rng.IntN(len(words))] = "changed"
		}
		dup := strings.Join(words, " ") + " One more closing sentence."
		truth := Jaccard(texts[i], dup)
		require.GreaterOrEqual(t, truth, threshold+0.05, "generated pair is a near-duplicate")
		near := lsh.Near(m.Signature(dup), threshold)
		require.NotEmpty(t, near, "near-duplicate of %d", i)
		assert.Equal(t, uint64(i), near[0].ID)
		assert.InDelta(t, truth, near[0].Similarity, 0.15)
	}

	// Unrelated texts from the same generator are not near-duplicates of anything.
	falsePos := 0
	for range 100 {
		var b strings.Builder
		g.text(&b, 600+rng.IntN(800))
		falsePos += len(lsh.Near(m.Signature(b.String()), threshold))
	}
	assert.Zero(t, falsePos)

	assert.True(t, lsh.Remove(0))
	assert.False(t, lsh.Remove(0))
	assert.NotContains(t, lsh.Candidates(m.Signature(texts[0])), uint64(0))
	require.NoError(t, lsh.Add(1, m.Signature(texts[0])), "re-adding replaces")
	assert.Equal(t, []uint64{1}, ids2(lsh.Near(m.Signature(texts[0]), 0.99)))
	assert.Equal(t, len(texts)-1, lsh.Len())

	other, err := NewMinHasher(64, 8)
	require.NoError(t, err)
	assert.ErrorIs(t, lsh.Add(5, other.Signature("x")), ErrSignatureLength)
	assert.Nil(t, lsh.Candidates(other.Signature("x")))
	assert.Nil(t, lsh.Near(other.Signature("x"), 0.5))
}

func ids2(ms []Match) []uint64 {
	out := make([]uint64, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

func TestSuggestBands(t *testing.T) {
	t.Parallel()
	for _, n := range []int{64, 100, 128, 256} {
		for _, th := range []float64{0.5, 0.65, 0.7, 0.8, 0.9} {
			b := SuggestBands(n, th)
			require.Zero(t, n%b, "bands divide hashes")
			r := float64(n / b)
			recall := 1 - math.Pow(1-math.Pow(th, r), float64(b))
			assert.GreaterOrEqual(t, recall, 0.95, "n=%d threshold=%v bands=%d", n, th, b)
			// Fewer bands (more rows) would miss the recall target.
			for fewer := b - 1; fewer >= 1; fewer-- {
				if n%fewer == 0 {
					rr := float64(n / fewer)
					assert.Less(t, 1-math.Pow(1-math.Pow(th, rr), float64(fewer)), 0.95)
					break
				}
			}
		}
	}
}

func TestShingleSignatureMatchesSignatureOf(t *testing.T) {
	t.Parallel()
	m, err := NewMinHasher(64, 8)
	require.NoError(t, err)
	g := newGenerator(5)
	texts := []string{"", "one", "two words", "Café crème — brûlée, the end", "a a a a a a", "x1 y2_z3 HTTPServer"}
	for range 50 {
		texts = append(texts, g.doc(1).Fields[2].Text)
	}
	for _, s := range texts {
		for _, k := range []int{0, 1, 3, 5} {
			assert.Equal(t, m.SignatureOf(WordShingles(s, k)), m.ShingleSignature(s, k), "%q k=%d", s, k)
		}
	}
}

// A signature of parts is the signature of the parts joined by a newline, bit for bit, for
// every way of cutting a text into parts (an import hashes title and body without joining
// them; stored signatures must not change).
func TestShingleSignatureJoinedMatchesJoined(t *testing.T) {
	t.Parallel()
	m, err := NewMinHasher(128, 1)
	require.NoError(t, err)
	g := newGenerator(9)
	texts := [][]string{
		{}, {""}, {"", ""}, {"title"}, {"Title", "body words here"}, {"", "body only"}, {"title only", ""},
		{"Café", "\u0301crème brûlée"}, {"ends mid\xe2\x80", "\x9cword"}, {"a\n", "\nb"}, {"x y", "z", "w v u"},
		{"HTTPServer x1", "y2_z3 — the end."},
	}
	for range 30 {
		texts = append(texts, []string{g.doc(1).Fields[0].Text, g.doc(1).Fields[2].Text})
	}
	for _, parts := range texts {
		for _, k := range []int{0, 1, 3, 5} {
			assert.Equal(t, m.SignatureOf(WordShingles(strings.Join(parts, "\n"), k)), m.ShingleSignatureJoined(k, parts...), "%q k=%d", parts, k)
		}
	}
}

func FuzzShingleSignatureJoined(f *testing.F) {
	f.Add("Title", "a body of words", 3)
	f.Add("ends mid\xe2\x80", "\x9c\u0301word", 2)
	m, err := NewMinHasher(64, 1)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, title, body string, k int) {
		k = k % 8
		want := m.SignatureOf(WordShingles(title+"\n"+body, k))
		if got := m.ShingleSignatureJoined(k, title, body); !slices.Equal(want, got) {
			t.Fatalf("parts %q %q k=%d: %v != %v", title, body, k, got, want)
		}
	})
}

// The AVX-512 fold (when this machine has it) and the Go one agree exactly, on every length
// of hash list and on values at the edges of the unsigned range.
func TestMinMix512MatchesGeneric(t *testing.T) {
	t.Parallel()
	m, err := NewMinHasher(128, 1)
	require.NoError(t, err)
	t.Logf("AVX-512: %v", hasMinMix512)
	state := uint64(7)
	next := func() uint64 { state += 0x9e3779b97f4a7c15; return mix64(state) }
	for n := range 40 {
		hashes := make([]uint64, n)
		for i := range hashes {
			hashes[i] = next()
		}
		if n > 2 {
			hashes[0], hashes[1] = 0, ^uint64(0)
		}
		want, got := m.empty(), m.empty()
		minMix512Generic(want, m.seeds, hashes)
		m.foldMinMix(got, hashes)
		require.Equal(t, want, got, "%d hashes", n)
		if hasMinMix512 {
			direct := m.empty()
			minMix512(direct, m.seeds, hashes)
			require.Equal(t, want, direct, "%d hashes", n)
		}
	}
}

// The buckets (first id in one map, the others in a second) answer as a plain list per band
// key would: random adds, re-adds and removes over signatures that collide on many bands,
// checked against a brute-force scan after every step.
func TestLSHBucketsMatchBruteForce(t *testing.T) {
	t.Parallel()
	m, err := NewMinHasher(16, 8) // 8 bands of 2 rows
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(3, 4))
	sigOf := func() Signature { // values from a tiny alphabet: band keys collide often
		s := make(Signature, 16)
		for i := range s {
			s[i] = uint64(rng.IntN(3))
		}
		return s
	}
	lsh := NewLSH(m)
	stored := map[uint64]Signature{}
	brute := func(sig Signature) []uint64 {
		var out []uint64
		for id, s := range stored {
			for b := range 8 {
				if slices.Equal(s[2*b:2*b+2], sig[2*b:2*b+2]) {
					out = append(out, id)
					break
				}
			}
		}
		slices.Sort(out)
		return out
	}
	for step := range 3000 {
		id := uint64(rng.IntN(40))
		if rng.IntN(3) == 0 {
			_, had := stored[id]
			assert.Equal(t, had, lsh.Remove(id), "step %d remove %d", step, id)
			delete(stored, id)
		} else {
			sig := sigOf()
			require.NoError(t, lsh.Add(id, sig))
			stored[id] = sig
		}
		q := sigOf()
		assert.Equal(t, brute(q), lsh.Candidates(q), "step %d", step)
		assert.Equal(t, len(stored), lsh.Len())
	}
	for id := range stored {
		assert.True(t, lsh.Remove(id))
	}
	for b := range 8 {
		assert.Empty(t, lsh.buckets[b], "band %d keeps keys of removed ids", b)
		assert.Empty(t, lsh.more[b], "band %d keeps keys of removed ids", b)
	}
}

// An LSH filled with AddShared after Reserve answers exactly as one filled with Add.
func TestLSHReserveAndAddSharedMatchAdd(t *testing.T) {
	t.Parallel()
	m, err := NewMinHasher(128, SuggestBands(128, 0.8))
	require.NoError(t, err)
	plain, shared := NewLSH(m), NewLSH(m)
	shared.Reserve(300)
	g := newGenerator(5)
	sigs := make([]Signature, 300)
	for i := range sigs {
		var b strings.Builder
		g.text(&b, 200)
		if i%7 == 3 { // near-duplicates of an earlier text
			b.Reset()
			b.WriteString(strings.Repeat("same words again ", 20))
		}
		sigs[i] = m.Signature(b.String())
		require.NoError(t, plain.Add(uint64(i), sigs[i]))
		require.NoError(t, shared.AddShared(uint64(i), sigs[i]))
	}
	shared.Reserve(10) // not empty: nothing changes
	require.Equal(t, plain.Len(), shared.Len())
	for i, s := range sigs {
		assert.Equal(t, plain.Near(s, 0.8), shared.Near(s, 0.8), "signature %d", i)
	}
	require.ErrorIs(t, shared.AddShared(1, sigs[0][:5]), ErrSignatureLength)
	assert.True(t, shared.Remove(3))
	assert.NotContains(t, shared.Candidates(sigs[3]), uint64(3))
}

// checkShingles compares ShingleSignature (one pass, words hashed as they are found) with
// its definition, SignatureOf(WordShingles(s, k)) (eachWord's words, joined and hashed).
func checkShingles(t *testing.T, m *MinHasher, s string) {
	t.Helper()
	for _, k := range []int{1, 2, 3, 4} {
		if want, got := m.SignatureOf(WordShingles(s, k)), m.ShingleSignature(s, k); !slices.Equal(want, got) {
			t.Fatalf("%q k=%d: ShingleSignature differs from SignatureOf(WordShingles)", s, k)
		}
	}
}

func TestShingleSignatureSplitsAsEachWord(t *testing.T) {
	t.Parallel()
	m, err := NewMinHasher(64, 1)
	require.NoError(t, err)
	for _, s := range []string{
		"", " ", "word", "Hello, World! snake_case CamelCase x2 42",
		"Café crème brûlée ÆSIR straße", "e\u0301te\u0301 nai\u0308ve", "日本語 テキスト",
		"bad \xff\xfe bytes\xc3", "tab\tnew\nline--dash", "ΑΒΓ Ωmega", "a b", "a b c", "a b c d",
		"\u0301 lead mark", "Ǆ titlecase ǅ", "ĳssel Œuvre þorn",
	} {
		checkShingles(t, m, s)
	}
	g := newGenerator(11)
	var b strings.Builder
	g.text(&b, 3000)
	checkShingles(t, m, b.String())
}

func FuzzShingleSignature(f *testing.F) {
	f.Add("Hello, World! snake_case Café e\u0301")
	f.Add("bad \xff bytes")
	f.Add("one two")
	m, err := NewMinHasher(64, 1)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) { checkShingles(t, m, s) })
}
