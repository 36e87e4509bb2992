package storage

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// JSON writers that give exactly the bytes encoding/json writes, for record encoders that
// skip its reflection (vault node records, import file records; each has a fuzz test against
// json.Marshal, and FuzzAppendJSONString checks the strings here).

// AppendJSONFloat writes f as encoding/json does (ES6 number formatting); false for a
// value it rejects.
func AppendJSONFloat(b []byte, f float64) ([]byte, bool) {
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

// AppendJSONString writes s quoted as json.Marshal does: HTML characters, control
// characters, U+2028 and U+2029 escaped, invalid UTF-8 replaced by U+FFFD.
func AppendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight bytes at a time while none of them needs a second look (most text).
		for i+8 <= len(s) {
			t := s[i : i+8]
			w := uint64(t[0]) | uint64(t[1])<<8 | uint64(t[2])<<16 | uint64(t[3])<<24 |
				uint64(t[4])<<32 | uint64(t[5])<<40 | uint64(t[6])<<48 | uint64(t[7])<<56
			if !plain8(w) {
				break
			}
			i += 8
		}
		if i == len(s) {
			break
		}
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

const (
	ones8  = 0x0101010101010101
	highs8 = 0x8080808080808080
)

// plain8 reports whether the 8 bytes of w (little endian) are ASCII that AppendJSONString
// writes as they are (htmlSafe): no control character, no '"', '\\', '<', '>' or '&', no byte
// ≥ 0x80. The tests of a word for a zero byte and for a byte below 0x20 are exact for the word
// as a whole (Hacker's Delight's haszero / hasless), which is all this needs; '"' and '&'
// (0x22, 0x26), and '<' and '>' (0x3c, 0x3e), differ in one bit, tested together.
func plain8(w uint64) bool {
	special := w | // a byte ≥ 0x80
		(w-0x20*ones8)&^w | // a byte < 0x20
		hasZero((w^('"'*ones8))&^(0x04*ones8)) | // '"' or '&'
		hasZero((w^('<'*ones8))&^(0x02*ones8)) | // '<' or '>'
		hasZero(w^('\\'*ones8))
	return special&highs8 == 0
}

// hasZero has the high bit of a byte set when (and, for the word as a whole, only when) some
// byte of v is zero; its other bits are noise (masked by plain8).
func hasZero(v uint64) uint64 { return (v - ones8) &^ v }
