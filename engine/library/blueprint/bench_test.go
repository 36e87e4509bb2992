package blueprint

import (
	"context"
	"testing"
)

// BenchmarkRender renders a two-task blueprint with parameters, a
// conditional and nested values: the `blueprint use` path.
func BenchmarkRender(b *testing.B) {
	s, errs := Parse("bp.yaml", []byte(endpointYAML))
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	ctx := context.Background()
	given := map[string]any{"route": "/orders", "tier": "premium", "workers": "5"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Render(ctx, s, given, RenderOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
