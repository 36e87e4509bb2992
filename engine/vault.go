package engine

import (
	"bufio"
	"bytes"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/engine/workspace"
	"github.com/nova-dev/nova/internal/safefile"
)

// vaultState is the taste vault of a Local, built on first use.
type vaultState struct {
	mu sync.Mutex
	v  *vault.Vault

	identityOnce sync.Once
	identity     string

	// The project's stack (projectStack), detected once.
	stackOnce sync.Once
	stack     workspace.Stack
}

// Identity is the workspace identity (config userId, or git's user.email
// when userId is the default "local"): who promotes, backs and reports
// global wisdom from this workspace. Wisdom records it as a pseudonymous
// author id; it is never taken from a flag.
func (l *core) Identity() string {
	l.vs.identityOnce.Do(func() { l.vs.identity = workspace.Identity(l.ws.Root, l.Config().UserID) })
	return l.vs.identity
}

// Vault returns the workspace's taste vault. The first call builds it, which
// does no I/O beyond reading go.mod for project terms: engine.Open stays
// fast, listings and counts come straight from bbolt, and the full-text index
// is built on the first search. A screen that will search soon (the vault
// browser) can call Warm() to build it in the background. Read-only
// workspaces can read and search; writes return storage.ErrReadOnly.
func (l *core) Vault() *vault.Vault {
	l.vs.mu.Lock()
	defer l.vs.mu.Unlock()
	if l.vs.v == nil {
		cfg := l.Config()
		opts := vault.Options{
			UserID:       cfg.UserID,
			IdentityFunc: l.Identity, // asks git: only when wisdom needs it, not for every read
			Tier:         cfg.Tier,
			OptInGlobal:  cfg.Vault.OptInGlobal,
			Now:          l.now,
			ProjectTerms: projectTerms(l.ws.Root),
			Foreign:      l.projectStack().Foreign,
			OnChange: func(c vault.Change) {
				l.Publish(Event{Type: EventChanged, Topic: TopicVault, Text: c.Op})
				l.publishCapEvents(c)
			},
		}
		if cfg.Models.Embed != "" {
			// Embedding re-rank is best effort: one attempt and no backoff,
			// so an absent Ollama never slows a search down.
			if ec, err := llm.New(llm.Config{Host: cfg.Ollama.Host, Retries: -1, DialTimeout: time.Second}); err == nil {
				opts.Embedder, opts.EmbedModel = ec, cfg.Models.Embed
			}
		}
		l.vs.v = vault.New(l.db, opts)
		l.attachTeamWisdom(l.vs.v)
	}
	return l.vs.v
}

// publishCapEvents reports what the tier cap did in one write, as counts:
// nodes moved to the archive, learned nodes left out.
func (l *core) publishCapEvents(c vault.Change) {
	cfg := l.Config()
	limit := vault.TierLimits(cfg.Tier).MaxNodes
	if n := len(c.Archived); n > 0 {
		l.Publish(Event{Type: EventNodesArchived, Topic: TopicVault, Done: n, Nodes: c.Archived,
			Text: fmt.Sprintf("%d vault node(s) moved to the archive to make room (the %s tier keeps %d nodes); see `nova vault archive list`", n, cfg.Tier, limit)})
	}
	if c.NotStored > 0 {
		l.Publish(Event{Type: EventNodesNotStored, Topic: TopicVault, Done: c.NotStored,
			Text: fmt.Sprintf("%d learned node(s) not stored: the vault is at the %s tier's %d-node cap and every stored node is at least as confident", c.NotStored, cfg.Tier, limit)})
	}
}

// Wisdom returns the global-wisdom pipeline of the workspace's vault.
func (l *core) Wisdom() *vault.Wisdom { return l.Vault().Wisdom() }

// closeVault stops the vault's background work before the database closes.
func (l *core) closeVault() {
	l.vs.mu.Lock()
	v := l.vs.v
	l.vs.mu.Unlock()
	if v != nil {
		_ = v.Close()
	}
}

// projectTerms are words that identify this project (the workspace
// directory's name, the Go module path and its last element), which the
// wisdom sanitizer replaces before sharing.
func projectTerms(root string) []string {
	var terms []string
	add := func(t string) {
		t = strings.TrimSpace(t)
		if len(t) >= 3 && !genericDirNames[strings.ToLower(t)] {
			for _, have := range terms {
				if strings.EqualFold(have, t) {
					return
				}
			}
			terms = append(terms, t)
		}
	}
	add(filepath.Base(root))
	if data, err := safefile.ReadFile(filepath.Join(root, "go.mod"), 1<<20); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			if mod, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
				mod = strings.Trim(strings.TrimSpace(mod), `"`)
				add(mod)
				add(path.Base(mod))
				break
			}
		}
	}
	return terms
}

var genericDirNames = map[string]bool{
	"src": true, "app": true, "apps": true, "project": true, "projects": true, "work": true,
	"code": true, "repo": true, "main": true, "home": true, "tmp": true, "workspace": true,
}
