package engine

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/promptctx"
	"github.com/nova-dev/nova/engine/promptfit"
	"github.com/nova-dev/nova/engine/vault"
)

// promptContext is the workspace's promptctx.Provider: the blocks a build
// task gets (vault with its wisdom, playbook, knowledge), within the same
// budgets (budgets.vaultShare, playbookShare, knowledgeShare of
// budgets.promptTokens), plus the project's rule files under
// budgets.rulesShare. Chat turns, `nova agent run` and the Agents screen
// get their context from it. A source that fails is left out (its error is
// returned beside the other blocks): a run does not stop because the vault
// is busy.
//
// The facade branch moves the build's own assembly onto this provider; the
// two are the same computation (engine/build/prompt.go).
func (l *Local) promptContext(ctx context.Context, req promptctx.Request) (promptctx.Blocks, error) {
	cfg := l.Config()
	budget := req.PromptTokens
	if budget <= 0 {
		budget = cfg.Budgets.PromptTokens
	}
	var out promptctx.Blocks
	var errs []error
	if share := cfg.Budgets.RulesShare; share > 0 {
		text, items, err := promptctx.ProjectRules(l.ws.Root, int(float64(budget)*share))
		if err != nil {
			errs = append(errs, err)
		}
		out.Rules, out.Provenance = text, append(out.Provenance, items...)
	}
	var vaultIDs []uint64
	if v := l.Vault(); v != nil && cfg.Budgets.VaultShare > 0 {
		vb := int(float64(budget) * cfg.Budgets.VaultShare / vault.VaultShare)
		vc, err := v.BuildVaultContext(ctx, req.Task, req.Agent, req.Tier, vb)
		if err != nil {
			errs = append(errs, err)
		} else if vc.Text != "" {
			out.Vault = vc.Text
			vaultIDs = vc.NodeIDs
			for _, id := range vc.NodeIDs {
				out.Provenance = append(out.Provenance, promptctx.Item{Block: "vault", Source: "vault", ID: strconv.FormatUint(id, 10), Title: "node " + strconv.FormatUint(id, 10)})
			}
			for _, id := range vc.WisdomIDs {
				out.Provenance = append(out.Provenance, promptctx.Item{Block: "wisdom", Source: "wisdom", ID: strconv.FormatUint(id, 10), Title: "pattern " + strconv.FormatUint(id, 10)})
			}
		}
	}
	if pb := l.build.Playbook; pb != nil && cfg.Budgets.PlaybookShare > 0 {
		room := int(float64(budget) * cfg.Budgets.PlaybookShare)
		block, ids, err := pb.Context(ctx, req.Agent, req.Task, room)
		if err != nil {
			errs = append(errs, err)
		} else if block = strings.TrimSpace(block); block != "" {
			out.Playbook = promptfit.Cut(block, room, promptfit.Estimator{}, "playbook")
			for _, id := range ids {
				out.Provenance = append(out.Provenance, promptctx.Item{Block: "playbook", Source: "playbook " + req.Agent, ID: id, Title: "rule " + id})
			}
		}
	}
	if kn := l.build.Knowledge; kn != nil && cfg.Budgets.KnowledgeShare > 0 {
		room := int(float64(budget) * cfg.Budgets.KnowledgeShare)
		block, ids, err := kn.Hits(ctx, build.KnowledgeQuery{Agent: req.Agent, Text: req.Task, ExcludeVault: vaultIDs}, room)
		if err != nil {
			errs = append(errs, err)
		} else if block = strings.TrimSpace(block); block != "" {
			block = promptfit.Cut(block, room, promptfit.Estimator{}, "knowledge")
			if promptfit.KindOf(block) != promptfit.Knowledge {
				block = "<knowledge_context>\n" + block + "\n</knowledge_context>"
			}
			out.Knowledge = block
			for _, id := range ids {
				out.Provenance = append(out.Provenance, promptctx.Item{Block: "knowledge", Source: "knowledge", ID: id, Title: id})
			}
		}
	}
	return out, errors.Join(errs...)
}

// withProjectRules puts the project's rule files (budgets.rulesShare) before
// a build task's context blocks: the build assembles the others itself
// (engine/build/prompt.go). A rule file that cannot be read is left out.
func (l *Local) withProjectRules(extra []string) []string {
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
