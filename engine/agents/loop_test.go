package agents_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/engine/untrusted"
)

const healthGo = "package main\n\nimport \"net/http\"\n\nfunc health(w http.ResponseWriter, _ *http.Request) {\n\tw.WriteHeader(http.StatusOK)\n}\n"

func TestRunStagesChangesetAndVerifies(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.srv.Enqueue(
		tc("listFiles", map[string]any{}),
		tc("readFile", map[string]any{"path": "main.go"}),
		ollamatest.Text("I will add the handler.").WithToolCalls(ollamatest.Call("writeFile", map[string]any{"path": "health.go", "content": healthGo})),
		tc("editFile", map[string]any{"path": "main.go", "search": "\tserve()\n", "replace": "\thttp.HandleFunc(\"/health\", health)\n\tserve()\n"}),
		ollamatest.Text("Added health.go with a health handler and registered /health in main.go."),
	)
	run := h.run("add a health check endpoint", spec())

	require.Equal(t, agents.RunDone, run.Status, "%+v", run.Outcome.Failure)
	assert.True(t, run.Outcome.OK)
	assert.Contains(t, run.Outcome.Result, "Added health.go")
	require.NotZero(t, run.ChangesetID)
	assert.Equal(t, []string{"health.go", "main.go"}, run.Files)
	// Staged and consistent, but nothing executed it (no checks, no
	// command): unverified, never passed (issue 25).
	assert.Equal(t, agents.VerdictUnverified, run.Verdict.Status, "%+v", run.Verdict.Checks)
	assert.False(t, run.Verified)
	assert.Equal(t, "done (unverified)", agents.DisplayStatus(string(run.Status), len(run.Files), run.Verified))
	assert.Equal(t, 4, run.Outcome.Meta.ToolCalls)
	assert.Equal(t, 5, run.Outcome.Meta.Steps)
	assert.Positive(t, run.Outcome.Meta.PromptTokens)
	assert.Positive(t, run.Outcome.Meta.EvalTokens)
	assert.Equal(t, "medium", run.Outcome.Meta.Tier)
	assert.Equal(t, mediumModel, run.Outcome.Meta.Model)

	// Nothing on disk yet; the changeset holds both files.
	_, exists := h.file("health.go")
	assert.False(t, exists)
	cs, err := h.runner.Changes.Get(context.Background(), run.ChangesetID)
	require.NoError(t, err)
	assert.Equal(t, changes.StatusPending, cs.Status)
	assert.Equal(t, run.ID, cs.RunID)
	f, ok := cs.File("main.go")
	require.True(t, ok)
	assert.Contains(t, f.Proposed, "http.HandleFunc(\"/health\", health)")

	// Traces: one per tool call, with evidence for the writes.
	tr := h.traces(run.ID)
	require.Len(t, tr, 4)
	assert.Equal(t, "writeFile", tr[2].Tool)
	assert.Equal(t, tools.StatusOK, tr[2].Status)
	require.Len(t, tr[2].Evidence, 1)
	assert.Equal(t, tools.SHA256([]byte(healthGo)), tr[2].Evidence[0].SHA256)
	assert.NotEmpty(t, tr[2].ArgsHash)

	// The stored run matches.
	stored, err := h.runner.Runs.Get(context.Background(), run.ID)
	require.NoError(t, err)
	assert.Equal(t, run.Verdict, stored.Verdict)
	list, err := h.runner.Runs.List(context.Background(), agents.RunFilter{Agent: "mars"})
	require.NoError(t, err)
	require.Len(t, list, 1)

	// Events: start … done, done last.
	types := h.eventTypes()
	assert.Equal(t, agents.EventStart, types[0])
	assert.Equal(t, agents.EventDone, types[len(types)-1])
	assert.Len(t, h.eventsOf(agents.EventToolCall), 4)
	assert.NotEmpty(t, h.eventsOf(agents.EventDelta), "token deltas are streamed")
	done := h.eventsOf(agents.EventDone)[0]
	require.NotNil(t, done.Run)
	assert.Equal(t, run.ID, done.Run.ID)

	// The prompt: role, static context, examples; native tools offered.
	reqs := h.srv.ChatRequests()
	require.Len(t, reqs, 5)
	sys := reqs[0].Messages[0].Content
	assert.Contains(t, sys, "You are MARS")
	assert.Contains(t, sys, "Backend checklist")
	assert.Contains(t, sys, "Add a ping endpoint.")
	assert.Equal(t, "Task: add a health check endpoint", reqs[0].Messages[1].Content)
	assert.Len(t, reqs[0].Tools, len(allTools))
	// The second request carries the first tool result.
	assert.Contains(t, toolMessages(reqs[1])[0], "main.go")
}

func TestExtraContextHook(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.srv.Enqueue(ollamatest.Text("nothing to do"))
	h.run("look", spec(), func(o *agents.RunOptions) {
		o.ExtraContext = []string{"## Taste Vault\n- prefer small handlers"}
	})
	sys := h.srv.ChatRequests()[0].Messages[0].Content
	assert.Contains(t, sys, "## Taste Vault\n- prefer small handlers")
}

func TestPathEscapesAreDeniedAndTraced(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("s3cret"), 0o600))
	h := newHarness(t)
	require.NoError(t, os.Symlink(outside, filepath.Join(h.root, "link")))
	h.srv.Enqueue(
		tc("writeFile", map[string]any{"path": "../evil.go", "content": "package evil"}),
		tc("readFile", map[string]any{"path": filepath.Join(outside, "secret.txt")}),
		tc("readFile", map[string]any{"path": "link/secret.txt"}),
	)
	run := h.run("escape", spec())

	require.Equal(t, agents.RunFailed, run.Status)
	require.NotNil(t, run.Outcome.Failure)
	assert.Equal(t, agents.FailPolicyDenied, run.Outcome.Failure.Kind)
	assert.Contains(t, run.Outcome.Failure.RecoveryHints, agents.HintAskUser)
	tr := h.traces(run.ID)
	require.Len(t, tr, 3)
	for _, x := range tr {
		assert.Equal(t, tools.StatusDenied, x.Status, x.Output)
		assert.Equal(t, tools.KindPolicyDenied, x.Kind)
		assert.NotContains(t, x.Output, "s3cret")
	}
	assert.Contains(t, tr[0].Output, "climbs out of the workspace")
	assert.Contains(t, tr[1].Output, "outside the workspace")
	assert.Contains(t, tr[2].Output, "symlink")
	_, err := os.Stat(filepath.Join(filepath.Dir(h.root), "evil.go"))
	assert.True(t, os.IsNotExist(err))
	// Each denial was shown to the model as an observation.
	reqs := h.srv.ChatRequests()
	require.Len(t, reqs, 3)
	assert.Contains(t, toolMessages(reqs[1])[0], "ERROR (policy_denied)")
	assert.Equal(t, agents.VerdictFailed, run.Verdict.Status)
}

func TestUnknownToolAndBadArgsAreFedBackThenEscalate(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.srv.Enqueue(
		tc("frobnicate", map[string]any{"x": 1}),
		tc("readFile", map[string]any{"name": "main.go"}), // dropped (not an alias of path): path is missing
		tc("readFile", map[string]any{"path": "main.go"}),
		ollamatest.Text("main.go calls serve()."),
	)
	run := h.run("explain main.go", spec())
	require.Equal(t, agents.RunDone, run.Status, "%+v", run.Outcome.Failure)

	reqs := h.srv.ChatRequests()
	require.Len(t, reqs, 4)
	obs1 := toolMessages(reqs[1])
	require.Len(t, obs1, 1)
	assert.Contains(t, obs1[0], "ERROR (validation_failed)")
	assert.Contains(t, obs1[0], `unknown tool "frobnicate"`)
	assert.Contains(t, obs1[0], "readFile")
	obs2 := toolMessages(reqs[2])
	assert.Contains(t, obs2[1], "ERROR (validation_failed)")
	assert.Contains(t, obs2[1], "path")

	// Two invalid calls in a row moved the run from medium to large.
	assert.Equal(t, 1, run.Outcome.Meta.Escalations)
	assert.Equal(t, "large", run.Outcome.Meta.Tier)
	assert.Equal(t, mediumModel, reqs[1].Model)
	assert.Equal(t, largeModel, reqs[2].Model)
	require.Len(t, h.eventsOf(agents.EventEscalate), 1)
	tr := h.traces(run.ID)
	require.Len(t, tr, 3)
	assert.Equal(t, tools.StatusInvalid, tr[0].Status)
	assert.Equal(t, tools.StatusInvalid, tr[1].Status)
	assert.Equal(t, tools.StatusOK, tr[2].Status)
}

func TestOllamaFailuresGiveClearOutcomes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		setup   func(h *harness)
		opts    []harnessOpt
		spec    func(*agents.Spec)
		kind    agents.FailureKind
		cause   string
		message string
	}{
		{
			name:  "down",
			setup: func(h *harness) { h.srv.Close() },
			kind:  agents.FailUnknown, cause: "ollama_unreachable", message: "ollama serve",
		},
		{
			name: "slow",
			setup: func(h *harness) {
				h.srv.Enqueue(ollamatest.Text("late").WithLatency(3 * time.Second))
			},
			opts: []harnessOpt{withLLM(func(c *llm.Config) { c.ChatTimeout = 150 * time.Millisecond })},
			kind: agents.FailTimeout, cause: "ollama_timeout", message: "no complete reply",
		},
		{
			name: "run time limit",
			setup: func(h *harness) {
				h.srv.Enqueue(ollamatest.Text("late").WithLatency(3 * time.Second))
			},
			spec: func(s *agents.Spec) { s.Limits.Timeout = "200ms" },
			kind: agents.FailTimeout, cause: "run_timeout", message: "200ms",
		},
		{
			name: "500",
			setup: func(h *harness) {
				h.srv.Enqueue(ollamatest.ServerError("CUDA out of memory"), ollamatest.ServerError("CUDA out of memory"))
			},
			kind: agents.FailUnknown, cause: "ollama_error", message: "CUDA out of memory",
		},
		{
			name: "cut stream",
			setup: func(h *harness) {
				h.srv.Enqueue(ollamatest.Cut("Thought: I will"), ollamatest.Cut("Thought: I will"))
			},
			kind: agents.FailUnknown, cause: "stream_cut", message: "stream cut",
		},
		{
			name:  "missing model",
			setup: func(h *harness) { h.srv.SetModels(smallModel, largeModel) },
			kind:  agents.FailUnknown, cause: "model_not_found", message: "ollama pull " + mediumModel,
		},
		{
			name: "garbage JSON",
			setup: func(h *harness) {
				h.srv.Enqueue(ollamatest.Raw("this is not json\n"), ollamatest.Raw("{\"message\": \n"))
			},
			kind: agents.FailUnknown, cause: "ollama_error",
		},
		{
			name: "empty replies",
			setup: func(h *harness) {
				h.srv.SetHandler(func(int, api.ChatRequest) ollamatest.Reply { return ollamatest.Empty() })
			},
			kind: agents.FailValidationFailed, cause: "empty_reply", message: "invalid replies",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, c.opts...)
			c.setup(h)
			s := spec()
			if c.spec != nil {
				s = spec(c.spec)
			}
			start := time.Now()
			run := h.run("add a health check endpoint", s)
			assert.Less(t, time.Since(start), 10*time.Second)
			require.Equal(t, agents.RunFailed, run.Status)
			require.NotNil(t, run.Outcome.Failure)
			f := run.Outcome.Failure
			assert.Equal(t, c.kind, f.Kind, f.Message)
			assert.Equal(t, c.cause, f.Cause, f.Message)
			assert.Contains(t, f.Message, c.message)
			assert.NotEmpty(t, f.RecoveryHints)
			assert.Equal(t, agents.VerdictFailed, run.Verdict.Status)
			failed := h.eventsOf(agents.EventFailed)
			require.Len(t, failed, 1)
			assert.Equal(t, agents.EventFailed, h.eventTypes()[len(h.eventTypes())-1])
		})
	}
}

func TestEmptyRepliesEscalateBeforeFailing(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.srv.Enqueue(ollamatest.Empty(), ollamatest.Empty(), ollamatest.Text("Nothing needs changing."))
	run := h.run("check", spec())
	require.Equal(t, agents.RunDone, run.Status, "%+v", run.Outcome.Failure)
	assert.Equal(t, 1, run.Outcome.Meta.Escalations)
	reqs := h.srv.ChatRequests()
	require.Len(t, reqs, 3)
	assert.Equal(t, largeModel, reqs[2].Model)
	assert.Contains(t, lastMessage(reqs[1]).Content, "Your reply was empty")
	assert.Equal(t, agents.VerdictInconclusive, run.Verdict.Status, "an answer backed by nothing is inconclusive")
}

func TestLoopDetection(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.srv.SetHandler(func(int, api.ChatRequest) ollamatest.Reply {
		return tc("readFile", map[string]any{"path": "main.go"})
	})
	run := h.run("loop", spec())
	require.Equal(t, agents.RunFailed, run.Status)
	f := run.Outcome.Failure
	require.NotNil(t, f)
	assert.Equal(t, agents.FailStuck, f.Kind)
	assert.Contains(t, f.Message, "readFile")
	assert.Contains(t, f.Message, "3 times")
	assert.Contains(t, f.RecoveryHints, agents.HintChangeStrategy)
	assert.Len(t, h.traces(run.ID), 2, "the third identical call is not executed")
}

func TestIdenticalCallsAfterAChangeAreNotALoop(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	read := tc("readFile", map[string]any{"path": "main.go"})
	h.srv.Enqueue(read, read,
		tc("editFile", map[string]any{"path": "main.go", "search": "serve()", "replace": "serve2()"}),
		read, ollamatest.Text("Renamed the call in main.go."))
	run := h.run("rename", spec())
	require.Equal(t, agents.RunDone, run.Status, "%+v", run.Outcome.Failure)
}

func TestForcedReasoning(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.srv.Enqueue(
		tc("listFiles", map[string]any{}),
		tc("readFile", map[string]any{"path": "main.go"}),
		tc("readFile", map[string]any{"path": "go.mod"}),
		ollamatest.Text("Read everything."),
	)
	run := h.run("read", spec(func(s *agents.Spec) { s.ForcedReasoningInterval = 2 }))
	require.Equal(t, agents.RunDone, run.Status)
	assert.Equal(t, 1, run.Outcome.Meta.Reflections)
	reqs := h.srv.ChatRequests()
	require.Len(t, reqs, 4)
	assert.NotContains(t, allContent(reqs[1]), "Stop and reflect")
	last := lastMessage(reqs[2])
	assert.Equal(t, "user", last.Role)
	assert.Contains(t, last.Content, "Stop and reflect")
	assert.Contains(t, last.Content, "2 tool calls")
	require.Len(t, h.eventsOf(agents.EventReflect), 1)
}

func TestToolOutputTruncation(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("0123456789", 500)
	h := newHarness(t,
		withFiles(map[string]string{"big.txt": big}),
		withSettings(func(s *agents.Settings) { s.ToolOutputBudget = 120 }))
	h.srv.Enqueue(tc("readFile", map[string]any{"path": "big.txt"}), ollamatest.Text("It is digits."))
	run := h.run("read big", spec())
	require.Equal(t, agents.RunDone, run.Status)
	tr := h.traces(run.ID)
	require.Len(t, tr, 1)
	assert.Equal(t, big, tr[0].Output, "the trace keeps the full output")
	obs := toolMessages(h.srv.ChatRequests()[1])[0]
	// The file's content reaches the model inside an untrusted block.
	open := untrusted.Open("readFile big.txt") + "\n"
	require.True(t, strings.HasPrefix(obs, open), obs)
	assert.True(t, strings.HasSuffix(obs, untrusted.Close()))
	obs = strings.TrimPrefix(obs, open)
	assert.True(t, strings.HasPrefix(obs, big[:120]))
	assert.NotContains(t, obs, big[:121])
	assert.Contains(t, obs, fmt.Sprintf("showing 120 of 5000 characters; the full output is in trace %d of run %d", tr[0].ID, run.ID))
}

func TestContextCompression(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := range 6 {
		files[fmt.Sprintf("f%d.txt", i)] = strings.Repeat(fmt.Sprintf("line %d of a long file\n", i), 40)
	}
	h := newHarness(t, withFiles(files), withSettings(func(s *agents.Settings) {
		s.CompressAt = 600
		s.KeepRecent = 2
		s.ToolOutputBudget = 1000
	}))
	var mu sync.Mutex
	next := 0
	h.srv.SetHandler(func(_ int, req api.ChatRequest) ollamatest.Reply {
		if strings.Contains(req.Messages[0].Content, "compress the working history") {
			return ollamatest.Text("Read f0..f3; each is a repeated line. Next: read the rest.")
		}
		mu.Lock()
		defer mu.Unlock()
		if next < 6 {
			next++
			return tc("readFile", map[string]any{"path": fmt.Sprintf("f%d.txt", next-1)})
		}
		return ollamatest.Text("All files are repeated lines.")
	})
	run := h.run("summarise the files", spec(func(s *agents.Spec) { s.Limits.MaxSteps = 20 }))
	require.Equal(t, agents.RunDone, run.Status, "%+v", run.Outcome.Failure)
	assert.GreaterOrEqual(t, run.Outcome.Meta.Compressions, 1)
	require.NotEmpty(t, h.eventsOf(agents.EventCompress))

	var summaries, after int
	for _, req := range h.srv.ChatRequests() {
		if strings.Contains(req.Messages[0].Content, "compress the working history") {
			summaries++
			assert.Equal(t, smallModel, req.Model, "summaries use the small tier")
			continue
		}
		if strings.Contains(allContent(req), "Summary of the earlier steps") {
			after++
			assert.Equal(t, "Task: summarise the files", req.Messages[1].Content, "the task is kept")
			assert.Contains(t, allContent(req), "Read f0..f3")
			// No orphaned tool results: the first kept message after the
			// summary is not a tool result.
			assert.NotEqual(t, "tool", req.Messages[3].Role)
		}
	}
	assert.GreaterOrEqual(t, summaries, 1)
	assert.GreaterOrEqual(t, after, 1)
}

func TestTextModeFallback(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withModels(
		ollamatest.Model{Name: smallModel, Family: "qwen2", ContextLength: 32768, Capabilities: []string{"completion"}},
		ollamatest.Model{Name: mediumModel, Family: "qwen2", ContextLength: 32768, Capabilities: []string{"completion"}},
		ollamatest.Model{Name: largeModel, Family: "qwen2", ContextLength: 32768, Capabilities: []string{"completion"}},
	))
	h.srv.Enqueue(
		ollamatest.Text("Thought: I should look at main.go first.\nAction: readFile\nAction Input: {\"path\": \"main.go\"}\nObservation: (imagined)"),
		ollamatest.Text("Thought: now write it.\nAction: writeFile\nAction Input:\n```json\n{\"path\": \"health.go\", \"content\": \"package main\\n\"}\n```"),
		ollamatest.Text("Thought: done.\nFinal Answer: Added health.go."),
	)
	run := h.run("add health", spec())
	require.Equal(t, agents.RunDone, run.Status, "%+v", run.Outcome.Failure)
	assert.True(t, run.Outcome.Meta.TextMode)
	assert.Equal(t, "Added health.go.", run.Outcome.Result)
	assert.Equal(t, []string{"health.go"}, run.Files)
	reqs := h.srv.ChatRequests()
	require.Len(t, reqs, 3)
	assert.Empty(t, reqs[0].Tools, "no native tools for a model without the capability")
	assert.Contains(t, reqs[0].Messages[0].Content, "Action Input:")
	assert.Contains(t, reqs[0].Messages[0].Content, "readFile")
	obs := lastMessage(reqs[1])
	assert.Equal(t, "user", obs.Role)
	assert.True(t, strings.HasPrefix(obs.Content, "Observation: "+untrusted.Open("readFile main.go")+"\npackage main"), obs.Content)
	require.NotEmpty(t, h.eventsOf(agents.EventTextMode))
}

func TestToolsRefusedFallsBackToText(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.srv.Enqueue(
		ollamatest.HTTPError(http.StatusBadRequest, "registry.ollama.ai/library/qwen2.5-coder:7b does not support tools"),
		ollamatest.Text("Final Answer: main.go starts the server."),
	)
	run := h.run("explain", spec())
	require.Equal(t, agents.RunDone, run.Status, "%+v", run.Outcome.Failure)
	assert.True(t, run.Outcome.Meta.TextMode)
	reqs := h.srv.ChatRequests()
	require.Len(t, reqs, 2)
	assert.NotEmpty(t, reqs[0].Tools)
	assert.Empty(t, reqs[1].Tools)
}

func TestMalformedTextRepliesAreFedBack(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withModels(
		ollamatest.Model{Name: mediumModel, Capabilities: []string{"completion"}},
		ollamatest.Model{Name: largeModel, Capabilities: []string{"completion"}},
	))
	h.srv.Enqueue(
		ollamatest.Text("Thought: I will read it.\nAction: readFile\nAction Input: main.go please"),
		ollamatest.Text("Thought: hmm, let me think more."),
		ollamatest.Text("Final Answer: done"),
	)
	run := h.run("x", spec())
	require.Equal(t, agents.RunDone, run.Status, "%+v", run.Outcome.Failure)
	reqs := h.srv.ChatRequests()
	require.Len(t, reqs, 3)
	assert.Contains(t, lastMessage(reqs[1]).Content, "not a JSON object")
	assert.Contains(t, lastMessage(reqs[2]).Content, "no Action and no Final Answer")
	assert.Len(t, h.eventsOf(agents.EventFeedback), 2)
}

func TestRunCommandApprovalInTheLoop(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("needs /bin/sh")
	}
	h := newHarness(t, withSettings(func(s *agents.Settings) {
		s.Autonomy = 2
		s.Commands = tools.CommandPolicy{Allow: []string{"sh -c"}, Timeout: 5 * time.Second}
	}))
	h.srv.Enqueue(
		tc("writeFile", map[string]any{"path": "x.go", "content": "package x\n"}),
		tc("runCommand", map[string]any{"command": "sh -c 'echo checks ok'"}),
		tc("runCommand", map[string]any{"command": "rm -rf /"}),
		ollamatest.Text("Wrote x.go; tests pass."),
	)
	var asked []tools.ApprovalRequest
	run := h.run("x", spec(), func(o *agents.RunOptions) {
		o.Approve = func(_ context.Context, req tools.ApprovalRequest) (bool, error) {
			asked = append(asked, req)
			return true, nil
		}
	})
	require.Equal(t, agents.RunDone, run.Status, "%+v", run.Outcome.Failure)
	require.Len(t, asked, 1, "only the allowlisted command is put to the user")
	assert.Equal(t, "sh -c echo checks ok", asked[0].Command)
	assert.Equal(t, run.ID, asked[0].RunID)
	tr := h.traces(run.ID)
	require.Len(t, tr, 3)
	assert.Equal(t, tools.StatusOK, tr[1].Status)
	assert.Contains(t, tr[1].Output, "checks ok")
	assert.Equal(t, tools.StatusDenied, tr[2].Status)
	assert.Contains(t, tr[2].Output, "allowlist")
	assert.Equal(t, agents.VerdictPassed, run.Verdict.Status, "%+v", run.Verdict.Checks)
	approvals := h.eventsOf(agents.EventApproval)
	require.Len(t, approvals, 1)
	assert.Equal(t, "approved", approvals[0].Status)

	// Declined: the model is told, the verdict notes the claim.
	h2 := newHarness(t, withSettings(func(s *agents.Settings) {
		s.Autonomy = 1
		s.Commands = tools.CommandPolicy{Allow: []string{"sh -c"}}
	}))
	h2.srv.Enqueue(tc("runCommand", map[string]any{"command": "sh -c 'exit 0'"}), ollamatest.Text("The tests pass."))
	run = h2.run("x", spec(), func(o *agents.RunOptions) {
		o.Approve = func(context.Context, tools.ApprovalRequest) (bool, error) { return false, nil }
	})
	require.Equal(t, agents.RunDone, run.Status)
	assert.Contains(t, toolMessages(h2.srv.ChatRequests()[1])[0], "declined")
	assert.Equal(t, agents.VerdictInconclusive, run.Verdict.Status)
}

func TestStepAndToolCallLimits(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.srv.SetHandler(func(n int, _ api.ChatRequest) ollamatest.Reply {
		return tc("readFile", map[string]any{"path": "main.go", "offset": 1, "limit": n})
	})
	run := h.run("x", spec(func(s *agents.Spec) { s.Limits.MaxSteps = 3 }))
	require.NotNil(t, run.Outcome.Failure)
	assert.Equal(t, agents.FailTimeout, run.Outcome.Failure.Kind)
	assert.Equal(t, "max_steps", run.Outcome.Failure.Cause)
	assert.Equal(t, 3, run.Outcome.Meta.Steps)

	h2 := newHarness(t)
	h2.srv.SetHandler(func(n int, _ api.ChatRequest) ollamatest.Reply {
		return ollamatest.ToolCalls(
			ollamatest.Call("readFile", map[string]any{"path": "main.go", "limit": n}),
			ollamatest.Call("readFile", map[string]any{"path": "go.mod", "limit": n}),
		)
	})
	run = h2.run("x", spec(func(s *agents.Spec) { s.Limits.MaxToolCalls = 3 }))
	require.NotNil(t, run.Outcome.Failure)
	assert.Equal(t, "max_tool_calls", run.Outcome.Failure.Cause)
	assert.Equal(t, 3, run.Outcome.Meta.ToolCalls)
}

func TestCancellationIsNotAFailure(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.srv.Enqueue(ollamatest.Text("slow").WithLatency(5 * time.Second))
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	run, err := h.runErr(ctx, "x", spec())
	require.Error(t, err)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, agents.RunCanceled, run.Status)
	stored, gerr := h.runner.Runs.Get(context.Background(), run.ID)
	require.NoError(t, gerr)
	assert.Equal(t, agents.RunCanceled, stored.Status)
}

func TestRunRejectsBadInput(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	_, err := h.runErr(context.Background(), "  ", spec())
	assert.ErrorIs(t, err, agents.ErrEmptyTask)
	h.runner.Models = llm.Models{}
	_, err = h.runErr(context.Background(), "x", spec())
	assert.ErrorContains(t, err, "models.medium")
	_, err = (&agents.Runner{}).Run(context.Background(), spec(), "x", agents.RunOptions{})
	assert.ErrorIs(t, err, agents.ErrRunnerNotWired)
}

func TestReadOnlyAgentCannotWrite(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.srv.Enqueue(tc("writeFile", map[string]any{"path": "x.go", "content": "x"}), ollamatest.Text("I could not write."))
	run := h.run("x", spec(func(s *agents.Spec) { s.Tools = []string{"readFile", "listFiles"} }))
	require.Equal(t, agents.RunDone, run.Status)
	assert.Zero(t, run.ChangesetID)
	tr := h.traces(run.ID)
	require.Len(t, tr, 1)
	assert.Equal(t, tools.StatusDenied, tr[0].Status)
	assert.Len(t, h.srv.ChatRequests()[0].Tools, 2, "only the spec's tools are offered")
}

// A failed run's report carries a hypothesis and a note for each recovery
// hint (here from the failure's cause: the model gave no reason).
func TestFailureReportHypothesis(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.srv.SetHandler(func(n int, _ api.ChatRequest) ollamatest.Reply {
		return tc("readFile", map[string]any{"path": "main.go", "offset": 1, "limit": n})
	})
	run := h.run("find the router", spec(func(s *agents.Spec) { s.Limits.MaxSteps = 3 }))
	f := run.Outcome.Failure
	require.NotNil(t, f)
	assert.Equal(t, "the task needs more steps than the agent's limit, or the agent went round in circles", f.Hypothesis)
	require.Len(t, f.HintNotes, len(f.RecoveryHints))
	for i, n := range f.HintNotes {
		assert.Equal(t, f.RecoveryHints[i], n.Action)
		assert.NotEmpty(t, n.Note)
	}
}
