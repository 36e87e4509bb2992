package realollama_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runJSON is the part of `nova agent run --json` the suite reads.
type runJSON struct {
	ID      uint64   `json:"id"`
	Status  string   `json:"status"`
	Files   []string `json:"files"`
	Outcome struct {
		OK      bool   `json:"ok"`
		Result  string `json:"result"`
		Failure *struct {
			Kind    string `json:"kind"`
			Class   string `json:"class"`
			Cause   string `json:"cause"`
			Message string `json:"message"`
		} `json:"failure"`
		Meta struct {
			Steps       int    `json:"steps"`
			ToolCalls   int    `json:"toolCalls"`
			LLMCalls    int    `json:"llmCalls"`
			Tier        string `json:"tier"`
			Model       string `json:"model"`
			Escalations int    `json:"escalations"`
			TextMode    bool   `json:"textMode"`
		} `json:"meta"`
	} `json:"outcome"`
	ChangesetID uint64 `json:"changesetId"`
	Verdict     struct {
		Status string `json:"status"`
	} `json:"verdict"`
}

func (r runJSON) failure() string {
	if f := r.Outcome.Failure; f != nil {
		return fmt.Sprintf("%s/%s (%s): %s", f.Kind, f.Cause, f.Class, f.Message)
	}
	return ""
}

type doctorJSON struct {
	OK     bool `json:"ok"`
	Checks []struct {
		Name   string `json:"name"`
		OK     bool   `json:"ok"`
		Status string `json:"status"`
		Detail string `json:"detail"`
		Hint   string `json:"hint"`
	} `json:"checks"`
}

func (d doctorJSON) check(name string) (status, detail string) {
	for _, c := range d.Checks {
		if c.Name == name {
			return c.Status, c.Detail + " " + c.Hint
		}
	}
	return "", ""
}

func (d doctorJSON) String() string {
	b, _ := json.MarshalIndent(d, "", "  ")
	return string(b)
}

func TestDoctorWithTheRealServer(t *testing.T) {
	w := newWS(t, wsConfig{})
	var rep doctorJSON
	stderr, code := w.novaJSON(&rep, "doctor")
	require.Equal(t, 0, code, "doctor should pass with capable models: %s\n%s", stderr, rep)
	assert.True(t, rep.OK)
	st, detail := rep.check("ollama")
	assert.Equal(t, "pass", st)
	assert.Contains(t, detail, "0.17.4", "doctor reports the real server's version")
	st, _ = rep.check("models")
	assert.Equal(t, "pass", st, "%s", rep)
	assert.NotEmpty(t, w.proxy.Requests("/api/show"), "doctor asks /api/show for the tier models' capabilities")
}

// Defect 4: an embedding-only model on the chat tiers and a chat model as
// embed passed doctor by name; the first run then failed with 400 "does not
// support chat".
func TestDoctorChecksCapabilitiesNotNames(t *testing.T) {
	w := newWS(t, wsConfig{Small: "nova-embed", Medium: "nova-coder", Embed: "nova-coder"})
	var rep doctorJSON
	_, code := w.novaJSON(&rep, "doctor")
	assert.Equal(t, 1, code, "doctor must fail: %s", rep)
	assert.False(t, rep.OK)
	all := rep.String()
	assert.Contains(t, all, "nova-embed", "the chat tier holding an embedding model is named")
	assert.Contains(t, all, "does not support chat", "and why it cannot serve the tier")
	assert.Contains(t, all, "embedding", "the embed tier holding a chat model is flagged")

	// A model without tools is usable (text format), so doctor only warns.
	w2 := newWS(t, wsConfig{Small: "nova-plain", Medium: "nova-coder"})
	var rep2 doctorJSON
	_, code = w2.novaJSON(&rep2, "doctor")
	assert.Equal(t, 0, code, "%s", rep2)
	assert.Contains(t, rep2.String(), "tool", "doctor says nova-plain has no native tool calling")
}

// Defect 1 (doctor part): the context the server will really use is
// min(numCtx, the model's context length); a prompt budget plus the reply
// reserve that does not fit is reported.
func TestDoctorWarnsAboutABudgetThatDoesNotFit(t *testing.T) {
	w := newWS(t, wsConfig{Small: "nova-tight", Medium: "nova-tight"}) // context 1536 < numCtx 8192
	var rep doctorJSON
	_, _ = w.novaJSON(&rep, "doctor")
	all := rep.String()
	assert.Contains(t, all, "1536", "doctor names the model's context length: %s", all)
	assert.Contains(t, all, "promptTokens", "and the budget that does not fit")
}

func TestAgentRunWithNativeToolCalls(t *testing.T) {
	w := newWS(t, wsConfig{})
	var run runJSON
	stderr, code := w.novaJSON(&run, "agent", "run", "tester", "@@write@@ Create hello.txt with a greeting.")
	require.Equal(t, 0, code, "agent run: %s\n%s", run.failure(), stderr)
	assert.True(t, run.Outcome.OK)
	assert.False(t, run.Outcome.Meta.TextMode, "nova-coder has the tools capability: native tool calls")
	assert.Equal(t, 1, run.Outcome.Meta.ToolCalls)
	assert.Equal(t, []string{"hello.txt"}, run.Files)
	assert.Contains(t, run.Outcome.Result, "hello.txt")
	require.NotZero(t, run.ChangesetID)
	assert.Empty(t, w.readFile("hello.txt"), "writes are staged, not on disk")

	chats := w.proxy.Chats()
	require.Len(t, chats, 2, "one call for the tool call, one for the answer")
	assert.NotEmpty(t, chats[0]["tools"], "tools are offered natively")
	assert.Zero(t, countTruncations(w.serverLog()))

	out, errOut, code := w.nova("changes", "apply", fmt.Sprint(run.ChangesetID), "--yes")
	require.Equal(t, 0, code, "%s%s", out, errOut)
	assert.Equal(t, "hello from a real server\n", w.readFile("hello.txt"))
}

// Issue 25: a tiny model with the tools capability that writes its tool
// call as text (a fenced JSON block, its path argument named file_path)
// instead of a <tool_call>: the real server passes it on as content, and
// nova still runs it as a writeFile call.
func TestAgentRunWithATextToolCall(t *testing.T) {
	w := newWS(t, wsConfig{})
	var run runJSON
	stderr, code := w.novaJSON(&run, "agent", "run", "tester", "@@textcall@@ Create notes/text.txt with a line of text.")
	require.Equal(t, 0, code, "agent run: %s\n%s", run.failure(), stderr)
	assert.True(t, run.Outcome.OK, run.failure())
	assert.Equal(t, 1, run.Outcome.Meta.ToolCalls, "the call in the text ran")
	assert.Equal(t, []string{"notes/text.txt"}, run.Files)
	require.NotZero(t, run.ChangesetID)
	chats := w.proxy.Chats()
	require.Len(t, chats, 2, "one call whose reply carries the call as text, one for the answer")
	assert.NotEmpty(t, chats[0]["tools"], "tools were offered natively; the model wrote the call as text anyway")

	out, errOut, code := w.nova("changes", "apply", fmt.Sprint(run.ChangesetID), "--yes")
	require.Equal(t, 0, code, "%s%s", out, errOut)
	assert.Equal(t, "written from a text tool call\n", w.readFile("notes/text.txt"))
}

type sessionJSON struct {
	ID       uint64 `json:"id"`
	Branches []struct {
		ID          string `json:"id"`
		Description string `json:"description"`
		Files       []struct {
			Path            string `json:"path"`
			ProposedContent string `json:"proposedContent"`
		} `json:"files"`
	} `json:"branches"`
	Skipped []struct {
		Approach string `json:"approach"`
		Reason   string `json:"reason"`
	} `json:"skipped"`
}

func TestRehearsalWithTwoBranches(t *testing.T) {
	w := newWS(t, wsConfig{Tier: "premium"})
	prd := w.writePRD("rehearse", prdTask{ID: "r1", Title: "Greeting file", Agent: "tester",
		Description: "@@branch@@ Write hello.txt with a greeting."})
	var ss sessionJSON
	stderr, code := w.novaJSON(&ss, "rehearse", prd, "r1", "--branches", "2")
	require.Equal(t, 0, code, "rehearse: %s\n%+v", stderr, ss)
	require.Len(t, ss.Branches, 2, "skipped: %+v", ss.Skipped)
	for _, b := range ss.Branches {
		require.Len(t, b.Files, 1)
		assert.Equal(t, "hello.txt", b.Files[0].Path)
		assert.Equal(t, "hello from a rehearsal\n", b.Files[0].ProposedContent)
	}
	chats := w.proxy.Chats()
	require.Len(t, chats, 2, "one structured call per branch")
	for _, c := range chats {
		assert.NotEmpty(t, c["format"], "the branch schema is sent as format: the server's grammar enforces it")
	}
	out, errOut, code := w.nova("rehearsal", "approve", fmt.Sprint(ss.ID), "1", "--yes")
	require.Equal(t, 0, code, "%s%s", out, errOut)
	assert.Equal(t, "hello from a rehearsal\n", w.readFile("hello.txt"))
}

type buildEvent struct {
	Type   string `json:"type"`
	TaskID string `json:"taskId"`
	Status string `json:"status"`
	Text   string `json:"text"`
}

func buildEvents(t *testing.T, out string) []buildEvent {
	t.Helper()
	var evs []buildEvent
	for line := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var ev buildEvent
		require.NoError(t, json.Unmarshal([]byte(line), &ev), "event line %q", line)
		evs = append(evs, ev)
	}
	return evs
}

func TestBuildWithApply(t *testing.T) {
	// Autonomy 3 applies only verified work (issue 25): a check reads what
	// each task wrote.
	w := newWS(t, wsConfig{Autonomy: 3, Extra: "checks:\n  - \"grep -q 'task output' notes/*.txt\"\n"})
	prd := w.writePRD("three", prdTask{ID: "T1", Title: "First note", Agent: "tester", Description: "@@t1@@ Write the first note."},
		prdTask{ID: "T2", Title: "Second note", Agent: "tester", Description: "@@t2@@ Write the second note.", Deps: []string{"T1"}},
		prdTask{ID: "T3", Title: "Third note", Agent: "tester", Description: "@@t3@@ Write the third note.", Deps: []string{"T2"}})
	out, errOut, code := w.nova("build", "run", prd, "--headless", "--autonomy", "3", "--json")
	if code != 0 {
		dump, _ := json.MarshalIndent(w.proxy.Chats(), "", " ")
		_ = os.WriteFile(filepath.Join(os.TempDir(), "nova-build-chats.json"), dump, 0o644)
	}
	require.Equal(t, 0, code, "build run:\n%s\n%s", out, errOut)
	done := map[string]bool{}
	for _, ev := range buildEvents(t, out) {
		if ev.Status == "done" && ev.TaskID != "" {
			done[ev.TaskID] = true
		}
	}
	assert.Equal(t, map[string]bool{"T1": true, "T2": true, "T3": true}, done)
	assert.Equal(t, "first task output\n", w.readFile("notes/one.txt"), "autonomy 3 applies each task's changeset")
	assert.Equal(t, "second task output\n", w.readFile("notes/two.txt"))
	assert.Equal(t, "third task output\n", w.readFile("notes/three.txt"))
	assert.Zero(t, countTruncations(w.serverLog()))
}

// goalJSON is the part of `nova run show ID --json` the suite reads.
type goalJSON struct {
	Run struct {
		Status      string   `json:"status"`
		Reason      string   `json:"reason"`
		Turns       int      `json:"turns"`
		Delegations int      `json:"delegations"`
		Agents      []string `json:"agents"`
	} `json:"run"`
	Turns []struct {
		Kind     string `json:"kind"`
		Decision *struct {
			Action string `json:"action"`
			Agent  string `json:"agent"`
		} `json:"decision"`
		Outcome *struct {
			Status      string `json:"status"`
			ChangesetID uint64 `json:"changesetId"`
		} `json:"outcome"`
	} `json:"turns"`
	Board struct {
		Key       string `json:"key"`
		Decisions []struct {
			Text string `json:"text"`
		} `json:"decisions"`
		Artifacts []struct {
			By string `json:"by"`
		} `json:"artifacts"`
	} `json:"board"`
}

// A goal run against the real server: the lead's decisions come through the
// decision schema's grammar, its delegation runs the tester with a native
// tool call, the board collects the decision and the artifacts, and the
// scripted lead (the same decision every turn) is stopped by the stuck-loop
// guard with its reason.
func TestGoalRunWithTheRealServer(t *testing.T) {
	w := newWS(t, wsConfig{})
	out, errOut, code := w.nova("run", "@@lead@@ write the notes", "--headless")
	if code == 0 || !strings.Contains(out+errOut, "stuck") {
		dump, _ := json.MarshalIndent(w.proxy.Chats(), "", " ")
		_ = os.WriteFile(filepath.Join(os.TempDir(), "nova-goal-chats.json"), dump, 0o644)
	}
	t.Logf("nova run:\n%s%s", out, errOut)
	assert.Equal(t, 1, code, "a stopped run exits 1:\n%s\n%s", out, errOut)
	assert.Contains(t, out, "delegated to tester")
	assert.Contains(t, out, "stuck: the lead delegated the same task to tester 3 times")

	var g goalJSON
	stderr, code := w.novaJSON(&g, "run", "show", "1")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "stopped", g.Run.Status)
	assert.Equal(t, 2, g.Run.Delegations, "the third identical delegation never ran")
	assert.Equal(t, []string{"tester"}, g.Run.Agents)
	require.NotEmpty(t, g.Turns)
	require.NotNil(t, g.Turns[0].Outcome)
	assert.Equal(t, "done", g.Turns[0].Outcome.Status)
	assert.NotZero(t, g.Turns[0].Outcome.ChangesetID, "the tester's write is staged")
	assert.Equal(t, "run:1", g.Board.Key)
	require.NotEmpty(t, g.Board.Decisions)
	assert.Equal(t, "notes live under notes/", g.Board.Decisions[0].Text)
	by := map[string]bool{}
	for _, a := range g.Board.Artifacts {
		by[a.By] = true
	}
	assert.True(t, by["tester"], "the delegation's artifacts are on the board")
	assert.Empty(t, w.readFile("notes/one.txt"), "autonomy 2: staged, not written")
	assert.Zero(t, countTruncations(w.serverLog()))
}
