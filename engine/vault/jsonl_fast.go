package vault

import (
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"
)

// decodeLineFast decodes one JSONL line into l without reflection, for the lines nova
// itself writes (and hand-written lines of the same shape): one object, exact-case keys of
// dumpLine, each at most once, with strings, plain numbers, booleans, a tags array and a
// meta object of strings. It reports false for anything else (unknown, duplicate or
// differently cased keys, null, nesting, a value the field's type rejects, a syntax
// error), leaving l in an unspecified state: the caller then decodes the line with
// encoding/json, whose result and errors are the reference. When it reports true, l is
// exactly what json.Unmarshal would have produced (FuzzDecodeLineFast checks it).
//
// Why hand-written: encoding/json's reflection was 12 % of a 100k-node import (issue 16),
// and a faster library would bring its own edge cases and error texts; with the fallback,
// every accepted line and every error stays encoding/json's.
func decodeLineFast(line []byte, l *dumpLine) bool {
	s := fastScanner{b: line}
	s.ws()
	if !s.eat('{') {
		return false
	}
	var seen uint32
	s.ws()
	if s.eat('}') {
		return s.end()
	}
	for {
		s.ws()
		key, ok := s.plainString()
		if !ok {
			return false
		}
		f, known := lineFields[string(key)]
		if !known || seen&(1<<f) != 0 {
			return false
		}
		seen |= 1 << f
		s.ws()
		if !s.eat(':') {
			return false
		}
		s.ws()
		if !s.field(f, l) {
			return false
		}
		s.ws()
		if s.eat(',') {
			continue
		}
		if s.eat('}') {
			return s.end()
		}
		return false
	}
}

// The keys decodeLineFast knows: dumpLine's, by their JSON names.
const (
	lfKind = iota
	lfID
	lfType
	lfTitle
	lfContent
	lfBody
	lfHasBody
	lfConfidence
	lfHelpfulCount
	lfUserID
	lfIsGlobal
	lfGlobalSuccessCount
	lfLanguage
	lfTags
	lfSource
	lfCreatedAt
	lfUpdatedAt
	lfMeta
	lfFrom
	lfTo
	lfRelation
	lfStrength
	lfFormat
	lfVersion
)

var lineFields = map[string]uint{
	"kind": lfKind, "id": lfID, "type": lfType, "title": lfTitle, "content": lfContent,
	"body": lfBody, "hasBody": lfHasBody, "confidence": lfConfidence,
	"helpfulCount": lfHelpfulCount, "userId": lfUserID, "isGlobal": lfIsGlobal,
	"globalSuccessCount": lfGlobalSuccessCount, "language": lfLanguage, "tags": lfTags,
	"source": lfSource, "createdAt": lfCreatedAt, "updatedAt": lfUpdatedAt, "meta": lfMeta,
	"from": lfFrom, "to": lfTo, "relation": lfRelation, "strength": lfStrength,
	"format": lfFormat, "version": lfVersion,
}

// fastScanner walks a JSON document the way encoding/json checks it: the JSONL
// decoder here and the ranking scan (rank.go) share it.
type fastScanner struct {
	b []byte
	i int
}

func (s *fastScanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *fastScanner) eat(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// end reports whether only whitespace is left.
func (s *fastScanner) end() bool {
	s.ws()
	return s.i == len(s.b)
}

// token returns the quoted string at s.i (quotes included) and whether it has escapes
// or bytes outside ASCII; ok is false when there is no well-formed string there.
func (s *fastScanner) token() (tok []byte, plain, ok bool) {
	if !s.eat('"') {
		return nil, false, false
	}
	start := s.i - 1
	plain = true
	for s.i < len(s.b) {
		c := s.b[s.i]
		if plainByte[c] { // most bytes: one table lookup
			s.i++
			continue
		}
		switch {
		case c == '"':
			s.i++
			return s.b[start:s.i], plain, true
		case c == '\\':
			plain = false
			s.i += 2 // the escaped byte cannot end the string
		case c < 0x20:
			return nil, false, false // a syntax error: encoding/json reports it
		default:
			if c >= utf8.RuneSelf {
				plain = false
			}
			s.i++
		}
	}
	return nil, false, false
}

// plainByte is true for the bytes that stand for themselves in a JSON string and are
// ASCII: everything from 0x20 to 0x7f but the quote and the backslash.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// plainString returns the contents of a string without escapes or non-ASCII bytes.
func (s *fastScanner) plainString() ([]byte, bool) {
	tok, plain, ok := s.token()
	if !ok || !plain {
		return nil, false
	}
	return tok[1 : len(tok)-1], true
}

// str decodes a string as encoding/json does.
func (s *fastScanner) str() (string, bool) {
	tok, plain, ok := s.token()
	switch {
	case !ok:
		return "", false
	case plain:
		return string(tok[1 : len(tok)-1]), true
	}
	raw := tok[1 : len(tok)-1]
	if !hasByte(raw, '\\') && utf8.Valid(raw) {
		return string(raw), true
	}
	// Escapes or invalid UTF-8 (which encoding/json replaces): its unquoting, on this
	// string alone.
	var out string
	if json.Unmarshal(tok, &out) != nil {
		return "", false
	}
	return out, true
}

func hasByte(b []byte, c byte) bool {
	for _, x := range b {
		if x == c {
			return true
		}
	}
	return false
}

// number returns a JSON number literal; integer is false when it has a fraction or an
// exponent.
func (s *fastScanner) number() (lit []byte, integer, ok bool) {
	start := s.i
	s.eat('-')
	digits := func() int {
		n := 0
		for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
			s.i++
			n++
		}
		return n
	}
	switch {
	case s.eat('0'):
	case digits() == 0:
		return nil, false, false
	}
	integer = true
	if s.eat('.') {
		integer = false
		if digits() == 0 {
			return nil, false, false
		}
	}
	if s.eat('e') || s.eat('E') {
		integer = false
		if !s.eat('+') {
			s.eat('-')
		}
		if digits() == 0 {
			return nil, false, false
		}
	}
	// What follows must end the value.
	if s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r', ',', '}', ']':
		default:
			return nil, false, false
		}
	}
	return s.b[start:s.i], integer, true
}

func (s *fastScanner) uint64() (uint64, bool) {
	lit, integer, ok := s.number()
	if !ok || !integer {
		return 0, false
	}
	n, err := strconv.ParseUint(string(lit), 10, 64)
	return n, err == nil
}

func (s *fastScanner) int() (int, bool) {
	lit, integer, ok := s.number()
	if !ok || !integer {
		return 0, false
	}
	n, err := strconv.ParseInt(string(lit), 10, strconv.IntSize)
	return int(n), err == nil
}

func (s *fastScanner) float() (float64, bool) {
	lit, _, ok := s.number()
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	return f, err == nil
}

func (s *fastScanner) bool() (v, ok bool) {
	rest := s.b[s.i:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		s.i += 4
		return true, s.delim()
	case len(rest) >= 5 && string(rest[:5]) == "false":
		s.i += 5
		return false, s.delim()
	}
	return false, false
}

// delim reports whether the value just read ends there.
func (s *fastScanner) delim() bool {
	if s.i == len(s.b) {
		return true
	}
	switch s.b[s.i] {
	case ' ', '\t', '\n', '\r', ',', '}', ']':
		return true
	}
	return false
}

func (s *fastScanner) time(t *time.Time) bool {
	tok, _, ok := s.token()
	return ok && t.UnmarshalJSON(tok) == nil
}

func (s *fastScanner) strings() ([]string, bool) {
	if !s.eat('[') {
		return nil, false
	}
	out := []string{}
	s.ws()
	if s.eat(']') {
		return out, true
	}
	for {
		s.ws()
		v, ok := s.str()
		if !ok {
			return nil, false
		}
		out = append(out, v)
		s.ws()
		if s.eat(',') {
			continue
		}
		return out, s.eat(']')
	}
}

func (s *fastScanner) stringMap() (map[string]string, bool) {
	if !s.eat('{') {
		return nil, false
	}
	out := map[string]string{}
	s.ws()
	if s.eat('}') {
		return out, true
	}
	for {
		s.ws()
		k, ok := s.str()
		if !ok {
			return nil, false
		}
		s.ws()
		if !s.eat(':') {
			return nil, false
		}
		s.ws()
		v, ok := s.str()
		if !ok {
			return nil, false
		}
		out[k] = v // a repeated key: the last wins, as in encoding/json
		s.ws()
		if s.eat(',') {
			continue
		}
		return out, s.eat('}')
	}
}

// field decodes the value of key f into l.
func (s *fastScanner) field(f uint, l *dumpLine) bool {
	var ok bool
	switch f {
	case lfKind:
		l.Kind, ok = s.str()
	case lfID:
		l.ID, ok = s.uint64()
	case lfType:
		var v string
		v, ok = s.str()
		l.Type = NodeType(v)
	case lfTitle:
		l.Title, ok = s.str()
	case lfContent:
		l.Content, ok = s.str()
	case lfBody:
		l.Body, ok = s.str()
	case lfHasBody:
		l.HasBody, ok = s.bool()
	case lfConfidence:
		var v float64
		if v, ok = s.float(); ok {
			l.Confidence = &v
		}
	case lfHelpfulCount:
		l.HelpfulCount, ok = s.int()
	case lfUserID:
		l.UserID, ok = s.str()
	case lfIsGlobal:
		l.IsGlobal, ok = s.bool()
	case lfGlobalSuccessCount:
		l.GlobalSuccessCount, ok = s.int()
	case lfLanguage:
		l.Language, ok = s.str()
	case lfTags:
		l.Tags, ok = s.strings()
	case lfSource:
		l.Source, ok = s.str()
	case lfCreatedAt:
		ok = s.time(&l.CreatedAt)
	case lfUpdatedAt:
		ok = s.time(&l.UpdatedAt)
	case lfMeta:
		l.Meta, ok = s.stringMap()
	case lfFrom:
		l.From, ok = s.uint64()
	case lfTo:
		l.To, ok = s.uint64()
	case lfRelation:
		var v string
		if v, ok = s.str(); ok {
			r := Relation(v)
			l.Relation = &r
		}
	case lfStrength:
		var v float64
		if v, ok = s.float(); ok {
			l.Strength = &v
		}
	case lfFormat:
		l.Format, ok = s.str()
	case lfVersion:
		l.Version, ok = s.int()
	}
	return ok
}
