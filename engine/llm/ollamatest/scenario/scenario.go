// Package scenario holds scripted conversations for the fake Ollama
// (ollamatest): whole nova workflows a test, a demo or a developer can run
// against a fake server without a model. Scripts are stateless — each reply
// is chosen from the request alone — so a nova process killed and resumed
// against the same server gets consistent answers.
package scenario

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/internal/lazyre"
)

// Models are the models the scenarios expect installed (nova's default
// tiers and embedding model).
func Models() []string {
	return []string{"qwen2.5-coder:1.5b", "qwen2.5-coder:7b", "qwen2.5-coder:14b", "nomic-embed-text"}
}

// Options tune a scenario's pace.
type Options struct {
	// ChunkDelay is waited before each streamed chunk (a live stream to
	// watch); Latency before each reply.
	ChunkDelay time.Duration
	Latency    time.Duration
	// Ask makes the lead escalate a question to the user after the spec
	// (turn 2); the run goes on once it is answered (HealthCheck only).
	Ask bool
	// Junk makes the lead fill optional fields with ids that name nothing
	// (resolveBlockers, includeArtifacts) on its first delegation and on
	// complete: a lead that is sloppy but not wrong (HealthCheck only).
	Junk bool
}

var (
	turnRe     = lazyre.New(`This is turn (\d+)`)
	agentRe    = lazyre.New(`(?m)^You are (\w+)`)
	earthArtRe = lazyre.New(`- (a\d+) output [^\n]*\(EARTH, t`)
)

// HealthCheck is a goal run of "add a health check endpoint with tests":
// the lead (any lead) delegates the spec to EARTH, the handler to MARS (with
// EARTH's spec included), the tests to SATURN, then completes. The agents
// use the board tools and end with handoffs.
func HealthCheck(o Options) ollamatest.ChatFunc {
	return func(_ int, req api.ChatRequest) ollamatest.Reply {
		system, user, tools := "", "", 0
		for _, m := range req.Messages {
			switch m.Role {
			case "system":
				system = m.Content
			case "user":
				if user == "" {
					user = m.Content
				}
			case "tool":
				tools++
			}
		}
		var r ollamatest.Reply
		switch {
		case strings.Contains(system, "the lead of a team of coding agents"):
			r = lead(user, o.Ask, o.Junk)
		case strings.Contains(system, "keep the history of a team"):
			r = ollamatest.Text("EARTH specified GET /healthz; MARS implemented it in internal/health; SATURN added its tests.")
		case strings.Contains(system, "results of a finished software build"):
			// The knowledge layer's fact extraction, once the run has ended.
			r = ollamatest.Text(`{"facts":[{"content":"The health check is GET /healthz, served by health.Handler in internal/health.",` +
				`"confidence":0.9,"tags":["http","health"]}]}`)
		default:
			agent := ""
			if m := agentRe.FindStringSubmatch(system); m != nil {
				agent = m[1]
			}
			r = specialist(agent, tools)
		}
		return r.WithChunkDelay(o.ChunkDelay).WithLatency(o.Latency).WithChunkSize(6)
	}
}

func lead(prompt string, ask, junk bool) ollamatest.Reply {
	turn := 1
	if m := turnRe.FindStringSubmatch(prompt); m != nil {
		turn, _ = strconv.Atoi(m[1])
	}
	if ask {
		if turn == 2 {
			b, _ := json.Marshal(map[string]any{"action": "escalate",
				"reasoning": "Whether the health check also probes the database is the owner's call: it changes what 'healthy' means.",
				"question":  "Should GET /healthz also check the database connection, or only report that the process is up?"})
			return ollamatest.Text(string(b))
		}
		if turn > 2 {
			turn-- // the escalation took turn 2
		}
	}
	var d map[string]any
	switch turn {
	case 1:
		d = map[string]any{"action": "delegate", "agent": "EARTH",
			"reasoning": "Nothing exists yet: a short spec first, so the handler and its tests agree on the contract.",
			"task":      "Specify a health check endpoint for this service: route, method, response body and status codes, and numbered acceptance criteria. Text only, no files.",
			"goal":      "specify the health check", "keyDecision": "the endpoint is GET /healthz and answers 200 {\"status\":\"ok\"}"}
	case 2:
		d = map[string]any{"action": "delegate", "agent": "MARS",
			"reasoning": "The spec is accepted; the backend engineer implements it exactly, with the spec in full.",
			"task":      "Implement the health check from the spec in internal/health/health.go: an http.HandlerFunc named Handler that answers 200 with {\"status\":\"ok\"} and JSON content type.",
			"goal":      "implement the handler"}
		if m := earthArtRe.FindStringSubmatch(prompt); m != nil {
			d["includeArtifacts"] = []string{m[1]}
		}
	case 3:
		d = map[string]any{"action": "delegate", "agent": "SATURN",
			"reasoning": "The handler is staged and verified; tests must cover every acceptance criterion.",
			"task":      "Write internal/health/health_test.go: table tests with httptest for status 200, the JSON body and the content type of health.Handler.",
			"goal":      "test the handler", "keyDecision": "tests use net/http/httptest only"}
	default:
		d = map[string]any{"action": "complete",
			"reasoning": "Spec, handler and tests all passed verification; nothing is left.",
			"summary":   "GET /healthz is specified (EARTH), implemented in internal/health/health.go (MARS) and tested in internal/health/health_test.go (SATURN). The changes are staged for your review: nova changes list."}
	}
	if junk && (turn == 1 || d["action"] == "complete") {
		d["resolveBlockers"] = []string{"b7"}
		if turn == 1 {
			d["includeArtifacts"] = []string{"the spec"}
		}
	}
	b, _ := json.Marshal(d)
	return ollamatest.Text(string(b))
}

func call(name string, args map[string]any) ollamatest.Reply {
	return ollamatest.ToolCalls(ollamatest.Call(name, args))
}

func specialist(agent string, tools int) ollamatest.Reply {
	switch agent {
	case "EARTH":
		if tools == 0 {
			return call("addDecision", map[string]any{"decision": "health responses are JSON with a status field"})
		}
		return ollamatest.Text("Health check spec.\n\nRoute: GET /healthz. Response: 200 with body {\"status\":\"ok\"} and " +
			"Content-Type application/json. Any other method: 405.\n\nAcceptance criteria:\n1. GET /healthz answers 200.\n" +
			"2. The body is exactly {\"status\":\"ok\"}.\n3. The content type is application/json.\n\n" +
			"Handoff:\nsummary: specified GET /healthz with three acceptance criteria\n" +
			"constraints: keep the route /healthz; no external dependencies\nnext: MARS\nquestions: none")
	case "MARS":
		switch tools {
		case 0:
			return call("writeFile", map[string]any{"path": "internal/health/health.go", "content": healthGo})
		case 1:
			return call("setGoal", map[string]any{"goal": "test the handler against the spec"})
		}
		return ollamatest.Text("Created internal/health/health.go: Handler answers 200 with {\"status\":\"ok\"} and a JSON content type.\n\n" +
			"Handoff:\nsummary: Handler is in internal/health/health.go\nconstraints: keep Handler's signature (http.HandlerFunc)\n" +
			"next: SATURN\nquestions: should /healthz check the database too?")
	case "SATURN":
		if tools == 0 {
			return call("writeFile", map[string]any{"path": "internal/health/health_test.go", "content": healthTest})
		}
		return ollamatest.Text("Created internal/health/health_test.go covering the three acceptance criteria.\n\n" +
			"Handoff:\nsummary: tests cover status, body and content type\nconstraints: none\nnext: none\nquestions: none")
	}
	return ollamatest.Text(fmt.Sprintf("Done (%s).", agent))
}

const healthGo = `// Package health answers the service's health check.
package health

import "net/http"

// Handler answers GET /healthz with 200 {"status":"ok"}.
func Handler(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(` + "`" + `{"status":"ok"}` + "`" + `))
}
`

const healthTest = `package health

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestHandler(t *testing.T) {
	rec := httptest.NewRecorder()
	Handler(rec, httptest.NewRequest(http.MethodGet, "/healthz", nil))
	if rec.Code != http.StatusOK || rec.Body.String() != ` + "`" + `{"status":"ok"}` + "`" + ` {
		t.Fatalf("got %d %q", rec.Code, rec.Body.String())
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Fatalf("content type %q", ct)
	}
}
`
