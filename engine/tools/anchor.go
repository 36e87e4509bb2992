package tools

import (
	"strings"
)

// AnchorLines is how many lines an edit claim's anchors hold on each side
// of the edited block.
const AnchorLines = 3

// EditAnchor is the claim an editFile invocation makes about where its
// change sits: the lines before and after the edited block, and the
// block's digest. Line numbers are a hint only (later edits move them);
// the verifier finds the block by its anchors in the staged file.
type EditAnchor struct {
	// Before is up to AnchorLines lines that end where the block starts
	// ("" at the start of the file).
	Before string `json:"before"`
	// After is up to AnchorLines lines that start where the block ends
	// ("" at the end of the file).
	After string `json:"after"`
	// BlockSHA256 is the hex digest of the edited block as staged, and
	// BlockBytes its length.
	BlockSHA256 string `json:"blockSha256"`
	BlockBytes  int    `json:"blockBytes"`
	// StartLine and EndLine (1-based, inclusive) locate the block when it
	// was staged.
	StartLine int `json:"startLine,omitempty"`
	EndLine   int `json:"endLine,omitempty"`
}

// NewEditAnchor describes the block updated[start:end] of an edit.
func NewEditAnchor(updated string, start, end int) *EditAnchor {
	if start < 0 || end > len(updated) || start > end {
		return nil
	}
	before := updated[:start]
	// Up to AnchorLines lines ending where the block starts (the partial
	// line the block starts in counts as one).
	b := len(before)
	if b > 0 && before[b-1] == '\n' {
		b-- // the line break that ends the line before the block
	}
	for n := range AnchorLines {
		i := strings.LastIndexByte(before[:b], '\n')
		if i < 0 {
			b = 0
			break
		}
		if n == AnchorLines-1 {
			b = i + 1
			break
		}
		b = i
	}
	after := updated[end:]
	a := 0
	for n := 0; n < AnchorLines && a < len(after); n++ {
		i := strings.IndexByte(after[a:], '\n')
		if i < 0 {
			a = len(after)
			break
		}
		a += i + 1
	}
	startLine := strings.Count(updated[:start], "\n") + 1
	endLine := startLine + strings.Count(strings.TrimSuffix(updated[start:end], "\n"), "\n")
	return &EditAnchor{
		Before:      before[b:],
		After:       after[:a],
		BlockSHA256: SHA256([]byte(updated[start:end])),
		BlockBytes:  end - start,
		StartLine:   startLine,
		EndLine:     endLine,
	}
}

// Locate reports whether content holds the claimed block between its
// anchors: Before, then BlockBytes bytes whose digest is BlockSHA256, then
// After, contiguously. An empty Before pins the block to the start of the
// file, an empty After to its end.
func (a *EditAnchor) Locate(content string) bool {
	if a == nil || a.BlockBytes < 0 {
		return false
	}
	at := func(p int) bool {
		end := p + a.BlockBytes
		if end > len(content) {
			return false
		}
		rest := content[end:]
		if a.After == "" && rest != "" || !strings.HasPrefix(rest, a.After) {
			return false
		}
		return SHA256([]byte(content[p:end])) == a.BlockSHA256
	}
	if a.Before == "" {
		return at(0)
	}
	for from := 0; from < len(content); {
		i := strings.Index(content[from:], a.Before)
		if i < 0 {
			return false
		}
		if at(from + i + len(a.Before)) {
			return true
		}
		from += i + 1
	}
	return false
}
