package chromalazy_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/internal/chromalazy"
)

// What the registries held before this test binary's first lookup: set in
// TestMain, before any test runs (nothing in this package's imports looks
// anything up at init).
var lexersAtInit, stylesAtInit int

func TestMain(m *testing.M) {
	lexersAtInit = len(lexers.GlobalLexerRegistry.Lexers)
	stylesAtInit = len(styles.Registry)
	os.Exit(m.Run())
}

// The fork reads no lexer or style XML at init: the registries are empty but
// for the fallback style until the first lookup.
func TestNothingLoadedAtInit(t *testing.T) { //nolint:paralleltest // reads what TestMain saw; cheap
	assert.Zero(t, lexersAtInit, "lexers registered before first use")
	assert.Equal(t, 1, stylesAtInit, "styles registered before first use (only the fallback)")
	assert.Equal(t, "swapoff", styles.Fallback.Name)
}

// Every lookup nova and glamour make answers as upstream chroma v2.27.0's
// eager registries do (testdata/eager.json, taken with upstream).
func TestLazyRegistriesAnswerAsEagerOnes(t *testing.T) { //nolint:paralleltest // runs before the Register test below
	raw, err := os.ReadFile("testdata/eager.json")
	require.NoError(t, err)
	var want chromalazy.Snapshot
	require.NoError(t, json.Unmarshal(raw, &want))
	require.Greater(t, len(want.LexerNames), 250, "the eager snapshot lists every lexer")
	require.Greater(t, len(want.StyleNames), 70, "the eager snapshot lists every style")

	got := chromalazy.Take()
	assert.Equal(t, want.LexerNames, got.LexerNames)
	assert.Equal(t, want.LexerAliases, got.LexerAliases)
	assert.Equal(t, want.StyleNames, got.StyleNames)
	assert.Equal(t, want.Fallback, got.Fallback)
	for _, part := range []struct {
		name      string
		want, got map[string]string
	}{
		{"Get", want.Get, got.Get}, {"Match", want.Match, got.Match},
		{"MatchMimeType", want.MimeType, got.MimeType}, {"Analyse", want.Analyse, got.Analyse},
		{"styles.Get", want.Styles, got.Styles},
	} {
		assert.Equal(t, chromalazy.Sorted(part.want), chromalazy.Sorted(part.got), "%s: the same keys", part.name)
		for k, w := range part.want {
			assert.Equal(t, w, part.got[k], "%s(%q)", part.name, k)
		}
	}
	// Spot checks, readable on their own.
	assert.Equal(t, "Go", lexers.Get("go").Config().Name)
	assert.Equal(t, "Python", lexers.Match("x.py").Config().Name)
	assert.Equal(t, "dns", lexers.Analyse("@ IN SOA ns.example.com. admin.example.com. 1 2 3 4 5\n").Config().Name,
		"the analyser dns.go sets at init is applied after the lazy load")
	assert.Same(t, styles.Fallback, styles.Get("no such style"))
	assert.Same(t, styles.Fallback, styles.Registry["swapoff"], "the fallback is the registered swapoff")
}

// glamour reads styles.Registry[its theme] directly and registers its own
// style when the name is missing; Register then wins over any embedded style,
// as upstream (where the embedded ones were loaded first).
//
// Not parallel, and last in the file: it registers a style (chroma's
// registries are not safe for concurrent Register), which the snapshot above
// must not see.
func TestRegisterWinsOverEmbedded(t *testing.T) {
	_, embedded := styles.Registry["charm"]
	assert.False(t, embedded, "no embedded style is named like glamour's theme")
	mine := chroma.MustNewStyle("chromalazy-test", chroma.StyleEntries{chroma.Text: "#123456"})
	styles.Register(mine)
	assert.Same(t, mine, styles.Get("ChromaLazy-Test"))
	assert.Contains(t, styles.Names(), "chromalazy-test")
	assert.Greater(t, len(styles.Names()), 70, "registering loaded the embedded styles too")
}
