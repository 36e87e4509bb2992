package build

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/nova-dev/nova/engine/promptctx"
	"github.com/nova-dev/nova/engine/promptfit"
	"github.com/nova-dev/nova/engine/vault"
)

// ArtifactInlineTokens bounds the dependency previews inlined in a prompt
// (lazy session state: previews inline, full text on demand).
const ArtifactInlineTokens = 1200

// minPreviewChars keeps each preview useful when a task has many deps.
const minPreviewChars = 240

// prompt is an assembled task prompt with its provenance.
type prompt struct {
	task      string   // the user message
	extra     []string // system-prompt context blocks
	vaultIDs  []uint64
	wisdomIDs []uint64
	ruleIDs   []string
	knowIDs   []string
	mapIDs    []string
	tokens    int
}

// TaskHeader is how a task's user message starts: "PRD task <id>: <title>".
// Tests and tools find the task id in a prompt by it.
func TaskHeader(id, title string) string { return fmt.Sprintf("PRD task %s: %s", id, title) }

// assemble builds a task's prompt: the task (and the previous attempt's
// failure, the user's answer to its question), the dependency artifacts,
// the board block, and the prompt-context provider's vault, playbook and
// knowledge blocks (each within its share of the prompt budget), and the
// repository map (the CodeMap hook sizes it: budgets.mapShare); a share of
// 0 leaves that context out. Every block opens with its tag
// (<dependency_artifacts>, <taste_vault_context>, <playbook_context>,
// <knowledge_context>) so the agent loop can trim them in promptfit's order
// (knowledge, vault, playbook, dependency previews) when the model's context
// is smaller than the budget.
// Context sources that fail are logged and left out: a build does not stop
// because the vault is busy.
func (e *Engine) assemble(ctx context.Context, b Build, t Task, deps []Task, upstream []string, feedback string, hooks Hooks) prompt {
	var p prompt
	var sb strings.Builder
	sb.WriteString(TaskHeader(t.ID, t.Title))
	fmt.Fprintf(&sb, "\nBuild: %s (phase %d)\n", b.Name, t.Phase)
	if d := strings.TrimSpace(t.Description); d != "" {
		// A description larger than the prompt can hold is cut here with a
		// marker (a 10 MB description once went out whole); the agent loop
		// fits the final prompt to the model's real context.
		d = promptfit.Cut(d, e.cfg.PromptTokens*3/4, promptfit.Estimator{}, "task description")
		sb.WriteString("\n" + d + "\n")
	}
	if feedback != "" {
		sb.WriteString("\nYour previous attempt at this task failed. Fix this and try again:\n")
		sb.WriteString(truncateRunes(feedback, 2000))
		sb.WriteByte('\n')
	}
	if a := strings.TrimSpace(t.Answer); a != "" {
		if q := strings.TrimSpace(t.Question); q != "" {
			sb.WriteString("\nYou asked the user: " + truncateRunes(q, 600) + "\n")
		}
		sb.WriteString("The user answered:\n" + truncateRunes(a, 2000) + "\n")
	}
	p.task = sb.String()

	if art := e.artifacts(deps); art != "" {
		p.extra = append(p.extra, art)
	}
	if hooks.Board != nil {
		block, err := hooks.Board.Context(ctx, BoardRequest{Board: b.BoardKey(), Task: t, Upstream: upstream})
		if err != nil {
			e.logf(t.BuildID, t.ID, "board: %v", err)
		} else if block = strings.TrimSpace(block); block != "" {
			p.extra = append(p.extra, block)
		}
	}
	if pc := e.d.Context; pc != nil {
		blocks, err := pc.Blocks(ctx, promptctx.Request{Task: t.Title + " " + t.Description, Agent: t.Agent, Tier: b.Tier,
			PromptTokens: e.cfg.PromptTokens, BuildID: idString(t.BuildID), TaskID: t.ID})
		for _, err := range unjoin(err) {
			e.logf(t.BuildID, t.ID, "%v", err)
		}
		if blocks.Cached {
			e.logf(t.BuildID, t.ID, "context: %s's vault and playbook blocks reused (their sources are unchanged since it last had this task)", t.Agent)
		}
		for _, block := range []string{blocks.Vault, blocks.Playbook, blocks.Knowledge} {
			if block != "" {
				p.extra = append(p.extra, block)
			}
		}
		p.vaultIDs, p.wisdomIDs = nodeIDs(blocks.IDs(promptctx.BlockVault)), nodeIDs(blocks.IDs(promptctx.BlockWisdom))
		p.ruleIDs, p.knowIDs = blocks.IDs(promptctx.BlockPlaybook), blocks.IDs(promptctx.BlockKnowledge)
	}
	if hooks.CodeMap != nil {
		// The map last: promptfit trims it before the playbook and the
		// dependency previews when the model's context is short.
		block, paths, err := hooks.CodeMap.Block(ctx, t.Title+" "+t.Description, t.Agent)
		if err != nil {
			e.logf(t.BuildID, t.ID, "code map: %v", err)
		} else if block = strings.TrimSpace(block); block != "" {
			p.extra = append(p.extra, block)
			p.mapIDs = paths
		}
	}
	if p.vaultIDs == nil {
		p.vaultIDs = []uint64{}
	}
	if p.wisdomIDs == nil {
		p.wisdomIDs = []uint64{}
	}
	if p.ruleIDs == nil {
		p.ruleIDs = []string{}
	}
	if p.knowIDs == nil {
		p.knowIDs = []string{}
	}
	p.tokens = vault.EstimateTokens(p.task)
	for _, x := range p.extra {
		p.tokens += vault.EstimateTokens(x)
	}
	return p
}

// artifacts renders the outputs of a task's dependencies: a preview of each
// inline (ArtifactInlineTokens in all), with the path of the full text.
func (e *Engine) artifacts(deps []Task) string {
	if len(deps) == 0 {
		return ""
	}
	per := max(ArtifactInlineTokens*4/len(deps), minPreviewChars)
	var sb strings.Builder
	sb.WriteString("<dependency_artifacts>\nOutputs of the tasks this one depends on (previews; the full text of each is at the path given, read it with readFile when you need more):\n")
	for _, d := range deps {
		out := strings.TrimSpace(d.Output)
		rel := d.OutputPath
		if r, err := filepath.Rel(e.cfg.Root, d.OutputPath); err == nil && d.OutputPath != "" {
			rel = filepath.ToSlash(r)
		}
		fmt.Fprintf(&sb, "\n## %s — %s (%s)\n", d.ID, d.Title, d.Agent)
		if rel != "" {
			fmt.Fprintf(&sb, "full output: %s (%d tokens)\n", rel, vault.EstimateTokens(out))
		}
		if out == "" {
			sb.WriteString("(no output)\n")
			continue
		}
		prev := truncateRunes(out, per)
		sb.WriteString(prev)
		if len(prev) < len(out) {
			sb.WriteString(" …[preview truncated]")
		}
		sb.WriteByte('\n')
	}
	sb.WriteString("</dependency_artifacts>")
	return sb.String()
}

// truncateRunes cuts s to at most n bytes on a rune boundary.
func truncateRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// unjoin splits an errors.Join into its errors (nil: none).
func unjoin(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// nodeIDs parses the vault node ids of provenance items.
func nodeIDs(ids []string) []uint64 {
	out := make([]uint64, 0, len(ids))
	for _, id := range ids {
		if n, err := strconv.ParseUint(id, 10, 64); err == nil {
			out = append(out, n)
		}
	}
	return out
}
