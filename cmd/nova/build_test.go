package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/llm/ollamatest"
)

// buildScript answers the fake Ollama by the task id in a build prompt
// ("PRD task <id>: …") and counts the final answers per task.
type buildScript struct {
	mu      sync.Mutex
	answers map[string]int
	fail    map[string]bool
	latency time.Duration
}

var buildTaskRE = regexp.MustCompile(`PRD task (\S+?): `)

func (s *buildScript) handle(_ int, req api.ChatRequest) ollamatest.Reply {
	var user string
	for _, m := range req.Messages {
		if m.Role == "user" {
			user = m.Content
			break
		}
	}
	m := buildTaskRE.FindStringSubmatch(user)
	s.mu.Lock()
	defer s.mu.Unlock()
	r := ollamatest.Text("ok")
	if m != nil {
		s.answers[m[1]]++
		if s.fail[m[1]] {
			r = ollamatest.Text("```json\n{broken\n```") // fails the output gate
		} else {
			r = ollamatest.Text("Done: "+m[1]+".").WithTokens(50, 10)
		}
	}
	if s.latency > 0 {
		r = r.WithLatency(s.latency)
	}
	return r
}

func (s *buildScript) count(id string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.answers[id]
}

func buildWorkspace(t *testing.T, latency time.Duration) (string, *buildScript, map[string]string) {
	t.Helper()
	dir, srv, env := agentWorkspace(t)
	s := &buildScript{answers: map[string]int{}, fail: map[string]bool{}, latency: latency}
	srv.SetHandler(s.handle)
	return dir, s, env
}

const smallPRD = `{"meta":{"name":"small"},"tasks":[
 {"id":"s-1","title":"one","description":"first","agent":"MARS","status":"pending","dependencies":[],"phase":0,"attempts":0},
 {"id":"s-2","title":"two","description":"second","agent":"VENUS","status":"pending","dependencies":["s-1"],"phase":1,"attempts":0}]}`

type buildEvent struct {
	Type    string    `json:"type"`
	TaskID  string    `json:"taskId"`
	Status  string    `json:"status"`
	Time    time.Time `json:"time"`
	BuildID string    `json:"buildId"`
}

func parseEvents(t *testing.T, out string) []buildEvent {
	t.Helper()
	var evs []buildEvent
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var ev buildEvent
		require.NoError(t, json.Unmarshal([]byte(line), &ev), line)
		assert.NotEmpty(t, ev.Type)
		assert.False(t, ev.Time.IsZero())
		evs = append(evs, ev)
	}
	return evs
}

func TestBuildRunListShow(t *testing.T) {
	t.Parallel()
	dir, s, env := buildWorkspace(t, 0)
	writeFile(t, dir, "plan.json", smallPRD)

	r := runNova(t, dir, env, "build", "run", "plan.json", "--headless", "--json")
	require.Equal(t, 0, r.code, r.stderr+r.stdout)
	evs := parseEvents(t, r.stdout)
	var seq []string
	for _, ev := range evs {
		if ev.Type == "task" {
			seq = append(seq, ev.TaskID+":"+ev.Status)
		}
	}
	assert.Equal(t, []string{"s-1:running", "s-1:done", "s-2:running", "s-2:done"}, seq)
	assert.Equal(t, "done", evs[len(evs)-1].Type)
	assert.Equal(t, 1, s.count("s-1"))

	r = runNova(t, dir, env, "build", "run", "plan.json", "--headless")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "s-2 done")

	r = runNova(t, dir, env, "build", "list", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var list []struct {
		ID     uint64         `json:"id"`
		Status string         `json:"status"`
		Counts map[string]int `json:"counts"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &list))
	require.Len(t, list, 2)
	assert.Equal(t, uint64(2), list[0].ID, "newest first")
	assert.Equal(t, "done", list[1].Status)

	r = runNova(t, dir, env, "build", "show", "1", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var show struct {
		Status string `json:"status"`
		Phases []struct {
			Phase int `json:"phase"`
			Tasks []struct {
				ID           string   `json:"id"`
				Status       string   `json:"status"`
				Attempts     int      `json:"attempts"`
				OutputPath   string   `json:"outputPath"`
				VaultNodeIDs []uint64 `json:"vaultNodeIds"`
				RuleIDs      []string `json:"ruleIds"`
				Gates        []struct {
					Name  string  `json:"name"`
					Score float64 `json:"score"`
				} `json:"gates"`
			} `json:"tasks"`
		} `json:"phases"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &show))
	require.Len(t, show.Phases, 2)
	task := show.Phases[1].Tasks[0]
	assert.Equal(t, "s-2", task.ID)
	assert.Equal(t, "done", task.Status)
	assert.NotEmpty(t, task.Gates)
	assert.NotNil(t, task.RuleIDs)
	assert.Contains(t, readFile(t, dir, ".nova/output/1/s-2.md"), "Done: s-2.")

	r = runNova(t, dir, env, "build", "show", "1")
	require.Equal(t, 0, r.code)
	assert.Contains(t, r.stdout, "phase 1")
	r = runNova(t, dir, env, "build", "list")
	require.Equal(t, 0, r.code)
	assert.Contains(t, r.stdout, "2/2")

	r = runNova(t, dir, env, "build", "show", "abc")
	assert.Equal(t, 2, r.code)
	r = runNova(t, dir, env, "build", "show", "99")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "not found")
}

func TestBuildRunFailuresExitOne(t *testing.T) {
	t.Parallel()
	dir, s, env := buildWorkspace(t, 0)
	s.fail["s-1"] = true
	writeFile(t, dir, "plan.json", smallPRD)
	r := runNova(t, dir, env, "build", "run", "plan.json", "--headless")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "blocked")
	assert.Equal(t, 2, s.count("s-1"), "one retry")
	assert.Zero(t, s.count("s-2"))

	writeFile(t, dir, "bad.json", strings.ReplaceAll(smallPRD, `"VENUS"`, `"NOBODY"`))
	r = runNova(t, dir, env, "build", "run", "bad.json")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "NOBODY")
	writeFile(t, dir, "broken.yaml", "tasks: [\n")
	r = runNova(t, dir, env, "build", "run", "broken.yaml")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "broken.yaml")
	r = runNova(t, dir, env, "build", "run", "plan.json", "--autonomy", "9")
	assert.Equal(t, 2, r.code)
}

func TestPlanSavesAValidPRD(t *testing.T) {
	t.Parallel()
	dir, srv, env := agentWorkspace(t)
	good := `{"meta":{"name":"Health endpoint"},"tasks":[` +
		`{"id":"t-001","title":"Add /health","description":"handler","agent":"MARS","dependencies":[],"phase":0},` +
		`{"id":"t-002","title":"Test it","description":"test","agent":"SATURN","dependencies":["t-001"],"phase":1}]}`
	srv.Enqueue(ollamatest.Text(good))
	r := runNova(t, dir, env, "plan", "add a health endpoint", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var out struct {
		Path string `json:"path"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &out))
	relPath := rel(t, dir, out.Path)
	assert.True(t, strings.HasPrefix(relPath, filepath.Join(".nova", "prds", "prd-health-endpoint")), relPath)
	saved := readFile(t, dir, relPath)
	assert.Contains(t, saved, `"status": "pending"`)
	assert.Contains(t, saved, `"t-002"`)
	reqs := srv.ChatRequests()
	require.NotEmpty(t, reqs)
	assert.NotEmpty(t, reqs[len(reqs)-1].Format, "structured output")

	bad := strings.ReplaceAll(good, `"SATURN"`, `"NOBODY"`)
	srv.Enqueue(ollamatest.Text(bad))
	r = runNova(t, dir, env, "plan", "another goal")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "NOBODY")
	assert.Contains(t, r.stderr, "rejected")

	r = runNova(t, dir, env, "plan", "  ")
	assert.Equal(t, 2, r.code)
}

func rel(t *testing.T, dir, p string) string {
	t.Helper()
	realDir, err := filepath.EvalSymlinks(dir)
	require.NoError(t, err)
	realP, err := filepath.EvalSymlinks(p)
	require.NoError(t, err)
	r, err := filepath.Rel(realDir, realP)
	require.NoError(t, err)
	return r
}

func cliCorpus(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("no go.mod")
		}
		dir = parent
	}
	c := filepath.Join(dir, "..", "shared", "corpus", "nova26")
	if _, err := os.Stat(c); err != nil {
		t.Skip("corpus absent")
	}
	return c
}

// TestBuildKillAndResume kills the real binary (SIGKILL) in the middle of
// the corpus build and resumes it: done tasks are not redone.
func TestBuildKillAndResume(t *testing.T) {
	t.Parallel()
	prdPath := filepath.Join(cliCorpus(t), "prd-ua-dashboard-v1.json")
	dir, s, env := buildWorkspace(t, 120*time.Millisecond)

	cmd := binaryCmd(t, dir, env, "build", "run", prdPath, "--headless", "--json")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	doneBefore := map[string]bool{}
	sc := bufio.NewScanner(stdout)
	next := ""
	for sc.Scan() {
		var ev buildEvent
		require.NoError(t, json.Unmarshal(sc.Bytes(), &ev))
		if ev.Type == "task" && ev.Status == "done" && len(doneBefore) < 5 {
			doneBefore[ev.TaskID] = true
		}
		// The next task's "running" is committed after its prompt is
		// assembled (vault, playbook and knowledge context), which takes a
		// variable time on a loaded machine: wait for it.
		if len(doneBefore) == 5 && ev.Type == "task" && ev.Status == "running" && !doneBefore[ev.TaskID] {
			next = ev.TaskID
			break
		}
	}
	require.Len(t, doneBefore, 5, "the build progressed before the kill")
	require.NotEmpty(t, next, "a sixth task started")
	time.Sleep(30 * time.Millisecond) // land inside its model call (the fake answers after 120 ms)
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()

	r := runNova(t, dir, env, "build", "show", "1", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var killed struct {
		Status string         `json:"status"`
		Counts map[string]int `json:"counts"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &killed))
	// A killed owner leaves the build stored as running: shown as
	// interrupted. Through an owner, the killed command was its client, a
	// cancelled call: the owner interrupts the build as soon as its task
	// stops.
	for deadline := time.Now().Add(30 * time.Second); killed.Status == "running" && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		r = runNova(t, dir, env, "build", "show", "1", "--json")
		require.Equal(t, 0, r.code, r.stderr)
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &killed))
	}
	assert.Equal(t, "interrupted", killed.Status)
	if testWorkspaceKind(t) == "direct" {
		assert.Equal(t, 1, killed.Counts["running"], "the kill landed inside a task")
	}
	assert.GreaterOrEqual(t, killed.Counts["done"], 5)

	r = runNova(t, dir, env, "build", "resume", "1", "--json")
	require.Equal(t, 0, r.code, r.stderr+r.stdout)
	for id := range doneBefore {
		assert.Equal(t, 1, s.count(id), "%s was done before the kill and is not redone", id)
	}
	var show struct {
		Status  string         `json:"status"`
		Counts  map[string]int `json:"counts"`
		Resumes int            `json:"resumes"`
	}
	r = runNova(t, dir, env, "build", "show", "1", "--json")
	require.Equal(t, 0, r.code)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &show))
	assert.Equal(t, "done", show.Status)
	assert.Equal(t, 15, show.Counts["done"])
	assert.Equal(t, 1, show.Resumes)
	r = runNova(t, dir, env, "build", "list", "--json")
	require.Equal(t, 0, r.code)
	assert.Contains(t, r.stdout, `"status": "done"`)
}

// TestBuildCtrlCLeavesAResumableBuild interrupts a headless build (SIGINT)
// and resumes it.
func TestBuildCtrlCLeavesAResumableBuild(t *testing.T) {
	t.Parallel()
	dir, s, env := buildWorkspace(t, 80*time.Millisecond)
	writeFile(t, dir, "plan.json", smallPRD)
	cmd := binaryCmd(t, dir, env, "build", "run", "plan.json", "--headless", "--json")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		var ev buildEvent
		require.NoError(t, json.Unmarshal(sc.Bytes(), &ev))
		if ev.Type == "task" && ev.TaskID == "s-1" && ev.Status == "done" {
			break
		}
	}
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	var last buildEvent
	for sc.Scan() {
		require.NoError(t, json.Unmarshal(sc.Bytes(), &last))
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, 1, ee.ExitCode())
	assert.Equal(t, "interrupted", last.Status, "the last event says the build is interrupted (resumable)")
	assert.NotContains(t, stderr.String(), "context canceled", "it ends as an interrupted build, also through an owner")

	// --headless is accepted as by `build run` (issue 32).
	r := runNova(t, dir, env, "build", "resume", "1", "--headless")
	require.Equal(t, 0, r.code, r.stderr+r.stdout)
	assert.Equal(t, 1, s.count("s-1"))
	r = runNova(t, dir, env, "build", "resume", "1")
	require.Equal(t, 0, r.code)
	assert.Contains(t, r.stdout, "already done")
}

// A planner that cites tasks it did not write gets its plan saved with
// those ids dropped and a warning for each; a plan refused for other
// reasons lists each problem once.
func TestPlanDropsUnknownDependencies(t *testing.T) {
	t.Parallel()
	dir, srv, env := agentWorkspace(t)
	plan := `{"meta":{"name":"Health endpoint"},"tasks":[` +
		`{"id":"t-001","title":"Add /health","description":"handler","agent":"MARS","dependencies":["t-000"],"phase":0},` +
		`{"id":"t-002","title":"Test it","description":"test","agent":"SATURN","dependencies":["t-001","t-000","t-9"],"phase":1}]}`
	srv.Enqueue(ollamatest.Text(plan))
	r := runNova(t, dir, env, "plan", "add a health endpoint")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, 1, strings.Count(r.stderr, `warning: dropped dependency "t-000": no task has that id (listed by t-001, t-002)`), r.stderr)
	assert.Contains(t, r.stderr, `warning: dropped dependency "t-9"`)
	assert.Contains(t, r.stdout, "saved ")

	bad := strings.ReplaceAll(plan, `"SATURN"`, `"NOBODY"`)
	bad = strings.ReplaceAll(bad, `"dependencies":["t-001","t-000","t-9"]`, `"dependencies":["t-001","t-002","t-002"]`)
	srv.Enqueue(ollamatest.Text(bad))
	r = runNova(t, dir, env, "plan", "another goal", "--json")
	assert.Equal(t, 1, r.code)
	assert.Equal(t, 1, strings.Count(r.stderr, `unknown agent "NOBODY"`), r.stderr)
	assert.Equal(t, 1, strings.Count(r.stderr, "cycle: t-002 → t-002"), r.stderr)
	assert.Equal(t, 1, strings.Count(r.stderr, `warning: dropped dependency "t-000"`), r.stderr)
}
