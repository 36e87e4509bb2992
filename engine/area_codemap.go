package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/nova-dev/nova/engine/codemap"
	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/lsp"
	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/engine/workspace"
)

// CodeMapVerbs are the verbs of the repository map (engine/codemap).
type CodeMapVerbs interface {
	// CodeMap brings the repository map up to date (incrementally) and
	// returns it ranked for opts.Task ("" ranks by references alone), with
	// the prompt block that task would get on opts.Tier.
	CodeMap(ctx context.Context, opts CodeMapOptions) (CodeMapResult, error)
	// CodeMapFile returns the outline of one source file of the map: its
	// definitions with lines and signatures (path is absolute, inside the
	// workspace).
	CodeMapFile(ctx context.Context, path string) (codemap.Outline, error)
}

// CodeMapOptions ask for a ranked map.
type CodeMapOptions struct {
	// Task personalises the ranking (files and identifiers it names).
	Task string `json:"task,omitempty"`
	// Limit is how many files to list (0: all).
	Limit int `json:"limit,omitempty"`
	// Tier sizes the block (small, medium, large; "" medium).
	Tier string `json:"tier,omitempty"`
}

// CodeMapResult is the ranked map.
type CodeMapResult struct {
	Stats codemap.Stats         `json:"stats"`
	Files []codemap.RankedFile  `json:"files"`
	Block string                `json:"block"`
	Items []codemap.Item        `json:"items"`
	LSP   []LanguageServerState `json:"lsp"`
}

// LanguageServerState says whether a language server nova looks for was
// found.
type LanguageServerState struct {
	Name      string   `json:"name"`
	Command   string   `json:"command"`
	Path      string   `json:"path,omitempty"`
	Languages []string `json:"languages"`
}

// ErrCodeMapOff: the map is turned off (codemap.off in the config).
var ErrCodeMapOff = errors.New("the code map is off (codemap.off in .nova/config.yaml)")

// codeMapArea implements CodeMapVerbs and owns the map and the language
// servers of a workspace (both built on first use).
type codeMapArea struct{ *core }

// codeMapState is the map and the language servers of a workspace's core.
type codeMapState struct {
	mapOnce sync.Once
	cm      *codemap.Map

	lspOnce sync.Once
	pool    *lsp.Pool
}

// codeMap is the workspace's map (nil when codemap.off).
func (a *core) codeMap() *codemap.Map {
	a.cmap.mapOnce.Do(func() {
		cfg := a.Config()
		if cfg.CodeMap.Off {
			return
		}
		a.cmap.cm = codemap.New(a.db, a.ws.Root, codemap.Options{MaxFiles: cfg.CodeMap.MaxFiles, Exclude: cfg.CodeMap.Exclude})
	})
	return a.cmap.cm
}

// MapTokens is the map block's budget on a tier: budgets.mapShare of the
// prompt budget, half of it on the small tier (whose first turn must stay
// small).
func MapTokens(cfg workspace.Config, tier string) int {
	return codemap.Tokens(cfg.Budgets.PromptTokens, cfg.Budgets.MapShare, tier)
}

// mapBlock is the map block of a task on a tier ("" and no items when the
// map is off, empty, or fails: a prompt does not wait on the map).
func (a *core) mapBlock(ctx context.Context, task, tier string) (string, []codemap.Item) {
	m := a.codeMap()
	tokens := MapTokens(a.Config(), tier)
	if m == nil || tokens <= 0 {
		return "", nil
	}
	text, items, err := codemap.Block(ctx, m, task, tokens)
	if err != nil {
		if ctx.Err() == nil {
			a.Publish(Event{Type: EventLog, Topic: TopicAgent, Text: "code map: " + err.Error()})
		}
		return "", nil
	}
	return text, items
}

// CodeMap implements CodeMapVerbs.
func (a codeMapArea) CodeMap(ctx context.Context, opts CodeMapOptions) (CodeMapResult, error) {
	m := a.codeMap()
	if m == nil {
		return CodeMapResult{}, ErrCodeMapOff
	}
	st, err := m.Update(ctx)
	if err != nil {
		return CodeMapResult{}, err
	}
	files, err := m.Ranked(ctx, opts.Task, opts.Limit)
	if err != nil {
		return CodeMapResult{}, err
	}
	tier := opts.Tier
	if tier == "" {
		tier = string(llm.TierMedium)
	}
	block, items, err := m.Block(ctx, opts.Task, MapTokens(a.Config(), tier))
	if err != nil {
		return CodeMapResult{}, err
	}
	if items == nil {
		items = []codemap.Item{}
	}
	return CodeMapResult{Stats: st, Files: files, Block: block, Items: items, LSP: LanguageServers(a.Config().LSP)}, nil
}

// CodeMapFile implements CodeMapVerbs.
func (a codeMapArea) CodeMapFile(ctx context.Context, path string) (codemap.Outline, error) {
	if !filepath.IsAbs(path) {
		return codemap.Outline{}, fmt.Errorf("%s: %w", path, ErrRelativePath)
	}
	m := a.codeMap()
	if m == nil {
		return codemap.Outline{}, ErrCodeMapOff
	}
	rel, _, err := tools.ConfineRel(a.ws.Root, path)
	if err != nil {
		return codemap.Outline{}, err
	}
	return m.Outline(ctx, rel)
}

// registerCodeTools adds findSymbol, references and outline to the agents'
// tool registry (runtime.go) unless the map is off.
func (a *core) registerCodeTools(reg *tools.Registry) {
	m := a.codeMap()
	if m == nil {
		return
	}
	if err := tools.RegisterCode(reg, m.Index()); err != nil {
		a.Publish(Event{Type: EventLog, Topic: TopicAgent, Text: "code map tools: " + err.Error()})
	}
}

// lspConfig converts the lsp: section.
func lspConfig(c workspace.LSPConfig) lsp.Config {
	out := lsp.Config{Off: c.Off, Timeout: c.Timeout.D(), Servers: map[string]lsp.ServerSpec{}}
	for name, s := range c.Servers {
		if s.Off {
			out.Disabled = append(out.Disabled, name)
			continue
		}
		out.Servers[name] = lsp.ServerSpec{Command: s.Command, Args: s.Args, Languages: s.Languages}
	}
	return out
}

// LanguageServers lists the language servers the config asks for and
// which were found on the PATH.
func LanguageServers(c workspace.LSPConfig) []LanguageServerState {
	specs := lsp.Resolve(lspConfig(c), nil)
	out := make([]LanguageServerState, 0, len(specs))
	for _, s := range specs {
		out = append(out, LanguageServerState{Name: s.Name, Command: s.Command, Path: s.Path, Languages: s.Languages})
	}
	return out
}

// lspPool is the workspace's language servers (nil when lsp.off or none
// was found).
func (a *core) lspPool() *lsp.Pool {
	a.cmap.lspOnce.Do(func() {
		cfg := a.Config().LSP
		lc := lspConfig(cfg)
		if lc.Off {
			return
		}
		timeout := lc.Timeout
		if timeout <= 0 {
			timeout = workspace.DefaultLSPTimeout
		}
		p := lsp.NewPool(a.ws.Root, lsp.Resolve(lc, nil), lsp.Options{Timeout: timeout, Settle: lspSettle}, codemap.LangOf)
		if len(p.Servers()) > 0 {
			a.cmap.pool = p
		}
	})
	return a.cmap.pool
}

// lspSettle is how long nova listens on after a server published the
// diagnostics of every file shown (servers that publish in stages).
const lspSettle = 200 * time.Millisecond

// diagnoser is the agents' view of the pool (nil when there is none).
func (a *core) diagnoser() *poolDiagnoser {
	if a.Config().LSP.Off {
		return nil
	}
	return &poolDiagnoser{a: a}
}

// poolDiagnoser starts the pool on the first edit, not when a run starts.
type poolDiagnoser struct{ a *core }

func (d *poolDiagnoser) Diagnose(ctx context.Context, files []lsp.File) (lsp.Report, error) {
	p := d.a.lspPool()
	if p == nil {
		return lsp.Report{}, nil
	}
	return p.Diagnose(ctx, files)
}

// closeCodeMap stops the language servers.
func (a *core) closeCodeMap() {
	a.cmap.lspOnce.Do(func() {}) // none starts after this
	if a.cmap.pool != nil {
		a.cmap.pool.Close()
	}
}

// codeMapHook gives build tasks the map block sized for the tier of the
// agent that runs the task (build.CodeMapHook).
type codeMapHook struct{ l *core }

func (h codeMapHook) Block(ctx context.Context, task, agent string) (string, []string, error) {
	tier := string(llm.TierMedium)
	if roster, _ := h.l.Agents(); roster != nil {
		if spec, err := roster.Get(agent); err == nil && spec.Tier != "" {
			tier = string(spec.Tier)
		}
	}
	text, items := h.l.mapBlock(ctx, task, tier)
	paths := make([]string, 0, len(items))
	for _, it := range items {
		paths = append(paths, it.ID)
	}
	return text, paths, nil
}
