package ollamatest

import (
	"os"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

func TestZZServe(t *testing.T) {
	f := os.Getenv("FAKE_OLLAMA_FILE")
	if f == "" {
		t.Skip()
	}
	text := "I listed the files in the workspace and found that the tool archives a project directory into a tarball before it uploads it. " +
		"## Plan\n\n- **add** the `/health` endpoint\n- register it in `main.go`\n\nThe handler answers 200 with the build version, and the tests cover it."
	s := New(t, WithModels("qwen2.5-coder:1.5b", "qwen2.5-coder:7b", "qwen2.5-coder:14b", "nomic-embed-text:latest"), WithHandler(func(n int, req api.ChatRequest) Reply {
		return Reply{Content: text, ChunkSize: 3, ChunkDelay: 40 * time.Millisecond}
	}))
	if err := os.WriteFile(f, []byte(s.Host()), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Hour)
}
