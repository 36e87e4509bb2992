package skills

import (
	"testing"

	"github.com/nova-dev/nova/engine/tools"
)

// FuzzParse feeds arbitrary bytes to the skill parser: it never panics,
// and a skill it accepts validates cleanly again.
func FuzzParse(f *testing.F) {
	for _, data := range BuiltinFiles() {
		f.Add(data)
	}
	f.Add([]byte("schema: nova.skill/1\nname: a\nversion: 1.0.0\ndescription: d\nsteps: [{name: a, tool: readFile, args: {path: '{{ inputs.x }}'}}]\n"))
	f.Add([]byte("a: &a [x]\nb: [*a]\n"))
	f.Add([]byte("steps: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"))
	reg := tools.Core()
	f.Fuzz(func(t *testing.T, data []byte) {
		s, errs := Parse("fuzz.yaml", data, reg.Get, nil)
		if len(errs) == 0 {
			if again := Validate(s, reg.Get, nil); len(again) > 0 {
				t.Fatalf("accepted skill fails validation: %v", again)
			}
		}
	})
}
