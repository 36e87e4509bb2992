package yamldoc

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type item struct {
	Name  string         `yaml:"name"`
	Count int            `yaml:"count"`
	Args  map[string]any `yaml:"args"`
}

type doc struct {
	ID    string `yaml:"id"`
	Items []item `yaml:"items"`
}

func TestDecodeReportsUnknownKeysAndTypesWithLines(t *testing.T) {
	t.Parallel()
	src := "id: x\nitems:\n  - name: a\n    cuont: 2\n    args: {anything: goes}\n  - name: b\n    count: many\n"
	d, err := Parse("f.yaml", "test", []byte(src))
	require.NoError(t, err)
	var v doc
	errs := d.Decode(&v)
	require.Len(t, errs, 2)
	assert.Equal(t, `f.yaml:4: items[0].cuont: unknown field "cuont"`, errs[0].Error())
	assert.Contains(t, errs[1].Error(), "f.yaml:7: items[1].count: expected a whole number")
	assert.ErrorIs(t, errs[0], ErrInvalid)
	assert.Equal(t, 6, d.Line("items[1].name"))
	assert.Equal(t, 6, d.Line("items[1].missing"), "falls back to the parent")
	e := d.Errorf("items[0].name", "bad %s", "name")
	assert.Equal(t, "f.yaml:3: items[0].name: bad name", e.Error())
}

func TestParseRefusesBadFiles(t *testing.T) {
	t.Parallel()
	bomb := "a: &a [x, x, x, x]\nb: &b [*a, *a, *a, *a]\nc: [*b, *b, *b, *b]\n"
	for name, tc := range map[string]struct{ src, want string }{
		"empty":     {"", "file is empty"},
		"comments":  {"# nothing\n", "file is empty"},
		"two docs":  {"a: 1\n---\nb: 2\n", "2 YAML documents"},
		"list":      {"- a\n- b\n", "must be a mapping"},
		"scalar":    {"hello\n", "must be a mapping"},
		"aliases":   {bomb, "anchors and aliases"},
		"deep":      {"a: " + strings.Repeat("[", 200) + strings.Repeat("]", 200) + "\n", "nesting is deeper"},
		"syntax":    {"a: [1, 2\nb: 3\n", "f.yaml"},
		"too large": {"a: " + strings.Repeat("x", MaxSize) + "\n", "larger than"},
		"tab":       {"a:\n\t- b\n", "f.yaml"},
	} {
		_, err := Parse("f.yaml", "test", []byte(tc.src))
		require.Error(t, err, name)
		assert.ErrorIs(t, err, ErrInvalid, name)
		assert.Contains(t, err.Error(), tc.want, name)
	}
}
