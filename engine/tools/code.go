package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Names of the code-map tools.
const (
	NameFindSymbol = "findSymbol"
	NameReferences = "references"
	NameOutline    = "outline"
)

// ErrNotFound is what a CodeIndex returns for a name or path it does not
// know: the model reads it as an answer, not a failure of the tool.
var ErrNotFound = errors.New("not found")

// CodeIndex answers the code-map tools (engine/codemap, wired by the
// engine). Each method returns the text the model sees; paths resolve
// inside the workspace.
type CodeIndex interface {
	// FindSymbol lists the definitions named name: path:line and signature.
	FindSymbol(ctx context.Context, name string) (string, error)
	// References lists the files that refer to name, with where first.
	References(ctx context.Context, name string) (string, error)
	// Outline lists one file's definitions with their lines and signatures.
	Outline(ctx context.Context, path string) (string, error)
}

// CodeTools are the code-map tools over idx: read-only, offered to every
// agent (AllAgents), answered from the repository map.
func CodeTools(idx CodeIndex) []Tool {
	nameSchema := json.RawMessage(`{"type":"object","properties":{
		"name":{"type":"string","minLength":1,"maxLength":200,"description":"identifier, e.g. SaveOrder or Store.SaveOrder"}},
		"required":["name"],"additionalProperties":false}`)
	nameAliases := map[string]string{"symbol": "name", "identifier": "name", "query": "name"}
	run := func(f func(context.Context, string) (string, error), field string) func(context.Context, *Env, json.RawMessage) (Output, error) {
		return func(ctx context.Context, _ *Env, raw json.RawMessage) (Output, error) {
			var args map[string]string
			if err := json.Unmarshal(raw, &args); err != nil {
				return Output{}, fmt.Errorf("%w: %w", ErrInvalidArgs, err)
			}
			text, err := f(ctx, strings.TrimSpace(args[field]))
			if errors.Is(err, ErrNotFound) {
				return Output{Text: err.Error()}, nil
			}
			if err != nil {
				return Output{}, err
			}
			return Output{Text: text}, nil
		}
	}
	return []Tool{
		{
			Name:        NameFindSymbol,
			Aliases:     nameAliases,
			Description: "Find where a function, method, type or class is defined: path:line and its signature, from nova's map of the code.",
			Schema:      nameSchema,
			AllAgents:   true,
			Timeout:     20 * time.Second,
			Run:         run(idx.FindSymbol, "name"),
		},
		{
			Name:        NameReferences,
			Aliases:     nameAliases,
			Description: "List the files that use a name (callers of a function, users of a type), most uses first, with the first line and enclosing function.",
			Schema:      nameSchema,
			AllAgents:   true,
			Timeout:     20 * time.Second,
			Run:         run(idx.References, "name"),
		},
		{
			Name:        NameOutline,
			Aliases:     map[string]string{"file_path": "path", "filepath": "path", "file": "path", "filename": "path"},
			Description: "Show a source file's outline: its functions, types and methods with line numbers and signatures, without bodies.",
			Schema: json.RawMessage(`{"type":"object","properties":{
				"path":{"type":"string","minLength":1,"description":"file path relative to the workspace root"}},
				"required":["path"],"additionalProperties":false}`),
			AllAgents: true,
			Timeout:   20 * time.Second,
			Run:       run(idx.Outline, "path"),
		},
	}
}

// RegisterCode adds the code-map tools to r.
func RegisterCode(r *Registry, idx CodeIndex) error {
	for _, t := range CodeTools(idx) {
		if err := r.Register(t); err != nil {
			return err
		}
	}
	return nil
}
