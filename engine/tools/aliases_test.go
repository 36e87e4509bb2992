package tools_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/tools"
)

func TestAliasesAreReadAsTheCanonicalArgument(t *testing.T) {
	t.Parallel()
	root := workspace(t, map[string]string{"a.go": "package a\n\nfunc A() {}\n"})
	_, d := draft(t, root)
	reg := tools.Core()
	env := &tools.Env{Root: root, Agent: "MARS", Stage: d}
	ctx := context.Background()

	res := reg.Execute(ctx, env, call("readFile", map[string]any{"file_path": "a.go"}))
	require.Equal(t, tools.StatusOK, res.Status, res.Output)
	assert.True(t, strings.HasPrefix(res.Output, "package a\n"))
	assert.Equal(t, []string{`argument "file_path" read as "path"`}, res.Notes)
	assert.True(t, strings.HasSuffix(res.Output, "\nnote: argument \"file_path\" read as \"path\""), res.Output)
	assert.JSONEq(t, `{"path":"a.go"}`, res.Args, "the trace records the arguments the tool ran with")

	res = reg.Execute(ctx, env, call("writeFile", map[string]any{"filename": "b.go", "contents": "package b\n"}))
	require.Equal(t, tools.StatusOK, res.Status, res.Output)
	assert.ElementsMatch(t, []string{`argument "contents" read as "content"`, `argument "filename" read as "path"`}, res.Notes)
	f, ok, err := d.Lookup(ctx, "b.go")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "package b\n", string(f.Content))

	res = reg.Execute(ctx, env, call("editFile", map[string]any{"filepath": "a.go", "old_str": "func A() {}", "new_string": "func A() int { return 1 }"}))
	require.Equal(t, tools.StatusOK, res.Status, res.Output)
	assert.Len(t, res.Notes, 3)
	f, _, err = d.Lookup(ctx, "a.go")
	require.NoError(t, err)
	assert.Contains(t, string(f.Content), "func A() int { return 1 }")

	for _, alias := range []string{"file", "text", "code"} {
		res = reg.Execute(ctx, env, call("writeFile", map[string]any{"path": "c.txt", alias: "x", "content": "y"}))
		require.Equal(t, tools.StatusOK, res.Status, res.Output)
		f, _, err = d.Lookup(ctx, "c.txt")
		require.NoError(t, err)
		assert.Equal(t, "y", string(f.Content), "the canonical argument wins over %s", alias)
		require.Len(t, res.Notes, 1)
		assert.Contains(t, res.Notes[0], `argument "`+alias+`" ignored`)
	}
}

func TestUnknownArgumentsAreDroppedWithANote(t *testing.T) {
	t.Parallel()
	root := workspace(t, map[string]string{"a.go": "package a\n"})
	reg := tools.Core()
	env := &tools.Env{Root: root, Agent: "MARS"}
	ctx := context.Background()

	res := reg.Execute(ctx, env, call("readFile", map[string]any{"path": "a.go", "encoding": "utf-8", "x": true}))
	require.Equal(t, tools.StatusOK, res.Status, res.Output)
	assert.Equal(t, []string{`unknown argument "encoding" ignored`, `unknown argument "x" ignored`}, res.Notes)
	assert.Equal(t, "package a\nnote: unknown argument \"encoding\" ignored; unknown argument \"x\" ignored", res.Output)

	// Dropping an argument never makes a call valid by itself: a missing
	// required one is still an error, and the note goes with it.
	res = reg.Execute(ctx, env, call("readFile", map[string]any{"name": "a.go"}))
	assert.Equal(t, tools.StatusInvalid, res.Status)
	assert.ErrorIs(t, res.Err, tools.ErrInvalidArgs)
	assert.Contains(t, res.Output, "path")
	assert.Contains(t, res.Output, `note: unknown argument "name" ignored`)

	// A schema that allows more arguments keeps them.
	r := tools.NewRegistry()
	var got json.RawMessage
	require.NoError(t, r.Register(tools.Tool{Name: "open", Aliases: map[string]string{"q": "query"},
		Schema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}}}`),
		Run: func(_ context.Context, _ *tools.Env, args json.RawMessage) (tools.Output, error) {
			got = args
			return tools.Output{Text: "ran"}, nil
		}}))
	res = r.Execute(ctx, &tools.Env{}, call("open", map[string]any{"q": "x", "extra": 1}))
	require.Equal(t, tools.StatusOK, res.Status, res.Output)
	assert.JSONEq(t, `{"query":"x","extra":1}`, string(got))
	assert.Equal(t, []string{`argument "q" read as "query"`}, res.Notes)
}

func TestNormalizeArgs(t *testing.T) {
	t.Parallel()
	reg := tools.Core()
	cases := []struct {
		name, tool, in, want string
		notes                int
	}{
		{"nothing to do", "readFile", `{"path":"a.go"}`, `{"path":"a.go"}`, 0},
		{"not an object", "readFile", `["a.go"]`, `["a.go"]`, 0},
		{"not JSON", "readFile", `{"path":`, `{"path":`, 0},
		{"empty", "readFile", ``, ``, 0},
		{"unknown tool", "frobnicate", `{"file_path":"a"}`, `{"file_path":"a"}`, 0},
		{"integer as string", "readFile", `{"path":"a.go","offset":"3","limit":" 10 "}`, `{"path":"a.go","offset":3,"limit":10}`, 0},
		{"not a number stays", "readFile", `{"path":"a.go","offset":"three"}`, `{"path":"a.go","offset":"three"}`, 0},
		{"boolean as string", "editFile", `{"path":"a","search":"x","replace":"y","all":"True"}`, `{"path":"a","search":"x","replace":"y","all":true}`, 0},
		{"two aliases of one argument", "readFile", `{"file":"a","filename":"b"}`, `{"path":"a"}`, 2},
		{"find on editFile", "editFile", `{"path":"a","find":"x","replace":"y"}`, `{"path":"a","search":"x","replace":"y"}`, 1},
		{"no content alias on readFile", "readFile", `{"path":"a","text":"x"}`, `{"path":"a"}`, 1},
	}
	for _, c := range cases {
		got, notes := reg.NormalizeArgs(c.tool, json.RawMessage(c.in))
		if json.Valid([]byte(c.want)) {
			assert.JSONEq(t, c.want, string(got), c.name)
		} else {
			assert.Equal(t, c.want, string(got), c.name)
		}
		assert.Len(t, notes, c.notes, c.name)
	}
	assert.Empty(t, tools.NoteLine(nil))
	assert.Equal(t, "note: a; b", tools.NoteLine([]string{"a", "b"}))
}

// Every alias of a core tool names an argument that tool declares.
func TestCoreAliasesPointAtDeclaredArguments(t *testing.T) {
	t.Parallel()
	for _, tool := range tools.CoreTools() {
		var doc struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		require.NoError(t, json.Unmarshal(tool.Schema, &doc), tool.Name)
		for alias, canon := range tool.Aliases {
			assert.Contains(t, doc.Properties, canon, "%s: alias %s", tool.Name, alias)
			assert.NotContains(t, doc.Properties, alias, "%s: alias %s is a real argument", tool.Name, alias)
		}
	}
	w, ok := tools.Core().Get("writeFile")
	require.True(t, ok)
	assert.Equal(t, "path", w.Aliases["file_path"])
	assert.Equal(t, "content", w.Aliases["contents"])
}
