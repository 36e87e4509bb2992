package edits

import (
	"errors"
	"fmt"
	"strings"
)

// ErrHunk is wrapped by ApplyDiff's errors.
var ErrHunk = errors.New("a hunk does not apply")

// HunkError says which hunk did not apply and why.
type HunkError struct {
	Hunk   int // 1-based
	Header string
	Err    error
}

func (e *HunkError) Error() string {
	h := strings.TrimSpace(e.Header)
	if h == "" {
		h = "@@"
	}
	return fmt.Sprintf("hunk %d (%s): %v", e.Hunk, clipString(h, 80), e.Err)
}

func (e *HunkError) Unwrap() []error { return []error{ErrHunk, e.Err} }

// ApplyDiff applies hunks to content in order. Each hunk is located by its
// old side (context and removed lines) with Find's rules, so wrong line
// numbers do not matter; when the old side matches several places, the one
// starting exactly at the header's line (shifted by the earlier hunks) is
// taken, else the hunk is ambiguous. A hunk with no old side inserts at its
// header's line (or appends). Line ends follow the file's.
func ApplyDiff(content string, hunks []Hunk) (string, error) {
	if len(hunks) == 0 {
		return content, &HunkError{Hunk: 0, Err: errors.New("the diff has no hunks")}
	}
	shift := 0
	for i, h := range hunks {
		old, repl := h.Old(), h.New()
		if strings.TrimSpace(old) == "" {
			content = insertAt(content, h.OldStart+shift, repl)
			shift += len(searchLines(repl))
			continue
		}
		ms, err := candidates(content, old)
		if err != nil {
			return content, &HunkError{Hunk: i + 1, Header: h.Header, Err: err}
		}
		m := ms[0]
		if len(ms) > 1 {
			picked := false
			if h.OldStart > 0 {
				for _, c := range ms {
					if c.Line == h.OldStart+shift {
						m, picked = c, true
						break
					}
				}
			}
			if !picked {
				return content, &HunkError{Hunk: i + 1, Header: h.Header, Err: ambiguous(ms)}
			}
		}
		oldN, newN := len(searchLines(old)), len(searchLines(repl))
		if repl == "" {
			newN = 0
		}
		content = Replace(content, m, old, repl)
		if h.OldStart > 0 {
			shift += newN - oldN
		}
	}
	return content, nil
}

// insertAt inserts text before 1-based line n+1 (after line n; n <= 0
// means at the top when the content is empty, else at the end).
func insertAt(content string, n int, add string) string {
	if add == "" {
		return content
	}
	if isCRLF(content) {
		add = toCRLF(add)
	}
	if content == "" {
		return add
	}
	t := splitText(content)
	if n <= 0 || n >= len(t.lines) {
		if !strings.HasSuffix(content, "\n") {
			content += map[bool]string{true: "\r\n", false: "\n"}[isCRLF(content)]
		}
		return content + add
	}
	at := t.end[n-1]
	return content[:at] + add + content[at:]
}
