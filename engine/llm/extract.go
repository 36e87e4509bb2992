package llm

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// maxCandidates bounds the decode attempts of ExtractJSON's scan, so that
// pathological output (thousands of unbalanced brackets) stays cheap.
const maxCandidates = 512

// ExtractJSON finds the first JSON document in model output. In order it
// tries:
//
//  1. the whole output, trimmed (any JSON value);
//  2. the body of each Markdown code fence (```json, ``` or ~~~, closed or
//     not), in order;
//  3. a scan of the output for the earliest '{' or '[' where a complete
//     object or array starts, trailing prose ignored. An array holding only
//     scalars ("see [1]") is taken only if no object or nested array is
//     found, since it is usually a citation, not the answer.
//
// <think>…</think> blocks are removed first. The bytes are returned as they
// appear in the output. Failure wraps ErrInvalidOutput. It never panics.
//
// Hand-written because no library in go.mod extracts JSON from prose; the
// parsing itself is encoding/json's.
func ExtractJSON(s string) ([]byte, error) {
	s = stripThink(s)
	t := strings.TrimSpace(s)
	if t == "" {
		return nil, fmt.Errorf("%w: the reply is empty", ErrInvalidOutput)
	}
	if json.Valid([]byte(t)) {
		return []byte(t), nil
	}
	budget := maxCandidates
	for _, body := range fences(s) {
		if b := strings.TrimSpace(body); b != "" && json.Valid([]byte(b)) {
			return []byte(b), nil
		}
		if doc, ok := scanJSON(body, &budget); ok {
			return doc, nil
		}
	}
	if doc, ok := scanJSON(s, &budget); ok {
		return doc, nil
	}
	return nil, fmt.Errorf("%w: no JSON document found in the reply (%d chars, starting %q)",
		ErrInvalidOutput, len(t), snippet(t, 80))
}

// scanJSON returns the earliest object or array that decodes, preferring
// anything over a scalar-only array.
func scanJSON(s string, budget *int) ([]byte, bool) {
	var weak []byte
	for i := 0; i < len(s) && *budget > 0; i++ {
		if (s[i] != '{' && s[i] != '[') || !plausibleStart(s[i:]) {
			continue
		}
		*budget--
		var raw json.RawMessage
		if err := json.NewDecoder(strings.NewReader(s[i:])).Decode(&raw); err != nil {
			continue
		}
		if raw[0] == '[' && !strings.ContainsAny(string(raw[1:]), "{[") {
			if weak == nil {
				weak = raw
			}
			i += len(raw) - 1
			continue
		}
		return raw, true
	}
	return weak, weak != nil
}

// plausibleStart is a cheap filter before a full decode: after '{' only a
// key or '}' may follow, after '[' only the start of a value or ']'. It
// skips the braces and brackets of ordinary prose ("{curly}", "[1]" aside).
func plausibleStart(s string) bool {
	open := s[0]
	rest := strings.TrimLeft(s[1:], " \t\r\n")
	if rest == "" {
		return false
	}
	if open == '{' {
		return rest[0] == '"' || rest[0] == '}'
	}
	return strings.IndexByte("\"{[]-0123456789tfn", rest[0]) >= 0
}

// fences returns the bodies of the Markdown code fences in s.
func fences(s string) []string {
	var out []string
	for {
		i, mark := indexFence(s)
		if i < 0 {
			return out
		}
		rest := s[i+3:]
		// Skip the info string ("json", "JSON", "jsonc", ...) up to the end
		// of the line, unless the document starts on the same line.
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 && !strings.ContainsAny(rest[:nl], "{[") {
			rest = rest[nl+1:]
		} else {
			rest = strings.TrimLeft(rest, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ ")
		}
		end := strings.Index(rest, mark)
		if end < 0 {
			return append(out, rest)
		}
		out = append(out, rest[:end])
		s = rest[end+3:]
	}
}

func indexFence(s string) (int, string) {
	b, t := strings.Index(s, "```"), strings.Index(s, "~~~")
	switch {
	case b < 0 && t < 0:
		return -1, ""
	case t < 0 || (b >= 0 && b < t):
		return b, "```"
	default:
		return t, "~~~"
	}
}

// stripThink removes <think>…</think> blocks some models leave in content.
func stripThink(s string) string {
	for {
		i := strings.Index(s, "<think>")
		if i < 0 {
			return s
		}
		j := strings.Index(s[i:], "</think>")
		if j < 0 {
			return s
		}
		s = s[:i] + s[i+j+len("</think>"):]
	}
}

func snippet(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
