package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/tools"

	"github.com/nova-dev/nova/engine/knowledge/docs"
	"github.com/nova-dev/nova/engine/knowledge/facts"
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
	// Owner describes the nova process that owns the workspace (a line for
	// the "owner" check; "" = none). When one does, the database and the
	// knowledge counts are read through Served (fn runs with the owner's
	// Workspace), never opened here: the owner holds the database's lock.
	Owner  string
	Served func(ctx context.Context, fn func(Workspace) error) error
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
			add(sandboxCheck(cfg))
			c, author := identityCheck(root, cfg.UserID)
			rep.Author = author
			add(c)
			add(checksCheck(root, cfg.Checks))
			for _, c := range mcpChecks(ctx, root, cfg.MCP, getenv) {
				add(c)
			}
			add(lspCheck(cfg.LSP))
			if c, ok := gitignoreCheck(root); ok {
				add(c)
			}
		}
		if c, ok := leftoversCheck(root); ok {
			add(c)
		}
		if opts.Owner != "" && opts.Served != nil {
			for _, c := range servedChecks(ctx, opts.Served, cfg, getenv) {
				add(c)
			}
			add(Check{Name: "owner", OK: true, Detail: opts.Owner})
		} else {
			dbCheck, db := checkDB(root)
			add(dbCheck)
			for _, c := range knowledgeChecks(ctx, dbCounter(db), cfg, getenv) {
				add(c)
			}
			if db != nil {
				_ = db.Close()
			}
			add(Check{Name: "owner", OK: true, Detail: "none: the next nova owns the workspace while it runs and serves it to the others"})
		}
	}

	client, err := NewLLMClient(cfg, getenv)
	router, routed := client.(*llm.Router)
	switch {
	case err != nil:
		add(Check{Name: "ollama", Detail: err.Error(), Hint: "set ollama.host in .nova/config.yaml or OLLAMA_HOST to host:port"})
	case routed:
		checks, hosts, st := providerChecks(ctx, router, cfg)
		st.Hosts = hosts
		rep.Ollama = st
		for _, c := range checks {
			add(c)
		}
		if st.Reachable {
			for _, c := range capabilityChecks(ctx, client, cfg, st) {
				add(c)
			}
		}
	default:
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
			for _, c := range capabilityChecks(ctx, client, cfg, st) {
				add(c)
			}
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

// leftoversCheck names the temporary files killed compactions and
// recoveries left behind (ok false: there are none).
func leftoversCheck(root string) (Check, bool) {
	ls := storage.FindLeftovers((&workspace.Workspace{Root: root}).DBPath(), root)
	if len(ls) == 0 {
		return Check{}, false
	}
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = fmt.Sprintf("%s (a killed %s, %s)", l.Path, l.Kind, humanBytes(l.Size))
	}
	return Check{Name: "leftovers", Status: "warn", OK: true, Detail: strings.Join(parts, "; "),
		Hint: "`nova db compact` removes them (or delete them by hand while no nova runs)"}, true
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
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

// checksCheck warns about a workspace without checks: nothing executes the
// changed code, so changes can at best be "done (unverified)". The hint
// names the checks nova would detect in root when there are any.
func checksCheck(root string, checks []string) Check {
	if len(checks) > 0 {
		return Check{Name: "checks", OK: true, Detail: fmt.Sprintf("%d configured: %s", len(checks), strings.Join(checks, ", "))}
	}
	example := "checks: [go test ./...]"
	if d, err := workspace.DetectChecks(root); err == nil && len(d.Checks) > 0 {
		example = "checks: [" + strings.Join(d.Checks, ", ") + "]"
	}
	return Check{Name: "checks", OK: true, Status: "warn",
		Detail: "no checks: nothing runs the changed code, so changes can only be 'done (unverified)'",
		Hint:   "add `" + example + "` to .nova/config.yaml (the commands that build and test this project)"}
}

// gitignoreCheck warns (ok true) when root is in a git repository and its
// .nova/ has no .gitignore: git would offer the database, sockets and
// outputs for commit. Workspaces made before nova shipped one lack it.
func gitignoreCheck(root string) (Check, bool) {
	ws := &workspace.Workspace{Root: root}
	if _, err := os.Lstat(ws.Path(".gitignore")); err == nil || !inGitRepo(root) {
		return Check{}, false
	}
	return Check{Name: "gitignore", OK: true, Status: "warn",
		Detail: ws.Path(".gitignore") + " is missing: git sees the database, sockets and outputs as files to commit",
		Hint:   "run `nova init` to add it (it keeps every file you have)"}, true
}

// inGitRepo reports whether dir or a parent holds .git.
func inGitRepo(dir string) bool {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		dir = parent
	}
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
		// A newer nova's schema is waiting and another process reads the
		// file, so the upgrade could not run: nothing is wrong with it.
		return Check{Name: "database", Status: "warn", OK: true, Detail: err.Error(),
			Hint: "another nova reads it; once that one closes, the next nova command migrates it first"}, nil
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

// servedChecks are the database, facts and docs checks of a workspace that
// another nova owns: read through it (one connection), never opened here.
func servedChecks(ctx context.Context, served func(context.Context, func(Workspace) error) error, cfg workspace.Config, getenv func(string) string) []Check {
	var (
		rep    CheckReport
		sum    Summary
		st     docs.Stats
		dbErr  error
		sumErr error
		docErr error
	)
	err := served(ctx, func(ws Workspace) error {
		rep, dbErr = ws.CheckDB(ctx)
		sum, sumErr = ws.Summary(ctx)
		st, docErr = ws.DocsStats(ctx)
		return nil
	})
	if err != nil {
		dbErr, sumErr, docErr = err, err, err
	}
	out := []Check{checkServedDB(rep, dbErr)}
	counter := knowledgeCounter{
		label: "in the workspace and user-level, counted by its owner",
		facts: func() (facts.Counts, error) {
			return facts.Counts{Valid: sum.Facts, Review: sum.FactsReview}, sumErr
		},
		docs: func(context.Context) (docs.Stats, error) { return st, docErr },
	}
	return append(out, knowledgeChecks(ctx, counter, cfg, getenv)...)
}

// checkServedDB is the database check answered by the nova that owns it.
func checkServedDB(rep CheckReport, err error) Check {
	switch {
	case err != nil:
		return Check{Name: "database", Detail: "check through the owning nova: " + err.Error(), Hint: "run `nova db check` for details"}
	case !rep.OK:
		hint := "quit every nova, then run `nova db compact`, or restore a backup"
		if rep.Damaged {
			hint = "quit every nova, then copy what is readable into a new file with `nova db recover FILE`, or restore a backup"
		}
		first := ""
		if len(rep.Problems) > 0 {
			first = ", first: " + rep.Problems[0]
		}
		return Check{Name: "database", Detail: fmt.Sprintf("%s: %d consistency problems%s", rep.DBPath, len(rep.Problems), first), Hint: hint}
	}
	return Check{Name: "database", OK: true, Detail: fmt.Sprintf("%s (schema %d, consistent; checked by its owner)", rep.DBPath, rep.Schema)}
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

// doctorShowTimeout bounds each /api/show of the capability checks.
const doctorShowTimeout = 5 * time.Second

// capabilityChecks asks /api/show about every installed tier model and
// checks what it can do, not what it is called: the chat tiers need the
// "completion" capability (and get a warning without "tools": agents then use
// the slower text format), the embed tier needs "embedding". The "context"
// check compares each chat model's real window, min(ollama.numCtx, the
// model's context length), with the prompt budget plus the reply reserve.
func capabilityChecks(ctx context.Context, client llm.Provider, cfg workspace.Config, st OllamaStatus) []Check {
	var fails, warns, oks []string
	var ctxFails, ctxWarns, ctxOKs []string
	seen := map[string]llm.ModelInfo{}
	show := func(model string) (llm.ModelInfo, error) {
		if info, ok := seen[model]; ok {
			return info, nil
		}
		sctx, cancel := context.WithTimeout(ctx, doctorShowTimeout)
		defer cancel()
		info, err := client.ModelInfo(sctx, model)
		if err == nil {
			seen[model] = info
		}
		return info, err
	}
	reserve := cfg.Budgets.ReplyReserve
	for _, tm := range st.Tiers {
		if !tm.Installed {
			continue
		}
		info, err := show(tm.Model)
		if err != nil {
			warns = append(warns, fmt.Sprintf("%s=%s: could not ask its capabilities (%s)", tm.Tier, tm.Model, rootCause(err, err.Error())))
			continue
		}
		caps := strings.Join(info.Capabilities, ", ")
		switch {
		case len(info.Capabilities) == 0 && routedTo(cfg, tm.Model) == workspace.ProviderOpenAI:
			oks = append(oks, fmt.Sprintf("%s=%s (an OpenAI-compatible server reports no capabilities: agents try tools and fall back to text)", tm.Tier, tm.Model))
		case len(info.Capabilities) == 0:
			warns = append(warns, fmt.Sprintf("%s=%s: the server reports no capabilities (Ollama older than 0.6?)", tm.Tier, tm.Model))
		case tm.Tier == string(llm.TierEmbed) && !info.Can("embedding"):
			fails = append(fails, fmt.Sprintf("embed=%s is not an embedding model (capabilities: %s): search would get meaningless vectors", tm.Model, caps))
		case tm.Tier == string(llm.TierEmbed):
			oks = append(oks, "embed="+tm.Model+" (embedding)")
		case !info.Can("completion"):
			fails = append(fails, fmt.Sprintf("%s=%s does not support chat (capabilities: %s)", tm.Tier, tm.Model, caps))
		case !info.Can("tools"):
			warns = append(warns, fmt.Sprintf("%s=%s has no native tool calling (capabilities: %s): agents use the slower Thought/Action text format", tm.Tier, tm.Model, caps))
		default:
			oks = append(oks, fmt.Sprintf("%s=%s (%s)", tm.Tier, tm.Model, caps))
		}
		if tm.Tier == string(llm.TierEmbed) || !info.Can("completion") && len(info.Capabilities) > 0 {
			continue
		}
		numCtx := cfg.Ollama.NumCtx
		if routedTo(cfg, tm.Model) != "" {
			numCtx = 0 // the provider's own contextSize
		}
		w, err := client.Window(ctx, tm.Model, numCtx)
		if err != nil && w.Tokens == 0 {
			continue
		}
		budget := w.Tokens - reserve
		switch {
		case budget <= 0:
			ctxFails = append(ctxFails, fmt.Sprintf("%s=%s: the context is %s and the reply reserve (budgets.replyReserve %d) leaves no room for any prompt",
				tm.Tier, tm.Model, w.Describe(), reserve))
		case budget < cfg.Budgets.PromptTokens:
			ctxWarns = append(ctxWarns, fmt.Sprintf("%s=%s: budgets.promptTokens %d plus the reply reserve %d do not fit its context of %s; prompts are trimmed to %d tokens",
				tm.Tier, tm.Model, cfg.Budgets.PromptTokens, reserve, w.Describe(), budget))
		default:
			ctxOKs = append(ctxOKs, fmt.Sprintf("%s=%s %d", tm.Tier, tm.Model, w.Tokens))
		}
	}
	var out []Check
	switch {
	case len(fails) > 0:
		out = append(out, Check{Name: "capabilities", Detail: strings.Join(append(fails, warns...), "; "),
			Hint: "set models.* in .nova/config.yaml to a chat model (tiers small, medium, large) and an embedding model (embed, e.g. nomic-embed-text); `ollama show MODEL` lists a model's capabilities"})
	case len(warns) > 0:
		out = append(out, Check{Name: "capabilities", OK: true, Status: "warn", Detail: strings.Join(warns, "; "),
			Hint: "a model with tool support (e.g. qwen2.5-coder) runs agents faster and more reliably"})
	case len(oks) > 0:
		out = append(out, Check{Name: "capabilities", OK: true, Detail: strings.Join(oks, ", ")})
	}
	switch {
	case len(ctxFails) > 0:
		out = append(out, Check{Name: "context", Detail: strings.Join(append(ctxFails, ctxWarns...), "; "),
			Hint: "raise ollama.numCtx (the server never uses more than the model's context length), lower budgets.replyReserve, or use a model with a larger context"})
	case len(ctxWarns) > 0:
		out = append(out, Check{Name: "context", OK: true, Status: "warn", Detail: strings.Join(ctxWarns, "; "),
			Hint: "lower budgets.promptTokens to the trimmed size, or use a model with a larger context"})
	case len(ctxOKs) > 0:
		out = append(out, Check{Name: "context", OK: true, Detail: fmt.Sprintf("every prompt (budgets.promptTokens %d) plus the reply reserve %d fits: %s tokens",
			cfg.Budgets.PromptTokens, reserve, strings.Join(ctxOKs, ", "))})
	}
	return out
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

// sandboxCheck says how runCommand confines agent commands on this machine:
// "sandbox: landlock ABI v7, network off (…), writes confined" or "not
// available: …" (a warning: commands then run unconfined).
func sandboxCheck(cfg workspace.Config) Check {
	st := tools.SandboxProbe(CommandPolicy(cfg.Commands).Sandbox)
	if st.Active {
		return Check{Name: "sandbox", OK: true, Detail: st.Detail}
	}
	c := Check{Name: "sandbox", OK: true, Status: "warn", Detail: st.Detail}
	if cfg.Commands.Sandbox == "off" {
		c.Hint = "agent commands run unconfined; set commands.sandbox: on in .nova/config.yaml"
	} else {
		c.Hint = "agent commands run unconfined here; keep the command allowlist short"
	}
	return c
}

// routedTo is the type of the provider a model names with a prefix ("" for
// the ollama: section's server).
func routedTo(cfg workspace.Config, model string) string {
	p, _ := llm.SplitModel(model, cfg.ProviderNames())
	if p == "" {
		return ""
	}
	return cfg.Providers[p].Type
}
