package vault

import (
	"bufio"
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/storage"
)

// lineSeeds are lines of every kind, in nova's own shape and malformed or odd
// shapes (duplicate and differently cased keys, null, bad escapes, invalid UTF-8,
// lone surrogates, trailing text).
var lineSeeds = []string{
	`{"format":"nova-vault","kind":"header","nodes":100000,"version":1}`,
	`{"kind":"header","format":"nova-vault","version":1,"edges":0,"exportedAt":"2026-01-01T00:00:00Z"}`,
	`{"kind":"node","id":1,"type":"Mistake","content":"Ploprum on poushom.","confidence":0.42,"helpfulCount":3,"userId":"local","isGlobal":false,"globalSuccessCount":0,"tags":["testing"],"source":"manual","createdAt":"2026-01-01T00:00:00Z","updatedAt":"2026-01-01T00:00:00Z"}`,
	`{"kind":"node","id":7,"type":"Pattern","title":"T","content":"a \"quoted\" line\nand é","body":"b\u00e9\\","hasBody":true,"confidence":1e-3,"tags":[],"meta":{"k":"v","k":"w","é":"\u2028"},"language":"go","createdAt":"2026-01-01T10:00:00.123456789+02:00"}`,
	`{"kind":"edge","id":1,"from":1,"to":2,"relation":"supports","strength":0.3,"createdAt":"2026-01-01T00:00:00Z"}`,
	`{"id":1,"type":"pattern","content":"\u0000nul"}`,
	`{"ID":1,"type":"Pattern","content":"x"}`,
	`{"id":1,"id":2,"content":"x"}`,
	`{"id":1.0,"content":"x"}`,
	`{"id":-1,"content":"x"}`,
	`{"id":01,"content":"x"}`,
	`{"id":18446744073709551616,"content":"x"}`,
	`{"helpfulCount":-0,"confidence":-0.0,"strength":1E+2}`,
	`{"confidence":1e999}`,
	`{"confidence":null,"tags":null}`,
	`{"tags":["a",1]}`,
	`{"tags":["a" "b"]}`,
	`{"meta":{"a":{"b":"c"}}}`,
	`{"isGlobal":true,"hasBody":false}`,
	`{"isGlobal":truex}`,
	`{"createdAt":"yesterday"}`,
	`{"createdAt":"2026-01-01T00:00:00Z","unknown":{"x":[1,2]}}`,
	`{"content":"invalid \xff utf8"}`,
	"{\"content\":\"tab\tinside\"}",
	`{"content":"bad \q escape"}`,
	`{"content":"x"} trailing`,
	`{"content":"x",}`,
	`{}`,
	` { "kind" : "node" , "id" : 3 } `,
	`[1,2]`,
	`null`,
	`"x"`,
	`{"kind":"node"`,
	`{"content":"\ud800 lone surrogate"}`,
	`{"relation":"blocks","from":3,"to":4,"version":2,"format":"x"}`,
}

// FuzzDecodeLine checks decodeLine against encoding/json, the reference: the
// same value for every line, the same error text for every refused one.
func FuzzDecodeLine(f *testing.F) {
	for _, s := range lineSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var got, ref dumpLine
		err := decodeLine(line, &got)
		refErr := json.Unmarshal(line, &ref)
		if refErr != nil {
			require.Error(t, err, "accepted %q, which encoding/json refuses", line)
			assert.Equal(t, refErr.Error(), err.Error(), "%q", line)
		} else {
			require.NoError(t, err, "%q", line)
		}
		assert.Equal(t, ref, got, "%q", line)
	})
}

func TestDecodeLineMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	accepted, refused := 0, 0
	for _, s := range lineSeeds {
		var got, ref dumpLine
		err := decodeLine([]byte(s), &got)
		refErr := json.Unmarshal([]byte(s), &ref)
		if refErr != nil {
			refused++
			require.Error(t, err, "%s", s)
			assert.Equal(t, refErr.Error(), err.Error(), "%s", s)
		} else {
			accepted++
			require.NoError(t, err, "%s", s)
		}
		assert.Equal(t, ref, got, "%s", s)
	}
	assert.GreaterOrEqual(t, accepted, 10)
	assert.GreaterOrEqual(t, refused, 10, "malformed seeds are refused")
}

// TestDecodeLineTakesExportedLines: every line Export writes (bodies, meta, escapes,
// non-ASCII text) decodes as encoding/json decodes it.
func TestDecodeLineTakesExportedLines(t *testing.T) {
	t.Parallel()
	db, err := storage.Open(filepath.Join(t.TempDir(), "nova.db"), storage.Options{NoSync: true})
	require.NoError(t, err)
	v := New(db, Options{})
	t.Cleanup(func() {
		_ = v.Close()
		_ = db.Close()
	})
	ctx := t.Context()
	a, err := v.Add(ctx, Node{Type: Pattern, Title: "Été <b>", Content: "Use \"quotes\" & tabs\tand é", Body: "line one\nline two \u2028",
		Tags: []string{"go", "naïve"}, Meta: map[string]string{"category": "x<y", "hash": "ab"}, Language: "go"})
	require.NoError(t, err)
	b, err := v.Add(ctx, Node{Type: Mistake, Content: "plain", Confidence: 0.125})
	require.NoError(t, err)
	_, err = v.Link(ctx, a.ID, b.ID, Supports, 0.25)
	require.NoError(t, err)
	var out bytes.Buffer
	_, err = v.Export(ctx, &out)
	require.NoError(t, err)
	sc := bufio.NewScanner(&out)
	lines := 0
	for sc.Scan() {
		lines++
		var got, ref dumpLine
		require.NoError(t, decodeLine(sc.Bytes(), &got), "%s", sc.Text())
		require.NoError(t, json.Unmarshal(sc.Bytes(), &ref))
		assert.Equal(t, ref, got, "%s", sc.Text())
	}
	assert.Equal(t, 4, lines, "header, two nodes, one edge")
}
