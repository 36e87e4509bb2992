package rehearsal

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/nova-dev/nova/engine/failure"
	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/vault"
)

// approachBrief is what each approach asks of its branch.
var approachBrief = map[Approach]string{
	Minimal: "Take the MINIMAL approach: the smallest change that fully does the task. " +
		"Touch as few files and lines as possible; no new abstractions.",
	Idiomatic: "Take the IDIOMATIC approach: the change an experienced maintainer of this " +
		"codebase would write, following the language's and the project's conventions, " +
		"with clear names and types.",
	Defensive: "Take the DEFENSIVE approach: validate inputs, handle every error and edge " +
		"case explicitly, and add or update tests that prove the behaviour.",
}

// genInput is what one branch's generation needs.
type genInput struct {
	approach Approach
	round    int
	index    int
	system   string
	user     string
	injected vault.Injected
	ruleIDs  []string
}

type genOutput struct {
	branch  Branch
	skipped *Skipped
	tokens  int
}

// generate runs the branch calls concurrently, at most concurrency at once
// (a semaphore), and validates each reply. The outputs keep input order.
func (s *Service) generate(ctx context.Context, model string, concurrency int, ins []genInput) []genOutput {
	out := make([]genOutput, len(ins))
	sem := make(chan struct{}, max(1, concurrency))
	var wg sync.WaitGroup
	for i, in := range ins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				out[i] = genOutput{skipped: &Skipped{Approach: in.approach, Reason: ctx.Err().Error(), Kind: failure.Of(ctx.Err())}}
				return
			}
			defer func() { <-sem }()
			out[i] = s.generateOne(ctx, model, in)
		}()
	}
	wg.Wait()
	return out
}

func (s *Service) generateOne(ctx context.Context, model string, in genInput) genOutput {
	var p proposal
	req := llm.ChatRequest{
		Model: model,
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: in.system},
			{Role: llm.RoleUser, Content: in.user},
		},
		Timeout:   s.CallTimeout,
		MeterKeys: []string{"rehearsal"},
	}
	res, err := llm.Structured(ctx, s.LLM, req, []byte(branchSchema), &p)
	tokens := res.PromptTokens + res.EvalTokens
	if err != nil {
		reason := err.Error()
		if errors.Is(err, context.DeadlineExceeded) {
			reason = "the model call timed out: " + reason
		}
		return genOutput{skipped: &Skipped{Approach: in.approach, Reason: reason, Kind: failure.Of(err)}, tokens: tokens}
	}
	files, err := validate(s.Root, p)
	if err != nil {
		return genOutput{skipped: &Skipped{Approach: in.approach, Reason: err.Error(), Kind: failure.InvalidOutput}, tokens: tokens}
	}
	return genOutput{tokens: tokens, branch: Branch{
		ID:           fmt.Sprintf("r%d-%s", in.round, in.approach),
		Round:        in.round,
		Approach:     in.approach,
		Description:  strings.TrimSpace(p.Description),
		Files:        files,
		AgentNotes:   strings.TrimSpace(p.AgentNotes),
		VaultNodeIDs: nonNil(in.injected.NodeIDs),
		WisdomIDs:    nilIfEmpty(in.injected.WisdomIDs),
		RuleIDs:      in.ruleIDs,
		Tokens:       tokens,
	}}
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// systemPrompt is the rehearsal prompt for one approach.
func systemPrompt(agent string, a Approach, blocks []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "You are %s, an agent of nova, writing ONE candidate implementation of a task. "+
		"nova generates several candidates with different approaches, scores them and lets the user choose.\n\n", cmpOr(agent, "a coding agent"))
	b.WriteString(approachBrief[a])
	b.WriteString("\n\nReply with one JSON object: description (one paragraph: what this candidate does and why), " +
		"files (each with path relative to the project root and the COMPLETE new content as proposedContent), " +
		"and agentNotes (your honest assessment: say whether you tested or are confident, and name any TODO, " +
		"uncertainty or shortcut). Paths must stay inside the project.\n")
	for _, blk := range blocks {
		if strings.TrimSpace(blk) == "" {
			continue
		}
		b.WriteString("\n")
		b.WriteString(strings.TrimSpace(blk))
		b.WriteString("\n")
	}
	return b.String()
}

// userPrompt states the task.
func userPrompt(title, description string) string {
	var b strings.Builder
	b.WriteString("<task>\n")
	if title != "" {
		b.WriteString("Title: " + title + "\n")
	}
	b.WriteString(strings.TrimSpace(description))
	b.WriteString("\n</task>")
	return b.String()
}

func cmpOr(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}

func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}
