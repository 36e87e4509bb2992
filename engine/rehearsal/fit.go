package rehearsal

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/promptfit"
)

// fit makes a branch's prompt (system prompt with its context blocks, the
// schema instructions Structured adds, and the task) fit the model's
// window minus the reply reserve: blocks give way first, in promptfit's
// order (knowledge, vault, playbook, dependencies), then the task is cut
// with a marker; when not even that fits the rehearsal is refused with
// llm.ErrPromptTooLong. Without a known window nothing is changed. trimmed
// says what gave way ("" when nothing did).
func (s *Service) fit(ctx context.Context, model, agent string, blocks []string, user string) (out []string, _ string, trimmed string, _ error) {
	w, err := s.LLM.Window(ctx, model, 0)
	if err != nil && w.Tokens == 0 {
		if errors.Is(err, llm.ErrModelNotFound) || errors.Is(err, llm.ErrUnreachable) || ctx.Err() != nil {
			return nil, "", "", err
		}
		return blocks, user, "", nil
	}
	budget := w.PromptBudget()
	if pt := s.Config().Budgets.PromptTokens; pt > 0 && pt < budget {
		budget = pt
	}
	est := promptfit.Estimator{Factor: s.LLM.TokenFactor(model)}
	longest := ""
	for _, a := range Approaches() {
		if p := systemPrompt(agent, a, nil); len(p) > len(longest) {
			longest = p
		}
	}
	// Structured adds the schema and its instructions to the system prompt.
	fixed := est.Tokens(longest) + est.Tokens(branchSchema) + 80 + 2*8
	var kinds []promptfit.Kind
	for _, b := range blocks {
		k := promptfit.KindOf(b)
		kinds = append(kinds, k)
		if k == promptfit.Other {
			fixed += est.Tokens(b) + 1
		}
	}
	tooLarge := func() error {
		return fmt.Errorf("%w: %w", llm.ErrPromptTooLong, &promptfit.TooLargeError{Fixed: fixed + promptfit.MinTask,
			Budget: budget, Window: w.Describe(), Reserve: w.Reserve, What: "the rehearsal prompt"})
	}
	if budget-fixed < promptfit.MinTask {
		return nil, "", "", tooLarge()
	}
	room := budget - fixed
	taskTok := est.Tokens(user)
	var trimmable []string
	var tkinds []promptfit.Kind
	for i, b := range blocks {
		if kinds[i] != promptfit.Other {
			trimmable = append(trimmable, b)
			tkinds = append(tkinds, kinds[i])
		}
	}
	fitted, trims := promptfit.FitBlocks(trimmable, tkinds, max(room-taskTok-len(trimmable), 0), est)
	out = make([]string, 0, len(blocks))
	used, ti := 0, 0
	for i, b := range blocks {
		if kinds[i] == promptfit.Other {
			out = append(out, b)
			continue
		}
		if f := fitted[ti]; f != "" {
			out = append(out, f)
			used += est.Tokens(f) + 1
		}
		ti++
	}
	parts := make([]string, 0, len(trims)+1)
	for _, t := range trims {
		parts = append(parts, t.String())
	}
	if left := room - used; taskTok > left {
		if left < promptfit.MinTask {
			return nil, "", "", tooLarge()
		}
		user = strings.TrimSuffix(promptfit.Cut(strings.TrimSuffix(user, "\n</task>"), left-4, est, "task"), "\n") + "\n</task>"
		parts = append(parts, "cut the task")
	}
	if len(parts) > 0 {
		trimmed = fmt.Sprintf("prompt trimmed to %d tokens for %s's context of %s: %s", budget, model, w.Describe(),
			strings.Join(parts, ", "))
	}
	return out, user, trimmed, nil
}
