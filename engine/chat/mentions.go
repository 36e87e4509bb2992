package chat

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/nova-dev/nova/engine/untrusted"
	"github.com/nova-dev/nova/internal/lazyre"
	"github.com/nova-dev/nova/internal/safefile"
)

// MaxAttachBytes bounds one attached file.
const MaxAttachBytes = 128 << 10

// mentionPattern is an @path: @ at the start or after a space, then a run
// of path characters.
var mentionPattern = lazyre.New(`(?:^|\s)@([A-Za-z0-9_./\-][A-Za-z0-9_./\-+~]*)`)

// Mentions lists the @path mentions of msg, each once, in order; isAgent
// leaves out those that name an agent.
func Mentions(msg string, isAgent func(string) bool) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range mentionPattern.FindAllStringSubmatch(msg, -1) {
		p := strings.TrimRight(m[1], ".,;:")
		if p == "" || seen[p] || (isAgent != nil && isAgent(p)) {
			continue
		}
		seen[p] = true
		out = append(out, p)
	}
	return out
}

// Attached is a mention read for the prompt.
type Attached struct {
	Attachment
	// Text is the file's content wrapped as data (engine/untrusted).
	Text string
}

// Attach reads the files mentioned, relative to root. A file outside the
// workspace (by path or by symlink), a directory, a FIFO or other special
// file, a binary file, a file over MaxAttachBytes, or files past the token
// budget are refused with the reason.
func Attach(root string, paths []string, tokens int) (ok []Attached, refused []Refusal) {
	left := tokens
	for _, p := range paths {
		a, err := attachOne(root, p)
		if err != nil {
			refused = append(refused, Refusal{Path: p, Reason: err.Error()})
			continue
		}
		if a.Tokens > left {
			refused = append(refused, Refusal{Path: p, Reason: fmt.Sprintf("it does not fit the prompt (%d tokens, %d left for attachments)", a.Tokens, max(left, 0))})
			continue
		}
		left -= a.Tokens
		ok = append(ok, a)
	}
	return ok, refused
}

func attachOne(root, p string) (Attached, error) {
	if filepath.IsAbs(p) {
		return Attached{}, errors.New("an absolute path: mention files by their path in the workspace")
	}
	clean := filepath.Clean(filepath.FromSlash(p))
	if clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return Attached{}, errors.New("outside the workspace")
	}
	full := filepath.Join(root, clean)
	fi, err := os.Lstat(full)
	if errors.Is(err, fs.ErrNotExist) {
		return Attached{}, errors.New("no such file in the workspace")
	}
	if err != nil {
		return Attached{}, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		real, err := filepath.EvalSymlinks(full)
		if err != nil {
			return Attached{}, fmt.Errorf("a broken symlink: %w", err)
		}
		rootReal, err := filepath.EvalSymlinks(root)
		if err != nil {
			return Attached{}, err
		}
		if r, err := filepath.Rel(rootReal, real); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return Attached{}, errors.New("a symlink to a file outside the workspace")
		}
		if fi, err = os.Stat(real); err != nil {
			return Attached{}, err
		}
	}
	if fi.IsDir() {
		return Attached{}, errors.New("a directory: mention the files in it")
	}
	if !fi.Mode().IsRegular() {
		return Attached{}, fmt.Errorf("not a regular file (%s)", safefile.ModeName(fi.Mode()))
	}
	if fi.Size() > MaxAttachBytes {
		return Attached{}, fmt.Errorf("too large to attach (%d bytes, more than %d KB)", fi.Size(), MaxAttachBytes>>10)
	}
	data, err := safefile.ReadFile(full, MaxAttachBytes)
	if err != nil {
		var se *safefile.Error
		if errors.As(err, &se) {
			return Attached{}, fmt.Errorf("%w (%s)", se.Err, se.Detail)
		}
		return Attached{}, err
	}
	if IsBinary(data) {
		return Attached{}, errors.New("a binary file")
	}
	rel := filepath.ToSlash(clean)
	text := untrusted.Wrap(rel, string(data))
	return Attached{Attachment: Attachment{Path: rel, Bytes: len(data), Tokens: estimate(text)}, Text: text}, nil
}

// IsBinary reports whether data looks like a binary file: a NUL byte, or
// text that is not UTF-8, in its first 8 KB.
func IsBinary(data []byte) bool {
	head := data[:min(len(data), 8<<10)]
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	// A rune cut at the 8 KB boundary is not a binary file.
	for i := 0; i < 3 && len(head) > 0 && !utf8.Valid(head); i++ {
		head = head[:len(head)-1]
	}
	return !utf8.Valid(head)
}

// estimate is nova's token estimate: ceil(chars/4).
func estimate(s string) int { return (utf8.RuneCountInString(s) + 3) / 4 }
