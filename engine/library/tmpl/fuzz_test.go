package tmpl

import (
	"context"
	"strings"
	"testing"
	"time"
)

// FuzzRenderValues feeds arbitrary values to fixed templates: a value is
// always printed verbatim, whatever it contains.
func FuzzRenderValues(f *testing.F) {
	for _, s := range []string{"", "{{ 7*7 }}", "{% for i in range(9) %}{% endfor %}", "\x00\xff", "}}{{", "{% raw %}"} {
		f.Add(s)
	}
	tp, err := Parse("<{{ v }}|{{ m.k }}|{{ v | firstline }}>")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, v string) {
		out, err := tp.Render(context.Background(), map[string]any{"v": v, "m": map[string]any{"k": v}}, 5*time.Second)
		if err != nil {
			t.Fatalf("render: %v", err)
		}
		if !strings.HasPrefix(out, "<"+v+"|"+v+"|") {
			t.Fatalf("value was not printed verbatim: %q -> %q", v, out)
		}
	})
}

// FuzzParseRender feeds arbitrary template text: Parse and Render never
// panic and always end.
func FuzzParseRender(f *testing.F) {
	for _, s := range []string{
		"{{ x }}", "{% if a %}b{% else %}c{% endif %}", "{% for i in range(3) %}{{ i }}{% endfor %}",
		"{{ x | default('d') | upper }}", "{{ 1 % 0 }}", "{% set n = namespace(a=1) %}{{ n.a }}",
		"{{ x.split(',') }}", "{{ 'a' ~ x }}", "{% include 'x' %}", "{{ x }", "{% if %}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 512 {
			return
		}
		tp, err := Parse(src)
		if err != nil {
			return
		}
		_ = tp.Refs()
		_, _ = tp.Render(context.Background(), map[string]any{"x": "v", "a": true, "n": 3}, time.Second)
	})
}

// FuzzParseExpr feeds arbitrary condition expressions.
func FuzzParseExpr(f *testing.F) {
	for _, s := range []string{"a == 'b'", "{{ a }}", "not a.failed", "a in [1, 2]", "%}", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 256 {
			return
		}
		x, err := ParseExpr(src)
		if err != nil {
			return
		}
		_, _ = x.Eval(context.Background(), map[string]any{"a": map[string]any{"failed": true}})
	})
}
