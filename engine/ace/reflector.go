package ace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/nova-dev/nova/engine/llm"
)

// Reflector limits.
const (
	// ReflectMinConfidence drops deltas below it.
	ReflectMinConfidence = 0.5
	// ReflectMaxDeltas is the most deltas one reflection returns.
	ReflectMaxDeltas = 5
)

// deltaSchema is the structured output asked of the reflector.
var deltaSchema = []byte(`{
  "type": "object",
  "properties": {
    "deltas": {
      "type": "array",
      "maxItems": 10,
      "items": {
        "type": "object",
        "properties": {
          "op": {"type": "string", "enum": ["add", "update", "remove"]},
          "ruleId": {"type": "string"},
          "content": {"type": "string"},
          "kind": {"type": "string", "enum": ["strategy", "mistake", "preference", "pattern"]},
          "confidence": {"type": "number", "minimum": 0, "maximum": 1},
          "helpful": {"type": "number", "minimum": 0, "maximum": 1},
          "harmful": {"type": "number", "minimum": 0, "maximum": 1},
          "tags": {"type": "array", "items": {"type": "string"}},
          "reason": {"type": "string"}
        },
        "required": ["op", "confidence"]
      }
    }
  },
  "required": ["deltas"]
}`)

// DeltaSchema returns the JSON Schema of the reflector's output.
func DeltaSchema() []byte { return slices.Clone(deltaSchema) }

// ParseDeltas reads deltas from model output: a {"deltas": [...]} object or
// a bare array, possibly in a Markdown fence or surrounded by prose.
// Deltas that are invalid (unknown op, empty content, numbers outside 0–1)
// are skipped; the error is non-nil only when no JSON document is found. It
// never panics.
func ParseDeltas(output string) ([]Delta, error) {
	doc, err := llm.ExtractJSON(output)
	if err != nil {
		return nil, err
	}
	var raw []json.RawMessage
	var obj struct {
		Deltas []json.RawMessage `json:"deltas"`
	}
	if json.Unmarshal(doc, &raw) != nil {
		if err := json.Unmarshal(doc, &obj); err != nil {
			return nil, fmt.Errorf("%w: want an object with deltas or an array: %w", llm.ErrInvalidOutput, err)
		}
		raw = obj.Deltas
	}
	var out []Delta
	for _, r := range raw {
		var d Delta
		if json.Unmarshal(r, &d) != nil {
			continue
		}
		if d.normalize() != nil {
			continue
		}
		out = append(out, d)
	}
	return out, nil
}

// FilterDeltas drops deltas under ReflectMinConfidence and keeps the
// ReflectMaxDeltas most confident (stable for ties).
func FilterDeltas(ds []Delta) []Delta {
	var out []Delta
	for _, d := range ds {
		if d.Confidence >= ReflectMinConfidence {
			out = append(out, d)
		}
	}
	slices.SortStableFunc(out, func(a, b Delta) int {
		switch {
		case a.Confidence > b.Confidence:
			return -1
		case a.Confidence < b.Confidence:
			return 1
		}
		return 0
	})
	if len(out) > ReflectMaxDeltas {
		out = out[:ReflectMaxDeltas]
	}
	return out
}

// Outcome is a finished task as the reflector and self-improvement see it.
type Outcome struct {
	Agent     string   `json:"agent"`
	TaskID    string   `json:"taskId,omitempty"`
	Title     string   `json:"title"`
	Task      string   `json:"task,omitempty"` // description
	Output    string   `json:"output,omitempty"`
	Success   bool     `json:"success"`
	Reason    string   `json:"reason,omitempty"`
	GateScore float64  `json:"gateScore"`
	RuleIDs   []string `json:"ruleIds,omitempty"`
	Autonomy  int      `json:"autonomy"`
	// AutonomySet says Autonomy is the level to use even when it is 0 (a
	// build's own level); otherwise 0 means the configured level.
	AutonomySet bool `json:"autonomySet,omitempty"`
}

// Reflector turns a task outcome into proposed deltas with a cheap model.
type Reflector struct {
	LLM   llm.Provider
	Model string // the small tier's model
	Logf  func(string, ...any)
}

// maxReflectOutput bounds the task output quoted to the reflector (chars).
const maxReflectOutput = 6000

// Reflect asks the model for deltas. It never fails: errors are logged and
// give no deltas. The current rules are shown so the model can update or
// remove them by id.
func (r *Reflector) Reflect(ctx context.Context, o Outcome, rules []Rule) []Delta {
	logf := r.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	if r.LLM == nil || r.Model == "" {
		logf("ace: reflector: no small model configured; skipped")
		return nil
	}
	var doc struct {
		Deltas []json.RawMessage `json:"deltas"`
	}
	_, err := llm.Structured(ctx, r.LLM, llm.ChatRequest{
		Model: r.Model,
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: reflectSystem},
			{Role: llm.RoleUser, Content: reflectPrompt(o, rules)},
		},
	}, deltaSchema, &doc)
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			logf("ace: reflector for %s: %v", o.Agent, err)
		}
		return nil
	}
	b, _ := json.Marshal(doc.Deltas)
	ds, err := ParseDeltas(string(b))
	if err != nil {
		logf("ace: reflector for %s: %v", o.Agent, err)
		return nil
	}
	return FilterDeltas(ds)
}

const reflectSystem = "You review the outcome of one coding task done by an AI agent and distil " +
	"reusable lessons for that agent's playbook. A lesson is one short imperative rule that would help " +
	"on future tasks of the same kind. Propose 0 to 5 deltas: add a new rule, update an existing rule by " +
	"its id, or remove a rule that misled the agent. Give each a confidence (0–1), how much it would have " +
	"helped here (helpful, 0–1) and how likely it is to hurt elsewhere (harmful, 0–1). Prefer no delta to a vague one."

func reflectPrompt(o Outcome, rules []Rule) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Agent: %s\nTask: %s\n", o.Agent, o.Title)
	if o.Task != "" && o.Task != o.Title {
		fmt.Fprintf(&b, "Details: %s\n", o.Task)
	}
	if o.Success {
		fmt.Fprintf(&b, "Outcome: succeeded (gate score %.2f)\n", o.GateScore)
	} else {
		fmt.Fprintf(&b, "Outcome: failed (gate score %.2f): %s\n", o.GateScore, o.Reason)
	}
	out := o.Output
	if len(out) > maxReflectOutput {
		out = strings.ToValidUTF8(out[:maxReflectOutput], "") + "\n[…]"
	}
	if out != "" {
		fmt.Fprintf(&b, "\nOutput:\n%s\n", out)
	}
	if len(rules) > 0 {
		b.WriteString("\nCurrent playbook rules:\n")
		for _, r := range rules {
			fmt.Fprintf(&b, "- %s: %s (confidence %.2f)\n", r.ID, oneLine(r.Content), r.Confidence)
		}
	}
	return b.String()
}
