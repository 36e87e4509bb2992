package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// The output layer. Human output (tables, messages, diffs) shows untrusted
// text: PRD names and titles, node contents, model output, file names and
// contents. A terminal would act on the control sequences such text can
// hold (clear the screen, rewrite the title, hide text, ring the bell), so
// every human line goes through Sanitize on its way out: Printf, Logf and
// the writer of Human(). JSON output is written as is (encoding/json escapes
// control characters inside strings).

// Sanitize makes s inert on a terminal: every control character except
// newline and tab (C0, DEL, C1, which covers ESC, CSI, OSC and BEL) becomes
// visible caret or \u notation, and invalid UTF-8 bytes (a raw 8-bit C1 byte
// among them) become U+FFFD. Text without control characters is returned
// unchanged, without allocating.
func Sanitize(s string) string {
	clean := true
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || isControl(r) {
			clean = false
			break
		}
		i += size
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20:
			b.WriteByte('^')
			b.WriteByte(byte(r) + '@')
		case r == 0x7f:
			b.WriteString("^?")
		case r >= 0x80 && r <= 0x9f:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isControl(r rune) bool {
	return (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r <= 0x9f)
}

// sanitizingWriter passes writes through Sanitize, holding back an
// incomplete UTF-8 sequence at the end of a write until the next one.
type sanitizingWriter struct {
	w    io.Writer
	tail []byte
}

func (s *sanitizingWriter) Write(p []byte) (int, error) {
	buf := append(s.tail, p...)
	s.tail = nil
	// Hold back a rune cut at the end of this write.
	for k := 1; k <= 3 && k <= len(buf); k++ {
		if utf8.RuneStart(buf[len(buf)-k]) {
			if !utf8.FullRune(buf[len(buf)-k:]) {
				s.tail = append([]byte(nil), buf[len(buf)-k:]...)
				buf = buf[:len(buf)-k]
			}
			break
		}
	}
	if _, err := io.WriteString(s.w, Sanitize(string(buf))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// IOStreams are a command's standard streams. Out and ErrOut are the raw
// streams (JSON documents, exported files); human text goes through
// Printf, Logf and Human, which sanitise it.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// InTTY says stdin is a terminal: confirmations may prompt there.
	InTTY bool
	// ErrTTY says stderr is a terminal (styled error headers).
	ErrTTY bool
}

// Printf writes human output to stdout, sanitised.
func (io *IOStreams) Printf(format string, a ...any) {
	_, _ = fmt.Fprint(io.Out, Sanitize(fmt.Sprintf(format, a...)))
}

// Logf writes a human message to stderr, sanitised.
func (io *IOStreams) Logf(format string, a ...any) {
	_, _ = fmt.Fprint(io.ErrOut, Sanitize(fmt.Sprintf(format, a...)))
}

// Human returns a writer for human output to stdout (a tabwriter's target)
// that sanitises what goes through it.
func (io *IOStreams) Human() io.Writer { return &sanitizingWriter{w: io.Out} }

// PrintJSON writes one JSON document to stdout (indented, HTML left as is).
func (io *IOStreams) PrintJSON(v any) error {
	enc := json.NewEncoder(io.Out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// jsonArray streams a JSON array to stdout one element at a time, in the
// layout PrintJSON gives a whole slice, so a long listing is never held
// twice in memory.
type jsonArray struct {
	w io.Writer
	n int
}

func (a *jsonArray) add(v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("  ", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	data := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	sep := ",\n  "
	if a.n == 0 {
		sep = "[\n  "
	}
	a.n++
	if _, err := io.WriteString(a.w, sep); err != nil {
		return err
	}
	_, err := a.w.Write(data)
	return err
}

func (a *jsonArray) close() error {
	end := "\n]\n"
	if a.n == 0 {
		end = "[]\n"
	}
	_, err := io.WriteString(a.w, end)
	return err
}
