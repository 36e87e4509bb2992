package diffview

import (
	"path/filepath"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
)

// seg is a run of text with one token type.
type seg struct {
	text string
	tt   chroma.TokenType
}

// ttMarker is a pseudo token type for nova's own annotations (e.g. "no
// newline at end of file"); it renders in the subtle colour.
const ttMarker chroma.TokenType = -9000

// highlighted holds both sides split into lines of tokens.
type highlighted struct {
	lang     string
	old, new [][]seg
}

// highlightMsg delivers the tokens of doc. It is dropped when the content
// changed meanwhile.
type highlightMsg struct {
	doc *document
	hl  *highlighted
}

// lexerFor picks a lexer by file name (extension, or names such as
// Makefile); nil means plain text.
func lexerFor(path string) chroma.Lexer {
	l := lexers.Match(filepath.Base(path))
	if l == nil {
		return nil
	}
	if cfg := l.Config(); cfg != nil && strings.EqualFold(cfg.Name, "plaintext") {
		return nil
	}
	return chroma.Coalesce(l)
}

// highlightCmd lexes both sides off the UI goroutine. Chroma's lexers cost
// far more than rendering (≈0.1 ms a line), so they never run in Update or
// View: the diff shows uncoloured until the tokens arrive.
func (d *document) highlightCmd() tea.Cmd {
	if d.status != statusOK || len(d.old)+len(d.new) > MaxHighlightBytes {
		return nil
	}
	return func() tea.Msg {
		// The lookup too runs here, not in Update: matching a file name
		// walks every lexer's globs.
		lexer := lexerFor(d.path)
		if lexer == nil {
			return nil // plain text: nothing to colour
		}
		hl := &highlighted{lang: lexer.Config().Name}
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); hl.old = lex(lexer, d.old, len(d.oldLines)) }()
		go func() { defer wg.Done(); hl.new = lex(lexer, d.new, len(d.newLines)) }()
		wg.Wait()
		return highlightMsg{doc: d, hl: hl}
	}
}

// lex tokenises text into want lines. It returns nil when the lexer fails
// or disagrees about the line count, and the side then renders plain.
func lex(lexer chroma.Lexer, text string, want int) (out [][]seg) {
	if want == 0 {
		return nil
	}
	defer func() {
		if recover() != nil {
			out = nil // a lexer bug must not take the TUI down
		}
	}()
	it, err := lexer.Tokenise(nil, text)
	if err != nil {
		return nil
	}
	lines := chroma.SplitTokensIntoLines(it.Tokens())
	if len(lines) < want {
		return nil
	}
	out = make([][]seg, want)
	for i := range want {
		toks := lines[i]
		segs := make([]seg, 0, len(toks))
		for _, t := range toks {
			if v := strings.TrimSuffix(t.Value, "\n"); v != "" {
				segs = append(segs, seg{text: v, tt: t.Type})
			}
		}
		// splitLines drops a CR before the newline; do the same here.
		if n := len(segs); n > 0 && strings.HasSuffix(segs[n-1].text, "\r") {
			segs[n-1].text = strings.TrimSuffix(segs[n-1].text, "\r")
			if segs[n-1].text == "" {
				segs = segs[:n-1]
			}
		}
		out[i] = segs
	}
	return out
}
