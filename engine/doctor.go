package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/engine/workspace"
	"github.com/nova-dev/nova/storage"
)

// Check is one line of `nova doctor`.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Status string `json:"status"` // pass | warn | fail | skip
	Detail string `json:"detail"`
	Hint   string `json:"hint,omitempty"`
}

// DoctorReport is the result of Doctor.
type DoctorReport struct {
	Workspace string       `json:"workspace"`
	OK        bool         `json:"ok"`
	Checks    []Check      `json:"checks"`
	Ollama    OllamaStatus `json:"ollama"`
	// Author is the pseudonymous author id of the workspace identity (what
	// wisdom bundles carry; never the identity itself, which may be an
	// e-mail).
	Author string `json:"author,omitempty"`
}

// DoctorOptions says where to look.
type DoctorOptions struct {
	Explicit string // --workspace
	Start    string // current directory
	Getenv   func(string) string
}

// Doctor checks the workspace, its config, its database and Ollama. It never
// takes a write lock and never hangs on a locked database.
func Doctor(ctx context.Context, opts DoctorOptions) DoctorReport {
	getenv := Getenv(opts.Getenv)
	var rep DoctorReport
	add := func(c Check) {
		if c.Status == "" {
			if c.OK {
				c.Status = "pass"
			} else {
				c.Status = "fail"
			}
		}
		rep.Checks = append(rep.Checks, c)
	}

	cfg := workspace.Defaults()
	root, err := workspace.Locate(opts.Explicit, opts.Start, getenv)
	if err != nil {
		add(Check{Name: "workspace", Detail: err.Error(), Hint: "run `nova init` in your project, or pass --workspace DIR"})
		add(Check{Name: "config", Status: "skip", Detail: "no workspace"})
		add(Check{Name: "database", Status: "skip", Detail: "no workspace"})
		if _, envErr := cfg.ApplyEnv(getenv); envErr != nil {
			cfg = workspace.Defaults()
		}
	} else {
		rep.Workspace = root
		add(Check{Name: "workspace", OK: true, Detail: root})
		ws, err := workspace.Load(root, getenv)
		if err != nil {
			add(Check{Name: "config", Detail: err.Error(), Hint: "fix the named line in .nova/config.yaml; `nova init` restores missing defaults but never overwrites"})
			// Keep checking Ollama with the defaults plus environment.
			if _, envErr := cfg.ApplyEnv(getenv); envErr != nil {
				cfg = workspace.Defaults()
			}
		} else {
			cfg = ws.Config
			detail := fmt.Sprintf("%s (tier %s, autonomy %d)", ws.ConfigPath(), cfg.Tier, cfg.Autonomy)
			if len(ws.Overrides) > 0 {
				var envs []string
				for _, o := range ws.Overrides {
					envs = append(envs, o.Env)
				}
				detail += "; overridden by " + strings.Join(envs, ", ")
			}
			add(Check{Name: "config", OK: true, Detail: detail})
			c, author := identityCheck(root, cfg.UserID)
			rep.Author = author
			add(c)
		}
		dbCheck, db := checkDB(root)
		add(dbCheck)
		for _, c := range knowledgeChecks(ctx, db, cfg, getenv) {
			add(c)
		}
		if db != nil {
			_ = db.Close()
		}
	}

	client, err := NewLLMClient(cfg)
	if err != nil {
		add(Check{Name: "ollama", Detail: err.Error(), Hint: "set ollama.host in .nova/config.yaml or OLLAMA_HOST to host:port"})
	} else {
		st, probeErr := probeOllama(ctx, client, cfg)
		rep.Ollama = st
		if !st.Reachable {
			add(Check{
				Name:   "ollama",
				Detail: fmt.Sprintf("cannot reach Ollama at %s (%s)", st.Host, rootCause(probeErr, st.Error)),
				Hint:   "start it with `ollama serve`, or point nova at it with OLLAMA_HOST=host:port or ollama.host in .nova/config.yaml",
			})
			add(Check{Name: "models", Status: "skip", Detail: "not checked: Ollama is unreachable"})
		} else {
			add(Check{Name: "ollama", OK: true, Detail: fmt.Sprintf("Ollama %s at %s, %d models", st.Version, st.Host, len(st.Models))})
			add(modelsCheck(st))
		}
	}
	rep.OK = true
	for _, c := range rep.Checks {
		if c.Status == "fail" || c.Status == "skip" {
			rep.OK = false
		}
	}
	return rep
}

// identityCheck names the workspace identity's author id and where the
// identity comes from, never the identity (an e-mail stays on the machine).
func identityCheck(root, userID string) (Check, string) {
	id := workspace.Identity(root, userID)
	author := vault.AuthorID(id)
	from := "config userId"
	switch {
	case strings.TrimSpace(userID) != "" && userID != workspace.DefaultUserID:
	case id != workspace.DefaultUserID:
		from = "git user.email"
	default:
		return Check{Name: "identity", OK: true, Detail: fmt.Sprintf("author %s (the default identity %q)", author, workspace.DefaultUserID),
			Hint: "set userId in .nova/config.yaml (or git's user.email) so your wisdom is yours"}, author
	}
	return Check{Name: "identity", OK: true, Detail: fmt.Sprintf("author %s (from %s)", author, from)}, author
}

// checkDB checks the workspace database read-only and, when it could be
// read, hands it back open for the knowledge counts (the caller closes it).
func checkDB(root string) (Check, *storage.DB) {
	path := (&workspace.Workspace{Root: root}).DBPath()
	db, err := storage.Open(path, storage.Options{ReadOnly: true})
	switch {
	case errors.Is(err, storage.ErrInUse):
		return Check{Name: "database", Status: "warn", OK: true, Detail: path + " is open in another nova process; not checked", Hint: "close the other nova to check it"}, nil
	case errors.Is(err, storage.ErrNoDatabase):
		return Check{Name: "database", Status: "warn", OK: true, Detail: path + " does not exist yet; it is created on first use"}, nil
	case errors.Is(err, storage.ErrReadOnly):
		// A newer nova's schema is waiting: nothing is wrong with the file.
		return Check{Name: "database", Status: "warn", OK: true, Detail: err.Error(), Hint: "run `nova init` to migrate it (it keeps your files)"}, nil
	case errors.Is(err, storage.ErrCorrupt):
		return Check{Name: "database", Detail: err.Error(), Hint: "copy what is readable into a new file with `nova db recover FILE`, or restore a backup"}, nil
	case err != nil:
		return Check{Name: "database", Detail: err.Error(), Hint: "restore a backup (`nova db backup` makes them) or move the file away"}, nil
	}
	v, _ := db.SchemaVersion()
	if problems := db.Check(); len(problems) > 0 {
		_ = db.Close()
		hint := "run `nova db compact`, or restore a backup"
		if errors.Is(problems[0], storage.ErrCorrupt) {
			hint = "copy what is readable into a new file with `nova db recover FILE`, or restore a backup"
		}
		return Check{Name: "database", Detail: fmt.Sprintf("%s: %d consistency problems, first: %v", path, len(problems), problems[0]), Hint: hint}, nil
	}
	return Check{Name: "database", OK: true, Detail: fmt.Sprintf("%s (schema %d, consistent)", path, v)}, db
}

func modelsCheck(st OllamaStatus) Check {
	var missing, optional, have []string
	for _, t := range st.Tiers {
		switch {
		case t.Installed:
			have = append(have, t.Tier+"="+t.Model)
		case t.Optional:
			optional = append(optional, t.Model)
		default:
			missing = append(missing, t.Model)
		}
	}
	if len(missing) > 0 {
		var pulls []string
		for _, m := range missing {
			pulls = append(pulls, "ollama pull "+m)
		}
		return Check{
			Name:   "models",
			Detail: "missing tier models: " + strings.Join(missing, ", "),
			Hint:   "run `" + strings.Join(pulls, "` and `") + "`, or change models.* in .nova/config.yaml",
		}
	}
	c := Check{Name: "models", OK: true, Detail: "tier models present: " + strings.Join(have, ", ")}
	if len(optional) > 0 {
		c.Status = "warn"
		c.Detail += "; embedding model " + strings.Join(optional, ", ") + " missing (search works without it)"
		c.Hint = "run `ollama pull " + optional[0] + "` for embedding re-ranking"
	}
	return c
}

// rootCause returns the innermost error's text ("connect: connection
// refused"), which says more than the wrapped chain.
func rootCause(err error, fallback string) string {
	if err == nil {
		return fallback
	}
	for {
		next := errors.Unwrap(err)
		if next == nil {
			break
		}
		err = next
	}
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 && strings.Contains(msg, "dial") {
		msg = msg[i+2:]
	}
	return msg
}
