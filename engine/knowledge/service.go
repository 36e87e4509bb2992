package knowledge

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nova-dev/nova/engine/knowledge/docs"
	"github.com/nova-dev/nova/engine/knowledge/facts"
	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/vault"
)

// VaultSearcher is what knowledge needs of the taste vault (*vault.Vault).
type VaultSearcher interface {
	Search(ctx context.Context, query string, o vault.SearchOptions) ([]vault.Scored, error)
	Get(ctx context.Context, id uint64) (vault.Node, error)
}

// Options configures a Service.
type Options struct {
	// Vault returns the taste vault, or nil when there is none; it is
	// called on each search (the vault is built lazily by the facade).
	Vault func() VaultSearcher
	Facts *facts.Service
	Docs  *docs.Fetcher
	// LLM and SmallModel extract facts after builds (nil: no extraction).
	LLM        llm.Provider
	SmallModel string
	// SourceTimeout bounds each source of a search (default 2 s).
	SourceTimeout time.Duration
	// Logf receives diagnostics (nil: dropped).
	Logf func(format string, args ...any)
	// OnChange is told after the agent tools or a build's extraction wrote
	// facts ("facts") or docs ("docs") (nil: nobody).
	OnChange func(what string)
	// Dependencies are the project's direct dependencies (Go module paths,
	// npm package names: workspace.Stack.Dependencies): their docs weigh
	// more in a search than docs of libraries the project does not use.
	Dependencies []string
	// Foreign, when set, reports a vault node about another stack than the
	// project's (workspace.Stack.Foreign): it weighs less in a search.
	Foreign func(language string, tags []string) bool
}

// Service is nova's knowledge layer: one search over the vault, facts and
// docs, the agent tools, and the build hook.
type Service struct {
	vault      func() VaultSearcher
	facts      *facts.Service
	docs       *docs.Fetcher
	llm        llm.Provider
	smallModel string
	timeout    time.Duration
	logf       func(string, ...any)
	onChange   func(string)
	deps       []string
	foreign    func(string, []string) bool

	// used remembers the facts build tasks pulled with recall and
	// queryKnowledge, so that the task's outcome credits them too.
	usedMu sync.Mutex
	used   map[string]map[string]bool // "build/task" → fact ids
	order  []string
}

// maxTracked bounds the tasks whose tool-retrieved facts are remembered.
const maxTracked = 512

// noteUsed records facts a build task retrieved through a tool.
func (s *Service) noteUsed(buildID, taskID string, ids []string) {
	if buildID == "" || taskID == "" || len(ids) == 0 {
		return
	}
	k := buildID + "/" + taskID
	s.usedMu.Lock()
	defer s.usedMu.Unlock()
	if s.used == nil {
		s.used = map[string]map[string]bool{}
	}
	set, ok := s.used[k]
	if !ok {
		set = map[string]bool{}
		s.used[k] = set
		s.order = append(s.order, k)
		if len(s.order) > maxTracked {
			delete(s.used, s.order[0])
			s.order = s.order[1:]
		}
	}
	for _, id := range ids {
		set[id] = true
	}
}

// takeUsed returns and forgets the facts a task retrieved through tools.
func (s *Service) takeUsed(buildID, taskID string) []string {
	k := buildID + "/" + taskID
	s.usedMu.Lock()
	defer s.usedMu.Unlock()
	set := s.used[k]
	delete(s.used, k)
	out := make([]string, 0, len(set))
	for id := range set {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// New returns a service; every collaborator is optional.
func New(o Options) *Service {
	if o.Vault == nil {
		o.Vault = func() VaultSearcher { return nil }
	}
	if o.SourceTimeout <= 0 {
		o.SourceTimeout = 2 * time.Second
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	if o.OnChange == nil {
		o.OnChange = func(string) {}
	}
	return &Service{vault: o.Vault, facts: o.Facts, docs: o.Docs, llm: o.LLM, smallModel: o.SmallModel,
		timeout: o.SourceTimeout, logf: o.Logf, onChange: o.OnChange, deps: o.Dependencies, foreign: o.Foreign}
}

// Facts is the facts service (nil when off).
func (s *Service) Facts() *facts.Service { return s.facts }

// Docs is the docs fetcher (nil when off).
func (s *Service) Docs() *docs.Fetcher { return s.docs }

// Item is one piece of knowledge resolved from a reference (what a
// provenance link opens).
type Item struct {
	Ref    string `json:"ref"`
	Source string `json:"source"`
	Title  string `json:"title"`
	// Text is the fact, the node's content, or the cached documentation.
	Text string `json:"text"`
	// Fact, Node or Docs holds the full record of its kind.
	Fact *facts.Fact     `json:"fact,omitempty"`
	Node *vault.Node     `json:"node,omitempty"`
	Docs *docs.EntryInfo `json:"docs,omitempty"`
}

// Resolve opens a reference ("fact:f3", "vault:12", "docs:…"); unknown
// kinds wrap ErrInvalid, missing items the store's not-found error.
func (s *Service) Resolve(ctx context.Context, ref string) (Item, error) {
	kind, rest, _ := strings.Cut(strings.TrimSpace(ref), ":")
	switch kind {
	case "fact":
		if s.facts == nil {
			return Item{}, fmt.Errorf("%w: facts are off", ErrInvalid)
		}
		f, err := s.facts.Get(ctx, rest)
		if err != nil {
			return Item{}, err
		}
		return Item{Ref: "fact:" + f.ID, Source: SourceFacts, Title: firstLine(f.Content, 80), Text: f.Text(), Fact: &f}, nil
	case "vault":
		v := s.vault()
		id, err := strconv.ParseUint(rest, 10, 64)
		if v == nil || err != nil {
			return Item{}, fmt.Errorf("%w: %q is not a vault reference", ErrInvalid, ref)
		}
		n, err := v.Get(ctx, id)
		if err != nil {
			return Item{}, err
		}
		title := n.Title
		if title == "" {
			title = firstLine(n.Content, 80)
		}
		text := n.Content
		if n.Body != "" {
			text += "\n\n" + n.Body
		}
		return Item{Ref: ref, Source: SourceVault, Title: title, Text: text, Node: &n}, nil
	case "docs":
		if s.docs == nil {
			return Item{}, fmt.Errorf("%w: docs are off", ErrInvalid)
		}
		k, err := docs.ParseRef(ref)
		if err != nil {
			return Item{}, err
		}
		e, err := s.docs.Cache().Get(ctx, k)
		if err != nil {
			return Item{}, fmt.Errorf("docs %s: %w", ref, err)
		}
		info := docs.EntryInfo{Ref: ref, Source: e.Source, Library: e.Library, Topic: e.Topic, Version: e.Version,
			LibraryID: e.LibraryID, Title: e.Title, FetchedAt: e.FetchedAt, ExpiresAt: e.ExpiresAt, Tokens: e.Tokens, Bytes: len(e.Content)}
		return Item{Ref: ref, Source: SourceDocs, Title: e.Title, Text: e.Content, Docs: &info}, nil
	}
	return Item{}, fmt.Errorf("%w: %q is not a knowledge reference (fact:ID, vault:ID or docs:…)", ErrInvalid, ref)
}
