package agents

import (
	"context"
	"fmt"
	"strings"

	"github.com/nova-dev/nova/engine/llm"
)

// maxSummaryInput bounds the transcript sent to the summariser.
const maxSummaryInput = 48000

const summariserPrompt = "You compress the working history of a coding agent so it can continue with less context. " +
	"Write a short factual summary: the files read and what matters in them, the changes staged (paths and what " +
	"changed), commands run and their results, open problems, and the next step the agent had planned. " +
	"Keep paths, names and numbers exact. No preamble."

// compress replaces the middle of the history (everything between the task
// and the most recent messages) with a summary written by the small tier.
// If the summariser fails, a mechanical summary of the tool calls is used:
// compression never fails the run.
func (st *loopState) compress(ctx context.Context) {
	const head = 2 // system prompt, task
	cut := len(st.msgs) - st.set.KeepRecent
	// Never start the kept tail with tool results whose call would be cut
	// away: move back to the assistant message that made the calls.
	for cut > head && st.msgs[cut].Role == llm.RoleTool {
		cut--
	}
	if cut <= head+1 {
		return // nothing worth compressing
	}
	middle := st.msgs[head:cut]
	if historyTokens(middle) < st.set.CompressAt/4 {
		// The bulk is in the prompt or the recent messages: summarising a
		// sliver would cost a model call per step for nothing.
		return
	}
	before := historyTokens(st.msgs)

	summary, err := st.summarise(ctx, middle)
	if err != nil || strings.TrimSpace(summary) == "" {
		summary = mechanicalSummary(middle)
	}
	content := "Summary of the earlier steps (compressed to stay within the context budget):\n" + strings.TrimSpace(summary)
	if mem := st.track.memory(); mem != "" {
		// The findings outlive the summary: exact, not re-worded.
		content += "\n\n" + strings.TrimSpace(mem)
	}
	msg := llm.Message{Role: llm.RoleUser, Content: content}
	next := make([]llm.Message, 0, head+1+len(st.msgs)-cut)
	next = append(next, st.msgs[:head]...)
	next = append(next, msg)
	next = append(next, st.msgs[cut:]...)
	st.msgs = next
	st.meta.Compressions++
	st.emit(Event{Type: EventCompress, Step: st.meta.Steps,
		Text: fmt.Sprintf("compressed %d messages: ~%d → ~%d tokens", len(middle), before, historyTokens(st.msgs))})
}

func (st *loopState) summarise(ctx context.Context, middle []llm.Message) (string, error) {
	model, err := st.r.Models.For(llm.TierSmall)
	if err != nil {
		model = st.model
	}
	var b strings.Builder
	for _, m := range middle {
		switch {
		case len(m.ToolCalls) > 0:
			for _, tc := range m.ToolCalls {
				fmt.Fprintf(&b, "[agent called %s %s]\n", tc.Name, clip(string(tc.Arguments), 400))
			}
			if m.Content != "" {
				fmt.Fprintf(&b, "[agent] %s\n", m.Content)
			}
		case m.Role == llm.RoleTool:
			fmt.Fprintf(&b, "[result of %s] %s\n", m.ToolName, clip(m.Content, 1500))
		default:
			fmt.Fprintf(&b, "[%s] %s\n", m.Role, clip(m.Content, 1500))
		}
		if b.Len() > maxSummaryInput {
			break
		}
	}
	limit := maxSummaryInput
	if st.budget > 0 {
		// The summariser's prompt must fit the context too: about half the
		// budget's characters for the transcript, the task clipped beside it.
		limit = min(limit, max(st.budget*2, 1024))
	}
	res, err := st.r.LLM.Chat(ctx, llm.ChatRequest{
		Model: model,
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: summariserPrompt},
			{Role: llm.RoleUser, Content: "Task: " + clip(st.run.Task, limit/2) + "\n\nHistory:\n" + clip(b.String(), limit)},
		},
		Meter: st.meter, MeterKeys: st.meterKeys,
	}, nil)
	st.meta.LLMCalls++
	if err != nil {
		return "", err
	}
	if st.opts.Meter != nil {
		st.opts.Meter.Record(res.Usage(), st.meterKeys...)
	}
	return res.Content, nil
}

// mechanicalSummary lists the tool calls of the dropped messages.
func mechanicalSummary(middle []llm.Message) string {
	var calls []string
	for _, m := range middle {
		for _, tc := range m.ToolCalls {
			calls = append(calls, tc.Name+" "+clip(string(tc.Arguments), 160))
		}
		if m.Role == llm.RoleAssistant && len(m.ToolCalls) == 0 {
			if r, err := ParseReAct(m.Content); err == nil && r.Action != "" {
				calls = append(calls, r.Action+" "+clip(string(r.Input), 160))
			}
		}
	}
	if len(calls) == 0 {
		return "(earlier messages dropped to save context)"
	}
	return "Earlier tool calls (their results were dropped to save context):\n- " + strings.Join(calls, "\n- ")
}
