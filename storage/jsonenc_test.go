package storage

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var jsonStringSeeds = []string{"", "plain", `quote " and \ backslash`, "<tag> & amp", "tab\tnew\nline\r\b\f\x00\x1f",
	"naïve café — ünïcode", "\u2028\u2029", "bad \xff utf8 \xc3", "emoji 🚀", "\x7f del",
	"a longer plain ASCII sentence, then <b> & \"quotes\" at odd offsets\x1f\x7f~ and ünïcode at the end: é",
	"01234567\\89abcdef>", "0123456789abcde\x00"}

func TestAppendJSONStringMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, s := range jsonStringSeeds {
		want, err := json.Marshal(s)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(AppendJSONString(nil, s)), "%q", s)
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range jsonStringSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(AppendJSONString([]byte("x"), s)[1:]))
	})
}

func TestAppendJSONFloatMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, f := range []float64{0, 1, 0.5, 0.1, 1e-7, 1e21, 123456789, -0.25, 1e-6, 3.0000000000000004} {
		want, err := json.Marshal(f)
		require.NoError(t, err)
		got, ok := AppendJSONFloat(nil, f)
		require.True(t, ok)
		assert.Equal(t, string(want), string(got), "%v", f)
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		_, ok := AppendJSONFloat(nil, f)
		assert.False(t, ok, "json.Marshal rejects %v", f)
	}
}

// TestPlain8MatchesTheTable checks the eight-byte fast path of AppendJSONString against the
// byte table it stands for: every byte value at every position of a plain word.
func TestPlain8MatchesTheTable(t *testing.T) {
	t.Parallel()
	base := []byte("abcdefgh")
	word := func(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }
	require.True(t, plain8(word(base)))
	for pos := range 8 {
		for c := range 256 {
			w := append([]byte(nil), base...)
			w[pos] = byte(c)
			want := c < utf8.RuneSelf && htmlSafe[c]
			if got := plain8(word(w)); got != want {
				t.Fatalf("byte %#x at %d: plain8 %v, table %v", c, pos, got, want)
			}
		}
	}
}

func BenchmarkAppendJSONString(b *testing.B) {
	s := strings.Repeat("Use a context deadline for every outbound call; retry with backoff. ", 8)
	b.SetBytes(int64(len(s)))
	buf := make([]byte, 0, 2*len(s))
	for b.Loop() {
		buf = AppendJSONString(buf[:0], s)
	}
}
