package docs

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sentinel errors callers branch on.
var (
	// ErrInvalid marks bad input (an empty library name, one too long):
	// bad usage, exit 2 in the CLI.
	ErrInvalid = errors.New("invalid docs request")
	// ErrUnavailable: no documentation could be found (nothing local, nothing
	// cached, the network failed or knows no such library). The result
	// still carries the fallback text.
	ErrUnavailable = errors.New("documentation unavailable")
	// ErrNotFound: the docs service knows no library of that name.
	ErrNotFound = errors.New("library not found")
	// ErrBadResponse: the docs service answered with something that is not
	// documentation (HTML, empty, undecodable, wrong shape).
	ErrBadResponse = errors.New("unusable docs response")
	// ErrOffline: network docs are turned off (docs.context7.url: off).
	ErrOffline = errors.New("network docs are off")
)

// Sources of documentation.
const (
	SourceLocal    = "local"    // go.mod / GOROOT / node_modules, exact version
	SourceContext7 = "context7" // the Context7 API
)

// Where a fetch result came from (Result.Source).
const (
	FromLocal   = "local"
	FromCache   = "cache"
	FromNetwork = "network"
	FromNone    = "none" // nothing found: Content is the fallback text
)

const (
	// MaxNameBytes bounds a library or topic name a request may carry.
	MaxNameBytes = 512
	// maxKeyPart bounds one part of a cache key; longer parts are cut and
	// end in a hash of the whole part.
	maxKeyPart = 200
)

// Unavailable is the text a fetch returns when nothing could be found.
func Unavailable(library, topic string) string {
	if topic != "" {
		return fmt.Sprintf("Documentation unavailable for %s (%s). Please consult the official docs.", library, topic)
	}
	return fmt.Sprintf("Documentation unavailable for %s. Please consult the official docs.", library)
}

// CleanName trims s, drops control characters (NUL included), collapses
// runs of white space and replaces invalid UTF-8. It is how library and
// topic names are normalised before any use.
func CleanName(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			space = true
			continue
		case unicode.IsControl(r), r == unicode.ReplacementChar:
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// CheckRequest normalises a library and topic and rejects what cannot be
// asked for: an empty library, or a name longer than MaxNameBytes.
func CheckRequest(library, topic string) (string, string, error) {
	lib, top := CleanName(library), CleanName(topic)
	if lib == "" {
		return "", "", fmt.Errorf("%w: the library name is empty", ErrInvalid)
	}
	if len(lib) > MaxNameBytes {
		return "", "", fmt.Errorf("%w: the library name is %d bytes long (at most %d)", ErrInvalid, len(lib), MaxNameBytes)
	}
	if len(top) > MaxNameBytes {
		return "", "", fmt.Errorf("%w: the topic is %d bytes long (at most %d)", ErrInvalid, len(top), MaxNameBytes)
	}
	return lib, top, nil
}

// Key identifies one cache entry: the source, the library and the topic,
// each sanitised (see keyPart).
type Key struct {
	Source  string
	Library string
	Topic   string
}

// NewKey builds the key of a request. Context7 names are case-insensitive
// and lower-cased; local names (Go module paths) keep their case. Topics
// are always lower-cased.
func NewKey(source, library, topic string) Key {
	lib := CleanName(library)
	if source != SourceLocal {
		lib = strings.ToLower(lib)
	}
	return Key{Source: keyPart(CleanName(source)), Library: keyPart(lib), Topic: keyPart(strings.ToLower(CleanName(topic)))}
}

// Bytes is the bbolt key: source 0x00 library 0x00 topic.
func (k Key) Bytes() []byte {
	b := make([]byte, 0, len(k.Source)+len(k.Library)+len(k.Topic)+2)
	b = append(b, k.Source...)
	b = append(b, 0)
	b = append(b, k.Library...)
	b = append(b, 0)
	return append(b, k.Topic...)
}

// Ref is the key as a knowledge reference: docs:SOURCE:LIBRARY[#TOPIC].
func (k Key) Ref() string {
	r := "docs:" + k.Source + ":" + k.Library
	if k.Topic != "" {
		r += "#" + k.Topic
	}
	return r
}

// ParseRef reads a reference made by Key.Ref.
func ParseRef(ref string) (Key, error) {
	rest, ok := strings.CutPrefix(ref, "docs:")
	if !ok {
		return Key{}, fmt.Errorf("%w: %q is not a docs reference (docs:SOURCE:LIBRARY#TOPIC)", ErrInvalid, ref)
	}
	src, rest, ok := strings.Cut(rest, ":")
	if !ok || src == "" || rest == "" {
		return Key{}, fmt.Errorf("%w: %q is not a docs reference (docs:SOURCE:LIBRARY#TOPIC)", ErrInvalid, ref)
	}
	lib, topic := rest, ""
	if i := strings.LastIndexByte(rest, '#'); i >= 0 {
		lib, topic = rest[:i], rest[i+1:]
	}
	return Key{Source: src, Library: lib, Topic: topic}, nil
}

// keyFromBytes splits a bbolt key made by Bytes.
func keyFromBytes(b []byte) (Key, bool) {
	parts := strings.SplitN(string(b), "\x00", 3)
	if len(parts) != 3 {
		return Key{}, false
	}
	return Key{Source: parts[0], Library: parts[1], Topic: parts[2]}, true
}

// keyPart makes one part of a key safe: NUL and the reference separators
// '#' and '%' are escaped, and a part longer than maxKeyPart bytes is cut on
// a rune boundary and ends in "~" and 16 hex digits of its SHA-256, so two
// long names never share a key.
func keyPart(s string) string {
	if strings.ContainsAny(s, "%#\x00") {
		s = strings.NewReplacer("%", "%25", "#", "%23", "\x00", "%00").Replace(s)
	}
	if len(s) <= maxKeyPart {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	cut := maxKeyPart - 17
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "~" + hex.EncodeToString(sum[:8])
}
