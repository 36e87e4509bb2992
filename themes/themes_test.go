package themes

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBuiltinPalettesAreValid(t *testing.T) {
	t.Parallel()
	require.GreaterOrEqual(t, len(Builtin()), 3)
	for _, p := range Builtin() {
		require.NoError(t, p.Validate(), p.Name)
		s := Build(p)
		assert.Equal(t, p.Name, s.Name)
		assert.NotNil(t, s.Chroma)
	}
}

func TestUserThemeLoadsAndFallsBack(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "mine.yaml"), []byte("dark: false\ncolors:\n  primary: \"#123456\"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "broken.yaml"), []byte("name: broken\ncolors:\n  primary: blue\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "syntax.yaml"), []byte("name: [x\n"), 0o644))
	r := NewRegistry()
	errs := r.LoadDir(dir)
	require.Len(t, errs, 2)
	assert.Regexp(t, `broken\.yaml:3: colors\.primary`, errs[0].Error())
	assert.Contains(t, errs[1].Error(), "syntax.yaml:1")
	p, err := r.Get("mine")
	require.NoError(t, err)
	assert.Equal(t, "#123456", p.Colors.Primary)
	assert.Equal(t, NovaLight.Colors.Background, p.Colors.Background, "missing colours come from the light base")
	assert.Equal(t, []string{DefaultName, LightName, HighContrastName, "mine"}, r.Names())
	_, err = r.Get("nope")
	assert.ErrorIs(t, err, ErrUnknownTheme)
}

func TestShippedExampleTheme(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	require.Empty(t, r.LoadDir("../.nova/themes"))
	_, err := r.Get("dusk")
	assert.NoError(t, err)
}

func TestBar(t *testing.T) {
	t.Parallel()
	s := Build(NovaDark)
	assert.Empty(t, s.Bar(0.5, 0))
	assert.Len(t, []rune(stripANSI(s.Bar(0.7, 10))), 10)
	assert.Equal(t, "███████░░░", stripANSI(s.Bar(0.7, 10)))
	assert.Equal(t, "██████████", stripANSI(s.Bar(3, 10)))
}

var ansiRE = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

func stripANSI(s string) string { return ansiRE.ReplaceAllString(s, "") }

func FuzzParsePalette(f *testing.F) {
	f.Add([]byte("name: x\ncolors:\n  text: \"#ffffff\"\n"))
	f.Add([]byte("colors: [1,2"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParsePalette("fuzz.yaml", data)
		if err == nil {
			require.NoError(t, p.Validate())
		}
	})
}
