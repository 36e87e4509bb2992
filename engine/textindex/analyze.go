package textindex

import (
	"unicode"
	"unicode/utf8"
)

// maxTokenLen bounds a token in bytes. Longer runs of letters are hashes, base64 blobs or
// minified code; they are dropped rather than indexed.
const maxTokenLen = 64

// Character classes of the tokenizer.
const (
	clsSep uint8 = iota
	clsLower
	clsUpper
	clsDigit
	clsUnder
	clsMark // combining mark: part of a word, dropped from the output
)

var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = clsLower
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = clsUpper
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = clsDigit
	}
	t['_'] = clsUnder
	return t
}()

// runeClass classifies a rune; non-letters and non-digits are separators.
func runeClass(r rune) uint8 {
	if r < utf8.RuneSelf {
		return asciiClass[r]
	}
	switch {
	case unicode.Is(unicode.Mn, r):
		return clsMark
	case unicode.IsUpper(r):
		return clsUpper
	case unicode.IsLetter(r):
		return clsLower // lowercase, titlecase and caseless letters
	case unicode.IsDigit(r):
		return clsDigit
	}
	return clsSep
}

// foldTable maps lowercase Latin letters with diacritics to their ASCII base, so that "café"
// and "cafe" are the same token. (golang.org/x/text would do full Unicode normalisation, but
// this package is limited to the standard library and Latin text is what shows up in code.)
var foldTable = func() (t [0x250]string) {
	pairs := []string{
		"àáâãäåāăą", "a", "çćĉċč", "c", "ďđð", "d", "èéêëēĕėęě", "e", "ĝğġģ", "g",
		"ĥħ", "h", "ìíîïĩīĭįı", "i", "ĵ", "j", "ķ", "k", "ĺļľŀł", "l", "ñńņňŉ", "n",
		"òóôõöøōŏő", "o", "ŕŗř", "r", "śŝşšș", "s", "ţťŧț", "t", "ùúûüũūŭůűų", "u",
		"ŵ", "w", "ýÿŷ", "y", "źżž", "z", "ß", "ss", "æ", "ae", "œ", "oe", "þ", "th", "ĳ", "ij",
	}
	for i := 0; i < len(pairs); i += 2 {
		for _, r := range pairs[i] {
			t[r] = pairs[i+1]
		}
	}
	return t
}()

// appendFolded appends the lowercase, accent-folded form of r.
func appendFolded(b []byte, r rune) []byte {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		return append(b, byte(r))
	}
	r = unicode.ToLower(r)
	if r < rune(len(foldTable)) && foldTable[r] != "" {
		return append(b, foldTable[r]...)
	}
	return utf8.AppendRune(b, r)
}

// byteClass classifies bytes for the tokenizer's fast path: all bytes >= 0x80 are
// clsNonASCII and need rune decoding.
const clsNonASCII = clsMark + 1

var byteClass = func() (t [256]uint8) {
	copy(t[:], asciiClass[:])
	for c := utf8.RuneSelf; c < 256; c++ {
		t[c] = clsNonASCII
	}
	return t
}()

// tokenizer splits text into lowercase, accent-folded surface tokens. A run of letters,
// digits and underscores is one identifier; it is split on underscores and on case changes
// (companyId → company, id; HTTPServer → http, server) and, when it has several parts, the
// joined form is emitted as well (companyid, httpserver), so user_id and userId meet.
// Letter–digit changes do not split (i18n, utf8, oauth2). Tokens shorter than two bytes or
// longer than maxTokenLen are dropped. The zero value is ready to use; it is not safe for
// concurrent use.
type tokenizer struct {
	part []byte
	comp []byte
	arr  [2][maxTokenLen + 16]byte // backing arrays of part and comp, with slack for packToken
}

// each calls emit for every token of s. The slice passed to emit is valid only during the
// call; its capacity is at least 16 bytes (see packToken).
func (tz *tokenizer) each(s string, emit func(tok []byte)) {
	if tz.part == nil {
		tz.part, tz.comp = tz.arr[0][:0], tz.arr[1][:0]
	}
	n := len(s)
	i := 0
	for i < n {
		cl := byteClass[s[i]]
		if cl == clsSep {
			i++
			continue
		}
		if cl == clsNonASCII {
			r, size := utf8.DecodeRuneInString(s[i:])
			if runeClass(r) == clsSep {
				i += size
				continue
			}
		}
		start := i
		simple := true // only ASCII lowercase letters and digits
		ascii := true
		for i < n {
			cl := byteClass[s[i]]
			if cl == clsLower || cl == clsDigit {
				i++
				continue
			}
			if cl == clsSep {
				break
			}
			simple = false
			if cl != clsNonASCII {
				i++
				continue
			}
			ascii = false
			r, size := utf8.DecodeRuneInString(s[i:])
			if runeClass(r) == clsSep {
				break
			}
			i += size
		}
		switch {
		case simple:
			if l := i - start; l >= 2 && l <= maxTokenLen {
				tz.part = append(tz.part[:0], s[start:i]...)
				emit(tz.part)
			}
		case ascii:
			tz.splitASCII(s[start:i], emit)
		default:
			tz.split(s[start:i], emit)
		}
	}
}

// splitASCII is split for a run of ASCII letters, digits and underscores: it finds the
// parts' bounds by bytes and lowercases each part as a whole, where split decodes, classifies
// and folds rune by rune (the identifiers of code and generated text are nearly all ASCII,
// and their splitting was most of the analysis of a bulk load). FuzzSplitASCII holds it to
// split.
func (tz *tokenizer) splitASCII(run string, emit func(tok []byte)) {
	if tz.part == nil {
		tz.part, tz.comp = tz.arr[0][:0], tz.arr[1][:0]
	}
	tz.comp = tz.comp[:0]
	parts := 0
	ps := 0 // start of the current part
	prev := clsSep
	for j := 0; j < len(run); j++ {
		cl := byteClass[run[j]]
		switch cl {
		case clsUnder:
			if j > ps {
				parts++
				tz.emitPart(run[ps:j], emit)
			}
			ps, prev = j+1, clsSep
			continue
		case clsUpper:
			// A part ends before a capital after a lowercase letter or digit, and before
			// the last capital of a run of them that a lowercase letter follows (HTTPServer).
			if prev == clsLower || prev == clsDigit ||
				prev == clsUpper && j+1 < len(run) && byteClass[run[j+1]] == clsLower {
				parts++
				tz.emitPart(run[ps:j], emit)
				ps = j
			}
		}
		prev = cl
	}
	if ps < len(run) {
		parts++
		tz.emitPart(run[ps:], emit)
	}
	if parts >= 2 && len(tz.comp) >= 2 && len(tz.comp) <= maxTokenLen {
		emit(tz.comp)
	}
}

// emitPart emits part (ASCII letters and digits) lowercased, when it is a token, and adds it
// to the joined form, which is kept to maxTokenLen+1 bytes (enough to tell it is too long).
func (tz *tokenizer) emitPart(part string, emit func(tok []byte)) {
	if k := min(len(part), maxTokenLen+1-len(tz.comp)); k > 0 {
		for i := range k {
			tz.comp = append(tz.comp, part[i]|0x20) // lowercase: letters' and digits' 0x20 bit
		}
	}
	if len(part) < 2 || len(part) > maxTokenLen {
		return
	}
	tz.part = tz.part[:0]
	for i := range len(part) {
		tz.part = append(tz.part, part[i]|0x20)
	}
	emit(tz.part)
}

// split handles an identifier run that has capitals, underscores or non-ASCII letters.
func (tz *tokenizer) split(run string, emit func(tok []byte)) {
	tz.part = tz.part[:0]
	tz.comp = tz.comp[:0]
	parts := 0
	prev := clsSep
	for j := 0; j < len(run); {
		r, size := rune(run[j]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(run[j:])
		}
		cl := runeClass(r)
		j += size
		switch cl {
		case clsMark:
			continue
		case clsUnder:
			parts += tz.flush(emit)
			prev = clsSep
			continue
		case clsUpper:
			boundary := prev == clsLower || prev == clsDigit
			if !boundary && prev == clsUpper && j < len(run) {
				// "HTTPServer": the last capital before a lowercase letter starts a new part.
				nr, _ := utf8.DecodeRuneInString(run[j:])
				boundary = runeClass(nr) == clsLower
			}
			if boundary {
				parts += tz.flush(emit)
			}
		}
		prev = cl
		// Keep buffers bounded on pathological input; anything past maxTokenLen is dropped anyway.
		if len(tz.part) <= maxTokenLen {
			tz.part = appendFolded(tz.part, r)
		}
		if len(tz.comp) <= maxTokenLen {
			tz.comp = appendFolded(tz.comp, r)
		}
	}
	parts += tz.flush(emit)
	if parts >= 2 && len(tz.comp) >= 2 && len(tz.comp) <= maxTokenLen {
		emit(tz.comp)
	}
}

// flush emits the current part and reports whether it was non-empty.
func (tz *tokenizer) flush(emit func(tok []byte)) int {
	if len(tz.part) == 0 {
		return 0
	}
	if len(tz.part) >= 2 && len(tz.part) <= maxTokenLen {
		emit(tz.part)
	}
	tz.part = tz.part[:0]
	return 1
}

// stopWords are dropped from documents and queries. Words that carry meaning in programming
// rules ("new", "null", "use", "get", "set") are deliberately kept.
var stopWords = func() map[string]struct{} {
	words := []string{
		"about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any",
		"are", "aren", "as", "at", "be", "because", "been", "before", "being", "below",
		"between", "both", "but", "by", "can", "cannot", "could", "couldn", "did", "didn",
		"do", "does", "doesn", "doing", "don", "down", "during", "each", "eg", "etc", "few",
		"for", "from", "further", "had", "hadn", "has", "hasn", "have", "haven", "having",
		"he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "ie", "if",
		"in", "into", "is", "isn", "it", "its", "itself", "just", "ll", "may", "me", "might",
		"more", "most", "must", "my", "myself", "no", "nor", "not", "now", "of", "off", "on",
		"once", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own", "re",
		"same", "shall", "she", "should", "shouldn", "so", "some", "such", "than", "that",
		"the", "their", "theirs", "them", "themselves", "then", "there", "these", "they",
		"this", "those", "through", "to", "too", "under", "until", "up", "upon", "us", "ve",
		"very", "via", "was", "wasn", "we", "were", "weren", "what", "when", "where", "which",
		"while", "who", "whom", "why", "will", "with", "won", "would", "wouldn", "you",
		"your", "yours", "yourself", "yourselves",
	}
	m := make(map[string]struct{}, len(words))
	for _, w := range words {
		m[w] = struct{}{}
	}
	return m
}()

func isStopWord(tok []byte) bool {
	if len(tok) > stopWordLen {
		return false // most tokens of a bulk load: no map look-up
	}
	_, ok := stopWords[string(tok)]
	return ok
}

// keyLen returns the length of the longest key of m.
func keyLen[V any](m map[string]V) int {
	n := 0
	for k := range m {
		n = max(n, len(k))
	}
	return n
}

// The lengths of the longest stop word, phrase head or tail and irregular word: a longer
// token or stem is none of them, without a map look-up.
var (
	stopWordLen  = keyLen(stopWords)
	phraseLen    = max(keyLen(phraseHeads), keyLen(phraseTails))
	irregularLen = keyLen(stemIrregular)
)

// Phrase compounds: two-word expressions that mean one thing ("log in", "logged out",
// "sign up", "screen reader", "soft delete", "rate limit") are also indexed as one term
// (login, logout, signup, screenreader, softdelete, ratelimit), so that prose and identifiers
// meet and the concept groups apply. A head is the stem of the first word; a tail is the
// second word, a stop word by its surface form or another word by its stem.
var (
	phraseHeads = map[string]uint8{"log": 1, "sign": 2, "screen": 3, "soft": 4, "rat": 5}
	phraseTails = map[string]uint8{"in": 1, "out": 2, "up": 3, "on": 4, "read": 5, "delet": 6, "limit": 7}
	phraseTerms = map[[2]uint8]string{
		{1, 1}: "login", {1, 2}: "logout", {1, 4}: "logon",
		{2, 1}: "signin", {2, 2}: "signout", {2, 3}: "signup", {2, 4}: "signon",
		{3, 5}: "screenreader", {4, 6}: "softdelete", {5, 7}: "ratelimit",
	}
)

// tokInfo is what the analyzer knows about one surface token.
type tokInfo struct {
	stop bool
	head uint8 // phrase head code, 0 if none
	tail uint8 // phrase tail code, 0 if none
}

// normalize turns a surface token into its index term, written to dst[:0]. For a stop word
// the returned term is empty.
func normalize(dst, tok []byte) ([]byte, tokInfo) {
	if isStopWord(tok) {
		return dst[:0], tokInfo{stop: true, tail: phraseTails[string(tok)]}
	}
	dst = stem(append(dst[:0], tok...))
	if len(dst) > phraseLen {
		return dst, tokInfo{}
	}
	return dst, tokInfo{head: phraseHeads[string(dst)], tail: phraseTails[string(dst)]}
}

// phraseState tracks the previous token for phrase compounds.
type phraseState struct{ head uint8 }

// next records a token and returns the phrase compound it completes, if any.
func (p *phraseState) next(info tokInfo) string {
	prev := p.head
	p.head = info.head
	if prev != 0 && info.tail != 0 {
		return phraseTerms[[2]uint8{prev, info.tail}]
	}
	return ""
}

// Analyze returns the index terms of text in order: lowercased, accent-folded, identifiers
// split (and joined), stop words removed, stemmed, with phrase compounds such as "login" for
// "logged in". It is the same analysis the [Index] applies to documents and queries (queries
// are then expanded with synonyms). It never panics and always returns valid UTF-8.
func Analyze(text string) []string {
	var (
		tz     tokenizer
		buf    []byte
		phrase phraseState
		out    []string
	)
	tz.each(text, func(tok []byte) {
		var info tokInfo
		buf, info = normalize(buf, tok)
		if !info.stop {
			out = append(out, string(buf))
		}
		if p := phrase.next(info); p != "" {
			out = append(out, p)
		}
	})
	return out
}

// stemIrregular covers common words the suffix rules get wrong.
var stemIrregular = map[string]string{
	"used": "use", "using": "use", "embed": "embed", "indices": "index", "vertices": "vertex",
	"children": "child", "data": "data", "news": "news", "series": "series", "status": "status",
}

type suffixRule struct {
	suf, rep string
	min      int // minimum length of the result
	undouble bool
}

// derivational suffixes, first match wins.
var derivRules = []suffixRule{
	{"ization", "ize", 4, false},
	{"isation", "ise", 4, false},
	{"ational", "ate", 4, false},
	{"ation", "ate", 4, false},
	{"ator", "ate", 4, false},
	{"ment", "", 4, false},
	{"ness", "", 3, false},
	{"ity", "", 4, false},
	{"ly", "", 4, false},
	{"er", "", 4, true},
}

// stem is a light English stemmer, hand-written because go.mod pins no stemming library
// (no snowball/porter package) and only the standard library may be used. It applies, in
// order: Harman's S-stemmer for plurals; -ed/-ing (with undoubling: logging → log); one
// derivational suffix (-ization, -ation, -ator, -ment, -ness, -ity, -ly, -er); and a final
// -e (so cache/cached/caching all become "cach"). It is conflation for retrieval, not
// linguistics: stems need not be words, they only need to agree between documents and
// queries. Only ASCII-letter words of four or more letters are touched. It works in place.
func stem(b []byte) []byte {
	if len(b) < 4 || len(b) > maxTokenLen {
		return b
	}
	for _, c := range b {
		if c < 'a' || c > 'z' {
			return b // digits, non-ASCII: i18n, utf8, café
		}
	}
	if len(b) <= irregularLen {
		if s, ok := stemIrregular[string(b)]; ok {
			return append(b[:0], s...)
		}
	}
	// 1. Plurals (Harman 1991).
	switch {
	case hasSuffix(b, "ies") && !hasSuffix(b, "eies") && !hasSuffix(b, "aies"):
		if len(b) >= 5 {
			b = append(b[:len(b)-3], 'y')
		}
	case hasSuffix(b, "es") && !hasSuffix(b, "aes") && !hasSuffix(b, "ees") && !hasSuffix(b, "oes"):
		b = b[:len(b)-1]
	case hasSuffix(b, "s") && !hasSuffix(b, "us") && !hasSuffix(b, "ss") && !hasSuffix(b, "is"):
		b = b[:len(b)-1]
	}
	// 2. Inflections.
	switch {
	case hasSuffix(b, "eed"):
	case hasSuffix(b, "ied") && len(b) >= 5:
		b = append(b[:len(b)-3], 'y')
	case hasSuffix(b, "ing") && len(b) >= 6 && hasVowel(b[:len(b)-3]):
		b = undouble(b[:len(b)-3])
	case hasSuffix(b, "ed") && len(b) >= 5 && hasVowel(b[:len(b)-2]):
		b = undouble(b[:len(b)-2])
	}
	// 3. One derivational suffix.
	for _, r := range derivRules {
		if hasSuffix(b, r.suf) && len(b)-len(r.suf)+len(r.rep) >= r.min {
			b = append(b[:len(b)-len(r.suf)], r.rep...)
			if r.undouble {
				b = undouble(b)
			}
			break
		}
	}
	// 4. Final e.
	if len(b) >= 4 && b[len(b)-1] == 'e' {
		b = b[:len(b)-1]
	}
	return b
}

func hasSuffix(b []byte, suf string) bool {
	return len(b) >= len(suf) && string(b[len(b)-len(suf):]) == suf
}

func isVowel(c byte) bool {
	switch c {
	case 'a', 'e', 'i', 'o', 'u', 'y':
		return true
	}
	return false
}

func hasVowel(b []byte) bool {
	for _, c := range b {
		if isVowel(c) {
			return true
		}
	}
	return false
}

// undouble turns a final double consonant into a single one (stopp → stop), except l, s and
// z (call, pass, buzz), and never below three letters (add stays add).
func undouble(b []byte) []byte {
	n := len(b)
	if n >= 4 && b[n-1] == b[n-2] && !isVowel(b[n-1]) {
		switch b[n-1] {
		case 'l', 's', 'z':
		default:
			return b[:n-1]
		}
	}
	return b
}
