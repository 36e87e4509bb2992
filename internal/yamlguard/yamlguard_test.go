package yamlguard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/internal/hostile"
)

func TestAliasBombIsRefusedCheaply(t *testing.T) {
	t.Parallel()
	start := time.Now()
	var v map[string]any
	err := Unmarshal("bomb.yaml", []byte(hostile.AliasBombPRD()), &v, Limits{})
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrAliases)
	assert.ErrorIs(t, err, ErrLimit)
	assert.Contains(t, err.Error(), "bomb.yaml:")
	assert.Contains(t, err.Error(), "alias expansion limit")
	assert.Less(t, time.Since(start), 10*time.Second, "only catches a hang")
	assert.Nil(t, v, "nothing was decoded")
}

func TestModerateAliasesStillWork(t *testing.T) {
	t.Parallel()
	doc := "base: &b {model: qwen, temp: 0.2}\nfast: *b\nslow:\n  <<: *b\n  temp: 0.7\n"
	var v map[string]map[string]any
	require.NoError(t, Unmarshal("ok.yaml", []byte(doc), &v, Limits{}))
	assert.Equal(t, "qwen", v["fast"]["model"])
	assert.InDelta(t, 0.7, v["slow"]["temp"], 1e-9)
}

func TestSelfReferencingAlias(t *testing.T) {
	t.Parallel()
	var v any
	err := Unmarshal("loop.yaml", []byte("id: &a [*a]\n"), &v, Limits{})
	require.Error(t, err)
	assert.NotPanics(t, func() { _ = Unmarshal("loop.yaml", []byte("id: &a [*a, {b: *a}]\n"), &v, Limits{}) })
}

func TestDeepDocumentIsRefusedCheaply(t *testing.T) {
	t.Parallel()
	// config.yaml of issue 11: "x: " then 100,000 '[' and as many ']'.
	doc := hostile.DeepYAML("x", 100_000)
	var v map[string]any
	err := Unmarshal("config.yaml", []byte(doc), &v, Limits{})
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrTooDeep)
	assert.Contains(t, err.Error(), "config.yaml:1: depth limit")
}

func TestDeepThroughAliases(t *testing.T) {
	t.Parallel()
	// Each anchor nests 40 levels inside the previous one: shallow to the
	// lexical check, deep once expanded.
	var b strings.Builder
	prev := ""
	for i := range 10 {
		name := string(rune('a' + i))
		inner := "1"
		if prev != "" {
			inner = "*" + prev
		}
		b.WriteString(name + ": &" + name + " " + strings.Repeat("[", 40) + inner + strings.Repeat("]", 40) + "\n")
		prev = name
	}
	var v any
	err := Unmarshal("deep.yaml", []byte(b.String()), &v, Limits{})
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrTooDeep)
}

func TestSizeLimit(t *testing.T) {
	t.Parallel()
	// The 50 MB userId of issue 11.
	doc := "userId: " + strings.Repeat("x", 50<<20) + "\n"
	var v map[string]any
	err := Unmarshal("config.yaml", []byte(doc), &v, Limits{MaxBytes: 256 << 10})
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrTooLarge)
	assert.Contains(t, err.Error(), "262144-byte limit")

	path := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(path, []byte(doc), 0o600))
	_, err = ReadFile(path, Limits{MaxBytes: 256 << 10})
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrTooLarge)
	assert.Contains(t, err.Error(), path)
}

func TestStrictDecodeAndSyntaxErrorsPassThrough(t *testing.T) {
	t.Parallel()
	var v struct {
		A int `yaml:"a"`
	}
	err := Unmarshal("x.yaml", []byte("a: 1\nb: 2\n"), &v, Limits{}, yaml.Strict())
	require.Error(t, err)
	var ye yaml.Error
	assert.ErrorAs(t, err, &ye, "go-yaml errors keep their token")
	assert.NotErrorIs(t, err, ErrLimit)
}

func FuzzUnmarshal(f *testing.F) {
	f.Add([]byte(hostile.AliasBombPRD()))
	f.Add([]byte("id: &a [*a]\n"))
	f.Add([]byte("a: &x {b: 1}\nc: [*x, *x]\n"))
	f.Add([]byte("- !!str &a x\n- *a\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		err := Unmarshal("fuzz.yaml", data, &v, Limits{MaxAliasNodes: 2_000, MaxAliasBytes: 64 << 10})
		if err == nil && v != nil {
			// A document that passed decodes to a bounded value: encoding
			// it back must stay within a multiple of input + limits.
			out, merr := yaml.Marshal(v)
			if merr == nil && len(out) > 64*(len(data)+(64<<10)+2_000) {
				t.Fatalf("%d input bytes re-encode to %d bytes", len(data), len(out))
			}
		}
	})
}
