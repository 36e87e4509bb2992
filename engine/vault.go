package engine

import (
	"bufio"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/vault"
)

// vaultState is the taste vault of a Local, built on first use.
type vaultState struct {
	mu sync.Mutex
	v  *vault.Vault
}

// Vault returns the workspace's taste vault. The first call builds it, which
// does no I/O beyond reading go.mod for project terms: engine.Open stays
// fast, listings and counts come straight from bbolt, and the full-text index
// is built on the first search. A screen that will search soon (the vault
// browser) can call Warm() to build it in the background. Read-only
// workspaces can read and search; writes return storage.ErrReadOnly.
func (l *Local) Vault() *vault.Vault {
	l.vs.mu.Lock()
	defer l.vs.mu.Unlock()
	if l.vs.v == nil {
		cfg := l.Config()
		opts := vault.Options{
			UserID:       cfg.UserID,
			Tier:         cfg.Tier,
			OptInGlobal:  cfg.Vault.OptInGlobal,
			Now:          l.now,
			ProjectTerms: projectTerms(l.ws.Root),
			OnChange: func(c vault.Change) {
				l.Publish(Event{Type: EventChanged, Topic: TopicVault, Text: c.Op})
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
	}
	return l.vs.v
}

// Wisdom returns the global-wisdom pipeline of the workspace's vault.
func (l *Local) Wisdom() *vault.Wisdom { return l.Vault().Wisdom() }

// closeVault stops the vault's background work before the database closes.
func (l *Local) closeVault() {
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
	if f, err := os.Open(filepath.Join(root, "go.mod")); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if mod, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
				mod = strings.Trim(strings.TrimSpace(mod), `"`)
				add(mod)
				add(path.Base(mod))
				break
			}
		}
		_ = f.Close()
	}
	return terms
}

var genericDirNames = map[string]bool{
	"src": true, "app": true, "apps": true, "project": true, "projects": true, "work": true,
	"code": true, "repo": true, "main": true, "home": true, "tmp": true, "workspace": true,
}
