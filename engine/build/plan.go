package build

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/prd"
	"github.com/nova-dev/nova/internal/lazyre"
)

// PRDSchema is the JSON schema SUN's plan must satisfy (Nova26's PRD shape).
var PRDSchema = []byte(`{
 "type": "object",
 "properties": {
  "meta": {"type": "object", "properties": {"name": {"type": "string", "minLength": 1}, "version": {"type": "string"}}, "required": ["name"]},
  "tasks": {"type": "array", "minItems": 1, "maxItems": 200, "items": {
   "type": "object",
   "properties": {
    "id": {"type": "string", "minLength": 1},
    "title": {"type": "string", "minLength": 1},
    "description": {"type": "string"},
    "agent": {"type": "string", "minLength": 1},
    "dependencies": {"type": "array", "items": {"type": "string"}},
    "phase": {"type": "integer", "minimum": 0}
   },
   "required": ["id", "title", "description", "agent", "dependencies", "phase"]
  }}
 },
 "required": ["meta", "tasks"]
}`)

// ErrPlan: the model's plan could not be turned into a valid PRD.
var ErrPlan = errors.New("plan rejected")

// PlanRequest asks SUN for a PRD.
type PlanRequest struct {
	Goal  string
	Model string
	// Agents are the roster's ids with one line of role each ("MARS: backend").
	Agents []string
	// KnownAgent validates agent names (nil = no check).
	KnownAgent func(string) bool
	// System is SUN's role text (from its spec), optional.
	System string
}

// Plan asks the model (SUN) for a PRD with structured output, fills the
// fields SUN need not write (status, attempts, createdAt) and validates it.
// An invalid plan is returned with an error wrapping ErrPlan and
// prd.ErrInvalid that names each problem.
//
// The warnings say what was dropped from the plan on the way (dependency
// ids that name no task, see PRDFromPlanWarn).
func Plan(ctx context.Context, c llm.Provider, req PlanRequest) (*prd.PRD, []string, error) {
	goal := strings.TrimSpace(req.Goal)
	if goal == "" {
		return nil, nil, fmt.Errorf("%w: empty goal", ErrPlan)
	}
	sys := req.System
	if sys == "" {
		sys = "You are SUN, nova's planner. You turn a goal into a build plan (a PRD)."
	}
	var sb strings.Builder
	sb.WriteString("Write a build plan for this goal:\n\n" + goal + "\n\n")
	sb.WriteString("Split the work into small tasks, each done by one agent. Give every task a short unique id " +
		"(e.g. t-001), a title, a description precise enough to act on, the agent, the ids of the tasks it needs " +
		"first (dependencies), and a phase number (0 first; a task's phase is never lower than its dependencies').\n")
	if len(req.Agents) > 0 {
		sb.WriteString("\nAgents you may use (use these ids exactly):\n- " + strings.Join(req.Agents, "\n- ") + "\n")
	}
	var raw json.RawMessage
	_, err := llm.Structured(ctx, c, llm.ChatRequest{Model: req.Model, Messages: []llm.Message{
		{Role: "system", Content: sys}, {Role: "user", Content: sb.String()}}}, PRDSchema, &raw)
	if err != nil {
		return nil, nil, fmt.Errorf("ask SUN for a plan: %w", err)
	}
	return PRDFromPlanWarn(raw, req.KnownAgent)
}

// PRDFromPlan turns a planner's JSON reply into a PRD: it parses it, fills
// what the planner need not write (status pending, attempts 0, createdAt,
// version) and validates it. On a validation failure the PRD is returned
// with the error (wrapping ErrPlan and prd.ErrInvalid). It never panics.
func PRDFromPlan(raw []byte, knownAgent func(string) bool) (*prd.PRD, error) {
	p, _, err := PRDFromPlanWarn(raw, knownAgent)
	return p, err
}

// PRDFromPlanWarn is PRDFromPlan that first drops the dependency ids naming
// no task of the plan (prd.DropUnknownDependencies) and returns a warning
// for each instead of refusing the plan for them.
func PRDFromPlanWarn(raw []byte, knownAgent func(string) bool) (*prd.PRD, []string, error) {
	p, err := prd.Parse("plan.json", raw)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrPlan, err)
	}
	now := time.Now().UTC().Format(time.RFC3339)
	if p.Meta.Version == "" {
		p.Meta.Version = "1.0.0"
	}
	p.Meta.CreatedAt = now
	for i := range p.Tasks {
		p.Tasks[i].Status = prd.StatusPending
		p.Tasks[i].Attempts = 0
		if p.Tasks[i].CreatedAt == "" {
			p.Tasks[i].CreatedAt = now
		}
		if p.Tasks[i].Dependencies == nil {
			p.Tasks[i].Dependencies = []string{}
		}
	}
	warns := prd.DropUnknownDependencies(p)
	if err := prd.Validate(p, knownAgent); err != nil {
		return p, warns, fmt.Errorf("%w: %w", ErrPlan, err)
	}
	return p, warns, nil
}

var slugRE = lazyre.New(`[^a-z0-9]+`)

// Slug turns a goal or name into a file-name part ("Add a /health endpoint"
// → "add-a-health-endpoint"), at most 48 characters.
func Slug(s string) string {
	out := strings.Trim(slugRE.ReplaceAllString(strings.ToLower(s), "-"), "-")
	if len(out) > 48 {
		out = strings.TrimRight(out[:48], "-")
	}
	if out == "" {
		out = "plan"
	}
	return out
}

// SavePlan writes a PRD to dir/prd-<slug>.json without overwriting an
// existing file (a numeric suffix is added), and returns the path.
func SavePlan(dir string, p *prd.PRD) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	base := "prd-" + Slug(p.Meta.Name)
	for i := 0; i < 1000; i++ {
		name := base + ".json"
		if i > 0 {
			name = fmt.Sprintf("%s-%d.json", base, i+1)
		}
		path := filepath.Join(dir, name)
		if _, err := os.Stat(path); err == nil {
			continue
		}
		return path, p.Save(path)
	}
	return "", fmt.Errorf("no free file name for %s in %s", base, dir)
}
