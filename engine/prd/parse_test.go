package prd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func parseError(t *testing.T, err error) *ParseError {
	t.Helper()
	require.Error(t, err)
	var pe *ParseError
	require.ErrorAs(t, err, &pe)
	require.ErrorIs(t, err, ErrMalformed)
	return pe
}

// at returns the 1-based line and column of the first occurrence of marker.
func at(t *testing.T, doc, marker string) (line, col int) {
	t.Helper()
	i := strings.Index(doc, marker)
	require.GreaterOrEqual(t, i, 0, "marker %q", marker)
	before := doc[:i]
	return strings.Count(before, "\n") + 1, i - strings.LastIndex(before, "\n")
}

func TestMalformedJSON(t *testing.T) {
	t.Parallel()
	doc := "{\n  \"meta\": {\"name\": \"x\"},\n  \"tasks\": [\n    {\"id\": \"a\",, \"title\": \"A\"}\n  ]\n}\n"
	_, err := Parse("broken.json", []byte(doc))
	pe := parseError(t, err)

	line, col := at(t, doc, ",,")
	assert.Equal(t, "json", pe.Format)
	assert.Equal(t, line, pe.Line)
	assert.Equal(t, int64(strings.Index(doc, ",,")+1), pe.Offset, "offset of the second comma")
	assert.Equal(t, col+1, pe.Column)
	assert.Contains(t, pe.Error(), "broken.json:4:")
	assert.Contains(t, pe.Error(), "byte offset")
}

func TestMalformedJSONTruncated(t *testing.T) {
	t.Parallel()
	doc := `{"meta": {"name": "x"}, "tasks": [{"id": "a"`
	_, err := Parse("cut.json", []byte(doc))
	pe := parseError(t, err)
	assert.Equal(t, int64(len(doc)-1), pe.Offset)
	assert.Equal(t, 1, pe.Line)
}

func TestJSONWrongTypesNameTheField(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		doc, field, marker, msg string
	}{
		"phase as string": {
			"{\"tasks\": [\n {\"id\": \"a\", \"phase\": 1},\n {\"id\": \"b\", \"phase\": \"two\"}\n]}",
			"tasks[1].phase", `"two"`, "expected integer, got string",
		},
		"dependencies as string": {
			"{\"tasks\": [{\"id\": \"a\", \"dependencies\": \"b\"}]}",
			"tasks[0].dependencies", `"b"`, "expected array, got string",
		},
		"tasks as object": {
			"{\"tasks\": {\"id\": \"a\"}}", "tasks", "{\"id\"", "expected array, got object",
		},
		"meta name as number": {
			"{\"meta\": {\"name\": 7}, \"tasks\": []}", "meta.name", "7", "expected string, got number",
		},
		"top-level array": {
			"[{\"id\": \"a\"}]", "", "{", "expected object, got array",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse("p.json", []byte(tc.doc))
			pe := parseError(t, err)
			assert.Equal(t, tc.field, pe.Field)
			assert.Equal(t, tc.msg, pe.Msg)
			line, _ := at(t, tc.doc, tc.marker)
			assert.Equal(t, line, pe.Line)
			assert.GreaterOrEqual(t, pe.Offset, int64(0))
			assert.Contains(t, pe.Error(), "byte offset")
		})
	}
}

func TestMalformedYAML(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		doc   string
		line  int
		field string
	}{
		"bad indentation": {"meta:\n  name: x\ntasks:\n  - id: a\n   title: A\n", 5, ""},
		"unclosed flow":   {"meta: {name: x}\ntasks: [\n  {id: a}\n", 2, ""},
		"wrong type":      {"meta:\n  name: x\ntasks:\n  - id: a\n    phase: later\n", 5, "tasks[0].phase"},
		"duplicate key":   {"meta:\n  name: x\nmeta:\n  name: y\ntasks: []\n", 3, ""},
		"tasks scalar":    {"meta: {name: x}\ntasks: lots\n", 2, "tasks"},
		"top-level list":  {"- id: a\n", 1, ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse("plan.yaml", []byte(tc.doc))
			pe := parseError(t, err)
			assert.Equal(t, "yaml", pe.Format)
			assert.Equal(t, tc.line, pe.Line, pe.Error())
			assert.Equal(t, tc.field, pe.Field)
			assert.True(t, strings.HasPrefix(pe.Error(), "plan.yaml:"), pe.Error())
			assert.NotContains(t, pe.Error(), "byte offset")
		})
	}
}

func TestEmptyAndDegenerateInput(t *testing.T) {
	t.Parallel()
	for name, doc := range map[string]string{
		"x.json": "", "y.json": "  \n", "z.yaml": "", "c.yaml": "# only a comment\n",
		"n.json": "null", "m.yaml": "a: 1\n---\nb: 2\n", "s.json": `"just a string"`,
	} {
		_, err := Parse(name, []byte(doc))
		pe := parseError(t, err)
		assert.Equal(t, name, pe.Name)
	}
}

func TestLoadRejectsHugeFiles(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "huge.json")
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(MaxSize+1)) // sparse: no real disk use
	require.NoError(t, f.Close())
	_, err = Load(path)
	pe := parseError(t, err)
	assert.Contains(t, pe.Msg, "limit")
}

func FuzzParse(f *testing.F) {
	if dir := corpusDirOrEmpty(); dir != "" {
		for _, name := range corpusFiles {
			if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
				f.Add(name, b)
			}
		}
	}
	seeds := map[string]string{
		"a.json": `{"meta":{},"tasks":[{"id":"a","title":"A","agent":"X","dependencies":["a"]}]}`,
		"b.json": `{"tasks":[{"id":"a",,}]}`,
		"c.yaml": "tasks:\n  - {id: a, title: A, agent: X, phase: 1, extra: [1, {b: c}]}\n",
		"d.yaml": "tasks: &x [*x]\n",
		"e.yaml": "id: &a [*a]\n",
		"f":      "{\"tasks\":[null, 1, \"x\"]}",
		"g.yml":  "? [a]\n: b\n",
		"h.json": `{"tasks":[{"id":"a","phase":1e400}]}`,
		"i.yaml": "tasks:\n  - id: a\n    x: !!binary aGk=\n    y: .inf\n",
	}
	for name, doc := range seeds {
		f.Add(name, []byte(doc))
	}
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		p, err := Parse(name, data)
		if err != nil {
			var pe *ParseError
			require.ErrorAs(t, err, &pe)
			require.Nil(t, p)
			return
		}
		require.NotNil(t, p)
		_ = Validate(p, func(string) bool { return true })
		_ = Ready(p, nil)

		// Saving then re-reading reaches a fixed point after one cycle.
		b1, err := p.Marshal()
		require.NoError(t, err)
		p2, err := Parse("again.json", b1)
		require.NoError(t, err, "%s", b1)
		b2, err := p2.Marshal()
		require.NoError(t, err)
		require.Equal(t, string(b1), string(b2))
	})
}

func corpusDirOrEmpty() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			c := filepath.Join(dir, "..", "shared", "corpus", "nova26")
			if _, err := os.Stat(c); err == nil {
				return c
			}
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

func TestCaseVariantsOfKnownFieldsAreRejected(t *testing.T) {
	t.Parallel()
	for name, doc := range map[string]string{
		"top.json":  `{"Tasks": [{"id": "a", "title": "A", "agent": "MARS"}]}`,
		"task.json": `{"tasks": [{"id": "a", "Title": "A", "agent": "MARS"}]}`,
		"meta.yaml": "meta: {Name: x}\ntasks: []\n",
		"task.yaml": "tasks:\n  - {id: a, title: A, AGENT: MARS}\n",
	} {
		_, err := Parse(name, []byte(doc))
		pe := parseError(t, err)
		assert.Contains(t, pe.Msg, "case-sensitive", name)
		assert.NotEmpty(t, pe.Field, name)
		assert.Equal(t, name, pe.Name)
	}
}

func TestDeepYAMLNestingIsRejectedQuickly(t *testing.T) {
	t.Parallel()
	for name, doc := range map[string]string{
		"flow seq":   "meta: {name: x}\ntasks: " + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + "\n",
		"flow map":   "meta: {name: x}\ntasks: " + strings.Repeat("{a: ", 100_000) + "\n",
		"block seq":  "meta: {name: x}\ntasks: \n" + strings.Repeat("- ", 100_000) + "x\n",
		"deep index": "meta: {name: x}\ntasks:\n" + strings.Repeat("  ", 5_000) + "- x\n",
	} {
		_, err := Parse("deep.yaml", []byte(doc))
		pe := parseError(t, err)
		assert.Contains(t, pe.Msg, "nesting", name)
		assert.Positive(t, pe.Line, name)
	}
	// Brackets inside quoted or commented text do not count.
	doc := "meta: {name: \"[[[[\"}\ntasks:\n  - {id: a, title: '{{{{ it''s [', agent: X} # ]]]] [[[[\n"
	p, err := Parse("ok.yaml", []byte(doc))
	require.NoError(t, err)
	assert.Equal(t, "{{{{ it's [", p.Tasks[0].Title)
}
