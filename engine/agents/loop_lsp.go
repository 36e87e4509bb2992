package agents

import (
	"context"
	"fmt"
	"strings"

	"github.com/nova-dev/nova/engine/checks"
	"github.com/nova-dev/nova/engine/lsp"
	"github.com/nova-dev/nova/engine/untrusted"
)

// Diagnoser shows files to the workspace's language servers (engine/lsp's
// Pool, wired by the engine) and returns what they report. It must return
// within its own timeout; a server that fails is a Problem of the report.
type Diagnoser interface {
	Diagnose(ctx context.Context, files []lsp.File) (lsp.Report, error)
}

// Limits of the diagnostics fed back after an edit.
const (
	lspNoteLines = 12
	lspNoteChars = 1500
)

// lspState is the last diagnosis of the run's staged files.
type lspState struct {
	lspReport *lsp.Report
	lspHash   string // checks.Hash of the files diagnosed
}

// diagnoseStaged runs the language servers on the run's staged files
// after an edit and returns the note for the model ("" when no server
// covers them). Diagnostics are of the staged content, so the model hears
// of a broken build in the same turn as the edit that broke it.
func (st *loopState) diagnoseStaged(ctx context.Context) string {
	if st.r.Diagnose == nil {
		return ""
	}
	files, err := st.stagedCheckFiles(ctx)
	if err != nil {
		return ""
	}
	in := make([]lsp.File, 0, len(files))
	for _, f := range files {
		if !f.Delete {
			in = append(in, lsp.File{Path: f.Path, Content: f.Content})
		}
	}
	if len(in) == 0 {
		return ""
	}
	rep, err := st.r.Diagnose.Diagnose(ctx, in)
	if err != nil || (len(rep.Servers) == 0 && len(rep.Problems) == 0) {
		return ""
	}
	st.lspReport, st.lspHash = &rep, checks.Hash(files)
	servers := strings.Join(rep.Servers, ", ")
	errs := rep.Errors()
	status := "passed"
	text := fmt.Sprintf("language server %s: no errors in the staged files", servers)
	if len(errs) > 0 {
		status = "failed"
		text = fmt.Sprintf("language server %s: %s in the staged files", servers, plural(len(errs), "error"))
	}
	if len(rep.Servers) == 0 {
		status, text = "error", "language server: "+strings.Join(rep.Problems, "; ")
	}
	st.emit(Event{Type: EventCheck, Step: st.meta.Steps, Args: "lsp " + servers, Status: status, Text: text})
	switch {
	case len(rep.Servers) == 0:
		return "" // no server answered: nothing to tell the model
	case len(errs) == 0:
		return "nova: " + text + "."
	}
	var b strings.Builder
	for i, d := range errs {
		if i == lspNoteLines || b.Len() > lspNoteChars {
			fmt.Fprintf(&b, "… and %d more\n", len(errs)-i)
			break
		}
		b.WriteString(clip(d.String(), 300) + "\n")
	}
	return fmt.Sprintf("nova: the language server (%s) reports %s in your staged files; fix them before you answer:\n%s",
		servers, plural(len(errs), "error"), untrusted.Wrap("language server "+servers, strings.TrimRight(b.String(), "\n")))
}

// fastChecks are the verdict's checks from the last diagnosis, when it is
// of the final changeset: errors fail it; none is evidence only.
func (st *loopState) fastChecks(ctx context.Context) []Check {
	if st.lspReport == nil || len(st.lspReport.Servers) == 0 {
		return nil
	}
	files, err := st.stagedCheckFiles(ctx)
	if err != nil || checks.Hash(files) != st.lspHash {
		return nil
	}
	subject := "language server: " + strings.Join(st.lspReport.Servers, ", ")
	errs := st.lspReport.Errors()
	if len(errs) == 0 {
		return []Check{{Tier: TierEvidence, Subject: subject, Status: VerdictPassed, Detail: "no errors in the staged files"}}
	}
	lines := make([]string, 0, min(len(errs), 5))
	for i, d := range errs {
		if i == 5 {
			break
		}
		lines = append(lines, d.String())
	}
	return []Check{{Tier: TierExecution, Subject: subject, Status: VerdictFailed,
		Detail: fmt.Sprintf("%s in the staged files", plural(len(errs), "error")),
		Output: strings.Join(lines, "\n")}}
}
