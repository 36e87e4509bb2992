package tmpl

import (
	"context"
	"testing"
)

// BenchmarkRender parses and renders a typical task template.
func BenchmarkRender(b *testing.B) {
	src := "Write tests for {{ target }} covering {{ focus }}.{% if test.failed %} Fix: {{ test.reason }}{% endif %}"
	data := map[string]any{"target": "parse.go", "focus": "errors", "test": map[string]any{"failed": true, "reason": "x"}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Render(ctx, src, data); err != nil {
			b.Fatal(err)
		}
	}
}
