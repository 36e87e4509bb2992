package tmpl

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/nikolalohinski/gonja/v2/tokens"
)

// Ref is a free name a template reads: `{{ research.output }}` reads
// Name "research" with Attr "output"; `{{ steps['find'] }}` reads "steps"
// with Attr "find". Names the template defines itself (loop variables,
// set and with targets) and the globals (range, dict, namespace, cycler,
// joiner, loop) are not refs.
type Ref struct {
	Name string `json:"name"`
	Attr string `json:"attr,omitempty"`
	Line int    `json:"line"`
}

// keywords are Name tokens that are part of the syntax.
var keywords = map[string]bool{
	"if": true, "elif": true, "else": true, "endif": true, "for": true, "endfor": true,
	"set": true, "endset": true, "with": true, "endwith": true, "filter": true, "endfilter": true,
	"raw": true, "endraw": true, "break": true, "continue": true, "autoescape": true,
	"endautoescape": true, "true": true, "false": true, "none": true, "True": true,
	"False": true, "None": true, "recursive": true,
}

// globalNames are defined for every template.
var globalNames = map[string]bool{
	"range": true, "dict": true, "namespace": true, "cycler": true, "joiner": true,
	"loop": true,
}

// scan lexes a template, refuses what the sandbox does not offer and
// returns the free names it reads.
func scan(src string) (refs []Ref, err error) {
	defer func() {
		if r := recover(); r != nil {
			refs, err = nil, &Error{Kind: ErrSyntax, Msg: fmt.Sprintf("template could not be read: %v", r)}
		}
	}()
	st := tokens.LexAll(src, newConfig())
	var (
		tag       []*tokens.Token // tokens of the current {{ }} or {% %}
		inTag     bool
		locals    = map[string]bool{}
		raw       []Ref
		repeatAll = 1.0
	)
	for !st.End() {
		tok := st.Next()
		switch tok.Type {
		case tokens.VariableBegin, tokens.BlockBegin:
			inTag, tag = true, append(tag[:0], tok)
			continue
		case tokens.VariableEnd, tokens.BlockEnd:
			if !inTag {
				continue
			}
			inTag = false
			r, factor, err := scanTag(tag, locals)
			if err != nil {
				return nil, err
			}
			repeatAll *= factor
			if repeatAll > MaxRepeat {
				return nil, &Error{Kind: ErrSyntax, Line: tok.Line, Msg: fmt.Sprintf("the * factors of this template multiply to more than %d", MaxRepeat)}
			}
			raw = append(raw, r...)
			continue
		}
		if inTag {
			tag = append(tag, tok)
		}
	}
	if st.IsError() {
		cur := st.Current()
		return nil, &Error{Kind: ErrSyntax, Line: cur.Line, Msg: cleanMessage(cur.Val)}
	}
	seen := map[string]bool{}
	for _, r := range raw {
		if locals[r.Name] || globalNames[r.Name] {
			continue
		}
		key := r.Name + "\x00" + r.Attr
		if seen[key] {
			continue
		}
		seen[key] = true
		refs = append(refs, r)
	}
	return refs, nil
}

// scanTag checks one tag (its first token is VariableBegin or BlockBegin)
// and returns its free-name candidates and the product of its * factors.
func scanTag(tag []*tokens.Token, locals map[string]bool) ([]Ref, float64, error) {
	body := tag[1:]
	block := tag[0].Type == tokens.BlockBegin
	start := 0
	stmt := ""
	if block {
		if len(body) == 0 || body[0].Type != tokens.Name {
			return nil, 1, nil // the parser reports the syntax error
		}
		stmt = body[0].Val
		base := strings.TrimPrefix(stmt, "end")
		if !allowedStatements[stmt] && !allowedStatements[base] && stmt != "elif" && stmt != "else" {
			return nil, 1, &Error{Kind: ErrSyntax, Line: body[0].Line,
				Msg: fmt.Sprintf("{%% %s %%} is not available in nova templates (they cannot read files or define macros); use if, for, set, with, filter or raw", stmt)}
		}
		start = 1
		switch stmt {
		case "for":
			for i := 1; i < len(body) && body[i].Type != tokens.In; i++ {
				if body[i].Type == tokens.Name {
					locals[body[i].Val] = true
				}
			}
		case "set", "with":
			depth := 0
			for i := 1; i < len(body); i++ {
				switch body[i].Type {
				case tokens.LeftParenthesis, tokens.LeftBracket, tokens.LeftBrace:
					depth++
				case tokens.RightParenthesis, tokens.RightBracket, tokens.RightBrace:
					depth--
				case tokens.Name:
					if depth == 0 && (i+1 == len(body) || body[i+1].Type == tokens.Assign || body[i+1].Type == tokens.Comma) &&
						body[i-1].Type != tokens.Dot {
						locals[body[i].Val] = true
					}
				}
			}
		case "filter":
			start = len(body) // a filter section names filters only
		}
	}
	var refs []Ref
	factor := 1.0
	depth := 0
	for i := start; i < len(body); i++ {
		t := body[i]
		var prev, next *tokens.Token
		if i > 0 {
			prev = body[i-1]
		}
		if i+1 < len(body) {
			next = body[i+1]
		}
		switch t.Type {
		case tokens.LeftParenthesis, tokens.LeftBracket, tokens.LeftBrace:
			depth++
		case tokens.RightParenthesis, tokens.RightBracket, tokens.RightBrace:
			depth--
		case tokens.Multiply:
			if (prev != nil && prev.Type == tokens.String) || (next != nil && next.Type == tokens.String) {
				return nil, 1, &Error{Kind: ErrSyntax, Line: t.Line, Msg: "repeating text with * is not available in nova templates"}
			}
			lit := 0.0
			for _, side := range []*tokens.Token{prev, next} {
				if side == nil || (side.Type != tokens.Integer && side.Type != tokens.Float) {
					continue
				}
				if f, err := strconv.ParseFloat(side.Val, 64); err == nil {
					lit = max(lit, abs(f))
				}
			}
			if lit == 0 {
				return nil, 1, &Error{Kind: ErrSyntax, Line: t.Line, Msg: "* needs a number written in the template on one side (e.g. count * 2)"}
			}
			factor *= max(lit, 1)
		case tokens.Name:
			if keywords[t.Val] {
				continue
			}
			if prev != nil && (prev.Type == tokens.Dot || prev.Type == tokens.Pipe || prev.Type == tokens.Is) {
				continue // attribute, filter or test name
			}
			if prev != nil && prev.Type == tokens.Not && i >= 2 && body[i-2].Type == tokens.Is {
				continue // "is not <test>"
			}
			if depth > 0 && next != nil && next.Type == tokens.Assign {
				continue // keyword argument name
			}
			ref := Ref{Name: t.Val, Line: t.Line}
			if next != nil && next.Type == tokens.Dot && i+2 < len(body) && body[i+2].Type == tokens.Name {
				ref.Attr = body[i+2].Val
			} else if next != nil && next.Type == tokens.LeftBracket && i+3 < len(body) &&
				body[i+2].Type == tokens.String && body[i+3].Type == tokens.RightBracket {
				ref.Attr = body[i+2].Val
			}
			refs = append(refs, ref)
		}
	}
	return refs, factor, nil
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

// Names returns the distinct names of refs, in order.
func Names(refs []Ref) []string {
	var out []string
	for _, r := range refs {
		if !slices.Contains(out, r.Name) {
			out = append(out, r.Name)
		}
	}
	return out
}
