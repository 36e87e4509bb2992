package engine

import (
	"context"
	"errors"

	"github.com/nova-dev/nova/engine/promptctx"
)

// promptContext is the prompt context of chat turns, `nova agent run` and
// the Agents screen: the blocks a build task gets (PromptContext: vault
// with its wisdom, playbook, knowledge, within budgets.*Share of the
// prompt), plus the project's rule files under budgets.rulesShare. A source
// that fails is left out (its error is returned beside the other blocks): a
// run does not stop because the vault is busy.
func (l *core) promptContext(ctx context.Context, req promptctx.Request) (promptctx.Blocks, error) {
	cfg := l.Config()
	if req.PromptTokens <= 0 {
		req.PromptTokens = cfg.Budgets.PromptTokens
	}
	b, err := l.PromptContext().Blocks(ctx, req)
	if share := cfg.Budgets.RulesShare; share > 0 {
		text, items, rerr := promptctx.ProjectRules(l.ws.Root, int(float64(req.PromptTokens)*share))
		b.Rules = text
		b.Provenance = append(items, b.Provenance...)
		err = errors.Join(err, rerr)
	}
	return b, err
}

// withProjectRules puts the project's rule files (budgets.rulesShare) before
// a build task's context blocks: the build assembles the others itself
// (engine/build/prompt.go). A rule file that cannot be read is left out.
func (l *core) withProjectRules(extra []string) []string {
	cfg := l.Config()
	if cfg.Budgets.RulesShare <= 0 {
		return extra
	}
	text, _, _ := promptctx.ProjectRules(l.ws.Root, int(float64(cfg.Budgets.PromptTokens)*cfg.Budgets.RulesShare))
	if text == "" {
		return extra
	}
	return append([]string{text}, extra...)
}
