package main

import (
	"bufio"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/llm/ollamatest/scenario"
)

// goalWorkspace is an initialised workspace with a Go module and a fake
// Ollama playing the health-check goal scenario.
func goalWorkspace(t *testing.T, o scenario.Options) (string, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	require.Equal(t, 0, runNova(t, dir, nil, "init").code)
	writeFile(t, dir, "go.mod", "module example.com/app\n\ngo 1.22\n")
	srv := ollamatest.New(t, ollamatest.WithModels(scenario.Models()...), ollamatest.WithHandler(scenario.HealthCheck(o)))
	return dir, map[string]string{"OLLAMA_HOST": srv.URL()}
}

type goalEvent struct {
	Type      string `json:"type"`
	Topic     string `json:"topic"`
	GoalRunID string `json:"goalRunId"`
	TaskID    string `json:"taskId"`
	Status    string `json:"status"`
	Text      string `json:"text"`
	Done      int    `json:"done"`
}

// The "done when": `nova run "…" --headless --json` delegates to at
// least two different specialists, fills the board with decisions and
// artifacts, ends with complete, and `nova run show ID --json` returns the
// board.
func TestRunGoalHeadlessJSON(t *testing.T) {
	t.Parallel()
	dir, env := goalWorkspace(t, scenario.Options{})
	r := runNova(t, dir, env, "run", "add a health check endpoint with tests", "--headless", "--json")
	require.Equal(t, 0, r.code, r.stderr+r.stdout)
	var evs []goalEvent
	agents := map[string]bool{}
	for line := range strings.SplitSeq(strings.TrimSpace(r.stdout), "\n") {
		var ev goalEvent
		require.NoError(t, json.Unmarshal([]byte(line), &ev), "one JSON document a line: %s", line)
		assert.Equal(t, "1", ev.GoalRunID, "every event is the run's")
		evs = append(evs, ev)
		if ev.Type == "leadDecision" && ev.Status == "delegate" {
			agents[strings.Fields(strings.TrimPrefix(ev.Text, "delegated to "))[0]] = true
		}
	}
	require.NotEmpty(t, evs)
	last := evs[len(evs)-1]
	assert.Equal(t, "done", last.Type)
	assert.Equal(t, "goal", last.Topic)
	assert.Equal(t, "completed", last.Status)
	assert.GreaterOrEqual(t, len(agents), 2, "at least two different specialists: %v", agents)
	for _, ev := range evs[:len(evs)-1] {
		assert.NotEqual(t, "done", ev.Type, "only the run's end is a done event (%s)", ev.Text)
	}

	r = runNova(t, dir, env, "run", "show", "1", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var d struct {
		Run struct {
			Status string   `json:"status"`
			Agents []string `json:"agents"`
		} `json:"run"`
		Turns []struct {
			Kind    string `json:"kind"`
			Outcome *struct {
				Status  string `json:"status"`
				Handoff *struct {
					Summary string `json:"summary"`
				} `json:"handoff"`
			} `json:"outcome"`
		} `json:"turns"`
		Board struct {
			Key       string `json:"key"`
			Goal      string `json:"goal"`
			Decisions []struct {
				Text string `json:"text"`
				By   string `json:"by"`
			} `json:"decisions"`
			Artifacts []struct {
				ID      uint64 `json:"id"`
				Type    string `json:"type"`
				Preview string `json:"preview"`
				Tokens  int    `json:"tokens"`
				By      string `json:"by"`
			} `json:"artifacts"`
		} `json:"board"`
		Handoffs []json.RawMessage `json:"handoffs"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &d))
	assert.Equal(t, "completed", d.Run.Status)
	assert.Equal(t, []string{"EARTH", "MARS", "SATURN"}, d.Run.Agents)
	assert.Equal(t, "run:1", d.Board.Key)
	assert.NotEmpty(t, d.Board.Goal)
	assert.GreaterOrEqual(t, len(d.Board.Decisions), 2)
	require.NotEmpty(t, d.Board.Artifacts)
	for _, a := range d.Board.Artifacts {
		assert.NotEmpty(t, a.Preview)
		assert.LessOrEqual(t, len([]rune(a.Preview)), 200)
		assert.Positive(t, a.Tokens)
		assert.NotEmpty(t, a.By)
	}
	assert.Len(t, d.Handoffs, 3)
	for _, turn := range d.Turns[:3] {
		require.NotNil(t, turn.Outcome)
		assert.Equal(t, "done", turn.Outcome.Status)
		require.NotNil(t, turn.Outcome.Handoff)
	}

	// The artifact's full content, the list, the text show.
	id := strconv.FormatUint(d.Board.Artifacts[0].ID, 10)
	r = runNova(t, dir, env, "run", "artifact", "a"+id)
	require.Equal(t, 0, r.code, r.stderr)
	assert.NotEmpty(t, r.stdout)
	r = runNova(t, dir, env, "run", "list", "--json")
	require.Equal(t, 0, r.code)
	assert.Contains(t, r.stdout, `"status": "completed"`)
	r = runNova(t, dir, env, "run", "show", "1")
	require.Equal(t, 0, r.code)
	for _, want := range []string{"timeline", "delegate  EARTH (t1)", "board run:1", "key decisions", "handoffs:"} {
		assert.Contains(t, r.stdout, want)
	}
	// The run's build shows the run's board too.
	r = runNova(t, dir, env, "build", "board", "1", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"key": "run:1"`)
	r = runNova(t, dir, env, "run", "resume", "1")
	require.Equal(t, 0, r.code)
	assert.Contains(t, r.stdout, "already completed")
}

func TestRunGoalBadUsage(t *testing.T) {
	t.Parallel()
	dir, env := goalWorkspace(t, scenario.Options{})
	for _, args := range [][]string{
		{"run"},
		{"run", "  "},
		{"run", "a", "b"},
		{"run", "show", "x"},
		{"run", "resume", "0"},
		{"run", "answer", "1", " "},
		{"run", "artifact", "zz"},
		{"run", "goal", "--max-turns", "-1"},
		{"run", "goal", "--autonomy", "9"},
		{"run", "resolve", "1"},
	} {
		r := runNova(t, dir, env, args...)
		assert.Equal(t, 2, r.code, "%v: %s", args, r.stderr)
	}
	r := runNova(t, dir, env, "run", "show", "7")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "goal run not found")
	r = runNova(t, dir, env, "run", "goal", "--lead", "NOBODY")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, `no agent "NOBODY" to lead the run`)
	r = runNova(t, dir, env, "run", "list")
	assert.Equal(t, 0, r.code)
	assert.Contains(t, r.stdout, "no goal runs")
}

// A run killed with -9 in the middle of a delegation resumes: the
// delegation goes on, nothing done is redone, the run completes.
func TestRunGoalKillAndResume(t *testing.T) {
	t.Parallel()
	dir, env := goalWorkspace(t, scenario.Options{ChunkDelay: 15 * time.Millisecond})
	cmd := binaryCmd(t, dir, env, "run", "add a health check endpoint with tests", "--headless", "--json")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		var ev goalEvent
		require.NoError(t, json.Unmarshal(sc.Bytes(), &ev))
		if ev.Type == "delegation" && ev.TaskID == "t2" {
			break // MARS is at work
		}
	}
	time.Sleep(50 * time.Millisecond)
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()

	r := runNova(t, dir, env, "run", "show", "1", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	if testWorkspaceKind(t) == "owner" {
		// The killed process was a client: its run goes on in the owner
		// until the owner sees the call's connection gone and stops it.
		deadline := time.Now().Add(30 * time.Second) // catches hangs only
		for strings.Contains(r.stdout, `"active": true`) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
			r = runNova(t, dir, env, "run", "show", "1", "--json")
			require.Equal(t, 0, r.code, r.stderr)
		}
	}
	assert.Contains(t, r.stdout, `"status": "interrupted"`, "a killed run reads as interrupted")

	r = runNova(t, dir, env, "run", "resume", "1", "--json")
	require.Equal(t, 0, r.code, r.stderr+r.stdout)
	r = runNova(t, dir, env, "run", "show", "1", "--json")
	require.Equal(t, 0, r.code)
	var d goalRunShow
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &d))
	assert.Equal(t, "completed", d.Run.Status)
	assert.Equal(t, 4, d.Run.Turns, "the lead was not asked again for t1 or t2")
	assert.Equal(t, 1, d.Run.Resumes)
}

// The flags of `nova run` reach its options (runF replaces the run).
func TestRunGoalFlags(t *testing.T) {
	t.Parallel()
	env, _, _ := newTestEnv(t, t.TempDir(), nil, "")
	var got *goalRunOptions
	cmd := newRunCmd(env, func(_ context.Context, o *goalRunOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"  add a health check  ", "--lead", "JUPITER", "--max-turns", "5", "--max-tokens", "9000",
		"--max-duration", "45m", "--autonomy", "3", "--json"})
	require.NoError(t, cmd.Execute())
	require.NotNil(t, got)
	assert.Equal(t, "add a health check", got.Goal)
	assert.Equal(t, "JUPITER", got.Run.Lead)
	assert.Equal(t, 5, got.Run.MaxTurns)
	assert.Equal(t, 9000, got.Run.MaxTokens)
	assert.Equal(t, 45*time.Minute, got.Run.MaxDuration)
	require.NotNil(t, got.Run.Autonomy)
	assert.Equal(t, 3, *got.Run.Autonomy)
	assert.True(t, got.JSON)

	var resumed *goalResumeOptions
	rcmd := newRunResumeCmd(env, func(_ context.Context, o *goalResumeOptions) error { resumed = o; return nil })
	rcmd.SetArgs([]string{"#4", "--max-turns", "20"})
	require.NoError(t, rcmd.Execute())
	require.NotNil(t, resumed)
	assert.Equal(t, uint64(4), resumed.ID)
	assert.Equal(t, 20, resumed.Limits.MaxTurns)
}

// The lead escalates a question: a headless run pauses (exit 1) and says
// how to answer; `nova run answer` records the answer and `nova run resume`
// goes on until the lead completes, with the answer in the timeline.
func TestRunGoalEscalationAnswerResume(t *testing.T) {
	t.Parallel()
	dir, env := goalWorkspace(t, scenario.Options{Ask: true})
	r := runNova(t, dir, env, "run", "add a health check endpoint with tests")
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Contains(t, r.stdout, "the lead asks you: Should GET /healthz also check the database")
	assert.Contains(t, r.stdout, `nova run answer 1 "…"`)
	r = runNova(t, dir, env, "run", "list", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"status": "paused"`)

	r = runNova(t, dir, env, "run", "resume", "1")
	assert.Equal(t, 1, r.code, "no answer yet: it pauses again")
	r = runNova(t, dir, env, "run", "answer", "1", "Only the process; no database probe.")
	require.Equal(t, 0, r.code, r.stderr)
	r = runNova(t, dir, env, "run", "answer", "1", "again")
	assert.Equal(t, 1, r.code, "answered already")
	r = runNova(t, dir, env, "run", "resume", "1")
	require.Equal(t, 0, r.code, r.stderr+r.stdout)
	assert.Contains(t, r.stdout, "run completed: 5 turns, 3 delegations")

	r = runNova(t, dir, env, "run", "show", "1")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "answer: Only the process; no database probe.")
}

// A lead whose decisions are right but carry ids that name nothing in
// optional fields (a blocker that is not open, an artifact that does not
// exist) is not refused turn after turn: the junk is ignored and said so,
// and the run delegates and completes.
func TestRunGoalLeadJunkInOptionalFields(t *testing.T) {
	t.Parallel()
	dir, env := goalWorkspace(t, scenario.Options{Junk: true})
	r := runNova(t, dir, env, "run", "add a health check endpoint with tests", "--headless", "--json")
	require.Equal(t, 0, r.code, r.stderr+r.stdout)
	var ignored []string
	delegations := 0
	var last goalEvent
	for line := range strings.SplitSeq(strings.TrimSpace(r.stdout), "\n") {
		var ev goalEvent
		require.NoError(t, json.Unmarshal([]byte(line), &ev), line)
		assert.NotEqual(t, "decisionRejected", ev.Type, "nothing is refused: %s", ev.Text)
		if ev.Type == "leadDecision" {
			if ev.Status == "delegate" {
				delegations++
			}
			if strings.Contains(ev.Text, "ignored") {
				ignored = append(ignored, ev.Text)
			}
		}
		last = ev
	}
	assert.Equal(t, 3, delegations)
	assert.Equal(t, "completed", last.Status)
	require.Len(t, ignored, 2, "the first delegation and the completion")
	assert.Contains(t, ignored[0], `resolveBlockers: ignored "b7", which is not an open blocker (open: none)`)
	assert.Contains(t, ignored[0], `includeArtifacts: ignored "the spec", which is not an artifact id`)

	r = runNova(t, dir, env, "run", "show", "1", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var d struct {
		Turns []struct {
			Kind  string   `json:"kind"`
			Notes []string `json:"notes"`
		} `json:"turns"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &d))
	require.NotEmpty(t, d.Turns)
	assert.Equal(t, "decision", d.Turns[0].Kind)
	assert.Len(t, d.Turns[0].Notes, 2)

	r = runNova(t, dir, env, "run", "show", "1")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `note: resolveBlockers: ignored "b7"`)
}
