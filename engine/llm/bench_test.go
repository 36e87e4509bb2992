package llm_test

import (
	"context"
	"strings"
	"testing"

	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
)

// BenchmarkChatOverhead measures a full streamed chat through the official
// client against the zero-latency fake: the cost nova adds per call.
func BenchmarkChatOverhead(b *testing.B) {
	srv := ollamatest.New(b, ollamatest.WithDefaultReply(ollamatest.Text(strings.Repeat("word ", 64)).WithChunkSize(5)))
	c := newClient(b, srv)
	req := llm.ChatRequest{Model: model, Messages: user("benchmark")}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Chat(ctx, req, func(llm.Delta) {}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkExtractJSON(b *testing.B) {
	inputs := map[string]string{
		"plain":  `{"title":"Add login","steps":["model","handler","tests"]}`,
		"fenced": "Here is the plan:\n```json\n{\"title\":\"Add login\",\"steps\":[\"model\",\"handler\"]}\n```\nDone.",
		"prose":  strings.Repeat("Some reasoning about {braces} and [refs]. ", 50) + `{"title":"x","steps":["a"]}`,
	}
	for name, in := range inputs {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				if _, err := llm.ExtractJSON(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
