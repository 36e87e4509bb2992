package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/nova-dev/nova/engine/knowledge/docs"
	"github.com/nova-dev/nova/engine/knowledge/facts"
	"github.com/nova-dev/nova/engine/workspace"
	"github.com/nova-dev/nova/storage"
)

// knowledgeCounter counts what the workspace holds for knowledgeChecks:
// from the file opened read-only (dbCounter) or through the owning nova.
// A nil func: not counted (the database could not be read).
type knowledgeCounter struct {
	label string // where the facts counted live
	facts func() (facts.Counts, error)
	docs  func(ctx context.Context) (docs.Stats, error)
}

// dbCounter counts in db, opened read-only by checkDB (nil: unreadable).
func dbCounter(db *storage.DB) knowledgeCounter {
	if db == nil {
		return knowledgeCounter{}
	}
	return knowledgeCounter{
		label: "in the workspace",
		facts: func() (facts.Counts, error) { return facts.CountIn(db, false) },
		docs:  func(ctx context.Context) (docs.Stats, error) { return docs.NewCache(db, nil).Stats(ctx) },
	}
}

// knowledgeChecks are doctor's "facts" and "docs" lines: what the workspace
// holds (src: the file opened read-only, or through the owning nova),
// the user-level facts file, and where documentation comes from. Nothing is
// fetched: docs.context7.url is named, not probed (doctor stays offline
// apart from Ollama). A problem here is a warning: builds run without it.
func knowledgeChecks(ctx context.Context, src knowledgeCounter, cfg workspace.Config, getenv func(string) string) []Check {
	fc := Check{Name: "facts", OK: true}
	var parts []string
	if src.facts == nil {
		parts = append(parts, "workspace facts not counted (see database)")
	} else if c, err := src.facts(); err != nil {
		fc.Status = "warn"
		parts = append(parts, "workspace facts not counted: "+err.Error())
	} else {
		parts = append(parts, countFacts(c)+" "+src.label)
		if c.Damaged > 0 {
			fc.Status = "warn"
			parts = append(parts, fmt.Sprintf("%d stored facts could not be read", c.Damaged))
			fc.Hint = "they are left out of searches; restore a backup (`nova db backup` makes them) if facts are missing"
		}
		if c.Review > 0 && fc.Hint == "" {
			fc.Hint = "facts to review name files that changed: `nova facts keep ID` keeps one, `nova facts correct ID` fixes it"
		}
	}
	if path := facts.UserPath(getenv); path == "" {
		fc.Status = "warn"
		parts = append(parts, "no user-level facts (no NOVA_HOME, XDG_DATA_HOME or HOME)")
		fc.Hint = "set NOVA_HOME to keep facts that follow you across workspaces"
	} else if u, err := facts.CountUserFile(path); err != nil {
		fc.Status = "warn"
		parts = append(parts, "user-level facts unavailable")
		fc.Hint = strings.TrimPrefix(err.Error(), facts.ErrUserUnavailable.Error()+": ")
	} else {
		parts = append(parts, fmt.Sprintf("%d user-level in %s", u.Valid, path))
	}
	fc.Detail = strings.Join(parts, "; ")

	dc := Check{Name: "docs", OK: true}
	parts = parts[:0]
	if src.docs == nil {
		parts = append(parts, "cache not counted (see database)")
	} else if st, err := src.docs(ctx); err != nil {
		dc.Status = "warn"
		parts = append(parts, "cache not counted: "+err.Error())
	} else {
		p := fmt.Sprintf("%d cached", st.Entries)
		if st.Stale > 0 {
			p += fmt.Sprintf(" (%d stale, refreshed on their next fetch)", st.Stale)
		}
		parts = append(parts, p)
	}
	switch u := strings.TrimSpace(cfg.Docs.Context7.URL); {
	case u == "" || strings.EqualFold(u, "off"):
		parts = append(parts, "Context7 off: local docs and the cache only")
	default:
		p := "Context7 at " + u
		if cfg.Docs.Context7.APIKey != "" {
			p += " with an API key"
		}
		parts = append(parts, p)
	}
	dc.Detail = strings.Join(parts, "; ")
	return []Check{fc, dc}
}

// countFacts reads "3 valid (1 to review, 2 closed)".
func countFacts(c facts.Counts) string {
	s := fmt.Sprintf("%d valid", c.Valid)
	var more []string
	if c.Review > 0 {
		more = append(more, fmt.Sprintf("%d to review", c.Review))
	}
	if c.Closed > 0 {
		more = append(more, fmt.Sprintf("%d closed", c.Closed))
	}
	if len(more) > 0 {
		s += " (" + strings.Join(more, ", ") + ")"
	}
	return s
}
