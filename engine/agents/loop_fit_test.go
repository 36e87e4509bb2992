package agents_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/failure"
	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/promptfit"
	"github.com/nova-dev/nova/engine/tools"
)

func tiers(ctxLen int, caps ...string) harnessOpt {
	if caps == nil {
		caps = []string{"completion", "tools"}
	}
	return withModels(
		ollamatest.Model{Name: smallModel, ContextLength: ctxLen, Capabilities: caps},
		ollamatest.Model{Name: mediumModel, ContextLength: ctxLen, Capabilities: caps},
		ollamatest.Model{Name: largeModel, ContextLength: ctxLen, Capabilities: caps},
	)
}

// promptOf estimates a recorded request the way nova does.
func promptOf(req api.ChatRequest) int {
	n := 0
	for _, m := range req.Messages {
		n += 8 + llm.EstimateTokens(m.Content)
	}
	return n
}

func TestOversizedTaskIsCutWithAMarkerAndNeverTruncated(t *testing.T) {
	t.Parallel()
	h := newHarness(t, tiers(4096), withLLM(func(c *llm.Config) { c.NumCtx = 3072 }))
	h.srv.Enqueue(ollamatest.Text("done"))
	task := "Describe hello.txt.\n" + strings.Repeat("Background line about the greeting file.\n", 5000) // ~50k tokens... as text
	run := h.run(task, spec())
	require.Equal(t, agents.RunDone, run.Status, "%+v", run.Outcome.Failure)
	reqs := h.srv.ChatRequests()
	require.Len(t, reqs, 1)
	assert.Zero(t, h.srv.Truncations())
	assert.EqualValues(t, 3072, reqs[0].Options["num_ctx"])
	assert.LessOrEqual(t, promptOf(reqs[0]), 3072-llm.DefaultReplyReserve)
	user := reqs[0].Messages[1].Content
	assert.True(t, strings.HasPrefix(user, "Task: Describe hello.txt."), "the task keeps its start")
	assert.Contains(t, user, "task cut to fit the model's context")
	assert.NotEmpty(t, h.eventsOf(agents.EventFit))
}

func TestContextBlocksAreTrimmedBeforeTheTask(t *testing.T) {
	t.Parallel()
	h := newHarness(t, tiers(3072), withLLM(func(c *llm.Config) { c.NumCtx = 8192 }))
	h.srv.Enqueue(ollamatest.Text("done"))
	big := func(tag string) string {
		return "<" + tag + ">\n" + strings.Repeat(tag+" says something useful. ", 150) + "\n</" + tag + ">"
	}
	extra := []string{big("dependency_artifacts"), big("taste_vault_context"), big("playbook_context"), big("knowledge_context")}
	run := h.run("Write hello.txt with a greeting.", spec(), func(o *agents.RunOptions) { o.ExtraContext = extra })
	require.Equal(t, agents.RunDone, run.Status, "%+v", run.Outcome.Failure)
	req := h.srv.ChatRequests()[0]
	sys := req.Messages[0].Content
	assert.NotContains(t, sys, "<knowledge_context>", "knowledge goes first")
	assert.Contains(t, sys, "<dependency_artifacts>", "dependency previews go last")
	assert.Equal(t, "Task: Write hello.txt with a greeting.", req.Messages[1].Content, "the task is whole")
	assert.LessOrEqual(t, promptOf(req), 3072-llm.DefaultReplyReserve)
	fits := h.eventsOf(agents.EventFit)
	require.NotEmpty(t, fits)
	assert.Contains(t, fits[0].Text, "dropped knowledge")
	assert.True(t, strings.HasPrefix(fits[0].Text, "prompt trimmed"), "the event says what happened first: %q", fits[0].Text)
}

func TestPromptThatCannotFitIsRefusedBeforeAnyChat(t *testing.T) {
	t.Parallel()
	h := newHarness(t, tiers(4096), withLLM(func(c *llm.Config) { c.NumCtx = 1024 }))
	run := h.run("Write hello.txt.", spec())
	require.Equal(t, agents.RunFailed, run.Status)
	f := run.Outcome.Failure
	require.NotNil(t, f)
	assert.Equal(t, failure.Misconfigured, f.Class)
	assert.Equal(t, "prompt_too_long", f.Cause)
	assert.Contains(t, f.Message, "ollama.numCtx")
	assert.Contains(t, f.Message, "budgets.replyReserve")
	assert.Zero(t, h.srv.Count("/api/chat"), "nothing is sent that cannot fit")
}

func TestServerRefusalRefitsOnceWithACautiousEstimate(t *testing.T) {
	t.Parallel()
	h := newHarness(t, tiers(8192))
	h.srv.Enqueue(ollamatest.HTTPError(400, "the input length exceeds the context length"), ollamatest.Text("done"))
	run := h.run("Describe hello.txt.", spec())
	require.Equal(t, agents.RunDone, run.Status, "%+v", run.Outcome.Failure)
	assert.Len(t, h.srv.ChatRequests(), 2)
	assert.Greater(t, h.runner.LLM.TokenFactor(mediumModel), 1.0, "estimates for this model are more cautious now")
}

func TestLengthStopEscalatesAndIsNeverTheAnswer(t *testing.T) {
	t.Parallel()
	h := newHarness(t, tiers(8192))
	cut := ollamatest.Text("Files changed: hel").WithDoneReason("length")
	h.srv.Enqueue(cut, cut, ollamatest.Text("Files changed: hello.txt."))
	run := h.run("Describe hello.txt.", spec())
	require.Equal(t, agents.RunDone, run.Status, "%+v", run.Outcome.Failure)
	assert.Equal(t, "Files changed: hello.txt.", run.Outcome.Result)
	assert.Equal(t, 1, run.Outcome.Meta.Escalations)
	assert.Equal(t, largeModel, run.Outcome.Meta.Model)

	h2 := newHarness(t, tiers(8192))
	h2.srv.SetHandler(func(int, api.ChatRequest) ollamatest.Reply { return cut })
	run = h2.run("Write hello.txt.", spec(func(s *agents.Spec) { s.MaxTier = agents.TierMedium }))
	require.Equal(t, agents.RunFailed, run.Status)
	assert.Equal(t, failure.Length, run.Outcome.Failure.Class)
	assert.Equal(t, "length", run.Outcome.Failure.Cause)
	assert.Contains(t, run.Outcome.Failure.Message, "token limit")
	assert.Len(t, h2.srv.ChatRequests(), 2, "one larger num_predict, no escalation above maxTier")
}

func TestRepetitionFailsWithItsKindAfterOneChangedRetry(t *testing.T) {
	t.Parallel()
	h := newHarness(t, tiers(8192))
	h.srv.SetHandler(func(int, api.ChatRequest) ollamatest.Reply { return ollamatest.Repetition("Hmm: ", "again ") })
	run := h.run("Write hello.txt.", spec(func(s *agents.Spec) { s.MaxTier = agents.TierMedium }))
	require.Equal(t, agents.RunFailed, run.Status)
	assert.Equal(t, failure.Repetition, run.Outcome.Failure.Class)
	assert.NotContains(t, run.Outcome.Failure.Message, "stream cut")
	assert.Len(t, h.srv.ChatRequests(), 2)
}

func TestServerAnswersGetAFailureClass(t *testing.T) {
	t.Parallel()
	h := newHarness(t, tiers(8192, "embedding"))
	run := h.run("Write hello.txt.", spec())
	require.Equal(t, agents.RunFailed, run.Status)
	assert.Equal(t, failure.Misconfigured, run.Outcome.Failure.Class, "%+v", run.Outcome.Failure)
	assert.Contains(t, run.Outcome.Failure.Message, "does not support chat")

	h2 := newHarness(t, tiers(8192))
	h2.srv.SetHandler(func(int, api.ChatRequest) ollamatest.Reply {
		return ollamatest.ServerError("llama runner process has terminated")
	})
	run = h2.run("Write hello.txt.", spec())
	require.Equal(t, agents.RunFailed, run.Status)
	assert.Equal(t, failure.Server, run.Outcome.Failure.Class)
}

func TestFitMessagesKeepsExamplesOnlyWhenThereIsRoom(t *testing.T) {
	t.Parallel()
	est := promptfit.Estimator{Factor: 1}
	in := agents.PromptInput{Spec: spec(), Task: "Write hello.txt."}
	roomy, err := agents.FitMessages(in, nil, 4000, est, "4096 tokens", 1024)
	require.NoError(t, err)
	assert.Contains(t, roomy.Messages[0].Content, "## Examples")
	in.Task = strings.Repeat("a long task line\n", 400)
	tight, err := agents.FitMessages(in, nil, 1000, est, "2048 tokens", 1024)
	require.NoError(t, err)
	assert.NotContains(t, tight.Messages[0].Content, "## Examples", "examples go before the task is cut")
	assert.True(t, tight.TaskCut)
	assert.LessOrEqual(t, tight.Tokens, 1000)
}

// registerKnowledgeTool adds a tool offered to every agent (as the knowledge
// tools are) with a schema of about n characters.
func registerKnowledgeTool(t *testing.T, h *harness, n int) {
	t.Helper()
	desc := strings.Repeat("Looks things up in what the team knows. ", n/40)
	require.NoError(t, h.runner.Tools.Register(tools.Tool{
		Name: "lookUp", Description: desc, AllAgents: true,
		Schema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`),
		Run: func(context.Context, *tools.Env, json.RawMessage) (tools.Output, error) {
			return tools.Output{Text: "nothing"}, nil
		},
	}))
}

// offered lists the native tools a request offered.
func offered(req api.ChatRequest) []string {
	var names []string
	for _, tl := range req.Tools {
		names = append(names, tl.Function.Name)
	}
	return names
}

// The tools every agent is offered (knowledge tools) give way first
// (promptfit.TrimOrder): before the knowledge hits, the vault context, the
// examples or the task.
func TestKnowledgeToolsGiveWayFirst(t *testing.T) {
	t.Parallel()
	h := newHarness(t, tiers(4096), withLLM(func(c *llm.Config) { c.NumCtx = 4096 }))
	registerKnowledgeTool(t, h, 6400) // ~1600 tokens of schema
	h.srv.Enqueue(ollamatest.Text("done"))
	vaultBlock := "<taste_vault_context>\n" + strings.Repeat("Prefer small handlers. ", 20) + "\n</taste_vault_context>"
	know := "<knowledge>\n" + strings.Repeat("A fact about the router. ", 20) + "\n</knowledge>"
	task := "Write hello.txt with a greeting. " + strings.Repeat("More detail about the greeting. ", 20)
	run := h.run(task, spec(), func(o *agents.RunOptions) { o.ExtraContext = []string{vaultBlock, know} })
	require.Equal(t, agents.RunDone, run.Status, "%+v", run.Outcome.Failure)
	req := h.srv.ChatRequests()[0]
	assert.NotContains(t, offered(req), "lookUp", "the knowledge tool was left out")
	assert.Contains(t, offered(req), "writeFile", "the agent's own tools stay")
	assert.Contains(t, req.Messages[0].Content, "<taste_vault_context>", "the vault context stays")
	assert.Contains(t, req.Messages[0].Content, "<knowledge>", "dropping the tool was enough")
	assert.NotContains(t, req.Messages[1].Content, "cut to fit", "the task is whole")
	fits := h.eventsOf(agents.EventFit)
	require.NotEmpty(t, fits)
	assert.Contains(t, fits[0].Text, "dropped knowledge tools")

	// With room to spare the knowledge tool is offered.
	h2 := newHarness(t, tiers(8192), withLLM(func(c *llm.Config) { c.NumCtx = 8192 }))
	registerKnowledgeTool(t, h2, 6400)
	h2.srv.Enqueue(ollamatest.Text("done"))
	run = h2.run(task, spec(), func(o *agents.RunOptions) { o.ExtraContext = []string{vaultBlock, know} })
	require.Equal(t, agents.RunDone, run.Status, "%+v", run.Outcome.Failure)
	assert.Contains(t, offered(h2.srv.ChatRequests()[0]), "lookUp")
	assert.Empty(t, h2.eventsOf(agents.EventFit))
}

// A model without the completion capability (an embedding model on a chat
// tier) is refused before any chat, as misconfigured, naming the problem
// rather than the arithmetic of its small context.
func TestEmbeddingModelOnAChatTierIsRefusedBeforeAnyChat(t *testing.T) {
	t.Parallel()
	h := newHarness(t, tiers(512, "embedding"), withLLM(func(c *llm.Config) { c.NumCtx = 8192 }))
	run := h.run("Write hello.txt.", spec())
	require.Equal(t, agents.RunFailed, run.Status)
	f := run.Outcome.Failure
	require.NotNil(t, f)
	assert.Equal(t, failure.Misconfigured, f.Class)
	assert.Contains(t, f.Message, "does not support chat")
	assert.Contains(t, f.Message, "models.")
	assert.Zero(t, h.srv.Count("/api/chat"))
	assert.Empty(t, h.eventsOf(agents.EventTextMode), "no detour through the text format first")
}
