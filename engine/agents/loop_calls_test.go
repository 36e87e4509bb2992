package agents_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/tools"
)

const textCallContent = "hello from a text call\n"

// Issue 25: a model that writes its tool call in the reply's text, in any of
// the forms local models use, gets the file written (staged, traced) just
// like a native call; so does a native call that names its path file_path.
func TestToolCallsWrittenInTextAreRun(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		reply ollamatest.Reply
		via   string
		note  bool // file_path was read as path
	}{
		{"bare json", ollamatest.Text("I will create the file now.\n" +
			`{"name": "writeFile", "arguments": {"path": "notes/a.txt", "content": "hello from a text call\n"}}`),
			agents.FormJSON, false},
		{"fenced json", ollamatest.Text("I will create the file now.\n```json\n" +
			`{"name": "writeFile", "arguments": {"file_path": "notes/a.txt", "content": "hello from a text call\n"}}` + "\n```"),
			agents.FormFencedJSON, true},
		{"tool_call tag", ollamatest.Text("<tool_call>\n" +
			`{"name": "writeFile", "arguments": {"path": "notes/a.txt", "content": "hello from a text call\n"}}` + "\n</tool_call>"),
			agents.FormToolCallTag, false},
		{"function tag", ollamatest.Text("<tool_call>\n<function=writeFile>\n<parameter=path>\nnotes/a.txt\n</parameter>\n" +
			"<parameter=content>\nhello from a text call\n\n</parameter>\n</function>\n</tool_call>"),
			agents.FormFunctionTag, false},
		{"mistral", ollamatest.Text(`[TOOL_CALLS][{"name": "writeFile", "arguments": {"filename": "notes/a.txt", "contents": "hello from a text call\n"}}]`),
			agents.FormMistral, true},
		{"native with file_path", tc("writeFile", map[string]any{"file_path": "notes/a.txt", "content": textCallContent}),
			"", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.srv.Enqueue(c.reply, ollamatest.Text("Files changed: notes/a.txt (a greeting)."))
			run := h.run("Create notes/a.txt with a greeting.", spec())

			require.Equal(t, agents.RunDone, run.Status, "%+v", run.Outcome.Failure)
			assert.Equal(t, "Files changed: notes/a.txt (a greeting).", run.Outcome.Result)
			assert.Equal(t, []string{"notes/a.txt"}, run.Files)
			require.NotZero(t, run.ChangesetID)
			cs, err := h.runner.Changes.Get(context.Background(), run.ChangesetID)
			require.NoError(t, err)
			f, ok := cs.File("notes/a.txt")
			require.True(t, ok)
			assert.Equal(t, textCallContent, f.Proposed)
			_, onDisk := h.file("notes/a.txt")
			assert.False(t, onDisk, "staged, not written")

			tr := h.traces(run.ID)
			require.Len(t, tr, 1)
			assert.Equal(t, "writeFile", tr[0].Tool)
			assert.Equal(t, tools.StatusOK, tr[0].Status, tr[0].Output)
			assert.Equal(t, c.via, tr[0].Via)
			require.Len(t, tr[0].Evidence, 1)
			assert.Equal(t, tools.SHA256([]byte(textCallContent)), tr[0].Evidence[0].SHA256)
			assert.JSONEq(t, `{"path":"notes/a.txt","content":"hello from a text call\n"}`, string(tr[0].Args))
			assert.Equal(t, agents.VerdictUnverified, run.Verdict.Status, "no check is configured: staged, consistent, not executed; %+v", run.Verdict.Checks)
			assert.Equal(t, 1, run.Outcome.Meta.ToolCalls)

			reqs := h.srv.ChatRequests()
			require.Len(t, reqs, 2)
			assert.NotEmpty(t, reqs[0].Tools, "tools were offered natively")
			calls := h.eventsOf(agents.EventToolCall)
			require.Len(t, calls, 1)
			if c.via == "" {
				assert.Zero(t, run.Outcome.Meta.TextToolCalls)
				assert.Empty(t, calls[0].Text)
				obs := toolMessages(reqs[1])
				require.Len(t, obs, 1)
				assert.Contains(t, obs[0], `note: argument "file_path" read as "path"`)
				return
			}
			assert.Equal(t, 1, run.Outcome.Meta.TextToolCalls)
			assert.Equal(t, "tool call read from text (form "+c.via+")", calls[0].Text)
			// The reply stays as the assistant's text; the observation is a
			// user message naming the tool.
			msgs := reqs[1].Messages
			require.GreaterOrEqual(t, len(msgs), 2)
			assert.Equal(t, "assistant", msgs[len(msgs)-2].Role)
			last := lastMessage(reqs[1])
			assert.Equal(t, "user", last.Role)
			assert.True(t, strings.HasPrefix(last.Content, "Observation (writeFile): "), last.Content)
			assert.Empty(t, toolMessages(reqs[1]))
			if c.note {
				assert.Contains(t, last.Content, "note: argument ")
			}
		})
	}
}

func TestTextToolCallsInTextModeAndSeveralInOneReply(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withModels(
		ollamatest.Model{Name: mediumModel, Capabilities: []string{"completion"}},
		ollamatest.Model{Name: largeModel, Capabilities: []string{"completion"}},
	))
	h.srv.Enqueue(
		ollamatest.Text("<tool_call>{\"name\": \"readFile\", \"arguments\": {\"path\": \"main.go\"}}</tool_call>\n"+
			"<tool_call>{\"name\": \"readFile\", \"arguments\": {\"path\": \"go.mod\"}}</tool_call>"),
		ollamatest.Text("Final Answer: main.go calls serve(); the module is example.com/app."),
	)
	run := h.run("explain main.go", spec())
	require.Equal(t, agents.RunDone, run.Status, "%+v", run.Outcome.Failure)
	assert.True(t, run.Outcome.Meta.TextMode)
	assert.Equal(t, "main.go calls serve(); the module is example.com/app.", run.Outcome.Result)
	tr := h.traces(run.ID)
	require.Len(t, tr, 2)
	assert.Equal(t, agents.FormToolCallTag, tr[1].Via)
	last := lastMessage(h.srv.ChatRequests()[1])
	assert.Equal(t, "user", last.Role)
	assert.True(t, strings.HasPrefix(last.Content, "Observation (readFile): <untrusted-data id="), last.Content)
	assert.Contains(t, last.Content, "source=\"readFile main.go\">\npackage main")
	assert.Contains(t, last.Content, "\n\nObservation (readFile): <untrusted-data id=")
	assert.Contains(t, last.Content, "source=\"readFile go.mod\">\nmodule example.com/app")
}

func TestUnknownToolInTextStaysText(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	answer := `The config would be {"name": "frobnicate", "arguments": {"level": 3}}.`
	h.srv.Enqueue(ollamatest.Text(answer))
	run := h.run("explain main.go", spec())
	require.Equal(t, agents.RunDone, run.Status, "%+v", run.Outcome.Failure)
	assert.Equal(t, answer, run.Outcome.Result)
	assert.Empty(t, h.traces(run.ID))
	assert.Len(t, h.srv.ChatRequests(), 1)

	// A tool the agent is not offered is not a call either.
	h2 := newHarness(t)
	h2.srv.Enqueue(ollamatest.Text(`{"name": "writeFile", "arguments": {"path": "x.go", "content": "x"}}`))
	run = h2.run("explain main.go", spec(func(s *agents.Spec) { s.Tools = []string{"readFile"} }))
	require.Equal(t, agents.RunDone, run.Status)
	assert.Empty(t, h2.traces(run.ID))
	assert.Zero(t, run.ChangesetID)
}

func TestAnswerWithoutAChangeIsSentBackOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.srv.Enqueue(
		ollamatest.Text("I added a health endpoint to main.go."),
		ollamatest.Text("I really did add it."),
	)
	run := h.run("Add a health endpoint to main.go.", spec())
	require.Equal(t, agents.RunDone, run.Status, "%+v", run.Outcome.Failure)
	assert.Equal(t, "I really did add it.", run.Outcome.Result, "the second such answer is taken")
	reqs := h.srv.ChatRequests()
	require.Len(t, reqs, 2)
	last := lastMessage(reqs[1])
	assert.Equal(t, "user", last.Role)
	assert.Equal(t, "No change was made: call writeFile or editFile, or show the whole file in a fenced block with its path on the line before.", last.Content)
	assert.Equal(t, "I added a health endpoint to main.go.", reqs[1].Messages[len(reqs[1].Messages)-2].Content)
	fb := h.eventsOf(agents.EventFeedback)
	require.Len(t, fb, 1)
	assert.Equal(t, "no_change", fb[0].Status)
	assert.Zero(t, run.Outcome.Meta.Escalations, "the reminder is not an invalid reply")

	// After the reminder the model writes: the change is staged and the
	// answer taken.
	h2 := newHarness(t)
	h2.srv.Enqueue(
		ollamatest.Text("Final Answer: done."),
		tc("writeFile", map[string]any{"path": "health.go", "content": healthGo}),
		ollamatest.Text("Final Answer: added health.go."),
	)
	run = h2.run("implement a health endpoint", spec())
	require.Equal(t, agents.RunDone, run.Status, "%+v", run.Outcome.Failure)
	assert.Equal(t, "added health.go.", run.Outcome.Result)
	assert.Equal(t, []string{"health.go"}, run.Files)
	assert.Len(t, h2.srv.ChatRequests(), 3)

	// No reminder: a task that asks for no change, an agent that cannot
	// write, or a run that already staged something.
	for name, c := range map[string]struct {
		task    string
		spec    agents.Spec
		replies []ollamatest.Reply
	}{
		"question":  {"explain main.go", spec(), []ollamatest.Reply{ollamatest.Text("It serves.")}},
		"read-only": {"Fix main.go.", spec(func(s *agents.Spec) { s.Tools = []string{"readFile"} }), []ollamatest.Reply{ollamatest.Text("It serves.")}},
		"staged": {"Fix main.go.", spec(), []ollamatest.Reply{
			tc("editFile", map[string]any{"path": "main.go", "search": "serve()", "replace": "serve2()"}),
			ollamatest.Text("It serves."),
		}},
	} {
		h := newHarness(t)
		h.srv.Enqueue(c.replies...)
		run := h.run(c.task, c.spec)
		require.Equal(t, agents.RunDone, run.Status, name)
		assert.Equal(t, "It serves.", run.Outcome.Result, name)
		assert.Len(t, h.srv.ChatRequests(), len(c.replies), name)
		assert.Empty(t, h.eventsOf(agents.EventFeedback), name)
	}
}

func TestTaskAsksForChange(t *testing.T) {
	t.Parallel()
	yes := []string{
		"Fix the nil check in parser.go", "add a health endpoint", "Implement retries", "## Update the README",
		"Please refactor the loop", "Write hello.txt.", "create notes/a.txt", "Task: change the port", "PRD task health: Implement the /healthz handler\nBuild: health (phase 0)",
		"The handler in internal/health/health.go must be added", "- rename Foo to Bar",
	}
	no := []string{"explain main.go", "Why does the build fail?", "summarise the files", "look", "Describe hello.txt.", "fixture overview", "address the question", "PRD task docs: Explain the API"}
	for _, s := range yes {
		assert.True(t, agents.TaskAsksForChange(s), s)
	}
	for _, s := range no {
		assert.False(t, agents.TaskAsksForChange(s), s)
	}
}

// The note about a renamed argument stays in sight when the output is cut.
func TestArgumentNoteSurvivesTruncation(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("0123456789", 200)
	h := newHarness(t, withFiles(map[string]string{"big.txt": big}),
		withSettings(func(s *agents.Settings) { s.ToolOutputBudget = 100 }))
	h.srv.Enqueue(tc("readFile", map[string]any{"filepath": "big.txt"}), ollamatest.Text("It is digits."))
	run := h.run("read big.txt", spec())
	require.Equal(t, agents.RunDone, run.Status, "%+v", run.Outcome.Failure)
	obs := toolMessages(h.srv.ChatRequests()[1])[0]
	assert.True(t, strings.HasPrefix(obs, "<untrusted-data id="), "the output is marked as data: %s", obs[:min(len(obs), 80)])
	assert.Contains(t, obs, big[:100])
	assert.Contains(t, obs, "[truncated: showing 100 of 2000 characters")
	assert.True(t, strings.HasSuffix(obs, "\nnote: argument \"filepath\" read as \"path\""), obs)
	tr := h.traces(run.ID)
	require.Len(t, tr, 1)
	assert.True(t, strings.HasPrefix(tr[0].Output, big), "the trace keeps the whole output")
}
