package docs_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/knowledge/docs"
)

func TestParseSearchMalformed(t *testing.T) {
	t.Parallel()
	libs, err := docs.ParseSearch("application/json", []byte(`{"results":[{"id":"/a/b","title":"A"},{"title":"no id"},{"id":"bad\nid"},7,{"id":"/c/d"}],"metadata":{}}`))
	require.NoError(t, err)
	require.Len(t, libs, 2)
	assert.Equal(t, "A", libs[0].Title)
	assert.Equal(t, "/c/d", libs[1].Title, "a missing title falls back to the id")
	for _, body := range []string{``, `[]`, `{"results":7}`, `{"other":1}`, `<html><body>x</body></html>`, `{"results":[`, "\xff\xfe"} {
		_, err := docs.ParseSearch("application/json", []byte(body))
		require.ErrorIs(t, err, docs.ErrBadResponse, body)
	}
	_, err = docs.ParseSearch("text/html; charset=utf-8", []byte(`{"results":[]}`))
	require.ErrorIs(t, err, docs.ErrBadResponse, "an HTML content type is refused")
	_, err = docs.ParseSearch("", []byte(`{"error":"quota exceeded"}`))
	require.ErrorIs(t, err, docs.ErrBadResponse)
	assert.Contains(t, err.Error(), "quota exceeded")
}

func TestParseContextMalformed(t *testing.T) {
	t.Parallel()
	text, err := docs.ParseContext("text/plain", []byte("line one\r\nline\x00 two\x1b[31m\n"))
	require.NoError(t, err)
	assert.Equal(t, "line one\nline two[31m\n", text, "control bytes dropped, CRLF normalised")
	text, err = docs.ParseContext("application/json", []byte(`{"content":"wrapped text"}`))
	require.NoError(t, err)
	assert.Equal(t, "wrapped text", text)
	mostlyOK := append([]byte(strings.Repeat("valid text ", 30)), 0xff)
	text, err = docs.ParseContext("text/plain", mostlyOK)
	require.NoError(t, err, "a stray bad byte is replaced")
	assert.True(t, utf8.ValidString(text))
	for _, body := range []string{"", "   \n", "No content available", "<!DOCTYPE html><p>hi", "\xff\xfe\xfd\xfc"} {
		_, err := docs.ParseContext("text/plain", []byte(body))
		require.Error(t, err, "%q", body)
	}
	_, err = docs.ParseContext("text/plain", []byte("No context data available"))
	require.ErrorIs(t, err, docs.ErrNotFound)
}

// FuzzParseContext: the docs response parser never panics and only ever
// returns clean UTF-8 text or a classified error.
func FuzzParseContext(f *testing.F) {
	for _, s := range []string{"docs", "<html>", "\xff", `{"content":"x"}`, "No content available", "a\r\nb\x00"} {
		f.Add("text/plain", []byte(s))
		f.Add("application/json", []byte(s))
	}
	f.Add("text/html", []byte("x"))
	f.Add(";;;=", []byte("x"))
	f.Fuzz(func(t *testing.T, ctype string, body []byte) {
		text, err := docs.ParseContext(ctype, body)
		if err != nil {
			if !errors.Is(err, docs.ErrBadResponse) && !errors.Is(err, docs.ErrNotFound) {
				t.Fatalf("unclassified error %v", err)
			}
			return
		}
		if !utf8.ValidString(text) || strings.ContainsRune(text, 0) || strings.TrimSpace(text) == "" {
			t.Fatalf("bad text %q", text)
		}
	})
}

// FuzzParseSearch: the library search parser never panics; results always
// have a usable id.
func FuzzParseSearch(f *testing.F) {
	f.Add([]byte(`{"results":[{"id":"/a/b","title":"A"}]}`))
	f.Add([]byte(`{"results":null}`))
	f.Add([]byte(`{"error":"x"}`))
	f.Add([]byte(`<!doctype html>`))
	f.Fuzz(func(t *testing.T, body []byte) {
		libs, err := docs.ParseSearch("application/json", body)
		if err != nil {
			if !errors.Is(err, docs.ErrBadResponse) {
				t.Fatalf("unclassified error %v", err)
			}
			return
		}
		for _, l := range libs {
			if l.ID == "" || strings.ContainsAny(l.ID, "\x00\n") || l.Title == "" {
				t.Fatalf("bad library %+v", l)
			}
		}
	})
}

// FuzzKey: any library/topic makes a bounded key whose reference parses
// back to it.
func FuzzKey(f *testing.F) {
	f.Add("react", "hooks")
	f.Add("../../etc/passwd", "\x00")
	f.Add(strings.Repeat("x", 600), "a#b%c")
	f.Fuzz(func(t *testing.T, lib, topic string) {
		for _, src := range []string{docs.SourceLocal, docs.SourceContext7} {
			k := docs.NewKey(src, lib, topic)
			if len(k.Library) > 200 || len(k.Topic) > 200 {
				t.Fatalf("unbounded key %q", k.Bytes())
			}
			if strings.ContainsRune(k.Library, 0) || strings.ContainsRune(k.Topic, 0) {
				t.Fatalf("NUL in key part %q", k.Bytes())
			}
			if k.Library == "" {
				continue // CheckRequest refuses an empty library before any key is made
			}
			back, err := docs.ParseRef(k.Ref())
			if err != nil || back != k {
				t.Fatalf("ref %q: %v %+v", k.Ref(), err, back)
			}
		}
		if l, tp, err := docs.CheckRequest(lib, topic); err == nil && (l == "" || len(l) > docs.MaxNameBytes || len(tp) > docs.MaxNameBytes) {
			t.Fatalf("accepted %q %q", l, tp)
		}
	})
}

// FuzzSnippet: snippets of any text for any query never panic and stay
// valid UTF-8 within their size.
func FuzzSnippet(f *testing.F) {
	f.Add("Größe und ÄRGER", "ärger")
	f.Add("call useEffect here", "USEEFFECT")
	f.Add("\xff\xfe text", "tex")
	f.Add("İstanbul ıi", "i̇stanbul")
	f.Fuzz(func(t *testing.T, text, query string) {
		s := docs.Snippet(text, query, 40)
		if utf8.ValidString(text) && !utf8.ValidString(s) {
			t.Fatalf("invalid snippet %q", s)
		}
		if utf8.RuneCountInString(s) > 42 {
			t.Fatalf("snippet too long: %q", s)
		}
	})
}
