package agents

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Forms of a tool call written in a reply's text (TextToolCall.Form).
const (
	// FormJSON: a JSON object (or array of them) in the prose,
	// {"name": "writeFile", "arguments": {...}}.
	FormJSON = "json"
	// FormFencedJSON: the same inside a fenced block (```json or ```).
	FormFencedJSON = "fenced-json"
	// FormToolCallTag: JSON inside <tool_call>…</tool_call> (qwen2.5 and
	// other Hermes-style templates).
	FormToolCallTag = "tool_call-tag"
	// FormFunctionTag: <function=NAME><parameter=KEY>value</parameter>…
	// </function> (qwen3-coder), or <function=NAME>{json}</function>.
	FormFunctionTag = "function-tag"
	// FormMistral: [TOOL_CALLS][{...}] or [TOOL_CALLS]NAME[ARGS]{...}.
	FormMistral = "mistral"
)

// TextToolCall is a tool call a model wrote in the text of its reply
// instead of returning it as a native tool call.
type TextToolCall struct {
	// Name is the offered tool's name, as offered (a call written as
	// "write_file" or "functions.writeFile" is read as writeFile).
	Name string `json:"name"`
	// Args is the arguments object as compact JSON ({} when none).
	Args json.RawMessage `json:"args"`
	// Form says how the call was written (FormJSON, …).
	Form string `json:"form"`
}

// Bounds of ParseTextToolCalls.
const (
	// maxTextCallInput is how much of a reply is looked at.
	maxTextCallInput = 1 << 20
	// maxTextCalls is the most calls read from one reply.
	maxTextCalls = 16
	// maxToolNameLen: a longer "name" is prose, not a tool.
	maxToolNameLen = 64
)

// ParseTextToolCalls finds the tool calls a model wrote in the text of a
// reply, in the order they appear. It recognises
//
//   - a JSON object {"name": …, "arguments"|"parameters": {…}} (also
//     {"function": {"name": …, "arguments": …}}, arguments given as a JSON
//     string, and an array of such objects), bare in the prose (FormJSON) or
//     in a fenced block (FormFencedJSON);
//   - <tool_call>{json}</tool_call> (FormToolCallTag);
//   - <function=NAME><parameter=KEY>raw text</parameter>…</function>, whose
//     values are strings with one leading and one trailing newline removed
//     (FormFunctionTag);
//   - [TOOL_CALLS][{json}, …] and [TOOL_CALLS]NAME[ARGS]{json} (FormMistral).
//
// Only tools named in offered count (compared without case, '_' and '-',
// and after a "functions." prefix); a call of anything else stays text. A
// bare JSON object must have the shape of a call (no keys but name,
// arguments/parameters/args, id, type and index), so data that merely has a
// "name" is not one. <think>…</think> is removed first, and an unclosed
// <think> hides the rest of the reply. A raw newline or tab inside a JSON
// string (a common slip of small models) is read as its escape.
//
// The first 1 MiB of content is read, scanning is bounded by a budget
// proportional to it, at most 16 calls are returned, and it never panics.
func ParseTextToolCalls(content string, offered []string) []TextToolCall {
	if len(offered) == 0 || strings.TrimSpace(content) == "" {
		return nil
	}
	if len(content) > maxTextCallInput {
		content = content[:maxTextCallInput]
	}
	content = stripThinking(content)
	p := &textCallParser{text: content, offered: offered, budget: 8*len(content) + 4096}
	p.mistral()
	p.toolCallTags()
	p.functionTags()
	p.fences()
	p.bare()
	slices.SortStableFunc(p.found, func(a, b foundCall) int { return a.pos - b.pos })
	var out []TextToolCall
	for _, f := range p.found {
		if len(out) == maxTextCalls {
			break
		}
		out = append(out, f.call)
	}
	return out
}

// stripThinking removes reasoning a model wrote into its content.
func stripThinking(s string) string {
	s = thinkBlock.ReplaceAllString(s, "")
	if i := strings.Index(s, "</think>"); i >= 0 {
		s = s[i+len("</think>"):] // the template opened the block: all before it was thinking
	}
	if i := strings.Index(s, "<think>"); i >= 0 {
		s = s[:i] // never closed: the rest is thinking
	}
	return s
}

type foundCall struct {
	pos  int
	call TextToolCall
}

// textCallParser runs the passes of ParseTextToolCalls over one text. A
// pass that reads a region takes it (taken), so later passes do not read the
// same call again in another form.
type textCallParser struct {
	text    string
	offered []string
	budget  int // bytes the bracket matcher may still look at
	taken   [][2]int
	found   []foundCall
}

func (p *textCallParser) full() bool { return len(p.found) >= maxTextCalls || p.budget <= 0 }

func (p *textCallParser) take(start, end int) { p.taken = append(p.taken, [2]int{start, end}) }

func (p *textCallParser) isTaken(start, end int) bool {
	for _, t := range p.taken {
		if start < t[1] && t[0] < end {
			return true
		}
	}
	return false
}

func (p *textCallParser) add(pos int, calls []TextToolCall) {
	for _, c := range calls {
		if c.Name != "" {
			p.found = append(p.found, foundCall{pos: pos, call: c})
		}
	}
}

// resolve maps a written tool name to the offered one ("" when none).
func (p *textCallParser) resolve(name string) string {
	name = strings.Trim(strings.TrimSpace(name), "`'\"")
	if name == "" || len(name) > maxToolNameLen {
		return ""
	}
	if slices.Contains(p.offered, name) {
		return name
	}
	want := foldToolName(name)
	for _, o := range p.offered {
		if foldToolName(o) == want {
			return o
		}
	}
	return ""
}

func foldToolName(s string) string {
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		s = s[i+1:] // functions.writeFile
	}
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r != '_' && r != '-' && r != ' ' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// --- [TOOL_CALLS] -------------------------------------------------------------

func (p *textCallParser) mistral() {
	const marker, argsMarker, idMarker = "[TOOL_CALLS]", "[ARGS]", "[CALL_ID]"
	s := p.text
	for i := 0; i < len(s) && !p.full(); {
		k := strings.Index(s[i:], marker)
		if k < 0 {
			return
		}
		start := i + k
		j := start + len(marker)
		i = j
		for j < len(s) && isSpace(s[j]) {
			j++
		}
		if j < len(s) && (s[j] == '[' || s[j] == '{') {
			end := p.jsonEnd(j)
			if end < 0 {
				continue
			}
			if calls, ok := p.callsFromJSON(s[j:end], FormMistral, false); ok {
				p.add(start, calls)
				p.take(start, end)
			}
			i = end
			continue
		}
		// [TOOL_CALLS]name[ARGS]{...} (optionally name[CALL_ID]id[ARGS]).
		window := s[j:min(len(s), j+2*maxToolNameLen)]
		a := strings.Index(window, argsMarker)
		if a < 0 {
			continue
		}
		name := window[:a]
		if c := strings.Index(name, idMarker); c >= 0 {
			name = name[:c]
		}
		o := j + a + len(argsMarker)
		for o < len(s) && isSpace(s[o]) {
			o++
		}
		if o >= len(s) || s[o] != '{' {
			continue
		}
		end := p.jsonEnd(o)
		if end < 0 {
			continue
		}
		if args, ok := argsObject(s[o:end]); ok {
			p.take(start, end)
			if n := p.resolve(name); n != "" {
				p.add(start, []TextToolCall{{Name: n, Args: args, Form: FormMistral}})
			}
		}
		i = end
	}
}

// tagBody finds where the body of a tag that starts at bodyStart ends: at
// its closing tag, or, left open, at the next opening tag or the end of s.
// spanEnd is past the closing tag when there is one.
func tagBody(s string, bodyStart int, open, closing string) (bodyEnd, spanEnd int) {
	rest := s[bodyStart:]
	limit := len(rest)
	if n := strings.Index(rest, open); n >= 0 {
		limit = n
	}
	if c := strings.Index(rest[:limit], closing); c >= 0 {
		return bodyStart + c, bodyStart + c + len(closing)
	}
	return bodyStart + limit, bodyStart + limit
}

// --- <tool_call> ---------------------------------------------------------------

func (p *textCallParser) toolCallTags() {
	const open, closing = "<tool_call>", "</tool_call>"
	s := p.text
	for i := 0; i < len(s) && !p.full(); {
		k := strings.Index(s[i:], open)
		if k < 0 {
			return
		}
		start := i + k
		bodyStart := start + len(open)
		bodyEnd, spanEnd := tagBody(s, bodyStart, open, closing)
		i = max(spanEnd, bodyStart)
		body := s[bodyStart:bodyEnd]
		if strings.Contains(body, "<function=") {
			continue // qwen3-coder's form inside the tag: functionTags reads it
		}
		o := strings.IndexAny(body, "{[")
		if o < 0 {
			continue
		}
		end := p.jsonEnd(bodyStart + o)
		if end < 0 || end > bodyEnd {
			continue
		}
		if calls, ok := p.callsFromJSON(s[bodyStart+o:end], FormToolCallTag, false); ok {
			p.add(start, calls)
			p.take(start, spanEnd)
		}
	}
}

// --- <function=NAME> -----------------------------------------------------------

func (p *textCallParser) functionTags() {
	const open, closing = "<function=", "</function>"
	s := p.text
	for i := 0; i < len(s) && !p.full(); {
		k := strings.Index(s[i:], open)
		if k < 0 {
			return
		}
		start := i + k
		nameStart := start + len(open)
		i = nameStart
		gt := strings.IndexByte(s[nameStart:min(len(s), nameStart+maxToolNameLen+8)], '>')
		if gt < 0 {
			continue
		}
		name := strings.TrimSpace(s[nameStart : nameStart+gt])
		if name == "" || strings.ContainsAny(name, " \t\r\n<") {
			continue
		}
		bodyStart := nameStart + gt + 1
		bodyEnd, spanEnd := tagBody(s, bodyStart, open, closing)
		i = spanEnd
		if p.isTaken(start, spanEnd) {
			continue
		}
		args, ok := functionArgs(s[bodyStart:bodyEnd])
		if !ok {
			continue
		}
		p.take(start, spanEnd)
		if n := p.resolve(name); n != "" {
			p.add(start, []TextToolCall{{Name: n, Args: args, Form: FormFunctionTag}})
		}
	}
}

// functionArgs reads the body of a <function=…> tag: <parameter=KEY>value
// </parameter> pairs (a parameter left open ends at the next one or the end
// of the body), or one JSON object, or nothing.
func functionArgs(body string) (json.RawMessage, bool) {
	const open, closing = "<parameter=", "</parameter>"
	if !strings.Contains(body, open) {
		t := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(body), "</tool_call>"))
		if t == "" {
			return json.RawMessage(`{}`), true
		}
		return argsObject(t)
	}
	obj := map[string]string{}
	for j := 0; j < len(body); {
		k := strings.Index(body[j:], open)
		if k < 0 {
			break
		}
		ks := j + k + len(open)
		gt := strings.IndexByte(body[ks:], '>')
		if gt < 0 {
			break
		}
		key := strings.TrimSpace(body[ks : ks+gt])
		vs := ks + gt + 1
		rest := body[vs:]
		limit := len(rest)
		if n := strings.Index(rest, open); n >= 0 {
			limit = n
		}
		ve, next := limit, limit
		if c := strings.Index(rest[:limit], closing); c >= 0 {
			ve, next = c, c+len(closing)
		}
		j = vs + next
		if key == "" || len(key) > 128 || strings.ContainsAny(key, "\r\n<") {
			continue
		}
		if _, dup := obj[key]; !dup {
			obj[key] = trimOneNewline(rest[:ve])
		}
	}
	if len(obj) == 0 {
		return nil, false
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, false
	}
	return b, true
}

// trimOneNewline removes one leading and one trailing line break: the
// template puts the value on its own lines.
func trimOneNewline(v string) string {
	switch {
	case strings.HasPrefix(v, "\r\n"):
		v = v[2:]
	case strings.HasPrefix(v, "\n"):
		v = v[1:]
	}
	switch {
	case strings.HasSuffix(v, "\r\n"):
		v = v[:len(v)-2]
	case strings.HasSuffix(v, "\n"):
		v = v[:len(v)-1]
	}
	return v
}

// --- fenced blocks -------------------------------------------------------------

func (p *textCallParser) fences() {
	for _, f := range fencedBlocks(p.text) {
		if p.full() {
			return
		}
		if p.isTaken(f.start, f.end) {
			continue
		}
		body := p.text[f.bodyStart:f.bodyEnd]
		o := strings.IndexAny(body, "{[")
		if o < 0 {
			continue
		}
		end := p.jsonEnd(f.bodyStart + o)
		if end < 0 || end > f.bodyEnd {
			continue
		}
		if calls, ok := p.callsFromJSON(p.text[f.bodyStart+o:end], FormFencedJSON, false); ok && hasNamed(calls) {
			p.add(f.start, calls)
			p.take(f.start, f.end)
		}
	}
}

func hasNamed(calls []TextToolCall) bool {
	return slices.ContainsFunc(calls, func(c TextToolCall) bool { return c.Name != "" })
}

type fenced struct{ start, end, bodyStart, bodyEnd int }

// fencedBlocks lists the ``` and ~~~ blocks of a text; one left open runs
// to the end.
func fencedBlocks(s string) []fenced {
	var out []fenced
	var cur *fenced
	var marker string
	for pos := 0; pos < len(s); {
		eol := strings.IndexByte(s[pos:], '\n')
		next := len(s)
		if eol >= 0 {
			next = pos + eol + 1
		}
		line := strings.TrimRight(s[pos:next], "\r\n")
		trimmed := strings.TrimLeft(line, " ")
		indent := len(line) - len(trimmed)
		switch {
		case cur == nil && indent <= 3 && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")):
			marker = trimmed[:3]
			cur = &fenced{start: pos, bodyStart: next}
		case cur != nil && indent <= 3 && strings.HasPrefix(trimmed, marker) && strings.Trim(trimmed, marker[:1]+" \t") == "":
			cur.bodyEnd, cur.end = pos, next
			out = append(out, *cur)
			cur = nil
		}
		pos = next
	}
	if cur != nil {
		cur.bodyEnd, cur.end = len(s), len(s)
		out = append(out, *cur)
	}
	return out
}

// --- bare JSON -----------------------------------------------------------------

func (p *textCallParser) bare() {
	s := p.text
	slices.SortFunc(p.taken, func(a, b [2]int) int { return a[0] - b[0] })
	t := 0
	for i := 0; i < len(s) && !p.full(); i++ {
		c := s[i]
		if c != '{' && c != '[' {
			continue
		}
		for t < len(p.taken) && p.taken[t][1] <= i {
			t++
		}
		if t < len(p.taken) && p.taken[t][0] <= i {
			i = p.taken[t][1] - 1
			continue
		}
		if !plausibleCallStart(s[i:]) {
			continue
		}
		end := p.jsonEnd(i)
		if end < 0 {
			continue
		}
		if t < len(p.taken) && end > p.taken[t][0] {
			continue // runs into a region another form read
		}
		calls, ok, isJSON := p.readCalls(s[i:end], FormJSON, true)
		if !isJSON {
			continue // braces of prose: a call may start inside
		}
		if ok {
			p.add(i, calls)
		}
		i = end - 1 // a JSON value that is not a call is data: nothing inside it is read
	}
}

// plausibleCallStart: a call object starts with a key, an array of calls
// with an object.
func plausibleCallStart(s string) bool {
	rest := strings.TrimLeft(s[1:], " \t\r\n")
	if rest == "" {
		return false
	}
	if s[0] == '{' {
		return rest[0] == '"'
	}
	return rest[0] == '{'
}

// --- JSON ----------------------------------------------------------------------

// jsonEnd returns the end (exclusive) of the object or array starting at
// p.text[i], matching brackets outside strings, or -1. Every byte looked at
// is paid from the budget, so repeated failed starts stay bounded.
func (p *textCallParser) jsonEnd(i int) int {
	s := p.text
	depth := 0
	inStr, esc := false, false
	for j := i; j < len(s); j++ {
		p.budget--
		if p.budget < 0 {
			return -1
		}
		c := s[j]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1
			}
			if depth < 0 {
				return -1
			}
		}
	}
	return -1
}

// decodeLoose decodes JSON, reading raw control characters inside strings
// as their escapes when the strict decode fails.
func decodeLoose(s string, v any) bool {
	if json.Unmarshal([]byte(s), v) == nil {
		return true
	}
	fixed, changed := escapeRawControls(s)
	return changed && json.Unmarshal([]byte(fixed), v) == nil
}

func escapeRawControls(s string) (string, bool) {
	var b strings.Builder
	changed, inStr, esc := false, false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			case c < 0x20:
				if !changed {
					b.Grow(len(s) + 16)
					b.WriteString(s[:i])
					changed = true
				}
				switch c {
				case '\n':
					b.WriteString(`\n`)
				case '\r':
					b.WriteString(`\r`)
				case '\t':
					b.WriteString(`\t`)
				default:
					fmt.Fprintf(&b, `\u%04x`, c)
				}
				continue
			}
		} else if c == '"' {
			inStr = true
		}
		if changed {
			b.WriteByte(c)
		}
	}
	if !changed {
		return s, false
	}
	return b.String(), true
}

// callsFromJSON reads a JSON document as tool calls. ok is false when it is
// not JSON or not shaped like calls (data); calls of tools not offered come
// back with an empty Name. needArgs (bare JSON in prose) asks for an
// arguments key, so {"name": "x"} alone is not a call.
func (p *textCallParser) callsFromJSON(doc, form string, needArgs bool) ([]TextToolCall, bool) {
	calls, ok, _ := p.readCalls(doc, form, needArgs)
	return calls, ok
}

// readCalls is callsFromJSON that also says whether doc was JSON at all.
func (p *textCallParser) readCalls(doc, form string, needArgs bool) (calls []TextToolCall, ok, isJSON bool) {
	doc = strings.TrimSpace(doc)
	if doc == "" {
		return nil, false, false
	}
	var items []json.RawMessage
	if doc[0] == '[' {
		if !decodeLoose(doc, &items) {
			return nil, false, false
		}
		if len(items) == 0 {
			return nil, false, true
		}
	} else {
		var obj map[string]json.RawMessage
		if !decodeLoose(doc, &obj) {
			return nil, false, false
		}
		if obj == nil {
			return nil, false, true
		}
		if inner, ok := obj["tool_calls"]; ok && onlyKeys(obj, "tool_calls", "content", "role") {
			if json.Unmarshal(inner, &items) != nil || len(items) == 0 {
				return nil, false, true
			}
		} else {
			c, ok := p.callFromObject(obj, form, needArgs)
			if !ok {
				return nil, false, true
			}
			return []TextToolCall{c}, true, true
		}
	}
	out := make([]TextToolCall, 0, len(items))
	for _, it := range items {
		var obj map[string]json.RawMessage
		if json.Unmarshal(it, &obj) != nil || obj == nil {
			return nil, false, true
		}
		c, ok := p.callFromObject(obj, form, needArgs)
		if !ok {
			return nil, false, true
		}
		out = append(out, c)
	}
	return out, true, true
}

var callKeys = []string{"name", "arguments", "parameters", "args", "id", "type", "index"}

func onlyKeys(obj map[string]json.RawMessage, keys ...string) bool {
	for k := range obj {
		if !slices.Contains(keys, k) {
			return false
		}
	}
	return true
}

// callFromObject reads one call object: {"name", "arguments"} or
// {"function": {"name", "arguments"}}.
func (p *textCallParser) callFromObject(obj map[string]json.RawMessage, form string, needArgs bool) (TextToolCall, bool) {
	if fn, ok := obj["function"]; ok {
		if _, named := obj["name"]; named || !onlyKeys(obj, "function", "id", "type", "index") {
			return TextToolCall{}, false
		}
		var inner map[string]json.RawMessage
		if json.Unmarshal(fn, &inner) != nil || inner == nil {
			return TextToolCall{}, false
		}
		obj = inner
	}
	if !onlyKeys(obj, callKeys...) {
		return TextToolCall{}, false
	}
	var name string
	if json.Unmarshal(obj["name"], &name) != nil || strings.TrimSpace(name) == "" {
		return TextToolCall{}, false
	}
	var rawArgs json.RawMessage
	for _, k := range []string{"arguments", "parameters", "args"} {
		if v, ok := obj[k]; ok {
			rawArgs = v
			break
		}
	}
	var args json.RawMessage
	switch t := bytes.TrimSpace(rawArgs); {
	case rawArgs == nil:
		if needArgs {
			return TextToolCall{}, false
		}
		args = json.RawMessage(`{}`)
	case string(t) == "null":
		args = json.RawMessage(`{}`)
	case len(t) > 0 && t[0] == '"':
		var str string
		if json.Unmarshal(t, &str) != nil {
			return TextToolCall{}, false
		}
		if strings.TrimSpace(str) == "" {
			args = json.RawMessage(`{}`)
			break
		}
		a, ok := argsObject(str)
		if !ok {
			return TextToolCall{}, false
		}
		args = a
	default:
		a, ok := argsObject(string(t))
		if !ok {
			return TextToolCall{}, false
		}
		args = a
	}
	return TextToolCall{Name: p.resolve(name), Args: args, Form: form}, true
}

// argsObject returns s as a compact JSON object.
func argsObject(s string) (json.RawMessage, bool) {
	s = strings.TrimSpace(s)
	if s == "" || s[0] != '{' {
		return nil, false
	}
	if !json.Valid([]byte(s)) {
		fixed, changed := escapeRawControls(s)
		if !changed || !json.Valid([]byte(fixed)) {
			return nil, false
		}
		s = fixed
	}
	var buf bytes.Buffer
	if json.Compact(&buf, []byte(s)) != nil {
		return nil, false
	}
	return buf.Bytes(), true
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
