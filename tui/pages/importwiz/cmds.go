package importwiz

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/glamour/v2"
	"charm.land/glamour/v2/styles"
	"github.com/charmbracelet/x/ansi"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/importer"
)

// Messages. Every asynchronous result carries the generation it was started in; the page
// drops results of work it has since abandoned (esc, a new scan).
type (
	recentMsg struct {
		dirs []string
		err  error
	}
	// progressMsg is one progress report; next waits for the following message.
	progressMsg struct {
		gen  int
		p    importer.Progress
		next tea.Cmd
	}
	scanDoneMsg struct {
		gen  int
		plan *importer.Plan
		res  importer.Result
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
	}
)

// importerOf returns the workspace's importer, or nil when it has none. Test doubles of the
// Workspace often embed the interface and leave Importer unimplemented (calling it panics);
// the page then says importing is unavailable instead of taking the TUI down.
func importerOf(ws engine.Workspace) (im *importer.Importer) {
	if ws == nil {
		return nil
	}
	defer func() {
		if recover() != nil {
			im = nil
		}
	}()
	return ws.Importer()
}

func recentCmd(ctx context.Context, im *importer.Importer) tea.Cmd {
	return func() tea.Msg {
		dirs, err := im.RecentSources(ctx)
		return recentMsg{dirs: dirs, err: err}
	}
}

// run starts work in a goroutine and turns its progress reports and its final message into
// a chain of messages: each progressMsg carries the command that waits for the next one.
// Progress is dropped when the page is slow (it is droppable); the final message never is.
func run(gen int, work func(progress func(importer.Progress)) tea.Msg) tea.Cmd {
	ch := make(chan tea.Msg, 64)
	var wait tea.Cmd
	wait = func() tea.Msg {
		msg, ok := <-ch
		if !ok {
			return nil
		}
		if pm, isProgress := msg.(progressMsg); isProgress {
			pm.next = wait
			return pm
		}
		return msg
	}
	return func() tea.Msg {
		go func() {
			defer close(ch)
			final := work(func(p importer.Progress) {
				select {
				case ch <- progressMsg{gen: gen, p: p}:
				default:
				}
			})
			ch <- final
		}()
		return wait()
	}
}

// scanCmd scans dir and previews it with opts.
func scanCmd(ctx context.Context, im *importer.Importer, gen int, dir string, opts importer.Options) tea.Cmd {
	return run(gen, func(progress func(importer.Progress)) tea.Msg {
		o := opts
		o.Progress = progress
		plan, err := im.Scan(ctx, importer.DirSource(dir), o)
		if err != nil {
			return scanDoneMsg{gen: gen, err: err}
		}
		res, err := im.Preview(ctx, plan, opts)
		return scanDoneMsg{gen: gen, plan: plan, res: res, err: err}
	})
}

// previewCmd previews plan with opts again (after an exclusion or an option changed).
func previewCmd(ctx context.Context, im *importer.Importer, seq int, plan *importer.Plan, opts importer.Options) tea.Cmd {
	return func() tea.Msg {
		res, err := im.Preview(ctx, plan, opts)
		return previewMsg{seq: seq, res: res, err: err}
	}
}

// importCmd applies plan (or, with opts.DryRun, previews it) and remembers the source.
func importCmd(ctx context.Context, im *importer.Importer, gen int, plan *importer.Plan, dir string, opts importer.Options) tea.Cmd {
	return run(gen, func(progress func(importer.Progress)) tea.Msg {
		o := opts
		o.Progress = progress
		res, err := im.Apply(ctx, plan, o)
		if err == nil && !opts.DryRun {
			// Forgetting a recent folder is not worth failing a committed import for.
			_ = im.RememberSource(context.WithoutCancel(ctx), dir)
		}
		return importDoneMsg{gen: gen, res: res, err: err}
	})
}

func undoCmd(ctx context.Context, im *importer.Importer, batch uint64) tea.Cmd {
	return func() tea.Msg {
		res, err := im.Undo(ctx, batch)
		return undoDoneMsg{res: res, err: err}
	}
}

// renderKey identifies one rendering of a file's markdown.
type renderKey struct {
	source string
	width  int
	dark   bool
}

func renderCmd(key renderKey, src string) tea.Cmd {
	return func() tea.Msg {
		out, err := renderMarkdown(src, key.width, key.dark)
		return renderedMsg{key: key, out: out, err: err}
	}
}

// renderMarkdown renders src with glamour's dark or light style, without the document margin,
// wrapped to width, with the padding glamour adds to every line removed.
func renderMarkdown(src string, width int, dark bool) (string, error) {
	style := styles.DarkStyleConfig
	if !dark {
		style = styles.LightStyleConfig
	}
	var zero uint
	style.Document.Margin = &zero
	style.Document.BlockPrefix, style.Document.BlockSuffix = "", ""
	r, err := glamour.NewTermRenderer(glamour.WithStyles(style), glamour.WithWordWrap(max(10, width)))
	if err != nil {
		return "", fmt.Errorf("markdown renderer: %w", err)
	}
	out, err := r.Render(src)
	if err != nil {
		return "", fmt.Errorf("render markdown: %w", err)
	}
	lines := strings.Split(strings.Trim(out, "\n"), "\n")
	for i, l := range lines {
		plain := ansi.Strip(l)
		if trimmed := strings.TrimRight(plain, " "); len(trimmed) < len(plain) {
			lines[i] = ansi.Truncate(l, ansi.StringWidth(trimmed), "") + "\x1b[m"
		}
		if ansi.StringWidth(lines[i]) > width {
			lines[i] = ansi.Truncate(lines[i], width, "…")
		}
	}
	return strings.Join(lines, "\n"), nil
}
