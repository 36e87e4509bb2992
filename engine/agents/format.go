package agents

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/nova-dev/nova/engine/untrusted"
	"slices"
	"strings"

	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/tools"
)

// EditFormat is how a run's model writes its file changes (config
// agents.editFormat).
type EditFormat string

// Edit formats.
const (
	// EditAuto picks per tier: whole files on the small tier, tools on
	// medium and large.
	EditAuto EditFormat = "auto"
	// EditTools: the writeFile and editFile tools.
	EditTools EditFormat = "tools"
	// EditWhole: the path on a line, then the whole new file in a fenced
	// block (parsed from the reply by engine/edits).
	EditWhole EditFormat = "whole"
	// EditDiff: the path on a line, then SEARCH/REPLACE blocks (parsed
	// from the reply by engine/edits).
	EditDiff EditFormat = "diff"
)

// EditFormats lists the values agents.editFormat accepts.
func EditFormats() []EditFormat { return []EditFormat{EditAuto, EditTools, EditWhole, EditDiff} }

// ParseEditFormat reads a configured format; "" is auto.
func ParseEditFormat(s string) (EditFormat, error) {
	f := EditFormat(strings.ToLower(strings.TrimSpace(s)))
	if f == "" {
		return EditAuto, nil
	}
	if slices.Contains(EditFormats(), f) {
		return f, nil
	}
	return "", fmt.Errorf("unknown edit format %q (want auto, tools, whole or diff)", s)
}

// ResolveEditFormat is the format a run on tier uses: the configured one,
// or for auto (and anything unknown) whole files on the small tier and the
// tools above it. A run that escalates resolves it again for its new tier.
func ResolveEditFormat(f EditFormat, tier llm.Tier) EditFormat {
	switch f {
	case EditTools, EditWhole, EditDiff:
		return f
	}
	if tier == llm.TierSmall {
		return EditWhole
	}
	return EditTools
}

// smallTierTools are the only tools the small tier is offered (with the
// format's write tools when the format is tools): every schema costs
// prompt tokens a small model's context cannot spare. Knowledge, skill,
// docs and board tools come back when the run escalates. With the code map
// on (findSymbol is registered), the small tier gets the map in its prompt
// and findSymbol instead of the exploratory listFiles.
var smallTierTools = []string{ToolReadFile, ToolListFiles, ToolSearchFiles, ToolRunCommand, ToolFindSymbol}

// SelectTools picks, from every tool spec's agent may use (all), the ones
// a run on tier with format is offered. Every format keeps writeFile and
// editFile (whole and diff explain blocks in the reply, but a native call
// still works); the small tier gets the minimal set of smallTierTools, the
// write tools, and the shared tools (knowledge, skills, docs, board) its
// spec lists, in their compact form
// (CompactTool). A tool left out is only not offered: the registry still
// permits what the agent may use.
func SelectTools(all []tools.Tool, spec Spec, tier llm.Tier, format EditFormat) []tools.Tool {
	out := make([]tools.Tool, 0, len(all))
	hasMap := slices.ContainsFunc(all, func(t tools.Tool) bool { return t.Name == ToolFindSymbol })
	for _, t := range all {
		// The write tools are offered in every format: a model that calls
		// writeFile natively while told to write blocks must not be lost
		// (Ollama drops a call to a tool the request did not offer).
		write := t.Name == ToolWriteFile || t.Name == ToolEditFile
		if tier == llm.TierSmall {
			core := slices.Contains(CoreTools(), t.Name)
			if !write && !slices.Contains(smallTierTools, t.Name) && (core || !spec.HasTool(t.Name)) {
				continue
			}
			if t.Name == ToolListFiles && hasMap {
				continue // the map and findSymbol stand in for exploring
			}
			t = CompactTool(t)
		}
		out = append(out, t)
	}
	return out
}

// briefDescriptions are the core tools' descriptions in a few words, for
// the small tier.
var briefDescriptions = map[string]string{
	ToolReadFile:    "Read a workspace file; offset and limit pick a line range.",
	ToolListFiles:   "List the files under a directory (default: the root).",
	ToolSearchFiles: "Search file contents with an RE2 regular expression; answers path:line: text.",
	ToolWriteFile:   "Create a file or replace all of it (staged for review).",
	ToolEditFile:    "Replace an exact piece of a file's text (staged for review).",
	ToolDeleteFile:  "Delete a file (staged for review).",
	ToolRunCommand:  "Run an allowed command such as go test ./... (no shell).",
	ToolFindSymbol:  "Find where a function or type is defined: path:line and signature.",
}

// CompactTool returns t as the small tier is sent it: a brief description
// and a schema reduced to the argument names, types and required list
// (what the model must get right). Only what is sent shrinks: the registry
// validates calls against the tool's full schema.
func CompactTool(t tools.Tool) tools.Tool {
	if d, ok := briefDescriptions[t.Name]; ok {
		t.Description = d
	} else if i := strings.Index(t.Description, ". "); i > 0 {
		t.Description = t.Description[:i+1]
	}
	t.Schema = compactSchema(t.Schema)
	return t
}

// compactSchema keeps an object schema's property types and its required
// list; a schema it cannot read is kept as it is.
func compactSchema(raw json.RawMessage) json.RawMessage {
	var s struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(raw, &s); err != nil || s.Type != "object" {
		return raw
	}
	type prop struct {
		Type  any             `json:"type,omitempty"`
		Enum  json.RawMessage `json:"enum,omitempty"`
		Items json.RawMessage `json:"items,omitempty"`
	}
	props := make(map[string]prop, len(s.Properties))
	for name, p := range s.Properties {
		var v prop
		if err := json.Unmarshal(p, &v); err != nil {
			return raw
		}
		props[name] = v
	}
	out := struct {
		Type       string          `json:"type"`
		Properties map[string]prop `json:"properties"`
		Required   []string        `json:"required,omitempty"`
	}{s.Type, props, s.Required}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return raw
	}
	return bytes.TrimSpace(b.Bytes())
}

// writeRules writes the workspace rules: in full for medium and large, in
// four lines for the small tier.
func writeRules(b *strings.Builder, small bool) {
	if small {
		b.WriteString("\n## Rules\n")
		b.WriteString("- Paths are relative to the workspace root. Changes are staged for review; your reads show them.\n")
		b.WriteString("- Read a file before you change it.\n")
		b.WriteString("- When the task is done, answer: the files you changed, why, and the checks you ran.\n")
		b.WriteString("- " + untrusted.ShortInstruction + "\n")
		return
	}
	b.WriteString("\n## Working in this workspace\n")
	b.WriteString("- Paths are relative to the workspace root and must stay inside it.\n")
	b.WriteString("- Writes are staged in a changeset for review; nothing reaches the working tree until it is approved, and your own reads show what you staged.\n")
	b.WriteString("- Read the code before changing it.\n")
	b.WriteString("- Tool results over the output budget are cut: ask for less (a line range, a narrower search).\n")
	b.WriteString("- When the task is done, stop calling tools and answer: the files you changed, why, and the checks you ran.\n")
	b.WriteString("- " + untrusted.Instruction + "\n")
}

// writeFormat writes how the model changes files in format: nothing for an
// agent that cannot write, one line for the tools, the block syntax for
// whole and diff (and, when the agent's own text names the write tools the
// run is not offered, that the blocks stand in for them).
func writeFormat(b *strings.Builder, spec Spec, format EditFormat, canWrite bool) {
	if !canWrite {
		return
	}
	if format != EditTools && namesWriteTools(spec) {
		defer b.WriteString("Where this prompt names writeFile or editFile, write blocks like these instead.\n")
	}
	switch format {
	case EditWhole:
		b.WriteString("\n## Changing files\n")
		b.WriteString("To change a file, write its path on a line, then the whole new file in a fenced block:\n\n")
		b.WriteString("src/greet.go\n```go\npackage src\n\nfunc Greet() string { return \"hi\" }\n```\n\n")
		b.WriteString("Always write the complete file, every line of it: never a part, never \"...\" for lines you keep. " +
			"The same form creates a new file. Nova stages each block and tells you how it went; a reply with blocks needs no tool call.\n")
	case EditDiff:
		b.WriteString("\n## Changing files\n")
		b.WriteString("To change a file, write its path on a line, then one or more SEARCH/REPLACE blocks:\n\n")
		b.WriteString("src/greet.go\n<<<<<<< SEARCH\n\treturn \"hi\"\n=======\n\treturn \"hello\"\n>>>>>>> REPLACE\n\n")
		b.WriteString("SEARCH holds lines copied exactly from the file, enough of them to match one place only; " +
			"REPLACE holds what takes their place (empty to delete them). " +
			"To create a file, leave SEARCH empty and put the whole file in REPLACE. Nova stages each block and tells you how it went; a reply with blocks needs no tool call.\n")
	default:
		b.WriteString("Change an existing file with editFile (its exact current text, then the new text); create a file or rewrite a whole one with writeFile.\n")
	}
}

// namesWriteTools reports whether the agent's role or static context names
// writeFile or editFile.
func namesWriteTools(spec Spec) bool {
	for _, s := range []string{spec.Role, spec.StaticContext} {
		if strings.Contains(s, ToolWriteFile) || strings.Contains(s, ToolEditFile) {
			return true
		}
	}
	return false
}
