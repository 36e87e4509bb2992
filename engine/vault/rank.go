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
	s := fastScanner{b: doc}
	s.ws()
	if !s.eat('{') {
		return rankNode{}, false
	}
	s.ws()
	if !s.eat('}') {
		for {
			s.ws()
			start := s.i
			if !s.skipString() {
				return rankNode{}, false
			}
			key := doc[start+1 : s.i-1]
			s.ws()
			if !s.eat(':') {
				return rankNode{}, false
			}
			s.ws()
			switch {
			case string(key) == "confidence":
				tok, _, ok := s.number()
				if !ok {
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
				start := s.i
				if !s.value(0) {
					return rankNode{}, false
				}
				v := doc[start:s.i]
				r.typ, r.typOK = "", false
				if string(key) == "type" && len(v) >= 2 && v[0] == '"' && plainKey(v[1:len(v)-1]) {
					r.typ, r.typOK = NodeType(v[1:len(v)-1]), true
				}
			case string(key) == "helpfulCount":
				tok, isInt, ok := s.number()
				if !ok || !isInt {
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
	return r, s.i == len(doc)
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

// maxRankDepth bounds the nesting scanRank follows (records nest two levels); deeper
// documents are left to encoding/json.
const maxRankDepth = 32

// skipString skips a string (s.i at its opening quote), checking its escapes as
// encoding/json does.
func (s *fastScanner) skipString() bool {
	if !s.eat('"') {
		return false
	}
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return true
		case c == '\\':
			if s.i+1 >= len(s.b) {
				return false
			}
			switch s.b[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if s.i+6 > len(s.b) {
					return false
				}
				for _, h := range s.b[s.i+2 : s.i+6] {
					if !isHex(h) {
						return false
					}
				}
				s.i += 6
			default:
				return false
			}
		case c < 0x20:
			return false
		default:
			s.i++
		}
	}
	return false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (s *fastScanner) lit(word string) bool {
	if len(s.b)-s.i >= len(word) && string(s.b[s.i:s.i+len(word)]) == word {
		s.i += len(word)
		return true
	}
	return false
}

// value skips any JSON value.
func (s *fastScanner) value(depth int) bool {
	if s.i >= len(s.b) || depth > maxRankDepth {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '"':
		return s.skipString()
	case c == '-' || isDigit(c):
		_, _, ok := s.number()
		return ok
	case c == 't':
		return s.lit("true")
	case c == 'f':
		return s.lit("false")
	case c == 'n':
		return s.lit("null")
	case c == '[':
		s.i++
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
		s.i++
		s.ws()
		if s.eat('}') {
			return true
		}
		for {
			s.ws()
			if !s.skipString() {
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
