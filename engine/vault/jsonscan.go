package vault

// fastScanner walks a JSON document the way encoding/json checks it, for the
// ranking scan (rank.go, scanRank).
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
