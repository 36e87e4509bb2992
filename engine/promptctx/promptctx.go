// Package promptctx builds the context blocks every run's prompt carries
// (vault, playbook, knowledge, wisdom, project rules, code map) within the
// workspace's budgets, with the provenance of each item, so that a chat
// turn, `nova agent run` and a build task see the same context.
package promptctx

import "context"

// Request says what a run is about, for the blocks to pick what fits.
type Request struct {
	Task         string
	Files        []string
	Agent        string
	Tier         string
	PromptTokens int
}

// Blocks are the context blocks of one prompt; an empty string leaves a
// block out. Provenance names every item the blocks carry.
type Blocks struct {
	Vault, Playbook, Knowledge, Wisdom, Rules, CodeMap string
	Provenance                                         []Item
}

// List returns the non-empty blocks in prompt order.
func (b Blocks) List() []string {
	var out []string
	for _, s := range []string{b.Rules, b.Vault, b.Wisdom, b.Playbook, b.Knowledge, b.CodeMap} {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Item is one thing a block carries: a vault node, a playbook rule, a fact,
// a rule file. Block names the block, Source where it came from (a path, a
// store), ID its id there.
type Item struct {
	Block  string `json:"block"`
	Source string `json:"source"`
	ID     string `json:"id"`
	Title  string `json:"title"`
	Tokens int    `json:"tokens"`
}

// Provider builds the blocks of one prompt.
type Provider interface {
	Blocks(ctx context.Context, req Request) (Blocks, error)
}

// ProviderFunc adapts a function to Provider.
type ProviderFunc func(ctx context.Context, req Request) (Blocks, error)

// Blocks implements Provider.
func (f ProviderFunc) Blocks(ctx context.Context, req Request) (Blocks, error) { return f(ctx, req) }
