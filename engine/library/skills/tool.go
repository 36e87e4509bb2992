package skills

import (
	"context"
	"encoding/json"
	"time"

	"github.com/nova-dev/nova/engine/tools"
)

// ToolName is the agent tool that runs a skill.
const ToolName = "runSkill"

// ToolTimeout bounds one runSkill call (each step keeps its own timeout).
const ToolTimeout = 60 * time.Second

// ToolDeps are what the runSkill tool needs at call time.
type ToolDeps struct {
	// Skills returns the current registry (built-ins and .nova/skills/),
	// read on every call so that a new skill file is seen at once.
	Skills func() *Registry
	// Tools is the registry the steps run through (the one runSkill is
	// registered in).
	Tools func() *tools.Registry
	// OnStep, when set, receives every step of every call with the
	// caller's Env (the facade records it as a trace of the agent's run).
	OnStep func(env *tools.Env, sr StepResult)
}

// Tool returns the runSkill tool (offered to every agent): it runs a skill with the calling agent's
// Env (same confinement, permissions and staging), returns the result
// formatted for the prompt (at most MaxPromptChars characters, declared as
// the tool's output cap) and the steps' evidence, and marks a failed skill
// as a failed invocation.
func Tool(d ToolDeps) tools.Tool {
	return tools.Tool{
		Name: ToolName,
		Description: "Run a skill: a fixed sequence of tool calls that gathers what a common job needs in one step " +
			"(debug-root-cause: error file + error text -> where it comes from; refactor-safely: file + symbol -> " +
			"its uses and tests; generate-tests: file -> implementation, neighbours, related code). " +
			"The reply lists each step's result, or the step that failed and why.",
		Schema: json.RawMessage(`{"type":"object","properties":{
			"skillName":{"type":"string","minLength":1,"description":"the skill's name, e.g. debug-root-cause"},
			"inputs":{"type":"object","description":"the skill's inputs, e.g. {\"errorFile\":\"build.log\",\"errorPattern\":\"undefined: parseConfig\"}"}},
			"required":["skillName"],"additionalProperties":false}`),
		Timeout:   ToolTimeout,
		OutputCap: MaxPromptChars,
		// Every agent may run skills: each step still needs the agent's own
		// permission for its tool, so runSkill grants nothing new.
		AllAgents: true,
		Run: func(ctx context.Context, env *tools.Env, raw json.RawMessage) (tools.Output, error) {
			var a struct {
				SkillName string         `json:"skillName"`
				Inputs    map[string]any `json:"inputs"`
			}
			if err := json.Unmarshal(raw, &a); err != nil {
				return tools.Output{}, err
			}
			r := &Runner{Skills: d.Skills(), Tools: d.Tools()}
			if d.OnStep != nil {
				r.OnStep = func(sr StepResult) { d.OnStep(env, sr) }
			}
			res := r.Execute(ctx, a.SkillName, env, Context{Agent: env.Agent, WorkingDir: ".", Inputs: a.Inputs})
			return tools.Output{Text: FormatForPrompt(res), Evidence: res.Evidence(), Failed: !res.Success}, nil
		},
	}
}
