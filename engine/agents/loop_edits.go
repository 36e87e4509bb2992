package agents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/nova-dev/nova/engine/edits"
	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/internal/safefile"
)

// applyTextEdits executes the file edits a reply wrote as text (whole files
// in fenced blocks, SEARCH/REPLACE blocks, unified diffs; engine/edits).
// Each block runs through callTool as a writeFile, editFile or deleteFile
// call, so confinement, traces, evidence and staging are the tools' own.
//
// found is false when the reply has no edit block, when it names a ReAct
// Action (the action is the model's intent), or when the agent may neither
// write nor edit files. When every block applied, the reply's prose without
// the blocks is the final answer (stop with out). When a block failed, the
// per-block results go back to the model and the reply counts as an
// invalid one, so a model that keeps writing broken blocks cannot loop
// forever. obs lists every block's result.
func (st *loopState) applyTextEdits(ctx context.Context, content string) (found bool, obs string, out SpecialistOutcome, stop bool) {
	canWrite, canEdit := st.offers(ToolWriteFile), st.offers(ToolEditFile)
	if strings.TrimSpace(content) == "" || (!canWrite && !canEdit) {
		return false, "", SpecialistOutcome{}, false
	}
	if r, _ := ParseReAct(content); r.Action != "" {
		return false, "", SpecialistOutcome{}, false
	}
	// Blocks inside a <think> section are drafts, not edits.
	answer := strings.TrimSpace(thinkBlock.ReplaceAllString(content, ""))
	blocks := edits.Parse(answer)
	var todo []edits.Block
	var noPath []string
	for _, b := range blocks {
		if b.IsEdit() {
			todo = append(todo, b)
		} else {
			noPath = append(noPath, b.Describe()+": not an edit (no file path); if it was meant for a file, put the path on the line before the fence")
		}
	}
	if len(todo) == 0 {
		return false, "", SpecialistOutcome{}, false
	}
	st.msgs = append(st.msgs, llm.Message{Role: llm.RoleAssistant, Content: content})
	results := make([]string, 0, len(todo))
	failed := 0
	streak := st.invalidStreak // a failed tool call resets it; a reply that applies nothing must not
	var changed []string
	for _, b := range todo {
		line, ok, o, halt := st.applyBlock(ctx, b)
		results = append(results, line)
		if halt {
			obs = strings.Join(results, "\n")
			st.msgs = append(st.msgs, llm.Message{Role: llm.RoleUser, Content: obs})
			return true, obs, o, true
		}
		if !ok {
			failed++
		} else if !slices.Contains(changed, b.Path) {
			changed = append(changed, b.Path)
		}
	}
	obs = strings.Join(results, "\n")
	if failed == 0 {
		st.msgs = append(st.msgs, llm.Message{Role: llm.RoleUser, Content: "Your edits are staged:\n" + obs})
		return true, obs, st.succeed(editsAnswer(answer, blocks, changed)), true
	}
	if len(noPath) > 0 {
		obs += "\n" + strings.Join(noPath, "\n")
	}
	head := fmt.Sprintf("%d of %d edit blocks in your reply did not apply (the others are staged):", failed, len(todo))
	if failed == len(todo) {
		head = fmt.Sprintf("The edit %s in your reply did not apply:", map[bool]string{true: "block", false: "blocks"}[failed == 1])
	}
	feedback := head + "\n" + obs + "\nSend corrected blocks for the failed ones only, copying the SEARCH lines from the file as it is now."
	st.msgs = append(st.msgs, llm.Message{Role: llm.RoleUser, Content: feedback})
	st.emit(Event{Type: EventFeedback, Step: st.meta.Steps, Status: "edit_failed", Text: clip(feedback, 2000)})
	if len(changed) == 0 {
		st.invalidStreak = max(st.invalidStreak, streak)
	}
	o, done := st.countInvalid(ctx, "edit_failed")
	return true, feedback, o, done
}

// editsAnswer is the final answer of a reply whose edits all applied: its
// prose without the blocks (a Final Answer: label's text when it has one),
// else a sentence naming the changed files.
func editsAnswer(content string, blocks []edits.Block, changed []string) string {
	prose := edits.Prose(content, blocks)
	if r, err := ParseReAct(prose); err == nil && r.HasFinal && strings.TrimSpace(r.Final) != "" {
		prose = r.Final
	}
	if strings.TrimSpace(prose) == "" {
		return "Changed " + strings.Join(changed, ", ") + "."
	}
	return prose
}

// offers reports whether the run may call the tool.
func (st *loopState) offers(name string) bool {
	return slices.ContainsFunc(st.allTools, func(t tools.Tool) bool { return t.Name == name })
}

// applyBlock executes one edit block and returns its line for the
// observation and whether it applied; halt ends the run with out.
func (st *loopState) applyBlock(ctx context.Context, b edits.Block) (line string, ok bool, out SpecialistOutcome, halt bool) {
	name := b.Describe()
	notApplied := func(format string, args ...any) (string, bool, SpecialistOutcome, bool) {
		return name + ": not applied: " + fmt.Sprintf(format, args...), false, SpecialistOutcome{}, false
	}
	if b.Err != "" {
		return notApplied("%s", b.Err)
	}
	canWrite, canEdit := st.offers(ToolWriteFile), st.offers(ToolEditFile)
	switch b.Kind {
	case edits.KindWhole:
		if !canWrite {
			return notApplied("writing a whole file needs the writeFile tool, which this agent does not have; use SEARCH/REPLACE blocks")
		}
		if cur, exists, err := st.currentContent(ctx, b.Path); err == nil && exists {
			if why := elided(b.Content, cur); why != "" {
				return notApplied("%s", why)
			}
		}
		return st.editCall(ctx, name, ToolWriteFile, map[string]any{"path": b.Path, "content": b.Content})

	case edits.KindSearchReplace:
		if strings.TrimSpace(b.Search) == "" {
			// An empty SEARCH creates a file.
			cur, exists, err := st.currentContent(ctx, b.Path)
			switch {
			case err != nil:
				return st.tracedRefusal(ctx, name, b.Path)
			case exists && strings.TrimSpace(cur) != "":
				return notApplied("the SEARCH part is empty but %s exists; copy the lines to change into SEARCH", b.Path)
			case !canWrite:
				return notApplied("creating a file needs the writeFile tool, which this agent does not have")
			}
			return st.editCall(ctx, name, ToolWriteFile, map[string]any{"path": b.Path, "content": b.Replace})
		}
		if cur, exists, err := st.currentContent(ctx, b.Path); err == nil && exists && strings.TrimSpace(b.Replace) != "" {
			if _, ferr := edits.Find(cur, b.Search); ferr != nil {
				if m, rerr := edits.Find(cur, b.Replace); rerr == nil && m.Rule != edits.RuleBlockAnchor && len(strings.TrimSpace(b.Replace)) >= 20 {
					// A block sent again after it applied: nothing to do.
					return name + ": already applied (the REPLACE text is in " + b.Path + " and the SEARCH text is not)", true, SpecialistOutcome{}, false
				}
			}
		}
		if canEdit {
			return st.editCall(ctx, name, ToolEditFile, map[string]any{"path": b.Path, "search": b.Search, "replace": b.Replace})
		}
		// writeFile only: match here, write the result.
		cur, exists, err := st.currentContent(ctx, b.Path)
		switch {
		case err != nil:
			return st.tracedRefusal(ctx, name, b.Path)
		case !exists:
			return notApplied("%s does not exist", b.Path)
		}
		m, err := edits.Find(cur, b.Search)
		if err != nil {
			return notApplied("%s: %v", b.Path, err)
		}
		return st.editCall(ctx, name, ToolWriteFile, map[string]any{"path": b.Path, "content": edits.Replace(cur, m, b.Search, b.Replace)})

	case edits.KindDiff:
		cur, exists, err := st.currentContent(ctx, b.Path)
		if err != nil {
			return st.tracedRefusal(ctx, name, b.Path)
		}
		if b.Delete {
			if !st.offers(ToolDeleteFile) {
				return notApplied("deleting a file needs the deleteFile tool, which this agent does not have")
			}
			return st.editCall(ctx, name, ToolDeleteFile, map[string]any{"path": b.Path})
		}
		switch {
		case !canWrite:
			return notApplied("applying a diff needs the writeFile tool, which this agent does not have; use SEARCH/REPLACE blocks")
		case !exists && !b.Create:
			return notApplied("the diff changes %s, which does not exist (a diff that creates a file starts with --- /dev/null)", b.Path)
		case exists && b.Create && strings.TrimSpace(cur) != "":
			return notApplied("the diff creates %s, which already exists; diff against its current content", b.Path)
		case b.Create:
			cur = ""
		}
		next, err := edits.ApplyDiff(cur, b.Hunks)
		if err != nil {
			return notApplied("%s: %v", b.Path, err)
		}
		if next == cur && exists {
			return notApplied("the diff leaves %s unchanged", b.Path)
		}
		return st.editCall(ctx, name, ToolWriteFile, map[string]any{"path": b.Path, "content": next})
	}
	return notApplied("unknown block kind %q", b.Kind)
}

// editCall runs one tool call for a block through callTool.
func (st *loopState) editCall(ctx context.Context, name, tool string, args map[string]any) (string, bool, SpecialistOutcome, bool) {
	raw, err := json.Marshal(args)
	if err != nil {
		return name + ": not applied: " + err.Error(), false, SpecialistOutcome{}, false
	}
	before := len(st.traces)
	obs, out, stop := st.callTool(ctx, tools.Call{Name: tool, Args: raw})
	ok := len(st.traces) > before && st.traces[len(st.traces)-1].Status == tools.StatusOK
	verb := "applied"
	if !ok {
		verb = "not applied"
	}
	return fmt.Sprintf("%s: %s (%s): %s", name, verb, tool, obs), ok, out, stop
}

// tracedRefusal runs a readFile of a path nova cannot read for the block
// (outside the workspace, nova's database) through callTool, so the
// refusal is traced and counted like the tool's own.
func (st *loopState) tracedRefusal(ctx context.Context, name, path string) (string, bool, SpecialistOutcome, bool) {
	line, _, out, stop := st.editCall(ctx, name, ToolReadFile, map[string]any{"path": path})
	return line, false, out, stop
}

// currentContent is path as the run sees it: staged content over the
// disk. err is set when the path is not confined to the workspace or
// cannot be read.
func (st *loopState) currentContent(ctx context.Context, path string) (content string, exists bool, err error) {
	rel, abs, err := tools.ConfineRel(st.r.Root, path)
	if err != nil {
		return "", false, err
	}
	if rel == ".nova/nova.db" || strings.HasPrefix(rel, ".nova/nova.db.") {
		return "", false, fmt.Errorf("%s is nova's database", rel)
	}
	f, ok, err := st.draft.Lookup(ctx, rel)
	if err != nil {
		return "", false, fmt.Errorf("read staged %s: %w", rel, err)
	}
	if ok {
		return string(f.Content), !f.Deleted, nil
	}
	data, err := safefile.ReadFile(abs, tools.MaxReadBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read %s: %w", rel, err)
	}
	return string(data), true, nil
}

func firstNonBlank(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(l); t != "" {
			return t
		}
	}
	return ""
}

// elided reports a whole-file block that is an excerpt of an existing file
// ("// ... existing code ..."): writing it would drop the elided lines.
func elided(block, current string) string {
	if len(block) >= len(current) {
		return ""
	}
	for _, l := range strings.Split(block, "\n") {
		if strings.TrimSpace(l) == "" || strings.Contains("\n"+current, "\n"+l+"\n") {
			continue // the same line is in the file: code, not an elision
		}
		s := strings.ToLower(strings.TrimSpace(l))
		body := strings.TrimSpace(strings.TrimLeft(s, "/#*-;<!> "))
		body = strings.TrimSpace(strings.TrimRight(body, "*/-> "))
		ellipsis := strings.Contains(body, "...") || strings.Contains(body, "…")
		marker := body == "..." || body == "…" || ellipsis && (strings.Contains(body, "existing") ||
			strings.Contains(body, "unchanged") || strings.Contains(body, "rest of") || strings.Contains(body, "remains") ||
			strings.Contains(body, "omitted") || strings.Contains(body, "same as"))
		if marker {
			return fmt.Sprintf("the block is an excerpt (%q stands for lines it leaves out), not the whole file: writing it would delete those lines; send SEARCH/REPLACE blocks or the complete file", strings.TrimSpace(l))
		}
	}
	// A snippet shown for a file ("in main.go:" and three lines) is not a
	// new version of it: far shorter, and without the file's first line.
	curLines, blockLines := strings.Count(current, "\n")+1, strings.Count(block, "\n")+1
	if first := firstNonBlank(current); first != "" && blockLines*2 < curLines && !strings.Contains(block, first) {
		return fmt.Sprintf("the block looks like an excerpt, not the whole file (%d lines where the file has %d, without its first line %q); send SEARCH/REPLACE blocks or the complete file",
			blockLines-1, curLines-1, clip(first, 80))
	}
	return ""
}
