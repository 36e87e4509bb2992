package knowledge

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/knowledge/facts"
	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/textindex"
)

// Extraction bounds (issue: at most 5 facts, confidence ≥ 0.6).
const (
	MaxExtracted         = 5
	MinExtractConfidence = 0.6
	// extractTimeout bounds the model call after a build.
	extractTimeout = 2 * time.Minute
	// maxExtractInput bounds the build summary shown to the model.
	maxExtractInput = 8000
	// dupThreshold: a fact this similar (word Jaccard) to a visible one is
	// not recorded again.
	dupThreshold = 0.8
)

// extractSchema is the structured output asked of the small model.
const extractSchema = `{"type":"object","properties":{"facts":{"type":"array","maxItems":5,"items":{"type":"object",` +
	`"properties":{"content":{"type":"string","minLength":8,"maxLength":400},"confidence":{"type":"number","minimum":0,"maximum":1},` +
	`"tags":{"type":"array","maxItems":5,"items":{"type":"string","maxLength":40}}},"required":["content","confidence"]}}},"required":["facts"]}`

const extractSystem = "You read the results of a finished software build and write down what the team learned about " +
	"this project that will still be true next week: conventions it follows, commands that work, where things live, " +
	"constraints and pitfalls the tasks ran into. Each fact is one plain sentence that makes sense on its own, without " +
	"this build's context. Give each a confidence from 0 to 1 and up to 5 short tags. Write at most 5 facts, and none " +
	"rather than guesses or restatements of the task list. Never include secrets, keys or personal data."

// ExtractFacts asks the small model for durable facts in a finished
// build's results and records those with confidence ≥ 0.6 (at most 5) at
// build scope, skipping near-duplicates of facts already visible there.
// Without a model it does nothing.
func (s *Service) ExtractFacts(ctx context.Context, b build.Build, tasks []build.Task) ([]facts.Fact, error) {
	if s.facts == nil || s.llm == nil || s.smallModel == "" || len(tasks) == 0 {
		return nil, nil
	}
	var doc struct {
		Facts []struct {
			Content    string   `json:"content"`
			Confidence float64  `json:"confidence"`
			Tags       []string `json:"tags"`
		} `json:"facts"`
	}
	_, err := llm.Structured(ctx, s.llm, llm.ChatRequest{
		Model: s.smallModel,
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: extractSystem},
			{Role: llm.RoleUser, Content: extractPrompt(b, tasks)},
		},
		Timeout: extractTimeout,
	}, []byte(extractSchema), &doc)
	if err != nil {
		return nil, err
	}
	buildID := strconv.FormatUint(b.ID, 10)
	scope := facts.Build(buildID)
	var added []facts.Fact
	for _, f := range doc.Facts {
		if len(added) >= MaxExtracted {
			break
		}
		if f.Confidence < MinExtractConfidence || f.Confidence > 1 {
			continue
		}
		if s.isDuplicate(ctx, f.Content, scope, buildID) {
			continue
		}
		c := f.Confidence
		nf, err := s.facts.Add(ctx, facts.NewFact{Content: f.Content, Scope: scope, Confidence: &c, Tags: f.Tags,
			Source: facts.Source{Type: facts.SourceBuild, BuildID: buildID}})
		if err != nil {
			if errors.Is(err, facts.ErrInvalid) {
				continue // a malformed fact from the model is skipped
			}
			return added, err
		}
		added = append(added, nf)
	}
	return added, nil
}

// isDuplicate reports whether a fact nearly the same is already visible at
// the build's scope.
func (s *Service) isDuplicate(ctx context.Context, content string, scope facts.Scope, buildID string) bool {
	res, err := s.facts.Search(ctx, content, facts.SearchOptions{Scope: scope, Build: buildID, Limit: 3})
	if err != nil {
		return false
	}
	for _, f := range res.Facts {
		if textindex.Jaccard(f.Content, content) >= dupThreshold {
			return true
		}
	}
	return false
}

// extractPrompt summarises a build for the model: its outcome and each
// task's title, agent, status and an excerpt of its output or failure.
func extractPrompt(b build.Build, tasks []build.Task) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Build %q finished %s: %d of %d tasks done.\n\nTasks:\n", b.Name, b.Status, b.Counts[build.TaskDone], b.Total)
	per := max(maxExtractInput/max(len(tasks), 1), 200)
	for _, t := range tasks {
		fmt.Fprintf(&sb, "\n* %s — %s (agent %s, %s)\n", t.ID, firstLine(t.Title, 120), t.Agent, t.Status)
		body := strings.TrimSpace(t.Output)
		if t.Status == build.TaskBlocked && t.Reason != "" {
			body = "Failed: " + t.Reason + "\n" + body
		}
		if body != "" {
			sb.WriteString(cutRunes(body, per) + "\n")
		}
		if sb.Len() > maxExtractInput*2 {
			sb.WriteString("\n(more tasks left out)\n")
			break
		}
	}
	sb.WriteString("\nReturn the facts as JSON.")
	return sb.String()
}

func cutRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + " …"
}
