package promptctx

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/nova-dev/nova/engine/untrusted"
	"github.com/nova-dev/nova/internal/safefile"
)

// RuleFiles are the project rule files read into every prompt, in the order
// they are read (paths relative to the workspace root).
var RuleFiles = []string{
	"AGENTS.md",
	"CLAUDE.md",
	"CONVENTIONS.md",
	".cursorrules",
	".github/copilot-instructions.md",
}

// maxRuleFileBytes bounds one rule file read from disk; the token budget
// cuts it further.
const maxRuleFileBytes = 256 << 10

// ProjectRules reads the project rule files under root into one block of at
// most tokens tokens (estimated as ceil(chars/4)), tagged <project_rules>,
// each file's text wrapped as untrusted data. A file that is missing is
// skipped; one that is not a regular file, lies outside root (a symlink out)
// or is too large is skipped too, and named in the error beside the text of
// the others. tokens ≤ 0 turns the block off. A file cut to fit is marked.
func ProjectRules(root string, tokens int) (text string, items []Item, err error) {
	if tokens <= 0 {
		return "", nil, nil
	}
	var errs []error
	var sb strings.Builder
	const head = "<project_rules>\nThe project's own rule files (its conventions; follow them unless the user says otherwise):\n"
	const tail = "</project_rules>"
	left := tokens*4 - len(head) - len(tail)
	for _, rel := range RuleFiles {
		if left <= 64 {
			break
		}
		data, rerr := readInside(root, rel)
		if errors.Is(rerr, fs.ErrNotExist) {
			continue
		}
		if rerr != nil {
			errs = append(errs, fmt.Errorf("rule file %s: %w", rel, rerr))
			continue
		}
		body := strings.TrimSpace(string(data))
		if body == "" {
			continue
		}
		cut := false
		room := left - 200 // the wrapper and header of this file
		if len(body) > room {
			body, cut = truncate(body, max(room, 0)), true
		}
		if cut {
			body += "\n…[cut to fit budgets.rulesShare]"
		}
		chunk := "\n## " + rel + "\n" + untrusted.Wrap(rel, body) + "\n"
		sb.WriteString(chunk)
		left -= len(chunk)
		title := rel
		if cut {
			title += " (cut)"
		}
		items = append(items, Item{Block: BlockRules, Source: rel, ID: rel, Title: title, Tokens: (len([]rune(chunk)) + 3) / 4})
	}
	if sb.Len() == 0 {
		return "", nil, errors.Join(errs...)
	}
	return head + sb.String() + tail, items, errors.Join(errs...)
}

// readInside reads root/rel when it resolves inside root and is a regular
// file of reasonable size.
func readInside(root, rel string) ([]byte, error) {
	p := filepath.Join(root, filepath.FromSlash(rel))
	if _, err := os.Lstat(p); err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return nil, err
	}
	rootReal, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, err
	}
	if r, err := filepath.Rel(rootReal, real); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return nil, errors.New("it resolves outside the workspace")
	}
	return safefile.ReadFile(real, maxRuleFileBytes)
}

// truncate cuts s to at most n bytes on a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// RuleStatement is one rule of a project rule file, for importing it as a
// workspace fact (`nova init`).
type RuleStatement struct {
	File string `json:"file"`
	Text string `json:"text"`
}

// maxStatementChars bounds one imported rule (a fact holds 2000).
const maxStatementChars = 1500

// RuleStatements splits the project rule files under root into rules: each
// list item, or each paragraph that is not a heading, is one. Files that
// cannot be read are skipped (their errors joined). Code blocks are left
// out: they illustrate rules, they are not rules.
func RuleStatements(root string) ([]RuleStatement, []string, error) {
	var out []RuleStatement
	var found []string
	var errs []error
	for _, rel := range RuleFiles {
		data, err := readInside(root, rel)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("rule file %s: %w", rel, err))
			continue
		}
		found = append(found, rel)
		for _, s := range splitRules(string(data)) {
			out = append(out, RuleStatement{File: rel, Text: s})
		}
	}
	return out, found, errors.Join(errs...)
}

// splitRules splits markdown (or plain text) into rule statements.
func splitRules(text string) []string {
	var out []string
	var cur []string
	flush := func() {
		s := strings.TrimSpace(strings.Join(cur, " "))
		cur = cur[:0]
		if s != "" {
			out = append(out, truncate(s, maxStatementChars))
		}
	}
	fence := false
	for line := range strings.SplitSeq(text, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			flush()
			fence = !fence
			continue
		}
		if fence {
			continue
		}
		switch {
		case t == "" || strings.HasPrefix(t, "#"):
			flush()
		case isItem(t):
			flush()
			cur = append(cur, strings.TrimSpace(strings.TrimLeft(t, "-*+0123456789.) ")))
		default:
			cur = append(cur, t)
		}
	}
	flush()
	return out
}

func isItem(t string) bool {
	if strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") || strings.HasPrefix(t, "+ ") {
		return true
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == ')') && t[i+1] == ' '
}
