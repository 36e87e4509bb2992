package rehearsal

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/internal/safefile"
)

// proposal is what the model returns for one branch.
type proposal struct {
	Description string `json:"description"`
	Files       []struct {
		Path            string `json:"path"`
		ProposedContent string `json:"proposedContent"`
	} `json:"files"`
	AgentNotes string `json:"agentNotes"`
}

// branchSchema is the JSON schema of one branch reply. originalContent is
// deliberately absent: nova reads it from the workspace.
const branchSchema = `{
  "type": "object",
  "required": ["description", "files", "agentNotes"],
  "properties": {
    "description": {"type": "string"},
    "files": {
      "type": "array",
      "items": {
        "type": "object",
        "required": ["path", "proposedContent"],
        "properties": {
          "path": {"type": "string"},
          "proposedContent": {"type": "string"}
        }
      }
    },
    "agentNotes": {"type": "string"}
  }
}`

// validate turns a proposal into a branch with original contents read from
// the workspace, or says why it cannot be used.
func validate(root string, p proposal) ([]File, error) {
	if len(p.Files) == 0 {
		return nil, errors.New("the branch proposes no files")
	}
	seen := map[string]bool{}
	out := make([]File, 0, len(p.Files))
	for _, f := range p.Files {
		raw := strings.TrimSpace(f.Path)
		if raw == "" {
			return nil, errors.New("a file has an empty path")
		}
		if filepath.IsAbs(raw) || path.IsAbs(filepath.ToSlash(raw)) || (len(raw) > 1 && raw[1] == ':') {
			return nil, fmt.Errorf("path %q is absolute", raw)
		}
		rel, abs, err := tools.ConfineRel(root, raw)
		if err != nil {
			return nil, fmt.Errorf("path %q escapes the workspace: %w", raw, err)
		}
		if rel == "." || strings.HasPrefix(rel, ".nova/") || rel == ".nova" || rel == ".git" || strings.HasPrefix(rel, ".git/") {
			return nil, fmt.Errorf("path %q is not a project file", raw)
		}
		if seen[rel] {
			return nil, fmt.Errorf("path %q appears twice", rel)
		}
		seen[rel] = true
		if len(f.ProposedContent) > MaxFileBytes {
			return nil, fmt.Errorf("file %s is too large (%d bytes, limit %d)", rel, len(f.ProposedContent), MaxFileBytes)
		}
		if !utf8.ValidString(f.ProposedContent) || strings.IndexByte(f.ProposedContent, 0) >= 0 {
			return nil, fmt.Errorf("file %s is not UTF-8 text", rel)
		}
		file := File{Path: rel, ProposedContent: f.ProposedContent}
		st, err := os.Stat(abs)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			file.New = true
		case err != nil:
			return nil, fmt.Errorf("read %s: %w", rel, err)
		case st.IsDir():
			return nil, fmt.Errorf("path %s is a directory", rel)
		case st.Size() > MaxFileBytes:
			return nil, fmt.Errorf("original %s is too large (%d bytes)", rel, st.Size())
		default:
			data, err := safefile.ReadFile(abs, MaxFileBytes) // never blocks on a FIFO
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", rel, err)
			}
			if !utf8.Valid(data) {
				return nil, fmt.Errorf("original %s is not UTF-8 text", rel)
			}
			file.OriginalContent = string(data)
		}
		out = append(out, file)
	}
	return out, nil
}
