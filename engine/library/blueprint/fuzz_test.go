package blueprint

import (
	"context"
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary bytes to the blueprint parser: it never panics,
// and a spec it accepts validates again and renders or fails cleanly.
func FuzzParse(f *testing.F) {
	f.Add([]byte(endpointYAML))
	f.Add([]byte("name: a\nprd: {tasks: [{id: x, title: '{{ n }}'}]}\nparameters: [{name: n, default: 1}]\n"))
	f.Add([]byte("a: &a [x]\nname: *a\n"))
	f.Add([]byte("name: a\nprd:\n  tasks:\n    - phase: '{{ 1 % 0 }}'\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, errs := Parse("fuzz.yaml", data)
		if len(errs) > 0 {
			return
		}
		if again := Validate(s); len(again) > 0 {
			t.Fatalf("accepted spec fails validation: %v", again)
		}
		_, _ = Render(context.Background(), s, nil, RenderOptions{})
	})
}

// FuzzRenderValues feeds arbitrary parameter values: a value is data, so
// it appears verbatim in the rendered PRD.
func FuzzRenderValues(f *testing.F) {
	for _, s := range []string{"/x", "{{ 7*7 }}", "{% for %}", "\x00", "a\"b", "{{ route }}"} {
		f.Add(s)
	}
	spec, errs := Parse("bp.yaml", []byte(endpointYAML))
	if len(errs) > 0 {
		f.Fatal(errs)
	}
	f.Fuzz(func(t *testing.T, v string) {
		r, err := Render(context.Background(), spec, map[string]any{"route": v}, RenderOptions{})
		if err != nil {
			return // e.g. a value too long for a parameter
		}
		if got := r.PRD.Tasks[0].Title; got != "Write the "+v+" handler" && !strings.ContainsRune(v, 0xFFFD) {
			t.Fatalf("value was not used verbatim: %q -> %q", v, got)
		}
	})
}
