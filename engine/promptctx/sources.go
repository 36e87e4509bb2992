package promptctx

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/nova-dev/nova/engine/promptfit"
	"github.com/nova-dev/nova/engine/vault"
)

// The shipped shares of the prompt budget (budgets.vaultShare,
// budgets.playbookShare, budgets.knowledgeShare); they are also the caps.
const (
	DefaultVaultShare     = vault.VaultShare
	DefaultPlaybookShare  = 0.10
	DefaultKnowledgeShare = 0.10
)

// VaultSource gives the taste-vault block with its global wisdom
// (*vault.Vault).
type VaultSource interface {
	BuildVaultContext(ctx context.Context, task, agent, tier string, budgetTokens int) (vault.VaultContext, error)
}

// PlaybookSource gives an agent's playbook block and the ids of its rules
// (ace.BuildHook).
type PlaybookSource interface {
	Context(ctx context.Context, agent, task string, budgetTokens int) (block string, ruleIDs []string, err error)
}

// AppliedRecorder is a PlaybookSource that counts the rules a prompt
// carries: a reused playbook block (Cache) is counted as applied again.
type AppliedRecorder interface {
	Applied(ctx context.Context, agent string, ruleIDs []string) error
}

// KnowledgeSource gives the knowledge block and the references of what it
// carries ("fact:f3", "docs:local:…", "vault:12") (*knowledge.Service).
type KnowledgeSource interface {
	Hits(ctx context.Context, q KnowledgeQuery, budgetTokens int) (block string, ids []string, err error)
}

// KnowledgeQuery is what a KnowledgeSource is asked for one prompt.
type KnowledgeQuery struct {
	BuildID string
	TaskID  string
	Agent   string
	// Text is the task's text (a build task's title and description).
	Text string
	// ExcludeVault are the vault nodes the prompt already carries.
	ExcludeVault []uint64
}

// Shares are the parts of the prompt budget each block may use; 0 turns a
// block off. Values above the shipped defaults are capped to them.
type Shares struct {
	Vault     float64
	Playbook  float64
	Knowledge float64
}

// Sources is the Provider over the workspace's sources; a nil source (or a
// zero share) leaves its block out. The blocks are built in order — vault,
// playbook, knowledge — because knowledge leaves out the vault nodes the
// vault block already carries.
type Sources struct {
	Vault     VaultSource
	Playbook  PlaybookSource
	Knowledge KnowledgeSource
	Shares    Shares
	// Cache, when set, keeps each specialist's vault and playbook blocks
	// between delegations (see Cache).
	Cache *Cache
}

var _ Provider = Sources{}

// Blocks implements Provider.
func (s Sources) Blocks(ctx context.Context, req Request) (Blocks, error) {
	var out Blocks
	var errs []error
	budget := req.PromptTokens
	if budget <= 0 {
		budget = vault.DefaultPromptTokens
	}
	vaultShare := min(max(s.Shares.Vault, 0), DefaultVaultShare)
	playbookShare := min(max(s.Shares.Playbook, 0), DefaultPlaybookShare)
	knowledgeShare := min(max(s.Shares.Knowledge, 0), DefaultKnowledgeShare)
	var vaultIDs []uint64
	key := cacheKey{agent: req.Agent, task: req.Task, tier: req.Tier, budget: budget, vaultShare: vaultShare, playbookShare: playbookShare}
	rev, cacheable := s.Cache.rev(ctx, req)
	if e, ok := s.cached(key, rev, cacheable); ok {
		out.Vault, out.Playbook, vaultIDs, out.Cached = e.vault, e.playbook, e.vaultIDs, true
		out.Provenance = append(out.Provenance, e.items...)
		if r, ok := s.Playbook.(AppliedRecorder); ok {
			if ids := out.IDs(BlockPlaybook); len(ids) > 0 {
				if err := r.Applied(ctx, req.Agent, ids); err != nil {
					errs = append(errs, fmt.Errorf("playbook context: %w", err))
				}
			}
		}
	} else {
		vaultIDs = s.fresh(ctx, req, budget, vaultShare, playbookShare, &out, &errs)
		if cacheable && len(errs) == 0 {
			s.Cache.put(key, cacheEntry{rev: rev, vault: out.Vault, playbook: out.Playbook, vaultIDs: vaultIDs,
				items: append([]Item(nil), out.Provenance...)})
		}
	}
	if s.Knowledge != nil && knowledgeShare > 0 {
		kb := int(float64(budget) * knowledgeShare)
		block, ids, err := s.Knowledge.Hits(ctx, KnowledgeQuery{BuildID: req.BuildID, TaskID: req.TaskID,
			Agent: req.Agent, Text: req.Task, ExcludeVault: vaultIDs}, kb)
		if err != nil {
			errs = append(errs, fmt.Errorf("knowledge: %w", err))
		} else if block = strings.TrimSpace(block); block != "" {
			block = CutTokens(block, kb)
			if promptfit.KindOf(block) != promptfit.Knowledge {
				// Tagged, so that prompt fitting knows to trim it first.
				block = "<knowledge_context>\n" + block + "\n</knowledge_context>"
			}
			out.Knowledge = block
			for _, id := range ids {
				out.Provenance = append(out.Provenance, Item{Block: BlockKnowledge, Source: "knowledge", ID: id, Title: id})
			}
		}
	}
	return out, errors.Join(errs...)
}

func (s Sources) cached(k cacheKey, rev string, cacheable bool) (cacheEntry, bool) {
	if !cacheable {
		return cacheEntry{}, false
	}
	return s.Cache.get(k, rev)
}

// fresh builds the vault and playbook blocks into out and returns the
// vault's node ids; errors are added to errs.
func (s Sources) fresh(ctx context.Context, req Request, budget int, vaultShare, playbookShare float64, out *Blocks, errs *[]error) []uint64 {
	var vaultIDs []uint64
	if s.Vault != nil && vaultShare > 0 {
		// BuildVaultContext caps itself at vault.VaultShare of what it is
		// given; scale the budget for a smaller share.
		vb := int(float64(budget) * vaultShare / vault.VaultShare)
		vc, err := s.Vault.BuildVaultContext(ctx, req.Task, req.Agent, req.Tier, vb)
		if err != nil {
			*errs = append(*errs, fmt.Errorf("vault context: %w", err))
		} else if vc.Text != "" {
			out.Vault = vc.Text
			vaultIDs = vc.NodeIDs
			for _, id := range vc.NodeIDs {
				out.Provenance = append(out.Provenance, Item{Block: BlockVault, Source: "vault", ID: strconv.FormatUint(id, 10), Title: "node " + strconv.FormatUint(id, 10)})
			}
			for _, id := range vc.WisdomIDs {
				out.Provenance = append(out.Provenance, Item{Block: BlockWisdom, Source: "vault", ID: strconv.FormatUint(id, 10), Title: "pattern " + strconv.FormatUint(id, 10)})
			}
		}
	}
	if s.Playbook != nil && playbookShare > 0 {
		pb := int(float64(budget) * playbookShare)
		block, ids, err := s.Playbook.Context(ctx, req.Agent, req.Task, pb)
		if err != nil {
			*errs = append(*errs, fmt.Errorf("playbook context: %w", err))
		} else if block = strings.TrimSpace(block); block != "" {
			out.Playbook = CutTokens(block, pb)
			for _, id := range ids {
				out.Provenance = append(out.Provenance, Item{Block: BlockPlaybook, Source: "ace", ID: id, Title: "rule " + id})
			}
		}
	}
	return vaultIDs
}

// CutTokens cuts s to about tokens tokens (vault.EstimateTokens: four bytes
// a token), on a rune boundary.
func CutTokens(s string, tokens int) string {
	if vault.EstimateTokens(s) <= tokens {
		return s
	}
	n := tokens * 4
	if n >= len(s) {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:max(n, 0)]
}
