package vault

import (
	"encoding/hex"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func recordSeedNode() Node {
	return Node{ID: 42, Type: Pattern, Title: "Title <b>&</b>", Content: "line\none\t\"q\" \\ é \u2028 \x01 \xff end",
		HasBody: true, Confidence: 0.425, HelpfulCount: 3, UserID: "local", IsGlobal: true, GlobalSuccessCount: 7,
		Language: "go", Tags: []string{"a", "b<c"}, Source: "patterns/x.md",
		CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 6789, time.UTC), UpdatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600)),
		Meta: map[string]string{"z": "1", "a": "&", "é": "\u2029"}}
}

// FuzzNodeRecord checks marshalNodeRecord against nodeCodec (json.Marshal): the same
// bytes for every node, or the same refusal.
func FuzzNodeRecord(f *testing.F) {
	f.Add("Pattern", "title", "content", "body", "local", "go", "tag", "src", "mk", "mv", 0.5, 1, 0, int64(0), false)
	f.Add("", "", "\x00\b\f\r<>&\u2028\u2029\xed\xa0\x80", "", "", "", "", "", "", "", 1e-7, -1, 5, int64(1<<40), true)
	f.Add("Mistake", "é", "x", "", "u", "", "", "", "k", "", 1e21, 0, 0, int64(-1<<62), true)
	f.Add("Decision", "", "y", "", "", "", "", "", "", "", math.NaN(), 0, 0, int64(253402300800), false)
	f.Fuzz(func(t *testing.T, typ, title, content, body, user, lang, tag, source, mk, mv string, conf float64, helpful, global int, sec int64, flag bool) {
		n := Node{ID: uint64(helpful) * 7, Type: NodeType(typ), Title: title, Content: content, Body: body, HasBody: flag,
			Confidence: conf, HelpfulCount: helpful, UserID: user, IsGlobal: !flag, GlobalSuccessCount: global,
			Language: lang, Source: source, CreatedAt: time.Unix(sec, int64(global)).UTC(), UpdatedAt: time.Unix(sec/2, 0).In(time.FixedZone("", global%50000))}
		if tag != "" {
			n.Tags = []string{tag, content}
		} else if flag {
			n.Tags = []string{}
		}
		if mk != "" || mv != "" {
			n.Meta = map[string]string{mk: mv, "x" + mk: title}
		}
		want, wantErr := nodeCodec.Marshal(n)
		got, gotErr := marshalNodeRecord(&n)
		if wantErr != nil {
			assert.Error(t, gotErr)
			return
		}
		require.NoError(t, gotErr)
		assert.Equal(t, string(want), string(got))
	})
}

func TestNodeRecordMatchesTheCodec(t *testing.T) {
	t.Parallel()
	cases := []Node{recordSeedNode(), {}, {ID: 1, Tags: []string{}}, {Confidence: 1e-7}, {Confidence: -2.5e22}, {Confidence: 123456789}}
	for _, n := range cases {
		want, err := nodeCodec.Marshal(n)
		require.NoError(t, err)
		got, ok := appendNodeRecord(nil, &n)
		require.True(t, ok, "%+v", n)
		assert.Equal(t, string(want), string(got))
	}
	for _, n := range []Node{{Confidence: math.Inf(1)}, {CreatedAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}} {
		_, ok := appendNodeRecord(nil, &n)
		assert.False(t, ok, "%+v is left to the codec", n)
		_, err := marshalNodeRecord(&n)
		assert.Error(t, err, "and refused as the codec refuses it")
	}
}

func TestCoreBatchTakesOnlyCoreValues(t *testing.T) {
	t.Parallel()
	var c coreBatch
	v := coreValue("retry with backoff")
	assert.True(t, c.add(v, 7))
	assert.False(t, c.add("short", 8))
	assert.False(t, c.add(strings.ToUpper(v), 9), "coreValue writes lowercase hex")
	assert.False(t, c.add(strings.Repeat("g", len(v)), 10))
	require.Len(t, c.es, 1)
	assert.Equal(t, uint64(7), c.es[0].id)
	assert.Equal(t, v, hex.EncodeToString(c.es[0].sum[:]))
}

// cleanGeneral is cleanText (key: cleanKey) without its shortcuts.
func cleanGeneral(s string, key bool) string {
	if key {
		s = strings.ToValidUTF8(s, "")
		return strings.TrimSpace(strings.Map(func(r rune) rune {
			if unicode.IsControl(r) {
				return -1
			}
			return r
		}, s))
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if badRune(r) {
			return -1
		}
		return r
	}, s))
}

// FuzzCleanText: cleanText and cleanKey, shortcuts included, give what the general path gives.
func FuzzCleanText(f *testing.F) {
	for _, s := range []string{"plain", "naïve — text\n", "\u0085c1", "bad\xff", " \x00\x7f "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		assert.Equal(t, cleanGeneral(s, false), cleanText(s))
		assert.Equal(t, cleanGeneral(s, true), cleanKey(s))
	})
}

// TestCleanTextFastPath: the printable-ASCII shortcut of cleanText and cleanKey gives what
// the general path gives, on text with and without control characters, DEL, invalid UTF-8
// and non-ASCII letters.
func TestCleanTextFastPath(t *testing.T) {
	t.Parallel()
	general := cleanGeneral
	pieces := []string{"plain", " ", "\n", "\t", "\r", "\x00", "\x7f", "\x1b[1m", "é", "\xff", "\u2028", "  lead", "trail  ", "~!@#",
		"\u0085", "\u009f", "\ufffd", "\xc3", "— dash", "日本"}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 3000 {
		var b strings.Builder
		for range rng.IntN(8) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		assert.Equal(t, general(s, false), cleanText(s), "%q", s)
		assert.Equal(t, general(s, true), cleanKey(s), "%q", s)
	}
}

// FuzzEdgeRecord checks marshalEdgeRecord against edgeCodec (json.Marshal): the same bytes
// for every edge, or the same refusal.
func FuzzEdgeRecord(f *testing.F) {
	f.Add(uint64(1), uint64(2), uint64(3), "supports", 0.5, int64(1700000000), int64(123))
	f.Add(uint64(1<<53), uint64(0), uint64(9), "<&\u2028\xff>", 1e-7, int64(-1<<40), int64(0))
	f.Add(uint64(0), uint64(0), uint64(0), "", math.Inf(1), int64(253402300800), int64(999999999))
	f.Fuzz(func(t *testing.T, id, from, to uint64, rel string, strength float64, sec, nsec int64) {
		e := Edge{ID: id, From: from, To: to, Relation: Relation(rel), Strength: strength,
			CreatedAt: time.Unix(sec, nsec).In(time.FixedZone("", int(nsec%50000)))}
		want, wantErr := edgeCodec.Marshal(e)
		got, gotErr := marshalEdgeRecord(&e)
		if wantErr != nil {
			assert.Error(t, gotErr)
			return
		}
		require.NoError(t, gotErr)
		assert.Equal(t, string(want), string(got))
	})
}

func TestBodyNormalizedAsBefore(t *testing.T) {
	t.Parallel()
	for _, body := range []string{"", "  plain body \n", "a\x00b", "bad \xff\xfe utf8\x00 ", "naïve é \u2028", "\xed\xa0\x80 surrogate"} {
		n := Node{Content: "c", Body: body}
		require.NoError(t, n.normalize("u", true))
		assert.Equal(t, strings.TrimSpace(strings.ToValidUTF8(strings.ReplaceAll(body, "\x00", ""), "\uFFFD")), n.Body, "%q", body)
	}
}
