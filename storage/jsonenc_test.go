package storage

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var jsonStringSeeds = []string{"", "plain", `quote " and \ backslash`, "<tag> & amp", "tab\tnew\nline\r\b\f\x00\x1f",
	"naïve café — ünïcode", "\u2028\u2029", "bad \xff utf8 \xc3", "emoji 🚀", "\x7f del"}

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
