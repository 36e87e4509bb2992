package agents

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/tools"
)

func TestParseReAct(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		in     string
		action string
		input  string
		final  string
		err    error
	}{
		{name: "plain", in: "Thought: read it\nAction: readFile\nAction Input: {\"path\": \"a.go\"}",
			action: "readFile", input: `{"path": "a.go"}`},
		{name: "markdown labels", in: "**Thought:** hm\n**Action:** `listFiles`\n**Action Input:** {}",
			action: "listFiles", input: `{}`},
		{name: "fenced multi-line input", in: "Action: writeFile\nAction Input:\n```json\n{\n  \"path\": \"x.go\",\n  \"content\": \"a\\nb\"\n}\n```\n",
			action: "writeFile", input: "{\n  \"path\": \"x.go\",\n  \"content\": \"a\\nb\"\n}"},
		{name: "call syntax", in: `Action: readFile({"path": "b.go"})`, action: "readFile", input: `{"path": "b.go"}`},
		{name: "no input", in: "Thought: x\nAction: listFiles", action: "listFiles", input: `{}`},
		{name: "imagined observation ignored", in: "Action: readFile\nAction Input: {\"path\":\"a\"}\nObservation: fake\nThought: more\nAction: deleteFile\nAction Input: {\"path\":\"a\"}",
			action: "readFile", input: `{"path":"a"}`},
		{name: "final", in: "Thought: done\nFinal Answer: Changed a.go.\nAlso b.go.", final: "Changed a.go.\nAlso b.go."},
		{name: "final lower case", in: "final answer: ok", final: "ok"},
		{name: "action wins when first", in: "Action: listFiles\nAction Input: {}\nFinal Answer: done", action: "listFiles", input: `{}`},
		{name: "final wins when first", in: "Final Answer: done\nAction: listFiles", final: "done"},
		{name: "think block dropped", in: "<think>Action: deleteFile</think>\nFinal Answer: safe", final: "safe"},
		{name: "bad input", in: "Action: readFile\nAction Input: main.go", action: "readFile", err: ErrBadActionInput},
		{name: "array input", in: "Action: readFile\nAction Input: [1,2]", action: "readFile", err: ErrBadActionInput},
		{name: "thought only", in: "Thought: hmm", err: ErrNoReAct},
		{name: "prose", in: "Just some prose.", err: ErrNoReAct},
		{name: "empty", in: "", err: ErrNoReAct},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r, err := ParseReAct(c.in)
			if c.err != nil {
				require.ErrorIs(t, err, c.err)
				assert.Equal(t, c.action, r.Action)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.action, r.Action)
			assert.Equal(t, c.final, r.Final)
			if c.input != "" {
				assert.JSONEq(t, c.input, string(r.Input))
			}
		})
	}
	r, err := ParseReAct("Thought: first\nAction: readFile\nAction Input: {}")
	require.NoError(t, err)
	assert.Equal(t, "first", r.Thought)
}

func FuzzParseReAct(f *testing.F) {
	for _, s := range []string{
		"Thought: x\nAction: readFile\nAction Input: {\"path\": \"a\"}",
		"Final Answer: done",
		"Action: writeFile({\"path\":\"x\",\"content\":\"y\"})",
		"**Action:** `a`\n**Action Input:**\n```json\n{\"a\": [1, {\"b\": null}]}\n```",
		"<think>x</think>Observation: y\nAction:\nAction Input: {",
		"Action: x\nAction Input: {\"a\": \"\\ud800\"}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseReAct(s)
		switch {
		case err == nil:
			if r.Action == "" && !r.HasFinal {
				t.Fatalf("no error but neither action nor final: %q", s)
			}
			if r.Action != "" {
				var obj map[string]any
				if json.Unmarshal(r.Input, &obj) != nil || obj == nil {
					t.Fatalf("action input is not a JSON object: %q", r.Input)
				}
			}
		case errors.Is(err, ErrBadActionInput):
			if r.Input != nil {
				t.Fatalf("bad input but Input set")
			}
		case errors.Is(err, ErrNoReAct):
		default:
			t.Fatalf("unexpected error %v", err)
		}
	})
}

func TestVerify(t *testing.T) {
	t.Parallel()
	code := func(n int) *int { return &n }
	hashA := tools.SHA256([]byte("a"))
	write := func(id uint64, p, h string) Trace {
		return Trace{ID: id, Tool: "writeFile", Status: tools.StatusOK, Evidence: []tools.Evidence{{Kind: "file", Path: p, SHA256: h}}}
	}
	cmd := func(id uint64, c string, exit int) Trace {
		st := tools.StatusOK
		if exit != 0 {
			st = tools.StatusFailed
		}
		return Trace{ID: id, Tool: "runCommand", Status: st, Evidence: []tools.Evidence{{Kind: "command", Command: c, ExitCode: code(exit)}}}
	}
	staged := func(m map[string]string) func(string) (string, error) {
		return func(p string) (string, error) {
			if h, ok := m[p]; ok {
				return h, nil
			}
			return tools.Absent, nil
		}
	}
	ok := SpecialistOutcome{OK: true, Result: "Added a.go."}

	v := Verify(VerifyInput{Outcome: ok, Traces: []Trace{write(1, "a.go", hashA), cmd(2, "go test ./...", 0)}, StagedHash: staged(map[string]string{"a.go": hashA})})
	assert.Equal(t, VerdictPassed, v.Status, "%+v", v.Checks)
	require.Len(t, v.Checks, 2)
	assert.Equal(t, TierEvidence, v.Checks[0].Tier)
	assert.Equal(t, TierExecution, v.Checks[1].Tier)

	v = Verify(VerifyInput{Outcome: ok, Traces: []Trace{write(1, "a.go", hashA)}, StagedHash: staged(map[string]string{"a.go": "other"})})
	assert.Equal(t, VerdictFailed, v.Status)

	v = Verify(VerifyInput{Outcome: ok, Traces: []Trace{cmd(1, "go test ./...", 1), write(2, "a.go", hashA), cmd(3, "go test ./...", 0)},
		StagedHash: staged(map[string]string{"a.go": hashA})})
	assert.Equal(t, VerdictPassed, v.Status, "the last run of a command counts")

	v = Verify(VerifyInput{Outcome: ok, Traces: []Trace{cmd(1, "go test ./...", 2)}})
	assert.Equal(t, VerdictFailed, v.Status)
	assert.Contains(t, v.Checks[0].Detail, "exit code 2")

	v = Verify(VerifyInput{Outcome: ok, Traces: []Trace{cmd(1, "go vet", 0), write(2, "a.go", hashA)}, StagedHash: staged(map[string]string{"a.go": hashA})})
	assert.Equal(t, VerdictInconclusive, v.Status, "a command before the last change proves nothing about it")

	v = Verify(VerifyInput{Outcome: SpecialistOutcome{OK: true, Result: "Updated internal/api/server.go and the tests pass."}})
	assert.Equal(t, VerdictInconclusive, v.Status)
	subjects := []string{}
	for _, c := range v.Checks {
		assert.Equal(t, TierClaim, c.Tier)
		subjects = append(subjects, c.Subject)
	}
	assert.Contains(t, subjects, "internal/api/server.go")
	assert.Contains(t, subjects, "tests")

	v = Verify(VerifyInput{Outcome: SpecialistOutcome{OK: true, Result: "The handler lives in health.go."}})
	assert.Equal(t, VerdictInconclusive, v.Status)
	assert.Equal(t, "answer", v.Checks[0].Subject, "LLM-only answers are inconclusive")

	v = Verify(VerifyInput{Outcome: SpecialistOutcome{Failure: &Failure{Kind: FailStuck}}})
	assert.Equal(t, VerdictFailed, v.Status)

	v = Verify(VerifyInput{Outcome: ok, Traces: []Trace{{ID: 1, Tool: "runCommand", Status: tools.StatusTimeout, Args: json.RawMessage(`{"command":"go test"}`)}}})
	assert.Equal(t, VerdictFailed, v.Status)
	assert.Equal(t, "go test", v.Checks[0].Subject)
}

func TestPromptAndTruncationHelpers(t *testing.T) {
	t.Parallel()
	s := Spec{Role: "ROLE", StaticContext: "STATIC", Examples: []Example{{Input: "in", Output: "out"}}}
	p := SystemPrompt(PromptInput{Spec: s, Tools: tools.CoreTools()[:1], TextMode: true, ExtraContext: []string{"## Playbook\n- rule"}})
	for _, want := range []string{"ROLE", "STATIC", "## Playbook\n- rule", "Task: in", "out", "Action Input:", "readFile", `"required":["path"]`} {
		assert.Contains(t, p, want)
	}
	assert.Less(t, strings.Index(p, "STATIC"), strings.Index(p, "## Playbook"))
	assert.Equal(t, 2, EstimateTokens("12345"))
	assert.Equal(t, 0, EstimateTokens(""))
	out := TruncateOutput(strings.Repeat("é", 50), 10, 3, 7)
	assert.True(t, strings.HasPrefix(out, strings.Repeat("é", 10)+"\n[truncated"))
	assert.Contains(t, out, "trace 7 of run 3")
	assert.Equal(t, "short", TruncateOutput("short", 10, 1, 1))
}
