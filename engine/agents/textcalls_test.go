package agents_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/agents"
)

var offeredTools = []string{"readFile", "listFiles", "writeFile", "editFile"}

func TestParseTextToolCallsForms(t *testing.T) {
	t.Parallel()
	type want struct{ name, args, form string }
	cases := []struct {
		name, in string
		want     []want
	}{
		{"bare json", `I will create it now. {"name": "writeFile", "arguments": {"path": "a.txt", "content": "hi\n"}}`,
			[]want{{"writeFile", `{"path":"a.txt","content":"hi\n"}`, agents.FormJSON}}},
		{"bare json alone", `{"name":"readFile","parameters":{"path":"main.go"}}`,
			[]want{{"readFile", `{"path":"main.go"}`, agents.FormJSON}}},
		{"arguments as a string", `{"name": "readFile", "arguments": "{\"path\": \"main.go\"}"}`,
			[]want{{"readFile", `{"path":"main.go"}`, agents.FormJSON}}},
		{"function wrapper", `{"type": "function", "function": {"name": "readFile", "arguments": {"path": "x.go"}}}`,
			[]want{{"readFile", `{"path":"x.go"}`, agents.FormJSON}}},
		{"array of calls", `[{"name": "readFile", "arguments": {"path": "a"}}, {"name": "listFiles", "arguments": {}}]`,
			[]want{{"readFile", `{"path":"a"}`, agents.FormJSON}, {"listFiles", `{}`, agents.FormJSON}}},
		{"tool_calls object", `{"tool_calls": [{"function": {"name": "listFiles", "arguments": null}}]}`,
			[]want{{"listFiles", `{}`, agents.FormJSON}}},
		{"fenced json", "I will create the file now.\n```json\n{\"name\": \"writeFile\", \"arguments\": {\"file_path\": \"notes/text.txt\", \"content\": \"x\\n\"}}\n```\n",
			[]want{{"writeFile", `{"file_path":"notes/text.txt","content":"x\n"}`, agents.FormFencedJSON}}},
		{"plain fence without arguments", "```\n{\"name\": \"listFiles\"}\n```",
			[]want{{"listFiles", `{}`, agents.FormFencedJSON}}},
		{"tool_call tag", "<tool_call>\n{\"name\": \"readFile\", \"arguments\": {\"path\": \"main.go\"}}\n</tool_call>",
			[]want{{"readFile", `{"path":"main.go"}`, agents.FormToolCallTag}}},
		{"two tool_call tags", "<tool_call>{\"name\": \"readFile\", \"arguments\": {\"path\": \"a\"}}</tool_call>\n<tool_call>{\"name\": \"readFile\", \"arguments\": {\"path\": \"b\"}}</tool_call>",
			[]want{{"readFile", `{"path":"a"}`, agents.FormToolCallTag}, {"readFile", `{"path":"b"}`, agents.FormToolCallTag}}},
		{"tool_call tag left open", "Let me look.\n<tool_call>\n{\"name\": \"readFile\", \"arguments\": {\"path\": \"main.go\"}}",
			[]want{{"readFile", `{"path":"main.go"}`, agents.FormToolCallTag}}},
		{"function tag", "<tool_call>\n<function=writeFile>\n<parameter=path>\nsrc/a.go\n</parameter>\n<parameter=content>\npackage a\n\nfunc A() {}\n\n</parameter>\n</function>\n</tool_call>",
			[]want{{"writeFile", `{"path":"src/a.go","content":"package a\n\nfunc A() {}\n"}`, agents.FormFunctionTag}}},
		{"function tag without closing parameter tags", "<function=readFile>\n<parameter=path>\nmain.go\n<parameter=limit>\n20\n</function>",
			[]want{{"readFile", `{"path":"main.go","limit":"20"}`, agents.FormFunctionTag}}},
		{"function tag with json", `<function=readFile>{"path": "main.go"}</function>`,
			[]want{{"readFile", `{"path":"main.go"}`, agents.FormFunctionTag}}},
		{"mistral list", `[TOOL_CALLS][{"name": "readFile", "arguments": {"path": "main.go"}}]`,
			[]want{{"readFile", `{"path":"main.go"}`, agents.FormMistral}}},
		{"mistral args", `[TOOL_CALLS]writeFile[ARGS]{"path": "a.txt", "content": "x"}`,
			[]want{{"writeFile", `{"path":"a.txt","content":"x"}`, agents.FormMistral}}},
		{"mistral call id", `[TOOL_CALLS]readFile[CALL_ID]abc123XYZ[ARGS]{"path": "a"}`,
			[]want{{"readFile", `{"path":"a"}`, agents.FormMistral}}},
		{"name spelled differently", `{"name": "functions.write_file", "arguments": {"path": "a", "content": ""}}`,
			[]want{{"writeFile", `{"path":"a","content":""}`, agents.FormJSON}}},
		{"raw newline inside a string", "{\"name\": \"writeFile\", \"arguments\": {\"path\": \"a.txt\", \"content\": \"line one\nline two\"}}",
			[]want{{"writeFile", `{"path":"a.txt","content":"line one\nline two"}`, agents.FormJSON}}},
		{"thinking is not a call", "<think>maybe {\"name\": \"readFile\", \"arguments\": {\"path\": \"x\"}}</think>\n{\"name\": \"listFiles\", \"arguments\": {}}",
			[]want{{"listFiles", `{}`, agents.FormJSON}}},
		{"mixed forms in order", "[TOOL_CALLS]readFile[ARGS]{\"path\": \"b\"} then {\"name\": \"readFile\", \"arguments\": {\"path\": \"c\"}}",
			[]want{{"readFile", `{"path":"b"}`, agents.FormMistral}, {"readFile", `{"path":"c"}`, agents.FormJSON}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := agents.ParseTextToolCalls(c.in, offeredTools)
			require.Len(t, got, len(c.want), "%+v", got)
			for i, w := range c.want {
				assert.Equal(t, w.name, got[i].Name)
				assert.JSONEq(t, w.args, string(got[i].Args))
				assert.Equal(t, w.form, got[i].Form)
			}
		})
	}
}

func TestParseTextToolCallsMalformed(t *testing.T) {
	t.Parallel()
	none := []struct{ name, in string }{
		{"plain prose", "I changed main.go to add a handler."},
		{"unknown tool", `{"name": "deleteEverything", "arguments": {"path": "."}}`},
		{"unknown tool in a tag", "<tool_call>{\"name\": \"frobnicate\", \"arguments\": {}}</tool_call>"},
		{"unknown function tag", "<function=frobnicate><parameter=x>1</parameter></function>"},
		{"not offered", `{"name": "runCommand", "arguments": {"command": "ls"}}`},
		{"data with a name", `The package.json is {"name": "readFile", "version": "1.0.0", "private": true}.`},
		{"data without arguments in prose", `Use {"name": "listFiles"} to list.`},
		{"almost a call: arguments not an object", `{"name": "readFile", "arguments": ["main.go"]}`},
		{"almost a call: arguments a non-JSON string", `{"name": "readFile", "arguments": "main.go"}`},
		{"almost a call: name not a string", `{"name": 7, "arguments": {}}`},
		{"almost a call: cut", `{"name": "readFile", "arguments": {"path": "main.go"}`},
		{"single quotes", `{'name': 'readFile', 'arguments': {'path': 'main.go'}}`},
		{"nested data holding a call", `{"example": {"name": "readFile", "arguments": {"path": "a"}}}`},
		{"array with data", `[{"name": "readFile", "arguments": {"path": "a"}}, {"id": 3}]`},
		{"unterminated tool_call", "<tool_call>{\"name\": \"readFile\", \"arguments\": {\"path\": \"a"},
		{"unterminated function name", "<function=readFile"},
		{"function tag of prose", "<function=readFile> is the tool I would use"},
		{"mistral without args", "[TOOL_CALLS]readFile"},
		{"mistral garbage", "[TOOL_CALLS][{\"name\": \"readFile\""},
		{"unclosed think", "<think>{\"name\": \"readFile\", \"arguments\": {\"path\": \"a\"}}"},
		{"braces in strings", `{"name": "readFile", "arguments": {"path": "a}"}, "x": "{"}`},
		{"empty", ""},
	}
	for _, c := range none {
		assert.Empty(t, agents.ParseTextToolCalls(c.in, offeredTools), c.name)
	}
	// Braces inside strings do not end the object early.
	got := agents.ParseTextToolCalls(`{"name": "writeFile", "arguments": {"path": "a.go", "content": "func f() { if x { \"}\" } }"}}`, offeredTools)
	require.Len(t, got, 1)
	var args map[string]string
	require.NoError(t, json.Unmarshal(got[0].Args, &args))
	assert.Equal(t, `func f() { if x { "}" } }`, args["content"])
	// Prose braces before a call do not hide it.
	got = agents.ParseTextToolCalls(`In Go {x} is a block; now {"name": "readFile", "arguments": {"path": "a"}}`, offeredTools)
	require.Len(t, got, 1)
	assert.Equal(t, "readFile", got[0].Name)
	// Nothing is offered: nothing is a call.
	assert.Empty(t, agents.ParseTextToolCalls(`{"name": "readFile", "arguments": {}}`, nil))
}

func TestParseTextToolCallsIsBounded(t *testing.T) {
	t.Parallel()
	call := `{"name": "readFile", "arguments": {"path": "a"}}`
	inputs := map[string]string{
		"10 MB of open braces":   strings.Repeat(`{"`, 5<<20),
		"10 MB of tags":          strings.Repeat("<tool_call><function=readFile><parameter=path>", 220000),
		"10 MB of mistral":       strings.Repeat("[TOOL_CALLS]readFile[ARGS]{", 400000),
		"10 MB of fences":        strings.Repeat("```json\n{\"name\":\n", 600000),
		"call after 10 MB prose": strings.Repeat("word ", 2<<20) + call,
		"many calls":             strings.Repeat(call+"\n", 100),
		"nested and invalid":     strings.Repeat(`{"a" `, 1<<18) + strings.Repeat("}", 1<<18),
		"raw newlines in keys":   strings.Repeat("{\"a\n\" ", 1<<18) + strings.Repeat("}", 1<<18),
	}
	for name, in := range inputs {
		start := time.Now()
		got := agents.ParseTextToolCalls(in, offeredTools)
		assert.Less(t, time.Since(start), 5*time.Second, name)
		assert.LessOrEqual(t, len(got), 16, name)
		if name == "call after 10 MB prose" {
			assert.Empty(t, got, "only the first MiB is read")
		}
		if name == "many calls" {
			assert.Len(t, got, 16)
		}
	}
}

func FuzzParseTextToolCalls(f *testing.F) {
	for _, s := range []string{
		`{"name": "readFile", "arguments": {"path": "a"}}`,
		"```json\n{\"name\": \"writeFile\", \"arguments\": {\"path\": \"a\", \"content\": \"b\"}}\n```",
		"<tool_call>{\"name\": \"readFile\", \"arguments\": \"{\\\"path\\\": \\\"x\\\"}\"}</tool_call>",
		"<function=writeFile>\n<parameter=path>\na\n</parameter>\n</function>",
		`[TOOL_CALLS][{"name": "listFiles", "arguments": {}}]`,
		`[TOOL_CALLS]readFile[ARGS]{"path": "a"}`,
		"<think>{</think>[{\"function\": {\"name\": \"readFile\"}}]",
		"{\"name\": \"writeFile\", \"arguments\": {\"content\": \"a\nb\"}}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		calls := agents.ParseTextToolCalls(s, offeredTools)
		if len(calls) > 16 {
			t.Fatalf("%d calls", len(calls))
		}
		for _, c := range calls {
			if !json.Valid(c.Args) || len(c.Args) == 0 || c.Args[0] != '{' {
				t.Fatalf("args %q are not a JSON object", c.Args)
			}
			found := false
			for _, o := range offeredTools {
				found = found || o == c.Name
			}
			if !found {
				t.Fatalf("call of %q, which is not offered", c.Name)
			}
			switch c.Form {
			case agents.FormJSON, agents.FormFencedJSON, agents.FormToolCallTag, agents.FormFunctionTag, agents.FormMistral:
			default:
				t.Fatalf("form %q", c.Form)
			}
		}
	})
}

// BenchmarkParseTextToolCalls: every reply without a native call goes
// through the parser, so a typical reply must cost next to nothing, and the
// worst 1 MiB input stays bounded.
func BenchmarkParseTextToolCalls(b *testing.B) {
	inputs := map[string]string{
		"prose 2KB": strings.Repeat("The handler {in main.go} answers [200] with a JSON body. ", 36),
		"fenced call 2KB": strings.Repeat("Some reasoning about the change. ", 50) + "\n```json\n" +
			`{"name": "writeFile", "arguments": {"path": "a.go", "content": "package a\n"}}` + "\n```\n",
		"worst 1MiB": strings.Repeat(`{"`, 1<<19),
	}
	for name, in := range inputs {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				agents.ParseTextToolCalls(in, offeredTools)
			}
		})
	}
}
