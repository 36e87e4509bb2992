package knowledge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nova-dev/nova/engine/knowledge/docs"
	"github.com/nova-dev/nova/engine/knowledge/facts"
	"github.com/nova-dev/nova/engine/tools"
)

// Tool names.
const (
	ToolFetchDocs      = "fetchDocs"
	ToolQueryKnowledge = "queryKnowledge"
	ToolRecall         = "recall"
	ToolRemember       = "remember"
	ToolCorrect        = "correct"
)

// Output caps of the knowledge tools (in tokens, ceil(chars/4)); they are
// larger than budgets.toolOutput on purpose (decision "Budgets").
const (
	FetchDocsTokens      = 2000
	QueryKnowledgeTokens = 1500
	// DefaultQueryResults / MaxQueryResults bound queryKnowledge.
	DefaultQueryResults = 5
	MaxQueryResults     = 20
)

// Tools returns the knowledge tools, offered to every agent (AllAgents):
// fetchDocs, queryKnowledge, recall, remember and correct. None of them
// touches workspace files.
func (s *Service) Tools() []tools.Tool {
	return []tools.Tool{
		{
			Name: ToolFetchDocs,
			Description: "Fetch documentation for a library before writing code that uses it. The project's own Go modules and npm packages " +
				"are read locally at the exact version it uses; other libraries come from Context7. topic narrows it (a symbol, a subpackage, " +
				"a feature such as \"hooks\"). Never fails: when nothing is found it says so and you carry on.",
			Schema: json.RawMessage(`{"type":"object","properties":{
				"library":{"type":"string","minLength":1,"maxLength":512,"description":"library or package, e.g. react, github.com/stretchr/testify, net/http, zod"},
				"topic":{"type":"string","maxLength":512,"description":"what you need from it, e.g. assert, useEffect, routing"}},
				"required":["library"],"additionalProperties":false}`),
			Timeout:   docs.DefaultTimeout + 5*time.Second,
			AllAgents: true,
			OutputCap: FetchDocsTokens*4 + 400,
			Run:       s.runFetchDocs,
		},
		{
			Name: ToolQueryKnowledge,
			Description: "Search everything the team knows at once: recorded facts, the taste vault (patterns, past decisions, mistakes) and " +
				"cached documentation. Use it before a non-trivial change to find prior art and constraints.",
			Schema: json.RawMessage(`{"type":"object","properties":{
				"query":{"type":"string","minLength":1,"maxLength":1000,"description":"what you are looking for, in words"},
				"maxResults":{"type":"integer","minimum":1,"maximum":20,"description":"how many results (default 5)"}},
				"required":["query"],"additionalProperties":false}`),
			Timeout:   10 * time.Second,
			AllAgents: true,
			OutputCap: QueryKnowledgeTokens * 4,
			Run:       s.runQueryKnowledge,
		},
		{
			Name:        ToolRecall,
			Description: "Recall facts recorded about this project (by the user, by earlier builds, by agents). Narrow scopes also see broader ones.",
			Schema: json.RawMessage(`{"type":"object","properties":{
				"query":{"type":"string","minLength":1,"maxLength":1000},
				"scope":{"type":"string","enum":["agent","build","workspace","user"],"description":"how wide to look (default agent: yours, this build's, the workspace's and the user's)"}},
				"required":["query"],"additionalProperties":false}`),
			Timeout:   5 * time.Second,
			AllAgents: true,
			Run:       s.runRecall,
		},
		{
			Name: ToolRemember,
			Description: "Record a fact worth knowing later (a convention, a command that works, a pitfall). It is kept at this build's scope " +
				"(or yours outside a build); the user can promote it. One plain sentence.",
			Schema: json.RawMessage(`{"type":"object","properties":{
				"fact":{"type":"string","minLength":1,"maxLength":2000},
				"tags":{"type":"array","maxItems":12,"items":{"type":"string","maxLength":40}},
				"confidence":{"type":"number","minimum":0,"maximum":1,"description":"how sure you are (default 0.7)"}},
				"required":["fact"],"additionalProperties":false}`),
			Timeout:   5 * time.Second,
			AllAgents: true,
			Run:       s.runRemember,
		},
		{
			Name: ToolCorrect,
			Description: "Mark a fact as wrong (by its id, e.g. f12) with the reason, and optionally give the corrected statement. " +
				"The old fact is kept in the history, never deleted.",
			Schema: json.RawMessage(`{"type":"object","properties":{
				"factId":{"type":"string","minLength":1,"maxLength":40},
				"reason":{"type":"string","minLength":1,"maxLength":500},
				"replacement":{"type":"string","maxLength":2000}},
				"required":["factId","reason"],"additionalProperties":false}`),
			Timeout:   5 * time.Second,
			AllAgents: true,
			Run:       s.runCorrect,
		},
	}
}

// Register adds the knowledge tools to a registry.
func (s *Service) Register(r *tools.Registry) error {
	for _, t := range s.Tools() {
		if err := r.Register(t); err != nil {
			return err
		}
	}
	return nil
}

func decode(args json.RawMessage, v any) error {
	if err := json.Unmarshal(args, v); err != nil {
		return fmt.Errorf("%w: %w", tools.ErrInvalidArgs, err)
	}
	return nil
}

func (s *Service) runFetchDocs(ctx context.Context, _ *tools.Env, args json.RawMessage) (tools.Output, error) {
	var in struct{ Library, Topic string }
	if err := decode(args, &in); err != nil {
		return tools.Output{}, err
	}
	if s.docs == nil {
		return tools.Output{Text: docs.Unavailable(docs.CleanName(in.Library), docs.CleanName(in.Topic))}, nil
	}
	r, err := s.docs.Fetch(ctx, in.Library, in.Topic, docs.FetchOptions{MaxTokens: FetchDocsTokens})
	if errors.Is(err, context.Canceled) {
		return tools.Output{}, err
	}
	if !r.Available {
		// Never blocks the agent: the fallback text is the answer.
		return tools.Output{Text: r.Content}, nil
	}
	if r.Source == docs.FromNetwork || r.Source == docs.FromLocal {
		s.onChange("docs")
	}
	return tools.Output{Text: docsHeader(r) + r.Content}, nil
}

func docsHeader(r docs.Result) string {
	what := r.Library
	if r.Topic != "" {
		what += " (" + r.Topic + ")"
	}
	var notes []string
	switch r.Source {
	case docs.FromLocal:
		notes = append(notes, "read locally")
		if r.Version != "" {
			notes = append(notes, "version "+r.Version)
		}
	case docs.FromCache:
		notes = append(notes, "cached "+r.FetchedAt.UTC().Format("2006-01-02"))
	case docs.FromNetwork:
		notes = append(notes, "fetched now")
	}
	if r.Stale {
		notes = append(notes, "stale: the docs service could not be reached to refresh it")
	}
	if r.Truncated {
		notes = append(notes, "cut to the budget")
	}
	return fmt.Sprintf("Documentation for %s [%s; %s]\n\n", what, strings.Join(notes, ", "), r.Ref)
}

// factScope is where an agent's recall stands and where remember writes.
func factScope(env *tools.Env) (facts.Scope, string) {
	agent := ""
	if env != nil {
		agent = env.Agent
	}
	build := ""
	if env != nil {
		build = env.BuildID
	}
	if agent == "" {
		if build != "" {
			return facts.Build(build), build
		}
		return facts.Workspace(), ""
	}
	return facts.Agent(agent), build
}

func (s *Service) runQueryKnowledge(ctx context.Context, env *tools.Env, args json.RawMessage) (tools.Output, error) {
	var in struct {
		Query      string
		MaxResults int
	}
	if err := decode(args, &in); err != nil {
		return tools.Output{}, err
	}
	if in.MaxResults <= 0 {
		in.MaxResults = DefaultQueryResults
	}
	in.MaxResults = min(in.MaxResults, MaxQueryResults)
	scope, build := factScope(env)
	res, err := s.Search(ctx, in.Query, SearchOptions{Limit: in.MaxResults, Scope: scope, Build: build})
	if err != nil {
		return tools.Output{}, err
	}
	var ids []string
	for _, h := range res.Hits {
		if id, ok := strings.CutPrefix(h.Ref, "fact:"); ok {
			ids = append(ids, id)
		}
	}
	s.retrieved(ctx, env, ids)
	return tools.Output{Text: FormatForPrompt(res, QueryKnowledgeTokens)}, nil
}

// retrieved counts facts handed to an agent and, inside a build task,
// remembers them for the task's outcome.
func (s *Service) retrieved(ctx context.Context, env *tools.Env, ids []string) {
	if s.facts == nil || len(ids) == 0 {
		return
	}
	if err := s.facts.MarkRetrieved(ctx, ids); err != nil && !errors.Is(err, context.Canceled) {
		s.logf("knowledge: count retrievals: %v", err)
	}
	if env != nil {
		s.noteUsed(env.BuildID, env.TaskID, ids)
	}
}

// FormatForPrompt renders a search result for a model within maxTokens,
// always keeping at least the first hit.
func FormatForPrompt(res Result, maxTokens int) string {
	var b strings.Builder
	if len(res.Hits) == 0 {
		fmt.Fprintf(&b, "No knowledge found for %q. Try other words, recall for facts, or fetchDocs for a library's documentation.", res.Query)
	} else {
		counts := map[string]int{}
		for _, h := range res.Hits {
			counts[h.Source]++
		}
		var parts []string
		for _, src := range AllSources {
			if counts[src] > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", src, counts[src]))
			}
		}
		fmt.Fprintf(&b, "Knowledge for %q (%d results: %s):\n", res.Query, len(res.Hits), strings.Join(parts, ", "))
		for i, h := range res.Hits {
			entry := fmt.Sprintf("\n[%d] %s — %s, score %.2f, %s\n%s\n", i+1, h.Title, h.Source, h.Score, h.Ref, h.Snippet)
			if i > 0 && docs.EstimateTokens(b.String()+entry) > maxTokens-40 {
				fmt.Fprintf(&b, "\n(%d more results left out to stay within %d tokens)\n", len(res.Hits)-i, maxTokens)
				break
			}
			b.WriteString(entry)
		}
	}
	for _, w := range res.Warnings {
		b.WriteString("\nnote: " + w)
	}
	text, _ := docs.Truncate(b.String(), maxTokens)
	return text
}

func (s *Service) runRecall(ctx context.Context, env *tools.Env, args json.RawMessage) (tools.Output, error) {
	var in struct{ Query, Scope string }
	if err := decode(args, &in); err != nil {
		return tools.Output{}, err
	}
	if s.facts == nil {
		return tools.Output{Text: "No facts are recorded in this workspace."}, nil
	}
	scope, build := factScope(env)
	switch in.Scope {
	case "build":
		if build != "" {
			scope = facts.Build(build)
		} else {
			scope = facts.Workspace()
		}
	case "workspace":
		scope = facts.Workspace()
	case "user":
		scope = facts.User()
	}
	res, err := s.facts.Search(ctx, in.Query, facts.SearchOptions{Scope: scope, Build: build, Limit: 10})
	if err != nil {
		return tools.Output{}, err
	}
	var b strings.Builder
	if len(res.Facts) == 0 {
		fmt.Fprintf(&b, "No facts found for %q (searched %s and broader scopes).", in.Query, scope)
	} else {
		ids := make([]string, 0, len(res.Facts))
		fmt.Fprintf(&b, "Facts for %q:\n", in.Query)
		for _, f := range res.Facts {
			fmt.Fprintf(&b, "- [%s] (%s, confidence %.2f, since %s) %s", f.ID, f.Scope, f.Confidence, f.ValidFrom.Format("2006-01-02"), f.Text())
			if f.Review != "" {
				fmt.Fprintf(&b, " (to review: %s)", f.Review)
			}
			b.WriteByte('\n')
			ids = append(ids, f.ID)
		}
		s.retrieved(ctx, env, ids)
	}
	for _, w := range res.Warnings {
		b.WriteString("\nnote: " + w)
	}
	return tools.Output{Text: b.String()}, nil
}

func (s *Service) runRemember(ctx context.Context, env *tools.Env, args json.RawMessage) (tools.Output, error) {
	var in struct {
		Fact       string
		Tags       []string
		Confidence *float64
	}
	if err := decode(args, &in); err != nil {
		return tools.Output{}, err
	}
	if s.facts == nil {
		return tools.Output{}, errors.New("facts are not available in this workspace")
	}
	scope, build := factScope(env)
	if build != "" {
		scope = facts.Build(build)
	}
	src := facts.Source{Type: facts.SourceAgent}
	if env != nil {
		src.Agent, src.BuildID, src.TaskID = env.Agent, env.BuildID, env.TaskID
	}
	f, err := s.facts.Add(ctx, facts.NewFact{Content: in.Fact, Scope: scope, Source: src, Confidence: in.Confidence, Tags: in.Tags})
	if err != nil {
		return tools.Output{}, err
	}
	s.onChange("facts")
	return tools.Output{Text: fmt.Sprintf("Remembered as %s at %s (confidence %.2f).", f.ID, f.Scope, f.Confidence)}, nil
}

func (s *Service) runCorrect(ctx context.Context, env *tools.Env, args json.RawMessage) (tools.Output, error) {
	var in struct{ FactID, Reason, Replacement string }
	if err := decode(args, &in); err != nil {
		return tools.Output{}, err
	}
	if s.facts == nil {
		return tools.Output{}, errors.New("facts are not available in this workspace")
	}
	src := facts.Source{Type: facts.SourceAgent}
	if env != nil {
		src.Agent, src.BuildID, src.TaskID = env.Agent, env.BuildID, env.TaskID
	}
	c, err := s.facts.Correct(ctx, in.FactID, in.Reason, in.Replacement, src)
	if err != nil {
		return tools.Output{}, err
	}
	s.onChange("facts")
	text := fmt.Sprintf("Fact %s invalidated: %s.", c.Old.ID, strings.TrimRight(c.Old.Reason, "."))
	if c.New != nil {
		text += fmt.Sprintf(" Replacement recorded as %s.", c.New.ID)
	}
	return tools.Output{Text: text}, nil
}
