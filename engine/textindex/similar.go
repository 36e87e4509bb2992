package textindex

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// Errors of the near-duplicate detector.
var (
	// ErrMinHashParams reports a hash count that is not a positive multiple of the band count.
	ErrMinHashParams = errors.New("textindex: number of hashes must be a positive multiple of the number of bands")
	// ErrSignatureLength reports a signature made by a MinHasher of another size.
	ErrSignatureLength = errors.New("textindex: signature length does not match the detector")
)

// eachWord calls fn with every word of s: a run of letters and digits, lowercased and
// accent-folded. Unlike the index analyzer it keeps stop words and one-letter words, does not
// stem and does not split identifiers: similarity thresholds (dedup at 0.7, curation at
// 0.65) are meant on the words as written.
func eachWord(s string, fn func(w []byte)) {
	var buf []byte
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		i += size
		switch runeClass(r) {
		case clsLower, clsUpper, clsDigit:
			buf = appendFolded(buf, r)
		case clsMark:
		default:
			if len(buf) > 0 {
				fn(buf)
				buf = buf[:0]
			}
		}
	}
	if len(buf) > 0 {
		fn(buf)
	}
}

// WordTokens returns the set of words of s, lowercased and accent-folded; see [Jaccard].
func WordTokens(s string) map[string]struct{} {
	set := map[string]struct{}{}
	eachWord(s, func(w []byte) { set[string(w)] = struct{}{} })
	return set
}

// Jaccard returns the Jaccard similarity of the word sets of a and b: |A∩B| / |A∪B|, from 0
// to 1. Words are runs of letters and digits, compared case- and accent-insensitively, with
// no stemming. Two texts without words are identical (1).
func Jaccard(a, b string) float64 {
	return JaccardSets(WordTokens(a), WordTokens(b))
}

// JaccardSets returns |A∩B| / |A∪B|; two empty sets have similarity 1.
func JaccardSets[T comparable](a, b map[T]struct{}) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	inter := 0
	for k := range a {
		if _, ok := b[k]; ok {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// WordShingles returns the set of runs of k consecutive words of s, joined by single spaces
// (words as in [WordTokens]). A text of fewer than k words (but at least one) is one shingle;
// k < 1 counts as 1.
func WordShingles(s string, k int) map[string]struct{} {
	k = max(k, 1)
	var words []string
	eachWord(s, func(w []byte) { words = append(words, string(w)) })
	set := map[string]struct{}{}
	if len(words) == 0 {
		return set
	}
	if len(words) < k {
		set[strings.Join(words, " ")] = struct{}{}
		return set
	}
	for i := 0; i+k <= len(words); i++ {
		set[strings.Join(words[i:i+k], " ")] = struct{}{}
	}
	return set
}

// CharShingles returns the set of k-rune windows of s after normalisation: words as in
// [WordTokens], separated by single spaces. A normalised text shorter than k runes (but not
// empty) is one shingle; k < 1 counts as 1.
func CharShingles(s string, k int) map[string]struct{} {
	k = max(k, 1)
	var norm []byte
	eachWord(s, func(w []byte) {
		if len(norm) > 0 {
			norm = append(norm, ' ')
		}
		norm = append(norm, w...)
	})
	set := map[string]struct{}{}
	if len(norm) == 0 {
		return set
	}
	// starts[i] is the byte offset of rune i; windows are [starts[i], starts[i+k]).
	starts := make([]int, 0, len(norm)+1)
	for i := range string(norm) {
		starts = append(starts, i)
	}
	starts = append(starts, len(norm))
	runes := len(starts) - 1
	if runes < k {
		set[string(norm)] = struct{}{}
		return set
	}
	for i := 0; i+k <= runes; i++ {
		set[string(norm[starts[i]:starts[i+k]])] = struct{}{}
	}
	return set
}

// mix64 is the splitmix64 finaliser: a fast bijective 64-bit mixer.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// hashBytes is 64-bit FNV-1a followed by mix64; deterministic across runs and processes
// (hash/maphash is randomly seeded per process, which would make stored signatures useless).
// It is inlined rather than taken from hash/fnv, whose hash.Hash64 interface costs an
// allocation and an indirect call per word.
func hashBytes(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return mix64(h)
}

// Signature is a MinHash signature: per hash function, the minimum hash over a set.
type Signature []uint64

// Similarity estimates the Jaccard similarity of the sets behind two signatures of the same
// MinHasher: the fraction of positions where they agree. Signatures of different lengths
// have similarity 0.
func (s Signature) Similarity(o Signature) float64 {
	if len(s) != len(o) || len(s) == 0 {
		return 0
	}
	eq := 0
	for i := range s {
		if s[i] == o[i] {
			eq++
		}
	}
	return float64(eq) / float64(len(s))
}

// MinHasher computes MinHash signatures with a fixed family of hash functions, so signatures
// are comparable across runs and can be stored. It is safe for concurrent use.
type MinHasher struct {
	seeds []uint64
	bands int
}

// NewMinHasher returns a MinHasher with numHashes hash functions whose signatures an [LSH]
// splits into bands bands of numHashes/bands rows. More hashes give a more precise estimate
// (standard error ≈ sqrt(J(1-J)/numHashes)); the band count sets where the LSH's candidate
// probability rises, around [MinHasher.Threshold]. See [SuggestBands].
func NewMinHasher(numHashes, bands int) (*MinHasher, error) {
	if numHashes <= 0 || bands <= 0 || numHashes%bands != 0 {
		return nil, fmt.Errorf("new minhasher (%d hashes, %d bands): %w", numHashes, bands, ErrMinHashParams)
	}
	m := &MinHasher{seeds: make([]uint64, numHashes), bands: bands}
	state := uint64(0x6e6f7661) // fixed seed: "nova"
	for i := range m.seeds {
		state += 0x9e3779b97f4a7c15
		m.seeds[i] = mix64(state)
	}
	return m, nil
}

// NumHashes returns the signature length.
func (m *MinHasher) NumHashes() int { return len(m.seeds) }

// Bands returns the number of LSH bands.
func (m *MinHasher) Bands() int { return m.bands }

// Threshold returns the approximate similarity (1/b)^(1/r) at which two documents become LSH
// candidates with probability about one half or more.
func (m *MinHasher) Threshold() float64 {
	r := float64(len(m.seeds) / m.bands)
	return math.Pow(1/float64(m.bands), 1/r)
}

// Signature returns the signature of the word set of text (see [WordTokens]), so that
// estimates approximate [Jaccard]. For long documents, word shingles usually separate
// near-duplicates from same-topic documents better: use
// m.SignatureOf(WordShingles(text, 3)).
func (m *MinHasher) Signature(text string) Signature {
	sig := m.empty()
	eachWord(text, func(w []byte) { m.update(sig, hashBytes(w)) })
	return sig
}

// SignatureOf returns the signature of a set of strings (e.g. shingles).
func (m *MinHasher) SignatureOf(set map[string]struct{}) Signature {
	sig := m.empty()
	for s := range set {
		m.update(sig, hashBytes([]byte(s)))
	}
	return sig
}

// ShingleSignature returns SignatureOf(WordShingles(s, k)) without building the set: the
// hash of every k-word window is computed over the words in place, then all of them are
// folded into the signature at once (foldMinMix). Importing a library computes one per file.
func (m *MinHasher) ShingleSignature(s string, k int) Signature {
	return m.ShingleSignatureJoined(k, s)
}

// ShingleSignatureJoined is ShingleSignature(strings.Join(parts, "\n"), k) without joining
// the parts: a part ends a word just as the newline between two parts does, so the words,
// and with them the shingles, are the same. An import hashes every file's title and body so.
func (m *MinHasher) ShingleSignatureJoined(k int, parts ...string) Signature {
	k = max(k, 1)
	sc := shingleScratch.Get().(*shingleBufs)
	defer shingleScratch.Put(sc)
	if cap(sc.states) < k {
		sc.states = make([]uint64, k)
	}
	sh := shingler{k: k, st: sc.states[:k], hashes: sc.hashes[:0]}
	for _, s := range parts {
		sh.add(s)
	}
	sh.finish()
	sig := m.empty()
	m.foldMinMix(sig, sh.hashes)
	if cap(sh.hashes) <= 1<<17 { // kept grown for the next call, unless a huge text grew it
		sc.hashes = sh.hashes
	}
	return sig
}

// FNV-1a's parameters (hashBytes).
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// shingler hashes the k-word windows of a text in one pass, as its words are found: the
// hash of a window is hashBytes of its words (as eachWord splits and folds them) joined by
// single spaces; a text of fewer than k words (but at least one) is one window. Every byte
// of a word goes into the FNV states of the (up to k) windows open at that word at once:
// the states are independent, so the multiplications overlap instead of waiting on each
// other, and no copy of the words is made.
type shingler struct {
	k      int
	st     []uint64 // FNV states of the open windows, oldest first; len k
	open   int      // windows open (started and not yet k words long)
	words  int      // words finished
	inWord bool
	hashes []uint64 // finished windows' hashes
}

// add feeds s; its end ends a word.
func (sh *shingler) add(s string) {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if wordASCII[c] {
				// A run of ASCII letters and digits, folded in line.
				i = sh.asciiRun(s, i)
				continue
			}
			i++
		} else {
			r, size := utf8.DecodeRuneInString(s[i:])
			i += size
			switch runeClass(r) {
			case clsLower, clsUpper, clsDigit:
				var tmp [8]byte
				for _, b := range appendFolded(tmp[:0], r) {
					sh.byte(b)
				}
				continue
			case clsMark:
				continue
			}
		}
		sh.endWord()
	}
	sh.endWord()
}

// asciiRun feeds the run of ASCII letters and digits of s from i (lowercased), and returns
// where it ends. The run is found as it is hashed, in one pass.
func (sh *shingler) asciiRun(s string, i int) int {
	if !sh.inWord {
		sh.startWord()
	}
	st := sh.st[:sh.open]
	if len(st) == 3 { // the import's k, once a text is three words in
		a, b, c := st[0], st[1], st[2]
		for ; i < len(s) && wordASCII[s[i]]; i++ {
			x := uint64(s[i] | 0x20) // lowercase: letters' and digits' 0x20 bit
			a = (a ^ x) * fnvPrime
			b = (b ^ x) * fnvPrime
			c = (c ^ x) * fnvPrime
		}
		st[0], st[1], st[2] = a, b, c
		return i
	}
	for ; i < len(s) && wordASCII[s[i]]; i++ {
		x := uint64(s[i] | 0x20)
		for j := range st {
			st[j] = (st[j] ^ x) * fnvPrime
		}
	}
	return i
}

// wordASCII marks the ASCII letters and digits (the bytes of words that need no decoding).
var wordASCII = func() (t [256]bool) {
	for c := range utf8.RuneSelf {
		switch asciiClass[c] {
		case clsLower, clsUpper, clsDigit:
			t[c] = true
		}
	}
	return t
}()

// byte feeds one byte of a word.
func (sh *shingler) byte(c byte) {
	if !sh.inWord {
		sh.startWord()
	}
	st := sh.st[:sh.open]
	for j := range st {
		st[j] = (st[j] ^ uint64(c)) * fnvPrime
	}
}

// startWord puts the space between words into the open windows and opens one at this word.
func (sh *shingler) startWord() {
	sh.inWord = true
	st := sh.st[:sh.open]
	for j := range st {
		st[j] = (st[j] ^ ' ') * fnvPrime
	}
	sh.st[sh.open] = fnvOffset
	sh.open++
}

// endWord ends the word being read, if any; the oldest window is complete when it has k words.
func (sh *shingler) endWord() {
	if !sh.inWord {
		return
	}
	sh.inWord = false
	sh.words++
	if sh.open == sh.k {
		sh.hashes = append(sh.hashes, mix64(sh.st[0]))
		copy(sh.st, sh.st[1:])
		sh.open--
	}
}

// finish ends the text: one with fewer than k words is a single window of all of them.
func (sh *shingler) finish() {
	sh.endWord()
	if sh.words > 0 && sh.words < sh.k {
		sh.hashes = append(sh.hashes, mix64(sh.st[0]))
	}
}

// foldMinMix is update for every hash of hashes.
func (m *MinHasher) foldMinMix(sig Signature, hashes []uint64) {
	if len(hashes) == 0 {
		return
	}
	if hasMinMix512 && len(m.seeds)%8 == 0 && len(sig) == len(m.seeds) {
		minMix512(sig, m.seeds, hashes)
		return
	}
	minMix512Generic(sig, m.seeds, hashes)
}

// minMix512Generic is minMix512 in Go.
func minMix512Generic(sig, seeds, hashes []uint64) {
	for _, h := range hashes {
		for i, seed := range seeds {
			sig[i] = min(sig[i], mix64(h^seed))
		}
	}
}

// shingleBufs is ShingleSignature's working memory, pooled: an import computes one
// signature per file, and growing these slices afresh each time was most of its allocation.
type shingleBufs struct {
	states []uint64
	hashes []uint64
}

var shingleScratch = sync.Pool{New: func() any { return new(shingleBufs) }}

func (m *MinHasher) empty() Signature {
	sig := make(Signature, len(m.seeds))
	for i := range sig {
		sig[i] = math.MaxUint64
	}
	return sig
}

func (m *MinHasher) update(sig Signature, h uint64) {
	for i, seed := range m.seeds {
		sig[i] = min(sig[i], mix64(h^seed))
	}
}

// SuggestBands returns the number of bands (a divisor of numHashes) that makes pairs with
// similarity at least threshold LSH candidates with probability ≥ 0.95 while admitting as few
// less similar pairs as possible: the largest rows-per-band that still gives that recall.
func SuggestBands(numHashes int, threshold float64) int {
	if numHashes <= 0 {
		return 1
	}
	best := numHashes // one row per band: the most permissive
	bestT := 0.0
	for b := 1; b <= numHashes; b++ {
		if numHashes%b != 0 {
			continue
		}
		r := float64(numHashes / b)
		recall := 1 - math.Pow(1-math.Pow(threshold, r), float64(b))
		if t := math.Pow(1/float64(b), 1/r); recall >= 0.95 && t > bestT {
			best, bestT = b, t
		}
	}
	return best
}

// Match is a near-duplicate found by [LSH.Near].
type Match struct {
	ID         uint64
	Similarity float64 // estimated Jaccard similarity
}

// LSH is a banded locality-sensitive hash over MinHash signatures: two signatures that agree
// on every row of at least one band are candidates. It is safe for concurrent use.
type LSH struct {
	mu    sync.RWMutex
	bands int
	rows  int
	// buckets[b] maps a band key to the first id stored under it, more[b] to the others
	// (nil until a key has two). Nearly every key has one id: a map of ids instead of a
	// map of id slices spares an allocation per band per signature and half the memory.
	buckets []map[uint64]uint64
	more    []map[uint64][]uint64
	sigs    map[uint64]Signature
}

// NewLSH returns an empty LSH for signatures of m.
func NewLSH(m *MinHasher) *LSH {
	l := &LSH{
		bands:   m.bands,
		rows:    len(m.seeds) / m.bands,
		buckets: make([]map[uint64]uint64, m.bands),
		more:    make([]map[uint64][]uint64, m.bands),
		sigs:    map[uint64]Signature{},
	}
	for i := range l.buckets {
		l.buckets[i] = map[uint64]uint64{}
	}
	return l
}

func (l *LSH) bandKey(sig Signature, band int) uint64 {
	return BandKey(sig[band*l.rows:(band+1)*l.rows], band)
}

// BandKey is the LSH's key of band number band, whose rows are given: two signatures are
// candidates when the keys of one of their bands agree. The importer's batch comparison
// groups files by it.
func BandKey(rows []uint64, band int) uint64 {
	h := uint64(band) + 1
	for _, v := range rows {
		h = mix64(h ^ v)
	}
	return h
}

// Reserve makes room for about n signatures in an LSH that holds none yet (so its maps do
// not grow by rehashing while they are filled); otherwise it does nothing.
func (l *LSH) Reserve(n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.sigs) > 0 || n <= 0 {
		return
	}
	l.sigs = make(map[uint64]Signature, n)
	for i := range l.buckets {
		l.buckets[i] = make(map[uint64]uint64, n)
	}
}

// Add stores a signature under id, replacing any signature stored under the same id.
func (l *LSH) Add(id uint64, sig Signature) error {
	return l.add(id, slices.Clone(sig))
}

// AddShared is Add without the copy of sig: the LSH keeps sig itself, so the caller must
// never change its elements afterwards (a caller that holds many signatures anyway saves
// their memory twice over).
func (l *LSH) AddShared(id uint64, sig Signature) error {
	return l.add(id, sig)
}

func (l *LSH) add(id uint64, sig Signature) error {
	if len(sig) != l.bands*l.rows {
		return fmt.Errorf("lsh add %d: %w", id, ErrSignatureLength)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.removeLocked(id)
	l.sigs[id] = sig
	for b := range l.bands {
		k := l.bandKey(sig, b)
		if _, taken := l.buckets[b][k]; !taken {
			l.buckets[b][k] = id
			continue
		}
		if l.more[b] == nil {
			l.more[b] = map[uint64][]uint64{}
		}
		l.more[b][k] = append(l.more[b][k], id)
	}
	return nil
}

// Remove deletes the signature stored under id and reports whether there was one.
func (l *LSH) Remove(id uint64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.removeLocked(id)
}

func (l *LSH) removeLocked(id uint64) bool {
	sig, ok := l.sigs[id]
	if !ok {
		return false
	}
	delete(l.sigs, id)
	for b := range l.bands {
		k := l.bandKey(sig, b)
		others := l.more[b][k] // nil when the key has one id or l.more[b] is nil
		if first := l.buckets[b][k]; first == id {
			if len(others) == 0 {
				delete(l.buckets[b], k)
				continue
			}
			l.buckets[b][k], others = others[0], others[1:]
		} else {
			others = slices.DeleteFunc(others, func(x uint64) bool { return x == id })
		}
		if len(others) == 0 {
			delete(l.more[b], k)
		} else {
			l.more[b][k] = others
		}
	}
	return true
}

// Len returns the number of stored signatures.
func (l *LSH) Len() int {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return len(l.sigs)
}

// Candidates returns the ids, ascending, of stored signatures that share at least one band
// with sig. A signature of the wrong length has no candidates.
func (l *LSH) Candidates(sig Signature) []uint64 {
	if len(sig) != l.bands*l.rows {
		return nil
	}
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.candidatesLocked(sig)
}

func (l *LSH) candidatesLocked(sig Signature) []uint64 {
	var out []uint64
	for b := range l.bands {
		k := l.bandKey(sig, b)
		if first, ok := l.buckets[b][k]; ok {
			out = append(out, first)
			out = append(out, l.more[b][k]...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Near returns the candidates whose estimated similarity to sig is at least threshold, most
// similar first (ties by ascending id). This is the near-duplicate test: candidates come
// from the bands, the threshold is then applied to the full signature.
func (l *LSH) Near(sig Signature, threshold float64) []Match {
	if len(sig) != l.bands*l.rows {
		return nil
	}
	l.mu.RLock()
	defer l.mu.RUnlock()
	var out []Match
	for _, id := range l.candidatesLocked(sig) {
		if s := sig.Similarity(l.sigs[id]); s >= threshold {
			out = append(out, Match{ID: id, Similarity: s})
		}
	}
	slices.SortFunc(out, func(a, b Match) int {
		return cmp.Or(cmp.Compare(b.Similarity, a.Similarity), cmp.Compare(a.ID, b.ID))
	})
	return out
}
