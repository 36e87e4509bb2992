package ace_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/ace"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
)

const sevenDeltas = `{"deltas":[
 {"op":"add","content":"Run the migration against a scratch database first","kind":"strategy","confidence":0.9,"helpful":0.8,"tags":["database"]},
 {"op":"add","content":"Never edit generated files","kind":"mistake","confidence":0.45,"helpful":0.9},
 {"op":"add","content":"Name migrations by date","kind":"pattern","confidence":0.6,"helpful":0.5},
 {"op":"add","content":"Check foreign keys","kind":"strategy","confidence":0.7,"helpful":0.5},
 {"op":"add","content":"Add an index for each lookup column","confidence":0.8,"helpful":0.6},
 {"op":"add","content":"Explain schema changes in the summary","kind":"preference","confidence":0.55},
 {"op":"add","content":"Keep the down migration","kind":"strategy","confidence":0.65},
 {"op":"add","content":"","confidence":0.99}
]}`

func outcome() ace.Outcome {
	return ace.Outcome{Agent: "MARS", Title: "Add a migration for orders", Output: "created migrations/0007_orders.sql",
		Success: true, GateScore: 0.9, Autonomy: 3}
}

func TestReflectorFiltersStructuredOutput(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithReplies(ollamatest.Text(sevenDeltas)))
	e := newEnv(t, withOllama(srv))
	ds := e.sys.Reflector().Reflect(ctx(), outcome(), nil)
	require.Len(t, ds, ace.ReflectMaxDeltas)
	for i, d := range ds {
		assert.GreaterOrEqual(t, d.Confidence, ace.ReflectMinConfidence)
		assert.NotEmpty(t, d.Content)
		if i > 0 {
			assert.GreaterOrEqual(t, ds[i-1].Confidence, d.Confidence, "most confident kept")
		}
	}
	assert.Equal(t, "Run the migration against a scratch database first", ds[0].Content)
	assert.Equal(t, "Add an index for each lookup column", ds[1].Content)
	assert.Equal(t, ace.KindStrategy, ds[1].Kind, "missing kind defaults to strategy")

	reqs := srv.ChatRequests()
	require.Len(t, reqs, 1)
	assert.Equal(t, smallModel, reqs[0].Model, "the cheap tier")
	assert.NotEmpty(t, reqs[0].Format, "structured output schema sent")
	var sch map[string]any
	require.NoError(t, json.Unmarshal(reqs[0].Format, &sch))
	assert.Equal(t, "object", sch["type"])
	assert.Contains(t, reqs[0].Messages[len(reqs[0].Messages)-1].Content, "Add a migration for orders")
}

func TestReflectorNeverFails(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		replies []ollamatest.Reply
		want    int
	}{
		{"fenced JSON", []ollamatest.Reply{ollamatest.Text("Here you go:\n```json\n" + `{"deltas":[{"op":"add","content":"Keep migrations reversible","confidence":0.8}]}` + "\n```\n")}, 1},
		{"garbage twice", []ollamatest.Reply{ollamatest.Text("I think the task went fine!"), ollamatest.Text("no json, sorry")}, 0},
		{"garbage then valid", []ollamatest.Reply{ollamatest.Text("{{{"), ollamatest.Text(`{"deltas":[{"op":"add","content":"Prefer small commits","confidence":0.7}]}`)}, 1},
		{"empty twice", []ollamatest.Reply{ollamatest.Empty(), ollamatest.Empty()}, 0},
		{"no deltas", []ollamatest.Reply{ollamatest.Text(`{"deltas":[]}`)}, 0},
		{"all too unsure", []ollamatest.Reply{ollamatest.Text(`{"deltas":[{"op":"add","content":"maybe","confidence":0.2}]}`)}, 0},
		{"server error", []ollamatest.Reply{ollamatest.ServerError("boom")}, 0},
		{"out of range", []ollamatest.Reply{ollamatest.Text(`{"deltas":[{"op":"add","content":"x","confidence":3}]}`), ollamatest.Text(`{"deltas":"nope"}`)}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := ollamatest.New(t, ollamatest.WithReplies(tc.replies...))
			e := newEnv(t, withOllama(srv))
			ds := e.sys.Reflector().Reflect(ctx(), outcome(), nil)
			assert.Len(t, ds, tc.want)
			if tc.want == 0 && !strings.Contains(tc.name, "no deltas") && !strings.Contains(tc.name, "unsure") {
				assert.Positive(t, e.logs.Len(), "the failure is logged")
			}
		})
	}
}

func TestReflectorWithoutModelIsSkipped(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	assert.Empty(t, e.sys.Reflector().Reflect(ctx(), outcome(), nil))
	cr, ds := e.sys.Reflect(ctx(), outcome())
	assert.Nil(t, cr)
	assert.Empty(t, ds)
}

func TestParseDeltas(t *testing.T) {
	t.Parallel()
	ds, err := ace.ParseDeltas(`[{"op":"ADD","content":"  a rule  ","confidence":0.6,"tags":["X","x",""]},{"op":"explode","content":"b","confidence":0.9},{"op":"remove","confidence":0.9}]`)
	require.NoError(t, err)
	require.Len(t, ds, 1)
	assert.Equal(t, ace.Delta{Op: ace.OpAdd, Content: "a rule", Kind: ace.KindStrategy, Source: ace.SourceLearned, Confidence: 0.6, Tags: []string{"x"}}, ds[0])

	ds, err = ace.ParseDeltas("<think>hmm</think>```\n{\"deltas\":[{\"op\":\"update\",\"ruleId\":\"r2\",\"confidence\":0.7}]}\n```")
	require.NoError(t, err)
	require.Len(t, ds, 1)
	assert.Equal(t, "r2", ds[0].RuleID)

	for _, bad := range []string{"", "   ", "prose only", `"a string"`, `{"deltas": 5}`} {
		_, err := ace.ParseDeltas(bad)
		assert.Error(t, err, bad)
	}
}

func TestFilterDeltas(t *testing.T) {
	t.Parallel()
	in := []ace.Delta{{Content: "a", Confidence: 0.49}, {Content: "b", Confidence: 0.5}, {Content: "c", Confidence: 0.9}}
	out := ace.FilterDeltas(in)
	require.Len(t, out, 2)
	assert.Equal(t, "c", out[0].Content)
	assert.Equal(t, "b", out[1].Content)
}
