package vault

import (
	"strconv"
	"strings"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/storage"
)

// rankOf decodes the ranking fields of the node record at key (as rankCodec.Get). Records
// of the current version take scanRank's single pass; anything scanRank is not sure of
// goes through the codec, which decides (so the result, or the error, is encoding/json's
// in every case). scanRank also notes the node's type when it is plain (see rankNode).
func rankOf(nodes *bolt.Bucket, key []byte) (rankNode, error) {
	if nodes == nil {
		return rankNode{}, storage.ErrNotFound
	}
	raw := nodes.Get(key)
	if raw == nil {
		return rankNode{}, storage.ErrNotFound
	}
	if doc, ok := nodeCodec.Payload(raw); ok {
		if r, ok := scanRank(doc); ok {
			return r, nil
		}
	}
	return rankCodec.Unmarshal(raw)
}

// scanRank reads confidence and helpfulCount from a node record's JSON document in one
// pass. It is hand-written because a search ranks up to a few hundred hits by these two
// numbers, and encoding/json's validation pass and reflection over whole records were
// ~7 % of a build task's CPU at 100k nodes (a knowledge search ranks 240 hits). ok is
// true only for a document encoding/json accepts, with the values it would decode: a
// well-formed object whose two members (the last of each, as encoding/json keeps) are
// plain numbers under their exact names; anything else (an escaped or non-ASCII key, a
// key differing only in case, null, a fraction for the count, deep nesting) is left to
// encoding/json.
func scanRank(doc []byte) (r rankNode, ok bool) {
	s := rankScanner{b: doc}
	s.ws()
	if !s.eat('{') {
		return rankNode{}, false
	}
	s.ws()
	if !s.eat('}') {
		for {
			s.ws()
			start := s.p
			if !s.str() {
				return rankNode{}, false
			}
			key := doc[start+1 : s.p-1]
			s.ws()
			if !s.eat(':') {
				return rankNode{}, false
			}
			s.ws()
			switch {
			case string(key) == "confidence":
				tok, _ := s.num()
				if tok == nil {
					return rankNode{}, false
				}
				f, err := strconv.ParseFloat(string(tok), 64)
				if err != nil {
					return rankNode{}, false
				}
				r.Confidence = f
			case strings.EqualFold(string(key), "type"):
				// The type is noted when it is a plain ASCII string under its exact name
				// (the last such member wins, as in encoding/json); anything else leaves it
				// unknown, for the caller to read from the whole record.
				start := s.p
				if !s.value(0) {
					return rankNode{}, false
				}
				v := doc[start:s.p]
				r.typ, r.typOK = "", false
				if string(key) == "type" && len(v) >= 2 && v[0] == '"' && plainKey(v[1:len(v)-1]) {
					r.typ, r.typOK = NodeType(v[1:len(v)-1]), true
				}
			case string(key) == "helpfulCount":
				tok, isInt := s.num()
				if tok == nil || !isInt {
					return rankNode{}, false
				}
				n, err := strconv.ParseInt(string(tok), 10, strconv.IntSize)
				if err != nil {
					return rankNode{}, false
				}
				r.HelpfulCount = int(n)
			case !plainKey(key) || strings.EqualFold(string(key), "confidence") || strings.EqualFold(string(key), "helpfulCount"):
				// encoding/json matches names case-insensitively (with Unicode folding).
				return rankNode{}, false
			default:
				if !s.value(0) {
					return rankNode{}, false
				}
			}
			s.ws()
			if s.eat('}') {
				break
			}
			if !s.eat(',') {
				return rankNode{}, false
			}
		}
	}
	s.ws()
	return r, s.p == len(doc)
}

// plainKey reports a key (or string) of ASCII without escapes.
func plainKey(k []byte) bool {
	for _, c := range k {
		if c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
}

// rankScanner walks a JSON document, checking it as encoding/json does.
type rankScanner struct {
	b []byte
	p int
}

// maxRankDepth bounds the nesting scanRank follows (records nest two levels); deeper
// documents are left to encoding/json.
const maxRankDepth = 32

func (s *rankScanner) ws() {
	for s.p < len(s.b) {
		switch s.b[s.p] {
		case ' ', '\t', '\n', '\r':
			s.p++
		default:
			return
		}
	}
}

func (s *rankScanner) eat(c byte) bool {
	if s.p < len(s.b) && s.b[s.p] == c {
		s.p++
		return true
	}
	return false
}

// str skips a string (s.p at its opening quote).
func (s *rankScanner) str() bool {
	if !s.eat('"') {
		return false
	}
	for s.p < len(s.b) {
		c := s.b[s.p]
		switch {
		case c == '"':
			s.p++
			return true
		case c == '\\':
			if s.p+1 >= len(s.b) {
				return false
			}
			switch s.b[s.p+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.p += 2
			case 'u':
				if s.p+6 > len(s.b) {
					return false
				}
				for _, h := range s.b[s.p+2 : s.p+6] {
					if !isHex(h) {
						return false
					}
				}
				s.p += 6
			default:
				return false
			}
		case c < 0x20:
			return false
		default:
			s.p++
		}
	}
	return false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// num skips a number and returns its text (nil when there is none) and whether it has
// neither fraction nor exponent.
func (s *rankScanner) num() (tok []byte, isInt bool) {
	start := s.p
	s.eat('-')
	switch {
	case s.eat('0'):
	case s.p < len(s.b) && s.b[s.p] >= '1' && s.b[s.p] <= '9':
		for s.p < len(s.b) && isDigit(s.b[s.p]) {
			s.p++
		}
	default:
		return nil, false
	}
	isInt = true
	if s.eat('.') {
		isInt = false
		if !s.digits() {
			return nil, false
		}
	}
	if s.eat('e') || s.eat('E') {
		isInt = false
		if !s.eat('+') {
			s.eat('-')
		}
		if !s.digits() {
			return nil, false
		}
	}
	return s.b[start:s.p], isInt
}

// digits skips one or more digits.
func (s *rankScanner) digits() bool {
	start := s.p
	for s.p < len(s.b) && isDigit(s.b[s.p]) {
		s.p++
	}
	return s.p > start
}

func (s *rankScanner) lit(word string) bool {
	if len(s.b)-s.p >= len(word) && string(s.b[s.p:s.p+len(word)]) == word {
		s.p += len(word)
		return true
	}
	return false
}

// value skips any JSON value.
func (s *rankScanner) value(depth int) bool {
	if s.p >= len(s.b) || depth > maxRankDepth {
		return false
	}
	switch c := s.b[s.p]; {
	case c == '"':
		return s.str()
	case c == '-' || isDigit(c):
		tok, _ := s.num()
		return tok != nil
	case c == 't':
		return s.lit("true")
	case c == 'f':
		return s.lit("false")
	case c == 'n':
		return s.lit("null")
	case c == '[':
		s.p++
		s.ws()
		if s.eat(']') {
			return true
		}
		for {
			s.ws()
			if !s.value(depth + 1) {
				return false
			}
			s.ws()
			if s.eat(']') {
				return true
			}
			if !s.eat(',') {
				return false
			}
		}
	case c == '{':
		s.p++
		s.ws()
		if s.eat('}') {
			return true
		}
		for {
			s.ws()
			if !s.str() {
				return false
			}
			s.ws()
			if !s.eat(':') {
				return false
			}
			s.ws()
			if !s.value(depth + 1) {
				return false
			}
			s.ws()
			if s.eat('}') {
				return true
			}
			if !s.eat(',') {
				return false
			}
		}
	default:
		return false
	}
}
