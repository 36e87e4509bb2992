package llm_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
)

func TestExtractJSON(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, in, want string }{
		{"plain object", `{"a":1}`, `{"a":1}`},
		{"padded", "\n  [1, 2]  \n", `[1, 2]`},
		{"scalar whole", `"just a string"`, `"just a string"`},
		{"json fence", "Here you go:\n```json\n{\"name\": \"nova\"}\n```\nAnything else?", `{"name": "nova"}`},
		{"bare fence", "```\n[{\"x\":true}]\n```", `[{"x":true}]`},
		{"fence same line", "```json {\"a\":[1]} ```", `{"a":[1]}`},
		{"tilde fence", "~~~JSON\n{\"t\":1}\n~~~", `{"t":1}`},
		{"unclosed fence", "```json\n{\"cut\":\"off\"}\n", `{"cut":"off"}`},
		{"fence with prose inside", "```json\nSure: {\"k\":\"v\"} done\n```", `{"k":"v"}`},
		{"prose around", `I think the answer is {"ok": true, "items": [1,2]} — hope it helps!`, `{"ok": true, "items": [1,2]}`},
		{"braces in strings", `result: {"code": "func() { return }", "n": "]"} end`, `{"code": "func() { return }", "n": "]"}`},
		{"invalid first then valid", `use {curly} like {"valid": 1}`, `{"valid": 1}`},
		{"valid inside invalid", `{ note: {"inner": 2} }`, `{"inner": 2}`},
		{"citation skipped", `As shown in [1], the plan is {"steps": ["a"]}`, `{"steps": ["a"]}`},
		{"citation only", `see [1, 2] for details`, `[1, 2]`},
		{"array of objects in prose", `Plan: [{"id":"a"},{"id":"b"}] ok`, `[{"id":"a"},{"id":"b"}]`},
		{"think block", "<think>maybe {\"draft\":0}</think>\n{\"final\":1}", `{"final":1}`},
		{"unicode", "réponse: {\"é\":\"ü\"} ✓", `{"é":"ü"}`},
		{"first of two", `{"a":1} and {"b":2}`, `{"a":1}`},
	}
	for _, c := range cases {
		got, err := llm.ExtractJSON(c.in)
		require.NoError(t, err, c.name)
		assert.Equal(t, c.want, string(got), c.name)
	}
}

func TestExtractJSONMalformed(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"", "   \n", "no json here", "{", "[[[[", `{"a":}`, "```json\n{broken\n```",
		`{'single': 'quotes'}`, `{"trailing": 1,}`, strings.Repeat("{[", 5000),
		"<think>{\"only\":\"thinking\"}</think>", "\x00\xff\xfe{",
	} {
		_, err := llm.ExtractJSON(in)
		require.ErrorIs(t, err, llm.ErrInvalidOutput, "%.40q", in)
	}
}

func FuzzExtractJSON(f *testing.F) {
	for _, s := range []string{
		`{"a":1}`, "```json\n[1]\n```", "prose {\"x\": [1, {\"y\": null}]} more", "[1] {", "<think>{}</think>{}",
		"~~~\n{\"a\"\n~~~", `{"a":"\u00e9\n"}`, "{{{{]]]]", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := llm.ExtractJSON(s)
		if err != nil {
			require.ErrorIs(t, err, llm.ErrInvalidOutput)
			return
		}
		assert.True(t, json.Valid(got), "%q -> %q", s, got)
	})
}

const planSchema = `{
  "type": "object",
  "required": ["title", "steps"],
  "properties": {
    "title": {"type": "string", "minLength": 1},
    "steps": {"type": "array", "minItems": 1, "items": {"type": "string"}}
  },
  "additionalProperties": false
}`

type plan struct {
	Title string   `json:"title"`
	Steps []string `json:"steps"`
}

func TestStructuredFencedJSON(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithReplies(ollamatest.Text(
		"Here is the plan:\n```json\n{\"title\": \"Add login\", \"steps\": [\"model\", \"handler\"]}\n```\nLet me know!").WithTokens(30, 12)))
	c := newClient(t, srv)
	var out plan
	res, err := llm.Structured(context.Background(), c, llm.ChatRequest{
		Model:    model,
		Messages: []llm.Message{{Role: llm.RoleSystem, Content: "You are SUN, the planner."}, {Role: llm.RoleUser, Content: "plan login"}},
	}, []byte(planSchema), &out)
	require.NoError(t, err)
	assert.Equal(t, plan{Title: "Add login", Steps: []string{"model", "handler"}}, out)
	assert.Equal(t, 30, res.PromptTokens)

	reqs := srv.ChatRequests()
	require.Len(t, reqs, 1)
	r := reqs[0]
	var format map[string]any
	require.NoError(t, json.Unmarshal(r.Format, &format), "format carries the schema")
	assert.Equal(t, "object", format["type"])
	assert.EqualValues(t, 0, r.Options["temperature"])
	require.Len(t, r.Messages, 2, "schema joined to the existing system message")
	assert.True(t, strings.HasPrefix(r.Messages[0].Content, "You are SUN, the planner."))
	assert.Contains(t, r.Messages[0].Content, `"required":["title","steps"]`)
	require.NotNil(t, r.Stream)
	assert.True(t, *r.Stream, "streamed on the wire, so the idle timeout sees progress")
}

func TestStructuredProseWrappedAddsSystemMessage(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithReplies(ollamatest.Text(
		`Sure! {"title":"Fix bug","steps":["reproduce","patch","test"]} That should do it.`)))
	var out plan
	_, err := llm.Structured(context.Background(), newClient(t, srv), llm.ChatRequest{Model: model, Messages: user("plan")}, []byte(planSchema), &out)
	require.NoError(t, err)
	assert.Equal(t, []string{"reproduce", "patch", "test"}, out.Steps)
	msgs := srv.ChatRequests()[0].Messages
	require.Len(t, msgs, 2)
	assert.Equal(t, "system", msgs[0].Role)
	assert.Contains(t, msgs[0].Content, "JSON Schema")
}

func TestStructuredRetriesOnceWithTheValidationError(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithReplies(
		ollamatest.Text(`{"title": "Plan"}`).WithTokens(10, 5),
		ollamatest.Text(`{"title": "Plan", "steps": ["one"]}`).WithTokens(20, 6),
	))
	var out plan
	res, err := llm.Structured(context.Background(), newClient(t, srv), llm.ChatRequest{Model: model, Messages: user("plan")}, []byte(planSchema), &out)
	require.NoError(t, err)
	assert.Equal(t, []string{"one"}, out.Steps)
	assert.Equal(t, 30, res.PromptTokens, "tokens of both attempts")
	assert.Equal(t, 11, res.EvalTokens)

	reqs := srv.ChatRequests()
	require.Len(t, reqs, 2)
	second := reqs[1].Messages
	require.Len(t, second, 4)
	assert.Equal(t, "assistant", second[2].Role)
	assert.JSONEq(t, `{"title": "Plan"}`, second[2].Content)
	assert.Equal(t, "user", second[3].Role)
	assert.Contains(t, second[3].Content, "steps", "the validation message names the missing property")
}

func TestStructuredRetryOnceThenFail(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithDefaultReply(ollamatest.Text(`{"title": "", "steps": []}`)))
	var out plan
	_, err := llm.Structured(context.Background(), newClient(t, srv), llm.ChatRequest{Model: model, Messages: user("plan")}, []byte(planSchema), &out)
	require.ErrorIs(t, err, llm.ErrInvalidOutput)
	assert.Contains(t, err.Error(), "does not match the schema")
	assert.Contains(t, err.Error(), "minItems", "the validator's message is kept")
	assert.Len(t, srv.ChatRequests(), 2, "exactly one retry")
}

func TestStructuredGarbageAndEmpty(t *testing.T) {
	t.Parallel()
	for name, rep := range map[string]ollamatest.Reply{
		"garbage":       ollamatest.Text("I cannot help with that {not: json} ]["),
		"empty":         ollamatest.Empty(),
		"wrong type":    ollamatest.Text(`{"title": 42, "steps": "x"}`),
		"not an object": ollamatest.Text(`["title", "steps"]`),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := ollamatest.New(t, ollamatest.WithDefaultReply(rep))
			var out plan
			_, err := llm.Structured(context.Background(), newClient(t, srv), llm.ChatRequest{Model: model, Messages: user("plan")}, []byte(planSchema), &out)
			require.ErrorIs(t, err, llm.ErrInvalidOutput)
			assert.Len(t, srv.ChatRequests(), 2)
		})
	}
}

func TestStructuredCutAtTheTokenLimitIsLengthNotInvalid(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithDefaultReply(ollamatest.Text(`{"title": "Plan", "steps": ["a", "b`).WithDoneReason("length")))
	var out plan
	_, err := llm.Structured(context.Background(), newClient(t, srv), llm.ChatRequest{Model: model, Messages: user("plan")}, []byte(planSchema), &out)
	require.ErrorIs(t, err, llm.ErrLength)
	require.NotErrorIs(t, err, llm.ErrInvalidOutput)
	reqs := srv.ChatRequests()
	require.Len(t, reqs, 2, "one retry with a larger num_predict")
	assert.NotNil(t, reqs[1].Options["num_predict"])
}

func TestStructuredGoTypeMismatchIsInvalidOutput(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithDefaultReply(ollamatest.Text(`{"n": "seven"}`)))
	var out struct {
		N int `json:"n"`
	}
	_, err := llm.Structured(context.Background(), newClient(t, srv), llm.ChatRequest{Model: model, Messages: user("n")},
		[]byte(`{"type":"object"}`), &out)
	require.ErrorIs(t, err, llm.ErrInvalidOutput)
	assert.Contains(t, err.Error(), "does not fit")
}

func TestStructuredProgrammingErrors(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t)
	c := newClient(t, srv)
	var out plan
	_, err := llm.Structured(context.Background(), c, llm.ChatRequest{Model: model}, []byte(`{"type": `), &out)
	require.Error(t, err)
	require.NotErrorIs(t, err, llm.ErrInvalidOutput)
	_, err = llm.Structured(context.Background(), c, llm.ChatRequest{Model: model}, []byte(`{"type": "nope"}`), &out)
	require.Error(t, err)
	_, err = llm.Structured(context.Background(), c, llm.ChatRequest{Model: model}, []byte(planSchema), out)
	require.ErrorContains(t, err, "non-nil pointer")
	_, err = llm.Structured(context.Background(), nil, llm.ChatRequest{Model: model}, []byte(planSchema), &out)
	require.Error(t, err)
	assert.Empty(t, srv.ChatRequests())
}

func TestStructuredTransportErrorsPassThrough(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithModels("llama3.2:3b"))
	_, err := llm.Structured(context.Background(), newClient(t, srv), llm.ChatRequest{Model: "phi4", Messages: user("x")}, []byte(planSchema), nil)
	require.ErrorIs(t, err, llm.ErrModelNotFound)
}

func TestStructuredValidateOnly(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithReplies(ollamatest.Text(`{"title":"t","steps":["s"]}`)))
	res, err := llm.Structured(context.Background(), newClient(t, srv), llm.ChatRequest{Model: model, Messages: user("x")}, []byte(planSchema), nil)
	require.NoError(t, err)
	assert.JSONEq(t, `{"title":"t","steps":["s"]}`, res.Content)
}
