package knowledge

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/knowledge/docs"
	"github.com/nova-dev/nova/engine/knowledge/facts"
	"github.com/nova-dev/nova/engine/promptctx"
	"github.com/nova-dev/nova/engine/untrusted"
	"github.com/nova-dev/nova/engine/vault"
)

// MinHookScore: weaker hits are not worth a build prompt's tokens (scores
// are relative to each source's best match, weighed by confidence).
const MinHookScore = 0.1

var (
	_ promptctx.KnowledgeSource = (*Service)(nil)
	_ build.KnowledgeLearner    = (*Service)(nil)
)

// hookHeader opens the block a build prompt gets.
const hookHeader = "<knowledge>\nWhat this team knows that bears on the task: recorded facts, documentation of the libraries involved, proven patterns. " +
	"Rely on it over memory; cite the id in brackets when you do. If an item is wrong, say so (tool `correct` for facts).\n"

// Hits implements promptctx.KnowledgeSource: the facts visible to the agent in
// its build, cached and local docs, and imported patterns not already in
// the prompt, best first, within budgetTokens. The ids are returned as
// provenance; the facts are counted as retrieved.
func (s *Service) Hits(ctx context.Context, q promptctx.KnowledgeQuery, budgetTokens int) (string, []string, error) {
	if budgetTokens <= 0 || strings.TrimSpace(q.Text) == "" {
		return "", nil, nil
	}
	scope := facts.Build(q.BuildID)
	if q.Agent != "" {
		scope = facts.Agent(q.Agent)
	} else if q.BuildID == "" {
		scope = facts.Workspace()
	}
	res, err := s.Search(ctx, q.Text, SearchOptions{Limit: 12, Scope: scope, Build: q.BuildID,
		VaultTypes: []vault.NodeType{vault.Pattern}, ExcludeVault: q.ExcludeVault})
	if err != nil {
		return "", nil, err
	}
	for _, w := range res.Warnings {
		s.logf("knowledge: %s", w)
	}
	var b strings.Builder
	b.WriteString(hookHeader)
	// The hits (facts, module docs, Context7 pages, patterns) are data: they
	// sit in an untrusted block that their text cannot close.
	open, closing := untrusted.Open("knowledge hits")+"\n", untrusted.Close()+"\n"
	b.WriteString(open)
	used := docs.EstimateTokens(hookHeader) + docs.EstimateTokens(open+closing) + docs.EstimateTokens("</knowledge>")
	var ids, factIDs []string
	for _, h := range res.Hits {
		if h.Score < MinHookScore {
			break
		}
		line := hookLine(h)
		cost := docs.EstimateTokens(line)
		if used+cost > budgetTokens {
			continue // a shorter one further down may still fit
		}
		b.WriteString(line)
		used += cost
		ids = append(ids, h.Ref)
		if id, ok := strings.CutPrefix(h.Ref, "fact:"); ok {
			factIDs = append(factIDs, id)
		}
	}
	if len(ids) == 0 {
		return "", nil, nil
	}
	b.WriteString(closing)
	b.WriteString("</knowledge>")
	if s.facts != nil && len(factIDs) > 0 {
		if err := s.facts.MarkRetrieved(ctx, factIDs); err != nil && !errors.Is(err, context.Canceled) {
			s.logf("knowledge: count retrievals: %v", err)
		}
	}
	return b.String(), ids, nil
}

func hookLine(h Hit) string {
	return untrusted.Neutralize(fmt.Sprintf("- [%s] %s: %s\n", h.Ref, h.Title, h.Snippet))
}

// KnowledgeAfterTask implements build.KnowledgeLearner: the facts an
// attempt used (injected into its prompt, or retrieved by its agent with
// recall or queryKnowledge) are credited helpful when it passed and not
// helpful when its work failed; infrastructure failures are never held
// against them.
func (s *Service) KnowledgeAfterTask(ctx context.Context, o build.KnowledgeOutcome) error {
	if s.facts == nil {
		return nil
	}
	// The facts injected into the prompt and those the agent pulled itself.
	ids := s.takeUsed(o.BuildID, o.TaskID)
	for _, ref := range o.IDs {
		if id, ok := strings.CutPrefix(ref, "fact:"); ok {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 || (!o.Passed && !o.Kind.Learnable()) {
		return nil
	}
	archived, err := s.facts.RecordOutcome(ctx, ids, o.Passed)
	if len(archived) > 0 {
		s.logf("knowledge: archived unhelpful facts %s", strings.Join(archived, ", "))
	}
	return err
}

// KnowledgeAfterBuild implements build.KnowledgeLearner: it extracts facts
// from the build's results at build scope, then sweeps (archives unhelpful
// and unused facts, flags facts naming changed files).
func (s *Service) KnowledgeAfterBuild(ctx context.Context, b build.Build, tasks []build.Task) error {
	if s.facts == nil {
		return nil
	}
	var errs []error
	if added, err := s.ExtractFacts(ctx, b, tasks); err != nil {
		errs = append(errs, fmt.Errorf("extract facts: %w", err))
	} else if len(added) > 0 {
		s.onChange("facts")
		s.logf("knowledge: learned %d fact(s) from build %d at build:%d (promote them with `nova facts promote`)", len(added), b.ID, b.ID)
	}
	if added, err := s.LearnTroubleshooting(ctx, b, tasks); err != nil {
		errs = append(errs, fmt.Errorf("learn troubleshooting: %w", err))
	} else if len(added) > 0 {
		s.onChange("facts")
		s.logf("knowledge: learned %d troubleshooting entr%s from retries that fixed a failure in build %d", len(added), map[bool]string{true: "y", false: "ies"}[len(added) == 1], b.ID)
	}
	if rep, err := s.facts.Sweep(ctx); err != nil {
		errs = append(errs, err)
	} else if len(rep.Archived)+len(rep.Flagged) > 0 {
		s.onChange("facts")
		s.logf("knowledge: archived %d fact(s), flagged %d for review", len(rep.Archived), len(rep.Flagged))
	}
	return errors.Join(errs...)
}
