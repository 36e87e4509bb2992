// Package promptctx gives the context blocks of a run's prompt: what the
// taste vault, global wisdom, the agent's playbook and the knowledge layer
// (facts, docs, imported patterns) hold about a task, each within its share
// of the prompt budget, with the provenance of every item.
//
// Builds take a Provider in their Deps (engine/build) instead of calling
// back into the engine root for each block; the engine root composes one
// (Sources over the workspace's vault, playbooks and knowledge) and hands
// it to every kind of run that needs prompt context (builds, chat turns).
// A Provider never fails a run: a source that fails leaves its block out
// and its error in the joined error Blocks returns beside the other
// blocks.
package promptctx

import "context"

// Provider gives the context blocks of one prompt.
type Provider interface {
	// Blocks returns the blocks for req. A source that fails leaves its
	// block empty; the error (errors.Join of the failures, each naming its
	// source) comes with the blocks that were built.
	Blocks(ctx context.Context, req Request) (Blocks, error)
}

// Request asks for the blocks of one prompt.
type Request struct {
	// Task is the text the blocks are chosen for (a build task's title and
	// description, a chat message).
	Task string `json:"task"`
	// Files are workspace-relative paths the task is about (may be empty).
	Files []string `json:"files,omitempty"`
	// Agent is the agent the prompt is for ("" = none in particular).
	Agent string `json:"agent,omitempty"`
	// Tier is the workspace tier ("free", "premium"): global wisdom gives
	// more patterns on premium.
	Tier string `json:"tier,omitempty"`
	// PromptTokens is the whole prompt budget; each block gets its share.
	PromptTokens int `json:"promptTokens"`
	// BuildID and TaskID name the build task the prompt is for ("" outside
	// builds): knowledge is scoped to the build.
	BuildID string `json:"buildId,omitempty"`
	TaskID  string `json:"taskId,omitempty"`
}

// Blocks are the context blocks of one prompt; an empty string is a block
// left out. Each block opens with its tag (<taste_vault_context>,
// <playbook_context>, <knowledge_context>, …) so that prompt fitting
// (engine/promptfit) knows which to trim first.
type Blocks struct {
	// Vault is the taste-vault block. Global wisdom patterns are rendered
	// inside it (their provenance items say Block "wisdom").
	Vault string `json:"vault,omitempty"`
	// Playbook is the agent's playbook rules for the task.
	Playbook string `json:"playbook,omitempty"`
	// Knowledge is the facts, docs and patterns relevant to the task.
	Knowledge string `json:"knowledge,omitempty"`
	// Wisdom is global wisdom given apart from the vault block ("" when a
	// source renders it inside Vault, as the taste vault does).
	Wisdom string `json:"wisdom,omitempty"`
	// Rules is the project's own rules files (AGENTS.md, …).
	Rules string `json:"rules,omitempty"`
	// CodeMap is a map of the code the task touches.
	CodeMap string `json:"codeMap,omitempty"`
	// Provenance lists what the blocks carry, block by block.
	Provenance []Item `json:"provenance,omitempty"`
	// Cached is set when the vault and playbook blocks were reused from
	// an earlier prompt of the same agent and task (Cache).
	Cached bool `json:"cached,omitempty"`
}

// Item is one thing a block carries.
type Item struct {
	// Block is the block it is in (BlockVault, BlockWisdom, …).
	Block string `json:"block"`
	// Source names where it comes from ("vault", "ace", "knowledge", a
	// file path).
	Source string `json:"source"`
	// ID is its id in that source (a vault node id, a rule id, a knowledge
	// reference such as "fact:f3").
	ID    string `json:"id"`
	Title string `json:"title,omitempty"`
	// Tokens estimates its size in the prompt (0 when the source does not
	// say).
	Tokens int `json:"tokens,omitempty"`
}

// Block names (Item.Block).
const (
	BlockVault     = "vault"
	BlockWisdom    = "wisdom"
	BlockPlaybook  = "playbook"
	BlockKnowledge = "knowledge"
	BlockRules     = "rules"
	BlockCodeMap   = "codemap"
)

// IDs returns the ids of the items of one block, in order (never nil).
func (b Blocks) IDs(block string) []string {
	out := []string{}
	for _, it := range b.Provenance {
		if it.Block == block {
			out = append(out, it.ID)
		}
	}
	return out
}

// List returns the non-empty blocks in prompt order: the project's rules
// first, then the vault, wisdom, playbook, knowledge and the code map.
func (b Blocks) List() []string {
	var out []string
	for _, s := range []string{b.Rules, b.Vault, b.Wisdom, b.Playbook, b.Knowledge, b.CodeMap} {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// ProviderFunc adapts a function to Provider.
type ProviderFunc func(ctx context.Context, req Request) (Blocks, error)

// Blocks implements Provider.
func (f ProviderFunc) Blocks(ctx context.Context, req Request) (Blocks, error) { return f(ctx, req) }
