package importwiz

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/importer"
	"github.com/nova-dev/nova/tui/components/markdown"
)

// Source is what the import wizard needs from the engine: a subset of
// engine.Workspace's verbs. The wizard calls it only from tea.Cmds (Info
// does no I/O). Progress of a scan or an import arrives as TopicImport
// events carrying the operation id the wizard passed.
type Source interface {
	Info() engine.Info
	ImportDefaults(ctx context.Context) (engine.ImportOptions, error)
	RecentImportSources(ctx context.Context) ([]string, error)
	ScanPatterns(ctx context.Context, dir string, o engine.ImportOptions) (engine.ImportPlan, error)
	PreviewImport(ctx context.Context, planID string, o engine.ImportOptions) (importer.Result, error)
	ApplyImport(ctx context.Context, planID string, o engine.ImportOptions) (importer.Result, error)
	ImportPlanBody(ctx context.Context, planID, sourceFile string) (string, error)
	DropImportPlan(ctx context.Context, planID string) error
	UndoImport(ctx context.Context, id uint64) (importer.UndoResult, error)
}

// Messages. Every asynchronous result carries the generation it was started in; the page
// drops results of work it has since abandoned (esc, a new scan).
type (
	defaultsMsg struct {
		opts engine.ImportOptions
		err  error
	}
	recentMsg struct {
		dirs []string
		err  error
	}
	scanDoneMsg struct {
		gen  int
		plan engine.ImportPlan
		err  error
	}
	previewMsg struct {
		seq int
		res importer.Result
		err error
	}
	importDoneMsg struct {
		gen int
		res importer.Result
		err error
	}
	undoDoneMsg struct {
		res importer.UndoResult
		err error
	}
	renderedMsg struct {
		key renderKey
		out string
		err error
		// unparsed: the plan has no body for the file (it did not parse).
		unparsed bool
	}
)

func defaultsCmd(ctx context.Context, src Source) tea.Cmd {
	return func() tea.Msg {
		o, err := src.ImportDefaults(ctx)
		return defaultsMsg{opts: o, err: err}
	}
}

func recentCmd(ctx context.Context, src Source) tea.Cmd {
	return func() tea.Msg {
		dirs, err := src.RecentImportSources(ctx)
		return recentMsg{dirs: dirs, err: err}
	}
}

// scanCmd scans dir and previews it with opts (opts.Op tags its progress events).
func scanCmd(ctx context.Context, src Source, gen int, dir string, opts engine.ImportOptions) tea.Cmd {
	return func() tea.Msg {
		plan, err := src.ScanPatterns(ctx, dir, opts)
		return scanDoneMsg{gen: gen, plan: plan, err: err}
	}
}

// previewCmd previews a plan with opts again (after an exclusion or an option changed).
func previewCmd(ctx context.Context, src Source, seq int, planID string, opts engine.ImportOptions) tea.Cmd {
	return func() tea.Msg {
		res, err := src.PreviewImport(ctx, planID, opts)
		return previewMsg{seq: seq, res: res, err: err}
	}
}

// importCmd applies a plan (or, with opts.DryRun, previews it); the engine remembers the
// source among the recent ones.
func importCmd(ctx context.Context, src Source, gen int, planID string, opts engine.ImportOptions) tea.Cmd {
	return func() tea.Msg {
		res, err := src.ApplyImport(ctx, planID, opts)
		return importDoneMsg{gen: gen, res: res, err: err}
	}
}

// dropCmd forgets a plan the wizard no longer needs.
func dropCmd(ctx context.Context, src Source, planID string) tea.Cmd {
	return func() tea.Msg {
		_ = src.DropImportPlan(ctx, planID) // the engine bounds the plans it keeps anyway
		return nil
	}
}

func undoCmd(ctx context.Context, src Source, batch uint64) tea.Cmd {
	return func() tea.Msg {
		res, err := src.UndoImport(ctx, batch)
		return undoDoneMsg{res: res, err: err}
	}
}

// renderKey identifies one rendering of a file's markdown.
type renderKey struct {
	source string
	width  int
	dark   bool
}

// renderCmd fetches a file's body from the plan and renders it.
func renderCmd(ctx context.Context, src Source, planID string, key renderKey) tea.Cmd {
	return func() tea.Msg {
		body, err := src.ImportPlanBody(ctx, planID, key.source)
		if err != nil {
			return renderedMsg{key: key, unparsed: true}
		}
		out, err := markdown.Render(body, key.width, key.dark)
		return renderedMsg{key: key, out: out, err: err}
	}
}
