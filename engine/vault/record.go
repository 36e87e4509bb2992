package vault

import (
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// marshalNodeRecord returns nodeCodec's encoding of n: the codec header, then exactly the
// bytes json.Marshal writes for n (FuzzNodeRecord checks it), without reflection. Why
// hand-written: json.Marshal's reflection and buffer growth were 4 % of a 100k-node import's
// CPU and 7 % of its allocations (issue 16); the stored bytes, and so the file format, do not
// change. What it does not handle the way encoding/json does (a value json.Marshal
// rejects, such as a NaN confidence or a time outside years 0–9999) goes to nodeCodec.
func marshalNodeRecord(n *Node) ([]byte, error) {
	if out, ok := appendNodeRecord(make([]byte, 0, nodeRecordSize(n)), n); ok {
		return out, nil
	}
	return nodeCodec.Marshal(*n)
}

// nodeRecordSize is an upper bound of the record's size when no string needs escapes.
func nodeRecordSize(n *Node) int {
	size := 2 + 330 + len(n.Type) + len(n.Title) + len(n.Content) + len(n.Body) + len(n.UserID) + len(n.Language) + len(n.Source)
	for _, t := range n.Tags {
		size += len(t) + 3
	}
	for k, v := range n.Meta {
		size += len(k) + len(v) + 6
	}
	return size
}

func appendNodeRecord(b []byte, n *Node) ([]byte, bool) {
	b = append(b, 'n', nodeCodec.Version)
	b = append(b, `{"id":`...)
	b = strconv.AppendUint(b, n.ID, 10)
	b = append(b, `,"type":`...)
	b = appendJSONString(b, string(n.Type))
	if n.Title != "" {
		b = append(b, `,"title":`...)
		b = appendJSONString(b, n.Title)
	}
	b = append(b, `,"content":`...)
	b = appendJSONString(b, n.Content)
	if n.Body != "" {
		b = append(b, `,"body":`...)
		b = appendJSONString(b, n.Body)
	}
	if n.HasBody {
		b = append(b, `,"hasBody":true`...)
	}
	b = append(b, `,"confidence":`...)
	var ok bool
	if b, ok = appendJSONFloat(b, n.Confidence); !ok {
		return nil, false
	}
	b = append(b, `,"helpfulCount":`...)
	b = strconv.AppendInt(b, int64(n.HelpfulCount), 10)
	b = append(b, `,"userId":`...)
	b = appendJSONString(b, n.UserID)
	b = append(b, `,"isGlobal":`...)
	b = strconv.AppendBool(b, n.IsGlobal)
	b = append(b, `,"globalSuccessCount":`...)
	b = strconv.AppendInt(b, int64(n.GlobalSuccessCount), 10)
	if n.Language != "" {
		b = append(b, `,"language":`...)
		b = appendJSONString(b, n.Language)
	}
	b = append(b, `,"tags":`...)
	if n.Tags == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, t := range n.Tags {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, t)
		}
		b = append(b, ']')
	}
	b = append(b, `,"source":`...)
	b = appendJSONString(b, n.Source)
	var err error
	b = append(b, `,"createdAt":"`...)
	if b, err = n.CreatedAt.AppendText(b); err != nil {
		return nil, false
	}
	b = append(b, `","updatedAt":"`...)
	if b, err = n.UpdatedAt.AppendText(b); err != nil {
		return nil, false
	}
	b = append(b, '"')
	if len(n.Meta) > 0 {
		b = append(b, `,"meta":{`...)
		keys := make([]string, 0, len(n.Meta))
		for k := range n.Meta {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
			b = append(b, ':')
			b = appendJSONString(b, n.Meta[k])
		}
		b = append(b, '}')
	}
	return append(b, '}'), true
}

// appendJSONFloat writes f as encoding/json does (ES6 number formatting); false for a
// value it rejects.
func appendJSONFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 → e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}

const hexDigits = "0123456789abcdef"

// htmlSafe is true for the ASCII bytes json.Marshal writes as they are.
var htmlSafe = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendJSONString writes s quoted as json.Marshal does: HTML characters, control
// characters, U+2028 and U+2029 escaped, invalid UTF-8 replaced by U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if htmlSafe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
