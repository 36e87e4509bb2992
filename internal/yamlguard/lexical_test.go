package yamlguard

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTooDeep(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		data string
		line int
	}{
		{"plain document", "id: MARS\ntools: [readFile, writeFile]\n", 0},
		{"nesting at the limit", "x: " + strings.Repeat("[", MaxNesting) + strings.Repeat("]", MaxNesting) + "\n", 0},
		{"nesting past the limit", "a: 1\nx: " + strings.Repeat("[", MaxNesting+1) + "\n", 2},
		{"brackets in quotes do not count", "x: \"" + strings.Repeat("[", 200) + "\"\n", 0},
		{"brackets in comments do not count", "x: 1 # " + strings.Repeat("{", 200) + "\n", 0},
		{"apostrophe in a word is not a quote", "role: don't [stop]\ny: " + strings.Repeat("[", MaxNesting+1) + "\n", 2},
		{"deep indentation", "a:\n" + strings.Repeat(" ", MaxIndent+1) + "b: 1\n", 2},
		{"long dash chains count as indentation", strings.Repeat("- ", MaxIndent/2+1) + "x\n", 1},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.line, TooDeep([]byte(tc.data)), tc.name)
	}
}

func FuzzTooDeep(f *testing.F) {
	f.Add([]byte("a: [b, {c: d}]\n"))
	f.Add([]byte("'unterminated\n- - - x"))
	f.Fuzz(func(t *testing.T, data []byte) {
		line := TooDeep(data)
		if line < 0 || line > strings.Count(string(data), "\n")+1 {
			t.Fatalf("line %d out of range", line)
		}
	})
}
