package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
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

// Issue 11: a kill -9 0.35–0.45 s into a build (inside the first task's
// agent run, after it staged a write) left changeset 1 pending after the
// resume. This kills the real binary right after the first task's agent
// staged its write, resumes, and checks that nothing is left orphaned.
// (A binary-level test of the harden issue, in its own file.)
func TestKillDuringAStagedWriteLeavesNoOrphanChangeset(t *testing.T) {
	t.Parallel()
	dir, srv, env := agentWorkspace(t)
	writeFile(t, dir, "plan.json", smallPRD)
	var (
		mu     sync.Mutex
		staged = make(chan struct{})
		once   sync.Once
		runs   = map[string]int{}
	)
	srv.SetHandler(func(_ int, req api.ChatRequest) ollamatest.Reply {
		var user string
		toolSeen := false
		for _, m := range req.Messages {
			if m.Role == "user" && user == "" {
				user = m.Content
			}
			if m.Role == "tool" {
				toolSeen = true
			}
		}
		m := buildTaskRE.FindStringSubmatch(user)
		if m == nil {
			return ollamatest.Text("ok")
		}
		mu.Lock()
		defer mu.Unlock()
		if m[1] == "s-1" && !toolSeen {
			return ollamatest.ToolCalls(ollamatest.Call("writeFile", map[string]any{"path": "hello.go", "content": "package main\n"}))
		}
		if m[1] == "s-1" && runs["s-1"] == 0 {
			runs["s-1"]++
			once.Do(func() { close(staged) })
			return ollamatest.Text("Done: s-1.").WithLatency(5 * time.Second) // killed in here
		}
		runs[m[1]]++
		return ollamatest.Text("Done: "+m[1]+".").WithTokens(50, 10)
	})

	// The killed process is the one that owns the workspace (a client's
	// build runs in its owner, which a kill of the client only interrupts).
	stopTestOwner(t, dir)
	cmd := exec.Command(novaBinary(t), "build", "run", "plan.json", "--headless", "--json")
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH"), "NO_COLOR=1", "OLLAMA_HOST=" + env["OLLAMA_HOST"]}
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	go func() { // drain the event stream
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
		}
	}()
	select {
	case <-staged:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the first task never staged its write")
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()

	r := runNova(t, dir, env, "changes", "list", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, `"pending"`, "the killed attempt left its changeset pending")

	r = runNova(t, dir, env, "build", "resume", "1", "--json")
	require.Equal(t, 0, r.code, r.stderr+r.stdout)

	r = runNova(t, dir, env, "build", "show", "1", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var show struct {
		Status string `json:"status"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &show))
	assert.Equal(t, "done", show.Status)

	r = runNova(t, dir, env, "changes", "list", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var list []struct {
		ID     uint64 `json:"id"`
		Status string `json:"status"`
		TaskID string `json:"taskId"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &list))
	pendingOfS1 := 0
	for _, cs := range list {
		if cs.ID == 1 {
			assert.Equal(t, "discarded", cs.Status, "the killed attempt's changeset is not left pending")
		}
		if cs.Status == "pending" && cs.TaskID == "s-1" {
			pendingOfS1++
		}
	}
	assert.LessOrEqual(t, pendingOfS1, 1, "at most the resumed attempt's changeset waits: %s", strings.TrimSpace(r.stdout))
}
