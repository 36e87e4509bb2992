package agents

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/engine/untrusted"
)

// PromptInput is what a run's first two messages are built from.
type PromptInput struct {
	Spec Spec
	Task string
	// Tools are the tools offered to the agent.
	Tools []tools.Tool
	// TextMode describes the tools and the Thought/Action format in the
	// system prompt (for models without native tool calling).
	TextMode bool
	// ExtraContext blocks are appended after the static context (vault and
	// playbook blocks, knowledge hits); each should carry its own heading.
	ExtraContext []string
}

// BuildMessages returns the system and user messages that start a run.
func BuildMessages(in PromptInput) []llm.Message {
	return []llm.Message{
		{Role: llm.RoleSystem, Content: SystemPrompt(in)},
		{Role: llm.RoleUser, Content: "Task: " + strings.TrimSpace(in.Task)},
	}
}

// SystemPrompt assembles the system prompt: the agent's role, nova's
// workspace rules, the static context, extra context blocks, the worked
// examples and, in text mode, the tool catalogue and reply format.
func SystemPrompt(in PromptInput) string {
	var b strings.Builder
	b.Grow(len(in.Spec.Role) + len(in.Spec.StaticContext) + 2048)
	b.WriteString(strings.TrimSpace(in.Spec.Role))
	b.WriteString("\n\n## Working in this workspace\n")
	b.WriteString("- Paths are relative to the workspace root and must stay inside it; paths outside are refused.\n")
	b.WriteString("- Writes are staged in a changeset for review: nothing reaches the working tree until it is approved. Your own reads show what you staged.\n")
	b.WriteString("- Read the code before changing it. Use editFile for small changes to existing files and writeFile for new files.\n")
	b.WriteString("- Tool results longer than the output budget are cut; ask for less (a line range, a narrower search) when that happens.\n")
	b.WriteString("- When the task is done, stop calling tools and answer: the files you changed, why, and the checks you ran.\n")
	b.WriteString("- " + untrusted.Instruction + "\n")
	if sc := strings.TrimSpace(in.Spec.StaticContext); sc != "" {
		b.WriteString("\n## Context\n")
		b.WriteString(sc)
		b.WriteByte('\n')
	}
	for _, block := range in.ExtraContext {
		if block = strings.TrimSpace(block); block != "" {
			b.WriteByte('\n')
			b.WriteString(block)
			b.WriteByte('\n')
		}
	}
	if ex := examplesBlock(in.Spec); ex != "" {
		b.WriteString("\n")
		b.WriteString(ex)
	}
	if in.TextMode {
		writeTextModeTools(&b, in.Tools)
	} else if len(in.Tools) > 0 {
		names := make([]string, len(in.Tools))
		for i, t := range in.Tools {
			names[i] = t.Name
		}
		fmt.Fprintf(&b, "\n## Tools\nCall the provided tools (%s) to inspect and change the workspace.\n", strings.Join(names, ", "))
	}
	return b.String()
}

// examplesBlock renders the spec's worked examples ("" when it has none).
func examplesBlock(spec Spec) string {
	if len(spec.Examples) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Examples\n")
	for i, ex := range spec.Examples {
		fmt.Fprintf(&b, "### Example %d\nTask: %s\nAnswer:\n%s\n", i+1, strings.TrimSpace(ex.Input), strings.TrimSpace(ex.Output))
	}
	return b.String()
}

func writeTextModeTools(b *strings.Builder, ts []tools.Tool) {
	b.WriteString("\n## Tools\n")
	b.WriteString("Use one tool per reply, in exactly this format, and stop after the Action Input:\n")
	b.WriteString("Thought: <what you will do and why>\nAction: <tool name>\nAction Input: <the arguments as one JSON object>\n\n")
	b.WriteString("The tool's result comes back as \"Observation: ...\". When the task is done, reply:\n")
	b.WriteString("Thought: <why you are done>\nFinal Answer: <the files you changed, why, and the checks you ran>\n\n")
	b.WriteString("Available tools:\n")
	for _, t := range ts {
		var compact bytes.Buffer
		if err := json.Compact(&compact, t.Schema); err != nil {
			compact.Reset()
			compact.Write(t.Schema)
		}
		fmt.Fprintf(b, "- %s: %s\n  arguments (JSON Schema): %s\n", t.Name, t.Description, compact.String())
	}
}

// reflectPrompt is injected every spec.forcedReasoningInterval tool calls.
func reflectPrompt(textMode bool, calls int) string {
	s := fmt.Sprintf("Stop and reflect before your next action (%d tool calls so far). In a few sentences: "+
		"what have you learned, is your approach working, and what exactly will you do next? ", calls)
	if textMode {
		return s + "Write it as a Thought, then continue in the usual format."
	}
	return s + "Then continue."
}

// EstimateTokens is nova's token estimate of a text: ceil(chars/4).
func EstimateTokens(s string) int {
	n := utf8.RuneCountInString(s)
	return (n + 3) / 4
}

// historyTokens estimates the tokens of a conversation.
func historyTokens(msgs []llm.Message) int {
	total := 0
	for _, m := range msgs {
		total += EstimateTokens(m.Content)
		for _, tc := range m.ToolCalls {
			total += EstimateTokens(tc.Name) + (len(tc.Arguments)+3)/4
		}
	}
	return total
}

// TruncateOutput cuts a tool output to budget characters and says where the
// full output is.
func TruncateOutput(s string, budget int, runID, traceID uint64) string {
	if budget <= 0 {
		return s
	}
	n := utf8.RuneCountInString(s)
	if n <= budget {
		return s
	}
	cut := 0
	for i := range s {
		if cut == budget {
			s = s[:i]
			break
		}
		cut++
	}
	return fmt.Sprintf("%s\n[truncated: showing %d of %d characters; the full output is in trace %d of run %d]", s, budget, n, traceID, runID)
}
