package patterns

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"

	"github.com/nova-dev/nova/internal/lazyre"
	"github.com/nova-dev/nova/internal/yamlguard"
)

// maxFrontMatterBytes bounds the YAML block; pattern metadata is a handful of keys.
const maxFrontMatterBytes = 64 << 10

// maxFrontMatterValues bounds the number of values (after alias expansion) and
// maxFrontMatterDepth the nesting of the decoded front matter.
const (
	maxFrontMatterValues = 10000
	maxFrontMatterDepth  = 32
)

// withinBudget walks v, spending one unit of budget per value, and reports whether the walk
// finished within the budget and the depth limit.
func withinBudget(v any, budget *int, depth int) bool {
	*budget--
	if *budget < 0 || depth > maxFrontMatterDepth {
		return false
	}
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			if !withinBudget(e, budget, depth+1) {
				return false
			}
		}
	case []any:
		for _, e := range x {
			if !withinBudget(e, budget, depth+1) {
				return false
			}
		}
	}
	return true
}

// jsonSafe rewrites decoded YAML so that encoding/json accepts it (Doc is printed by
// `--json` commands): ±Inf and NaN become strings, maps with non-string keys get string keys.
func jsonSafe(v any) any {
	switch x := v.(type) {
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return strconv.FormatFloat(x, 'g', -1, 64)
		}
	case map[string]any:
		for k, e := range x {
			x[k] = jsonSafe(e)
		}
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[fmt.Sprint(k)] = jsonSafe(e)
		}
		return out
	case []any:
		for i, e := range x {
			x[i] = jsonSafe(e)
		}
	}
	return v
}

// frontMatter is the subset of YAML front matter keys Parse understands. Unknown keys are kept
// in Doc.FrontMatter but otherwise ignored.
type frontMatter struct {
	title, description, category, typ, priority string
	tags                                        []string
	reusability                                 int
	hasReusability                              bool
	raw                                         map[string]any
}

// splitFrontMatter separates a leading "---" YAML block from the markdown body. It returns the
// YAML text, the body, and the file line number of the body's first line. ok is false when the
// text does not start with a front matter fence.
func splitFrontMatter(text string) (yml, body string, bodyLine int, ok bool, err *ParseError) {
	nl := strings.IndexByte(text, '\n')
	if nl < 0 || strings.TrimRight(text[:nl], " \t") != "---" {
		return "", text, 1, false, nil
	}
	off, lineNo := nl+1, 2
	for off < len(text) {
		l, next := text[off:], len(text)
		if end := strings.IndexByte(l, '\n'); end >= 0 {
			l, next = l[:end], off+end+1
		}
		if t := strings.TrimRight(l, " \t"); t == "---" || t == "..." {
			return text[nl+1 : off], text[next:], lineNo + 1, true, nil
		}
		off = next
		lineNo++
	}
	return "", "", 0, true, &ParseError{Line: 1, Err: ErrFrontMatter, Detail: "opening --- has no closing --- line"}
}

var reYAMLKey = lazyre.New(`^([A-Za-z_][\w-]*)\s*:`)

// keyLine finds the file line of a top-level key in the YAML text (best effort, 0 if unknown).
func keyLine(yml, key string, firstLine int) int {
	for i, l := range strings.Split(yml, "\n") {
		if m := reYAMLKey.FindStringSubmatch(l); m != nil && strings.EqualFold(m[1], key) {
			return firstLine + i
		}
	}
	return 0
}

// parseFrontMatter decodes the YAML block. firstLine is the file line of the YAML's first line.
func parseFrontMatter(yml string, firstLine int) (fm frontMatter, err *ParseError) {
	if len(yml) > maxFrontMatterBytes {
		return fm, &ParseError{Line: firstLine, Err: ErrFrontMatter, Detail: fmt.Sprintf("front matter is larger than %d bytes", maxFrontMatterBytes)}
	}
	if strings.TrimSpace(yml) == "" {
		return fm, nil
	}
	// Defence in depth: a YAML library bug must not take the scan down (CONVENTIONS: parsers
	// never panic on input), so a panic inside the decoder becomes a per-file error.
	defer func() {
		if r := recover(); r != nil {
			err = &ParseError{Line: firstLine, Err: ErrFrontMatter, Detail: fmt.Sprintf("yaml decoder failed: %v", r)}
		}
	}()
	var raw any
	// The one guarded YAML loader: depth and alias expansion are bounded
	// before anything is decoded into raw.
	if derr := yamlguard.Unmarshal("", []byte(yml), &raw, yamlguard.Limits{MaxBytes: maxFrontMatterBytes}, yaml.Strict()); derr != nil {
		line := firstLine
		detail := derr.Error()
		var le *yamlguard.LimitError
		if errors.As(derr, &le) {
			if le.Line > 0 {
				line = firstLine + le.Line - 1
			}
			return fm, &ParseError{Line: line, Err: ErrFrontMatter, Detail: le.Limit.Error() + ": " + le.Msg}
		}
		var ye yaml.Error
		if errors.As(derr, &ye) {
			detail = ye.GetMessage()
			if tk := ye.GetToken(); tk != nil && tk.Position != nil && tk.Position.Line > 0 {
				line = firstLine + tk.Position.Line - 1
			}
		}
		return fm, &ParseError{Line: line, Err: ErrFrontMatter, Detail: detail}
	}
	if raw == nil {
		return fm, nil
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return fm, &ParseError{Line: firstLine, Err: ErrFrontMatter, Detail: fmt.Sprintf("front matter must be a mapping of keys, got %T", raw)}
	}
	// Aliases are decoded as shared values, so a tiny "billion laughs" block is cheap here but
	// explodes in whoever walks or encodes Doc.FrontMatter later. Bound the expanded size.
	budget := maxFrontMatterValues
	if !withinBudget(m, &budget, 0) {
		return fm, &ParseError{Line: firstLine, Err: ErrFrontMatter, Detail: fmt.Sprintf("front matter expands to more than %d values (nested too deep or too many aliases)", maxFrontMatterValues)}
	}
	fm.raw = jsonSafe(m).(map[string]any)
	bad := func(key, want string, v any) *ParseError {
		return &ParseError{Line: keyLine(yml, key, firstLine), Err: ErrFrontMatter, Detail: fmt.Sprintf("%s: want %s, got %v", key, want, v)}
	}
	for k, v := range m {
		key := strings.ToLower(k)
		switch key {
		case "title", "description", "summary", "category":
			s, ok := scalarString(v)
			if !ok {
				return fm, bad(k, "a string", v)
			}
			switch key {
			case "title":
				fm.title = s
			case "description", "summary":
				if fm.description == "" || key == "description" {
					fm.description = s
				}
			case "category":
				fm.category = s
			}
		case "type":
			s, ok := scalarString(v)
			t, known := normalizeType(s)
			if !ok || !known {
				return fm, bad(k, "one of "+strings.Join(NodeTypes(), ", "), v)
			}
			fm.typ = t
		case "tags":
			tags, ok := stringList(v)
			if !ok {
				return fm, bad(k, "a list of strings or a comma-separated string", v)
			}
			fm.tags = tags
		case "priority":
			s, ok := scalarString(v)
			p, valid := normalizePriority(s)
			if !ok || !valid {
				return fm, bad(k, "P0–P9, critical, high, medium or low", v)
			}
			fm.priority = p
		case "reusability":
			r, ok := reusabilityValue(v)
			if !ok {
				return fm, bad(k, "a number from 0 to 10 (or \"N/10\")", v)
			}
			fm.reusability, fm.hasReusability = r, true
		}
	}
	return fm, nil
}

func scalarString(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "", true
	case string:
		return strings.TrimSpace(x), true
	case bool:
		return strconv.FormatBool(x), true
	case int, int64, uint64, float64:
		return fmt.Sprint(x), true
	}
	return "", false
}

func stringList(v any) ([]string, bool) {
	switch x := v.(type) {
	case nil:
		return nil, true
	case string:
		return splitList(x), true
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			s, ok := scalarString(e)
			if !ok {
				return nil, false
			}
			if s != "" {
				out = append(out, s)
			}
		}
		return out, true
	}
	return nil, false
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func reusabilityValue(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return clampReuse(float64(x))
	case int64:
		return clampReuse(float64(x))
	case uint64:
		return clampReuse(float64(x))
	case float64:
		return clampReuse(x)
	case string:
		return parseReusability(x)
	}
	return 0, false
}

// parseReusability reads "9/10", "9", "4/5" (scaled to 8) or "8.5/10" (rounded to 9).
func parseReusability(s string) (int, bool) {
	num, den, ok := reuseNumbers(cleanInline(s))
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, false
	}
	if den != "" {
		d, err := strconv.ParseFloat(den, 64)
		if err != nil || d <= 0 {
			return 0, false
		}
		v = v * 10 / d
	}
	return clampReuse(v)
}

// reuseNumbers is reReuse's match of s, its two groups (den "" when absent), without the
// regex (every file has the field: the regex was most of reading it). FuzzReuseNumbers
// holds it to reReuse.
func reuseNumbers(s string) (num, den string, ok bool) {
	i := 0
	for i < len(s) && isRESpace(s[i]) {
		i++
	}
	j := i
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	if j == i {
		return "", "", false
	}
	if j+1 < len(s) && s[j] == '.' && isDigit(s[j+1]) {
		j += 2
		for j < len(s) && isDigit(s[j]) {
			j++
		}
	}
	num = s[i:j]
	k := j
	for k < len(s) && isRESpace(s[k]) {
		k++
	}
	if k < len(s) && s[k] == '/' {
		k++
		for k < len(s) && isRESpace(s[k]) {
			k++
		}
		l := k
		for l < len(s) && isDigit(s[l]) {
			l++
		}
		den = s[k:l]
	}
	return num, den, true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func clampReuse(v float64) (int, bool) {
	if math.IsNaN(v) || v < 0 || v > 10 {
		return 0, false
	}
	return int(math.Round(v)), true
}

var rePriority = lazyre.New(`(?i)^p\s*([0-9])\b`)

// normalizePriority reads "P1", "p1 (high)", "1", "critical", "high", "medium", "low".
func normalizePriority(s string) (string, bool) {
	s = strings.TrimSpace(cleanInline(s))
	if m := rePriority.FindStringSubmatch(s); m != nil {
		return "P" + m[1], true
	}
	if len(s) == 1 && s[0] >= '0' && s[0] <= '9' {
		return "P" + s, true
	}
	first := strings.ToLower(strings.Trim(strings.SplitN(s, " ", 2)[0], ".,;:()"))
	switch first {
	case "critical", "blocker", "urgent":
		return "P0", true
	case "high":
		return "P1", true
	case "medium", "normal", "moderate":
		return "P2", true
	case "low":
		return "P3", true
	}
	return "", false
}
