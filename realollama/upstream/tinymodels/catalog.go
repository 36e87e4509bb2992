package tinymodels

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Words harvests the n most frequent words (3 to 16 ASCII letters,
// lower-cased) of the text files (.go, .yaml, .md) under root, skipping
// realollama/ and hidden directories: the vocabulary of nova's own prompts,
// so the tiny models tokenize them about as densely as real models do.
// Ties are broken alphabetically, so the result is deterministic.
func Words(root string, n int) ([]string, error) {
	word := regexp.MustCompile(`[A-Za-z]{3,16}`)
	freq := map[string]int{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") && name != ".nova" || name == "realollama" || name == "testdata" || name == "playground") {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(name) {
		case ".go", ".yaml", ".md":
		default:
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, w := range word.FindAllString(string(data), -1) {
			freq[strings.ToLower(w)]++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	words := make([]string, 0, len(freq))
	for w := range freq {
		words = append(words, w)
	}
	slices.SortFunc(words, func(a, b string) int { return cmp.Or(freq[b]-freq[a], strings.Compare(a, b)) })
	return words[:min(n, len(words))], nil
}

// The scripts every scripted chat model knows. A prompt selects one with its
// directive ("@@write@@") anywhere in the first user message; the real-server
// suite asserts on these texts, so change both together.
var Scripts = []Script{
	{Name: "plain", Steps: []string{"All done: nothing needed changing."}},
	{Name: "write", Steps: []string{
		ToolCall("writeFile", map[string]string{"path": "hello.txt", "content": "hello from a real server\n"}),
		"Files changed: hello.txt (a greeting written by the tiny model).",
	}},
	// A tool call written as text in the content, the way qwen2.5-coder
	// often answers through Ollama: the server's tool parser sees no
	// <tool_call> tag and passes it on as content; nova reads it.
	{Name: "textcall", Steps: []string{
		"I will create the file now.\n```json\n" +
			`{"name": "writeFile", "arguments": {"file_path": "notes/text.txt", "content": "written from a text tool call\n"}}` +
			"\n```",
		"Files changed: notes/text.txt (written through a tool call in the reply text).",
	}},
	{Name: "t1", Steps: []string{
		ToolCall("writeFile", map[string]string{"path": "notes/one.txt", "content": "first task output\n"}),
		"Files changed: notes/one.txt (task one).",
	}},
	{Name: "t2", Steps: []string{
		ToolCall("writeFile", map[string]string{"path": "notes/two.txt", "content": "second task output\n"}),
		"Files changed: notes/two.txt (task two).",
	}},
	{Name: "t3", Steps: []string{
		ToolCall("writeFile", map[string]string{"path": "notes/three.txt", "content": "third task output\n"}),
		"Files changed: notes/three.txt (task three).",
	}},
	{Name: "branch", Steps: []string{
		// Keys in the schema's order: the grammar the server derives from
		// the format schema only allows them in that order.
		`{"description": "Write the greeting file the task asks for.", ` +
			`"files": [{"path": "hello.txt", "proposedContent": "hello from a rehearsal\n"}], ` +
			`"agentNotes": "Confident: a one-file change, checked by reading it back."}`,
	}},
	{Name: "repeat", Steps: []string{"Let me think about this: "}, Loop: "again "},
	{Name: "lead", Steps: []string{
		// A goal run's lead: every turn is a fresh conversation, so it
		// decides the same delegation each time (the stuck-loop guard ends
		// the run). Keys in the decision schema's order, as for "branch".
		`{"action": "delegate", "reasoning": "The first note comes first; the tester writes it.", ` +
			`"agent": "tester", "task": "@@t1@@ Write the first note.", ` +
			`"keyDecision": "notes live under notes/", "goal": "write the first note"}`,
	}},
}

// Plan is what the generator wrote: the files and the models to create from
// them (name, file digest, template, parameters), in a models.json beside
// the files.
type Plan struct {
	Models []PlannedModel `json:"models"`
}

// PlannedModel is one model to create with /api/create.
type PlannedModel struct {
	Name       string         `json:"name"`
	File       string         `json:"file"` // path of the GGUF file
	Digest     string         `json:"digest"`
	Template   string         `json:"template,omitempty"`
	Parameters map[string]any `json:"parameters,omitempty"`
	// Purpose says what the suite uses the model for.
	Purpose string `json:"purpose"`
}

// Catalog model names.
const (
	Coder  = "nova-coder"  // scripted chat model with tools, context 4096
	Plain  = "nova-plain"  // same weights, a template without tools: completion only
	Short  = "nova-short"  // nova-coder with num_predict 3: every reply hits the limit
	Tight  = "nova-tight"  // scripted chat model with tools, context 1536
	Embed  = "nova-embed"  // mean-pooling embedding model
	Broken = "nova-broken" // accepted at create time, fails to load (server error)
)

// Generate writes every model file into dir and returns the plan (also
// written to dir/models.json). words become whole-word tokenizer pieces
// (see Words).
func Generate(dir string, words []string) (Plan, error) {
	chat, err := WriteChatModel(dir, "chat-4096", ChatModelSpec{ContextLength: 4096, Scripts: Scripts, Words: words})
	if err != nil {
		return Plan{}, err
	}
	tight, err := WriteChatModel(dir, "chat-1536", ChatModelSpec{ContextLength: 1536, Scripts: Scripts, Words: words})
	if err != nil {
		return Plan{}, err
	}
	emb, err := WriteEmbedModel(dir, "embed", 2048, words)
	if err != nil {
		return Plan{}, err
	}
	broken, err := WriteBrokenModel(dir, "broken")
	if err != nil {
		return Plan{}, err
	}
	withTools := ChatTemplate(Scripts, true)
	noTools := ChatTemplate(Scripts, false)
	plan := Plan{Models: []PlannedModel{
		{Name: Coder, File: chat.Path, Digest: chat.Digest, Template: withTools, Purpose: "scripted chat with native tool calls"},
		{Name: Plain, File: chat.Path, Digest: chat.Digest, Template: noTools, Purpose: "chat without the tools capability"},
		{Name: Short, File: chat.Path, Digest: chat.Digest, Template: withTools, Parameters: map[string]any{"num_predict": 3},
			Purpose: "replies stop at num_predict 3 (done_reason length)"},
		{Name: Tight, File: tight.Path, Digest: tight.Digest, Template: withTools, Purpose: "context length 1536"},
		{Name: Embed, File: emb.Path, Digest: emb.Digest, Purpose: "embedding only"},
		{Name: Broken, File: broken.Path, Digest: broken.Digest, Template: withTools, Purpose: "fails to load"},
	}}
	data, err := json.MarshalIndent(plan, "", "  ")
	if err != nil {
		return Plan{}, err
	}
	if err := os.WriteFile(filepath.Join(dir, "models.json"), data, 0o644); err != nil {
		return Plan{}, fmt.Errorf("write plan: %w", err)
	}
	return plan, nil
}
