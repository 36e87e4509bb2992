package agents_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/tools"
)

const (
	fence    = "```"
	serverGo = "package main\n\nimport \"net/http\"\n\nfunc serve() {\n\tif ready() {\n\t\thttp.ListenAndServe(\":8080\", nil)\n\t}\n}\n\nfunc ready() bool {\n\treturn true\n}\n"
)

// staged returns the proposed content of path in the run's changeset.
func (h *harness) staged(run agents.Run, path string) (string, bool) {
	h.t.Helper()
	if run.ChangesetID == 0 {
		return "", false
	}
	cs, err := h.runner.Changes.Get(context.Background(), run.ChangesetID)
	require.NoError(h.t, err)
	f, ok := cs.File(path)
	if !ok {
		return "", false
	}
	return f.Proposed, true
}

// TestTextEditsAreStaged: every edit format a reply may use ends staged in
// the changeset through the tools, with a trace, and the prose around the
// blocks is the answer.
func TestTextEditsAreStaged(t *testing.T) {
	t.Parallel()
	health := "package main\n\nfunc health() string { return \"ok\" }\n"
	cases := []struct {
		name, reply, path, tool, want, rule string
	}{
		{"whole file, path on the line before", "I added the handler.\n\n`health.go`\n" + fence + "go\n" + health + fence + "\n",
			"health.go", "writeFile", health, ""},
		{"whole file, path in the info string", "Added it.\n" + fence + "go health.go\n" + health + fence,
			"health.go", "writeFile", health, ""},
		{"search/replace", "Listen on 9090.\n\nserver.go\n" + fence + "go\n<<<<<<< SEARCH\n\t\thttp.ListenAndServe(\":8080\", nil)\n=======\n\t\thttp.ListenAndServe(\":9090\", nil)\n>>>>>>> REPLACE\n" + fence,
			"server.go", "editFile", strings.Replace(serverGo, "8080", "9090", 1), "exact"},
		{"unified diff with wrong line numbers", "Port changed.\n" + fence + "diff\n--- a/server.go\n+++ b/server.go\n@@ -57,3 +57,3 @@\n \tif ready() {\n-\t\thttp.ListenAndServe(\":8080\", nil)\n+\t\thttp.ListenAndServe(\":9090\", nil)\n \t}\n" + fence,
			"server.go", "writeFile", strings.Replace(serverGo, "8080", "9090", 1), ""},
		{"diff creating a file", "New file.\n--- /dev/null\n+++ b/health.go\n@@ -0,0 +1,3 @@\n+package main\n+\n+func health() string { return \"ok\" }\n",
			"health.go", "writeFile", health, ""},
		{"tabs written as spaces", "Guarded.\n\nserver.go\n<<<<<<< SEARCH\n    if ready() {\n        http.ListenAndServe(\":8080\", nil)\n    }\n=======\n    if ready() {\n        log.Print(\"up\")\n        http.ListenAndServe(\":8080\", nil)\n    }\n>>>>>>> REPLACE\n",
			"server.go", "editFile", strings.Replace(serverGo, "\t\thttp.", "\t\tlog.Print(\"up\")\n\t\thttp.", 1), "indentation"},
		{"trailing spaces", "Done.\n\nserver.go\n<<<<<<< SEARCH\nfunc ready() bool {   \n\treturn true  \n=======\nfunc ready() bool {\n\treturn false\n>>>>>>> REPLACE\n",
			"server.go", "editFile", strings.Replace(serverGo, "return true", "return false", 1), "trailing-whitespace"},
		{"leading blank lines", "Done.\n\nserver.go\n<<<<<<< SEARCH\n\n\n\tif ready() {\n\t\thttp.ListenAndServe(\":8080\", nil)\n=======\n\n\n\tif ready() {\n\t\tlog.Print(\"up\")\n\t\thttp.ListenAndServe(\":8080\", nil)\n>>>>>>> REPLACE\n",
			"server.go", "editFile", strings.Replace(serverGo, "\t\thttp.", "\t\tlog.Print(\"up\")\n\t\thttp.", 1), "blank-lines"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, withFiles(map[string]string{"go.mod": "module x\n", "server.go": serverGo}))
			h.srv.Enqueue(ollamatest.Text(c.reply))
			run := h.run("change the server", spec())
			require.Equal(t, agents.RunDone, run.Status, "%+v", run.Outcome.Failure)
			got, ok := h.staged(run, c.path)
			require.True(t, ok, "%s is staged", c.path)
			assert.Equal(t, c.want, got)
			assert.Equal(t, []string{c.path}, run.Files)
			disk, _ := h.file("server.go")
			assert.Equal(t, serverGo, disk, "nothing reaches the disk")

			tr := h.traces(run.ID)
			require.Len(t, tr, 1)
			assert.Equal(t, c.tool, tr[0].Tool)
			assert.Equal(t, tools.StatusOK, tr[0].Status)
			require.Len(t, tr[0].Evidence, 1)
			assert.Equal(t, tools.SHA256([]byte(c.want)), tr[0].Evidence[0].SHA256)
			if c.rule != "" {
				assert.Contains(t, tr[0].Output, "matched by rule: "+c.rule)
			}
			assert.NotContains(t, run.Outcome.Result, fence, "the answer is the prose without the blocks")
			assert.NotContains(t, run.Outcome.Result, "<<<<<<<")
			assert.NotEmpty(t, run.Outcome.Result)
			assert.Len(t, h.srv.ChatRequests(), 1)
		})
	}
}

// TestFailedTextEditIsFedBack: a block that does not apply goes back to
// the model with the precise reason; the blocks that applied stay staged.
func TestFailedTextEditIsFedBack(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withFiles(map[string]string{"go.mod": "module x\n", "server.go": serverGo}))
	h.srv.Enqueue(
		ollamatest.Text("Two changes.\n\nserver.go\n<<<<<<< SEARCH\nfunc ready() bool {\n\treturn true\n}\n=======\nfunc ready() bool {\n\treturn false\n}\n>>>>>>> REPLACE\n\n"+
			"server.go\n<<<<<<< SEARCH\nfunc serve() {\n\tif isReady(ctx) && other {\n\t\thttp.Serve(\":8080\")\n\t}\n}\n=======\nfunc serve() {}\n>>>>>>> REPLACE\n\n"+
			"--- a/missing.go\n+++ b/missing.go\n@@ -1 +1 @@\n-a\n+b\n\nFor example:\n"+fence+"go\nserve()\n"+fence),
		ollamatest.Text("Fixed.\n\nserver.go\n<<<<<<< SEARCH\nfunc ready() bool {\n\treturn true\n}\n=======\nfunc ready() bool {\n\treturn false\n}\n>>>>>>> REPLACE\n\nserver.go\n<<<<<<< SEARCH\n\tif ready() {\n\t\thttp.ListenAndServe(\":8080\", nil)\n\t}\n=======\n\thttp.ListenAndServe(\":8080\", nil)\n>>>>>>> REPLACE\n"),
	)
	run := h.run("change the server", spec())
	require.Equal(t, agents.RunDone, run.Status, "%+v", run.Outcome.Failure)
	reqs := h.srv.ChatRequests()
	require.Len(t, reqs, 2)
	fb := lastMessage(reqs[1])
	assert.Equal(t, "user", fb.Role)
	assert.Contains(t, fb.Content, "2 of 3 edit blocks in your reply did not apply")
	assert.Contains(t, fb.Content, "block 1 (SEARCH/REPLACE on server.go): applied")
	assert.Contains(t, fb.Content, "block 2 (SEARCH/REPLACE on server.go): not applied")
	assert.Contains(t, fb.Content, "the search text matches nowhere")
	assert.Contains(t, fb.Content, "the closest lines are 5–9")
	assert.Contains(t, fb.Content, "block 3 (diff on missing.go): not applied: the diff changes missing.go, which does not exist")
	assert.Contains(t, fb.Content, "block 4 (code block without a path): not an edit")
	require.Len(t, h.eventsOf(agents.EventFeedback), 1)

	got, ok := h.staged(run, "server.go")
	require.True(t, ok)
	assert.Contains(t, got, "return false")
	assert.Contains(t, got, "func serve() {\n\thttp.ListenAndServe")
	assert.Equal(t, "Fixed.", run.Outcome.Result)
	tr := h.traces(run.ID)
	require.Len(t, tr, 3, "two editFile calls in the first reply (one failed), one in the second (its first block was already applied); the missing file needs no call")
	assert.Equal(t, tools.StatusError, tr[1].Status)
}

// TestBrokenTextEditsCannotLoopForever: replies whose blocks never apply
// count as invalid replies: they escalate, then fail the run.
func TestBrokenTextEditsCannotLoopForever(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withFiles(map[string]string{"server.go": serverGo}))
	for i := range 8 {
		h.srv.Enqueue(ollamatest.Text(fmt.Sprintf("server.go\n<<<<<<< SEARCH\nnot in the file, try %d\n=======\nx\n>>>>>>> REPLACE\n", i)))
	}
	run := h.run("change the server", spec())
	require.Equal(t, agents.RunFailed, run.Status)
	require.NotNil(t, run.Outcome.Failure)
	// Whichever guard trips first (invalid replies or failed tool calls),
	// the run ends within five replies, after one escalation.
	assert.Contains(t, []string{"edit_failed", "tool_errors"}, run.Outcome.Failure.Cause)
	assert.LessOrEqual(t, len(h.srv.ChatRequests()), 5)
	assert.NotEmpty(t, h.eventsOf(agents.EventEscalate))
	assert.Contains(t, lastMessage(h.srv.ChatRequests()[1]).Content, "The edit block in your reply did not apply:\nblock 1 (SEARCH/REPLACE on server.go): not applied")
}

// TestTextEditsNeedTheWriteTools: an agent offered neither writeFile nor
// editFile gets no edits applied; its reply is its answer.
func TestTextEditsNeedTheWriteTools(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withFiles(map[string]string{"server.go": serverGo}))
	reply := "It would look like this:\n\nserver.go\n" + fence + "go\npackage main\n" + fence
	h.srv.Enqueue(ollamatest.Text(reply))
	run := h.run("explain", spec(func(s *agents.Spec) { s.Tools = []string{"readFile", "listFiles"} }))
	require.Equal(t, agents.RunDone, run.Status, "%+v", run.Outcome.Failure)
	assert.Zero(t, run.ChangesetID)
	assert.Empty(t, h.traces(run.ID))
	assert.Equal(t, reply, run.Outcome.Result)
}

// TestTextEditsEdgeCases: code without a path is an answer, not an edit; a
// path outside the workspace is refused by the tool (traced); an excerpt
// of an existing file is not written over it.
func TestTextEditsEdgeCases(t *testing.T) {
	t.Parallel()
	t.Run("code without a path", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, withFiles(map[string]string{"server.go": serverGo}))
		reply := "Call it like this:\n" + fence + "go\nserve()\n" + fence
		h.srv.Enqueue(ollamatest.Text(reply))
		run := h.run("how do I start it", spec())
		require.Equal(t, agents.RunDone, run.Status)
		assert.Zero(t, run.ChangesetID)
		assert.Equal(t, reply, run.Outcome.Result)
	})
	t.Run("path outside the workspace", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, withFiles(map[string]string{"server.go": serverGo}))
		h.srv.Enqueue(
			ollamatest.Text("`../outside.go`\n"+fence+"go\npackage x\n"+fence),
			ollamatest.Text("--- a/../../etc/x.conf\n+++ b/../../etc/x.conf\n@@ -1 +1 @@\n-a\n+b\n"),
			ollamatest.Text("I will not do that."),
		)
		run := h.run("write outside", spec())
		require.Equal(t, agents.RunDone, run.Status, "%+v", run.Outcome.Failure)
		assert.Zero(t, run.ChangesetID)
		tr := h.traces(run.ID)
		require.Len(t, tr, 2)
		assert.Equal(t, "writeFile", tr[0].Tool)
		assert.Equal(t, tools.StatusDenied, tr[0].Status)
		assert.Equal(t, "readFile", tr[1].Tool, "the diff's read is refused through the tool")
		assert.Equal(t, tools.StatusDenied, tr[1].Status)
		reqs := h.srv.ChatRequests()
		assert.Contains(t, lastMessage(reqs[1]).Content, "block 1 (whole file of ../outside.go): not applied (writeFile)")
	})
	t.Run("excerpt of an existing file", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, withFiles(map[string]string{"server.go": serverGo}))
		h.srv.Enqueue(
			ollamatest.Text("server.go\n"+fence+"go\npackage main\n\n// ... existing code ...\n\nfunc ready() bool { return false }\n"+fence),
			ollamatest.Text("OK, leaving it."),
		)
		run := h.run("change ready", spec())
		require.Equal(t, agents.RunDone, run.Status)
		assert.Zero(t, run.ChangesetID)
		assert.Contains(t, lastMessage(h.srv.ChatRequests()[1]).Content, "is an excerpt")
	})
	t.Run("drafts in a think section", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, withFiles(map[string]string{"server.go": serverGo}))
		h.srv.Enqueue(ollamatest.Text("<think>maybe\n\nhealth.go\n" + fence + "go\npackage draft\n" + fence + "\n</think>\nAdded it.\n\nhealth.go\n" + fence + "go\npackage main\n" + fence))
		run := h.run("add health.go", spec())
		require.Equal(t, agents.RunDone, run.Status, "%+v", run.Outcome.Failure)
		got, ok := h.staged(run, "health.go")
		require.True(t, ok)
		assert.Equal(t, "package main\n", got)
		assert.Equal(t, "Added it.", run.Outcome.Result)
		assert.Len(t, h.traces(run.ID), 1)
	})
	t.Run("snippet shown for an existing file", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, withFiles(map[string]string{"server.go": serverGo}))
		h.srv.Enqueue(
			ollamatest.Text("In `server.go`:\n"+fence+"go\nfunc ready() bool {\n\treturn false\n}\n"+fence),
			ollamatest.Text("Understood."),
		)
		run := h.run("change ready", spec())
		require.Equal(t, agents.RunDone, run.Status)
		assert.Zero(t, run.ChangesetID)
		assert.Contains(t, lastMessage(h.srv.ChatRequests()[1]).Content, "looks like an excerpt")
	})
}
