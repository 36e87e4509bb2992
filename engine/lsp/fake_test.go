package lsp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// The test binary doubles as a fake language server: with
// NOVA_FAKE_LSP=<mode> it speaks LSP on stdin/stdout instead of testing.
func TestMain(m *testing.M) {
	if mode := os.Getenv("NOVA_FAKE_LSP"); mode != "" {
		fakeServer(mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fakeServer modes:
//
//	ok        answers initialize; publishes one error per line holding BROKEN
//	crash     answers initialize, then exits when a file is opened
//	hang      never answers initialize
//	flood     like ok, but first publishes thousands of files and diagnostics
//	huge      answers initialize with a message past the size limit
//	garbage   writes bytes that are not LSP
func fakeServer(mode string) {
	r := bufio.NewReader(os.Stdin)
	w := bufio.NewWriter(os.Stdout)
	send := func(m message) {
		b, _ := frame(m)
		_, _ = w.Write(b)
		_ = w.Flush()
	}
	if mode == "garbage" {
		_, _ = w.WriteString("hello, I am not a language server\r\n\r\n")
		_ = w.Flush()
	}
	for {
		m, err := readMessage(r)
		if err != nil {
			return
		}
		switch m.Method {
		case "initialize":
			switch mode {
			case "hang":
				continue
			case "huge":
				_, _ = fmt.Fprintf(w, "Content-Length: %d\r\n\r\n", maxMessage+1)
				_ = w.Flush()
				continue
			}
			// Ask the client something first, as real servers do.
			send(message{ID: json.RawMessage(`"cfg"`), Method: "workspace/configuration", Params: json.RawMessage(`{"items":[{}]}`)})
			send(message{ID: m.ID, Result: json.RawMessage(`{"capabilities":{"textDocumentSync":1}}`)})
		case "shutdown":
			send(message{ID: m.ID, Result: json.RawMessage(`null`)})
		case "exit":
			return
		case "textDocument/didOpen", "textDocument/didChange":
			if mode == "crash" {
				os.Exit(3)
			}
			var p struct {
				TextDocument struct {
					URI     string `json:"uri"`
					Version int    `json:"version"`
					Text    string `json:"text"`
				} `json:"textDocument"`
				ContentChanges []struct {
					Text string `json:"text"`
				} `json:"contentChanges"`
			}
			_ = json.Unmarshal(m.Params, &p)
			text := p.TextDocument.Text
			if len(p.ContentChanges) > 0 {
				text = p.ContentChanges[0].Text
			}
			if mode == "flood" {
				for i := range 3000 {
					params, _ := json.Marshal(map[string]any{"uri": fmt.Sprintf("file:///elsewhere/f%d.go", i), "diagnostics": []any{}})
					send(message{Method: "textDocument/publishDiagnostics", Params: params})
				}
				many := make([]map[string]any, 5000)
				for i := range many {
					many[i] = map[string]any{"range": map[string]any{"start": map[string]any{"line": i, "character": 0}}, "severity": 2, "message": "noise"}
				}
				params, _ := json.Marshal(map[string]any{"uri": p.TextDocument.URI, "version": p.TextDocument.Version, "diagnostics": many})
				send(message{Method: "textDocument/publishDiagnostics", Params: params})
			}
			var diags []map[string]any
			for i, line := range strings.Split(text, "\n") {
				if c := strings.Index(line, "BROKEN"); c >= 0 {
					diags = append(diags, map[string]any{"range": map[string]any{"start": map[string]any{"line": i, "character": c}},
						"severity": 1, "message": "BROKEN is not defined", "source": "fake"})
				}
			}
			if diags == nil {
				diags = []map[string]any{}
			}
			params, _ := json.Marshal(map[string]any{"uri": p.TextDocument.URI, "version": p.TextDocument.Version, "diagnostics": diags})
			send(message{Method: "textDocument/publishDiagnostics", Params: params})
		}
	}
}

// fakeSpec is a server spec that runs the test binary in mode.
func fakeSpec(t *testing.T, mode string) ServerSpec {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return ServerSpec{Name: "fake-" + mode, Command: exe, Path: exe, Languages: []string{"go"},
		Env: []string{"NOVA_FAKE_LSP=" + mode}}
}
