package agents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/promptfit"
	"github.com/nova-dev/nova/engine/tools"
)

// Fitted is a run's first two messages fitted into a prompt budget.
type Fitted struct {
	Messages []llm.Message
	// Trims are the context blocks shrunk or dropped, lowest priority first.
	Trims []promptfit.Trim
	// TaskCut: the task itself was cut (with a marker in its text).
	TaskCut bool
	// Tokens is the estimated size of the fitted prompt.
	Tokens int
}

// FitMessages builds the system and task messages of a run so that they and
// the tools' schemas fit budget tokens: context blocks are trimmed first
// (knowledge, vault, playbook, dependency previews, then the worked
// examples: promptfit.TrimOrder), then the task is cut with a marker. (The
// knowledge tools, first in that order, are left out by the caller.) When not even MinTask
// tokens of the task fit beside the fixed part (role, rules, static context,
// tools), it returns a *promptfit.TooLargeError wrapped in
// llm.ErrPromptTooLong. budget ≤ 0 with what "" means no fitting.
func FitMessages(in PromptInput, native []llm.Tool, budget int, est promptfit.Estimator, win string, reserve int) (Fitted, error) {
	examples := examplesBlock(in.Spec)
	base := in
	base.Spec.Examples = nil
	base.ExtraContext = nil
	const header = "Task: "
	fixed := est.Tokens(SystemPrompt(base)) + est.Tokens(header) + toolsTokens(native, est) + 2*8
	var blocks []string
	var kinds []promptfit.Kind
	for _, b := range in.ExtraContext {
		if b = strings.TrimSpace(b); b != "" {
			blocks = append(blocks, b)
			kinds = append(kinds, promptfit.KindOf(b))
		}
	}
	if examples != "" {
		blocks = append(blocks, examples)
		kinds = append(kinds, promptfit.Examples)
	}
	// Blocks nobody may trim count as fixed.
	for i, b := range blocks {
		if kinds[i] == promptfit.Other {
			fixed += est.Tokens(b) + 1
		}
	}
	task := strings.TrimSpace(in.Task)
	tooLarge := func() error {
		return fmt.Errorf("%w: %w", llm.ErrPromptTooLong, &promptfit.TooLargeError{
			Fixed: fixed + min(est.Tokens(task), promptfit.MinTask), Budget: budget, Window: win, Reserve: reserve,
			What: "agent " + in.Spec.ID + "'s prompt",
		})
	}
	if budget <= 0 || budget-fixed < promptfit.MinTask {
		return Fitted{}, tooLarge()
	}
	room := budget - fixed
	taskTok := est.Tokens(task)
	var trimmable []string
	var tkinds []promptfit.Kind
	others := 0
	for i, b := range blocks {
		if kinds[i] == promptfit.Other {
			others++
			continue
		}
		trimmable = append(trimmable, b)
		tkinds = append(tkinds, kinds[i])
	}
	// Blocks give way to the task: they get what the whole task leaves (a
	// token per block for its separator), or nothing when the task alone
	// is too large.
	fitted, trims := promptfit.FitBlocks(trimmable, tkinds, max(room-taskTok-len(trimmable), 0), est)
	used := 0
	keptExamples := false
	var extra []string
	// Blocks keep their order: the others as they were, the trimmable
	// ones as fitted, the examples (always last) apart.
	ti := 0
	for i, b := range blocks {
		if kinds[i] == promptfit.Other {
			extra = append(extra, b)
			continue
		}
		f := fitted[ti]
		ti++
		switch {
		case f == "":
		case kinds[i] == promptfit.Examples:
			// Examples are all or nothing: a cut example teaches nothing.
			if f == b {
				keptExamples = true
				used += est.Tokens(b) + 1
			}
		default:
			extra = append(extra, f)
			used += est.Tokens(f) + 1
		}
	}
	taskRoom := room - used
	cut := false
	if taskTok > taskRoom {
		if taskRoom < promptfit.MinTask {
			return Fitted{}, tooLarge()
		}
		task = promptfit.Cut(task, taskRoom, est, "task")
		cut = true
	}
	out := in
	out.Task = task
	out.ExtraContext = extra
	if !keptExamples {
		out.Spec.Examples = nil
	}
	msgs := BuildMessages(out)
	return Fitted{Messages: msgs, Trims: trims, TaskCut: cut,
		Tokens: est.Tokens(msgs[0].Content) + est.Tokens(msgs[1].Content) + toolsTokens(native, est) + 2*8}, nil
}

// splitOptional separates the tools every agent is offered whatever its
// spec lists (tools.Tool.AllAgents: the knowledge tools) from the agent's
// own. The session-board tools are never optional: where there is a board,
// the lead relies on them.
func splitOptional(ts []tools.Tool) (core, optional []tools.Tool) {
	for _, t := range ts {
		if t.AllAgents && !t.Board {
			optional = append(optional, t)
		} else {
			core = append(core, t)
		}
	}
	return core, optional
}

// toolsTokens estimates the tool schemas the template renders into the
// prompt when tools are sent natively.
func toolsTokens(ts []llm.Tool, est promptfit.Estimator) int {
	if len(ts) == 0 {
		return 0
	}
	b, err := json.Marshal(ts)
	if err != nil {
		return 0
	}
	return est.Tokens(string(b)) + 8*len(ts)
}

// fitPrompt (re)builds the run's first two messages for the current model:
// its window is min(numCtx, the model's context length), the prompt budget
// that minus the reply reserve (and at most Settings.PromptTokens).
func (st *loopState) fitPrompt(ctx context.Context) error {
	w, err := st.r.LLM.Window(ctx, st.model, 0)
	switch {
	case err != nil && (errors.Is(err, llm.ErrModelNotFound) || errors.Is(err, llm.ErrUnreachable) || ctx.Err() != nil):
		return err
	case err != nil && w.Tokens == 0:
		// Nothing known about the window (Show failed, no numCtx): send
		// the prompt as it is; the server refuses what does not fit.
		st.budget = 0
		st.setFirst(BuildMessages(st.promptInput()))
		return nil
	}
	if err := st.canChat(ctx); err != nil {
		return err
	}
	st.window = w
	budget := w.PromptBudget()
	if st.set.PromptTokens > 0 && st.set.PromptTokens < budget {
		budget = st.set.PromptTokens
	}
	st.budget = budget
	// Compress the history well before it reaches the budget.
	st.set.CompressAt = min(st.set.CompressAt, max(budget*3/4, 1))
	// The start of the run leaves room for the conversation that follows
	// it: a quarter of the budget at the first fit, what the history
	// already holds at a refit. If that is too tight, the whole budget
	// (a one-step answer may still fit).
	history := st.historySize()
	room := budget - max(budget/4, history)
	fit := func(list []tools.Tool) (Fitted, error) {
		st.toolList = list
		var native []llm.Tool
		if !st.textMode {
			native = tools.LLMTools(list)
		}
		f, err := FitMessages(st.promptInput(), native, room, st.estimator(), w.Describe(), w.Reserve)
		if err != nil && errors.Is(err, llm.ErrPromptTooLong) && history == 0 {
			f, err = FitMessages(st.promptInput(), native, budget, st.estimator(), w.Describe(), w.Reserve)
		}
		return f, err
	}
	f, err := fit(st.allTools)
	// The tools offered to every agent (the knowledge tools) give way first
	// (promptfit.TrimOrder): before the knowledge hits, any other context,
	// the worked examples or the task.
	if core, optional := splitOptional(st.allTools); len(optional) > 0 && (err != nil || len(f.Trims) > 0 || f.TaskCut) {
		if f2, err2 := fit(core); err2 == nil {
			f, err = f2, nil
			f.Trims = append([]promptfit.Trim{{Kind: promptfit.KnowledgeTools,
				From: toolsTokens(tools.LLMTools(optional), st.estimator())}}, f.Trims...)
		} else if err == nil {
			st.toolList = st.allTools // the smaller set did not fit either: keep the first fit
		}
	}
	if err != nil {
		return err
	}
	st.setFirst(f.Messages)
	if len(f.Trims) > 0 || f.TaskCut {
		parts := make([]string, 0, len(f.Trims)+1)
		for _, t := range f.Trims {
			parts = append(parts, t.String())
		}
		if f.TaskCut {
			parts = append(parts, "cut the task")
		}
		st.fitStatus = strings.Join(parts, ", ")
		st.emit(Event{Type: EventFit, Model: st.model, Text: fmt.Sprintf("prompt trimmed to %d tokens for %s's context of %s: %s",
			budget, st.model, w.Describe(), st.fitStatus)})
	}
	return nil
}

// canChat refuses a model whose /api/show capabilities lack "completion"
// (an embedding model on a chat tier): the server would answer 400 "does
// not support chat"; say so before sending anything, before any fitting
// arithmetic on its context and before switching to the text format.
func (st *loopState) canChat(ctx context.Context) error {
	info, err := st.r.LLM.ModelInfo(ctx, st.model)
	if err != nil || len(info.Capabilities) == 0 || info.Can("completion") {
		return nil // unknown: the server has the last word
	}
	return fmt.Errorf("%w: model %s does not support chat (capabilities: %s); set a chat model for this tier "+
		"in .nova/config.yaml (models.*); `nova doctor` checks them", llm.ErrBadRequest, st.model,
		strings.Join(info.Capabilities, ", "))
}

// setFirst replaces the system and task messages; a refit during the run
// keeps the history after them.
func (st *loopState) setFirst(first []llm.Message) {
	if len(st.msgs) >= 2 {
		first = append(first, st.msgs[2:]...)
	}
	st.msgs = first
}

func (st *loopState) promptInput() PromptInput {
	return PromptInput{Spec: st.spec, Task: st.run.Task, Tools: st.toolList, TextMode: st.textMode, ExtraContext: st.opts.ExtraContext,
		Tier: st.tier, Format: st.format}
}

func (st *loopState) estimator() promptfit.Estimator {
	return promptfit.Estimator{Factor: st.r.LLM.TokenFactor(st.model)}
}

// refit fits the prompt again (another model, or a more cautious estimate)
// and then the history.
func (st *loopState) refit(ctx context.Context) error {
	if err := st.fitPrompt(ctx); err != nil {
		return err
	}
	return st.ensureFits(ctx)
}

// ensureFits keeps the conversation within the budget as it grows:
// compress the middle, then drop it, then give up (misconfigured).
func (st *loopState) ensureFits(ctx context.Context) error {
	if st.budget <= 0 {
		return nil
	}
	size := st.promptSize
	if size() <= st.budget {
		return nil
	}
	if len(st.msgs) > 2 {
		st.compress(ctx)
	}
	for keep := st.set.KeepRecent; size() > st.budget && len(st.msgs) > 3 && keep >= 1; keep-- {
		st.dropMiddle(keep)
	}
	if size() > st.budget && !st.fitting {
		// The start itself grew (a more cautious estimate learned from the
		// server): fit the system prompt and the task again.
		st.fitting = true
		err := st.fitPrompt(ctx)
		st.fitting = false
		if err != nil {
			return err
		}
	}
	if n := size(); n > st.budget {
		return fmt.Errorf("%w: the conversation needs about %d tokens even with its earlier steps dropped, "+
			"but the model's context is %s with %d reserved for the reply; raise ollama.numCtx or lower budgets.toolOutput",
			llm.ErrPromptTooLong, n, st.window.Describe(), st.window.Reserve)
	}
	return nil
}

// promptSize estimates the whole conversation with the tools' schemas.
func (st *loopState) promptSize() int {
	var native []llm.Tool
	if !st.textMode {
		native = tools.LLMTools(st.toolList)
	}
	return toolsTokens(native, st.estimator()) + messagesTokens(st.msgs, st.estimator())
}

// historySize estimates the messages after the system prompt and the task.
func (st *loopState) historySize() int {
	if len(st.msgs) <= 2 {
		return 0
	}
	return messagesTokens(st.msgs[2:], st.estimator())
}

func messagesTokens(msgs []llm.Message, est promptfit.Estimator) int {
	n := 0
	for _, m := range msgs {
		n += 8 + est.Tokens(m.Content)
		for _, tc := range m.ToolCalls {
			n += est.Tokens(tc.Name) + est.Tokens(string(tc.Arguments))
		}
	}
	return n
}

// dropMiddle replaces everything between the task and the last keep
// messages with a one-line note.
func (st *loopState) dropMiddle(keep int) {
	const head = 2
	cut := len(st.msgs) - keep
	for cut > head && st.msgs[cut].Role == llm.RoleTool {
		cut--
	}
	if cut <= head {
		return
	}
	note := llm.Message{Role: llm.RoleUser, Content: mechanicalSummary(st.msgs[head:cut])}
	next := append([]llm.Message{}, st.msgs[:head]...)
	next = append(next, note)
	next = append(next, st.msgs[cut:]...)
	st.msgs = next
	st.meta.Compressions++
}
