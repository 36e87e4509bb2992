package prd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"

	"github.com/nova-dev/nova/internal/safefile"
	"github.com/nova-dev/nova/internal/yamlguard"
)

// MaxSize bounds the PRD files Load reads.
const MaxSize = 32 << 20

// MaxYAMLSize bounds a YAML PRD: go-yaml's tree costs far more per input
// byte than encoding/json, and real PRDs are a few tens of KB.
const MaxYAMLSize = 4 << 20

// ParseError is a PRD that cannot be decoded. It names the file, the line and
// column (1-based, 0 when unknown), the byte offset for JSON (-1 when
// unknown) and the field when the problem is a wrong type.
type ParseError struct {
	Name   string
	Format string // "json" or "yaml"
	Line   int
	Column int
	// Offset is the 0-based index of the byte the JSON decoder stopped at.
	Offset int64
	Field  string // e.g. "tasks[2].phase"
	Msg    string
	Err    error
}

// Error formats as "name:line:col: field: message (byte offset N)".
func (e *ParseError) Error() string {
	var b strings.Builder
	b.WriteString(cmpOr(e.Name, "prd"))
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Column > 0 {
			fmt.Fprintf(&b, ":%d", e.Column)
		}
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Msg)
	if e.Offset >= 0 && e.Format == "json" {
		fmt.Fprintf(&b, " (byte offset %d)", e.Offset)
	}
	return b.String()
}

// Unwrap exposes ErrMalformed and the decoder's own error.
func (e *ParseError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrMalformed, e.Err}
	}
	return []error{ErrMalformed}
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Parse decodes a PRD. The format follows the name's extension (.json,
// .yaml, .yml); for any other name it is sniffed: a document starting with
// '{' is JSON, anything else YAML. Statuses are normalised (see
// ParseStatus); unknown fields are kept in Extra. Parse never panics on
// input; it does not validate (call Validate).
func Parse(name string, data []byte) (*PRD, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // UTF-8 BOM
	var (
		p   *PRD
		err error
	)
	if isJSON(name, data) {
		p, err = parseJSON(name, data)
	} else {
		p, err = parseYAML(name, data)
	}
	if err != nil {
		return nil, err
	}
	p.Source = name
	for i := range p.Tasks {
		p.Tasks[i].Status = p.Tasks[i].Status.Normalize()
	}
	return p, nil
}

// Load reads and parses a PRD file.
func Load(path string) (*PRD, error) {
	// Only a regular file, and the limit holds on the bytes read: a FIFO
	// must not block and a link to /dev/zero must not fill memory.
	data, err := safefile.ReadFile(path, MaxSize)
	if errors.Is(err, safefile.ErrTooLarge) {
		return nil, &ParseError{Name: path, Offset: -1, Msg: fmt.Sprintf("file is larger than the %d-byte limit", MaxSize), Err: err}
	}
	if err != nil {
		return nil, fmt.Errorf("read prd: %w", err)
	}
	return Parse(path, data)
}

// Marshal encodes the PRD as indented JSON in Nova26's layout, ending in a
// newline.
func (p *PRD) Marshal() ([]byte, error) {
	b, err := marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encode prd: %w", err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return nil, fmt.Errorf("encode prd: %w", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// Save writes the PRD as JSON (whatever the extension), atomically: a
// temporary file in the same directory is renamed over path.
func (p *PRD) Save(path string) error {
	data, err := p.Marshal()
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("save prd: %w", err)
	}
	defer func() { _ = os.Remove(tmp.Name()) }() // fails harmlessly after a successful rename
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("save prd: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save prd: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("save prd: %w", err)
	}
	return nil
}

func isJSON(name string, data []byte) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".json":
		return true
	case ".yaml", ".yml":
		return false
	}
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	return len(trimmed) > 0 && trimmed[0] == '{'
}

// --- JSON ----------------------------------------------------------------------

// wire is the typed shape; extras are collected in a second pass. Its
// types drop Task's and Meta's UnmarshalJSON (which collect extras for a
// value crossing a socket) so that decode errors keep their offsets in the
// whole document.
type wire struct {
	Meta  wireMeta   `json:"meta" yaml:"meta"`
	Tasks []wireTask `json:"tasks" yaml:"tasks"`
}

type (
	wireMeta Meta
	wireTask Task
)

func (w wire) prd() *PRD {
	p := &PRD{Meta: Meta(w.Meta)}
	if w.Tasks != nil {
		p.Tasks = make([]Task, len(w.Tasks))
		for i, t := range w.Tasks {
			p.Tasks[i] = Task(t)
		}
	}
	return p
}

type wireExtras struct {
	Meta  map[string]json.RawMessage   `json:"meta"`
	Tasks []map[string]json.RawMessage `json:"tasks"`
}

func parseJSON(name string, data []byte) (*PRD, error) {
	// encoding/json reports how many bytes it had read when it failed; the
	// byte it failed on is the one before that.
	perr := func(read int64, field, msg string, err error) *ParseError {
		offset := max(read-1, 0)
		if read < 0 {
			offset = -1
		}
		line, col := lineCol(data, offset)
		return &ParseError{Name: name, Format: "json", Line: line, Column: col, Offset: offset, Field: field, Msg: msg, Err: err}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, perr(0, "", "empty document", nil)
	}

	var w wire
	if err := json.Unmarshal(data, &w); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return nil, perr(se.Offset, "", "invalid JSON: "+se.Error(), err)
		case errors.As(err, &te):
			field := jsonFieldOf(data, te.Field)
			return nil, perr(te.Offset, field, fmt.Sprintf("expected %s, got %s", jsonType(te.Type.String()), te.Value), err)
		default:
			return nil, perr(-1, "", err.Error(), err)
		}
	}
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return nil, perr(0, "", "document is null, want an object with meta and tasks", nil)
	}

	if field, read, ok := jsonDuplicateKey(data); ok {
		return nil, perr(read, field, "duplicate key: the field appears twice in one object (JSON decoders keep the last one silently)", nil)
	}

	p := w.prd()
	// The typed pass succeeded, so the document is a well-formed object and
	// these decodes only fail on shapes the typed pass also rejected.
	var top map[string]json.RawMessage
	var ex wireExtras
	if json.Unmarshal(data, &top) != nil || json.Unmarshal(data, &ex) != nil {
		return p, nil
	}
	if err := setExtras(p, top, ex.Meta, func(i int) map[string]json.RawMessage {
		if i < len(ex.Tasks) {
			return ex.Tasks[i]
		}
		return nil
	}); err != nil {
		err.Name, err.Format = name, "json"
		return nil, err
	}
	return p, nil
}

// jsonDuplicateKey finds the first key that appears twice in one object,
// as YAML PRDs already refuse it. encoding/json keeps the last value
// without a word, so a hand-merged PRD could lose a task's real agent. It
// returns the key's path (e.g. "tasks[1].agent") and the bytes read when
// it was seen. Hand-written: encoding/json has no option for this.
func jsonDuplicateKey(data []byte) (string, int64, bool) {
	type frame struct {
		obj     bool
		wantKey bool
		keys    map[string]bool
		last    string
		idx     int
		path    string
	}
	var stack []*frame
	childPath := func() string {
		if len(stack) == 0 {
			return ""
		}
		top := stack[len(stack)-1]
		if top.obj {
			if top.path == "" {
				return top.last
			}
			return top.path + "." + top.last
		}
		return fmt.Sprintf("%s[%d]", top.path, top.idx)
	}
	valueDone := func() {
		if len(stack) == 0 {
			return
		}
		top := stack[len(stack)-1]
		if top.obj {
			top.wantKey = true
		} else {
			top.idx++
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", 0, false // EOF, or a syntax error the typed pass reports
		}
		if n := len(stack); n > 0 && stack[n-1].obj && stack[n-1].wantKey {
			top := stack[n-1]
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:n-1]
				valueDone()
				continue
			}
			k, _ := tok.(string)
			if top.keys[k] {
				top.last = k
				return childPath(), dec.InputOffset(), true
			}
			top.keys[k], top.last, top.wantKey = true, k, false
			continue
		}
		switch d := tok.(type) {
		case json.Delim:
			switch d {
			case '{':
				stack = append(stack, &frame{obj: true, wantKey: true, keys: map[string]bool{}, path: childPath()})
			case '[':
				stack = append(stack, &frame{path: childPath()})
			default:
				stack = stack[:len(stack)-1]
				valueDone()
			}
		default:
			valueDone()
		}
	}
}

// setExtras files every unknown field under Extra. A key that differs from
// a known field only in case is an error: encoding/json would silently
// decode it into the field while YAML would not, and writing it back would
// then clash with the real field.
func setExtras[V any](p *PRD, top, meta map[string]V, task func(int) map[string]V) *ParseError {
	if err := caseClash(top, prdFields, ""); err != nil {
		return err
	}
	if err := caseClash(meta, metaFields, "meta."); err != nil {
		return err
	}
	p.Extra = extras(top, prdFields)
	p.Meta.Extra = extras(meta, metaFields)
	for i := range p.Tasks {
		m := task(i)
		if err := caseClash(m, taskFields, fmt.Sprintf("tasks[%d].", i)); err != nil {
			return err
		}
		p.Tasks[i].Extra = extras(m, taskFields)
	}
	return nil
}

func caseClash[V any](m map[string]V, known []string, prefix string) *ParseError {
	var bad []string
	for k := range m {
		for _, f := range known {
			if k != f && strings.EqualFold(k, f) {
				bad = append(bad, k)
			}
		}
	}
	if len(bad) == 0 {
		return nil
	}
	slices.Sort(bad)
	for _, f := range known {
		if strings.EqualFold(bad[0], f) {
			return &ParseError{Offset: -1, Field: prefix + bad[0],
				Msg: fmt.Sprintf("unknown field %q: field names are case-sensitive, did you mean %q?", bad[0], f)}
		}
	}
	return nil
}

// jsonFieldOf turns encoding/json's "tasks.phase" into "tasks[i].phase" by
// finding the first task that fails to decode on its own.
func jsonFieldOf(data []byte, field string) string {
	rest, ok := strings.CutPrefix(field, "tasks.")
	if !ok {
		return field
	}
	var raw struct {
		Tasks []json.RawMessage `json:"tasks"`
	}
	if json.Unmarshal(data, &raw) != nil {
		return field
	}
	for i, t := range raw.Tasks {
		var task wireTask
		if json.Unmarshal(t, &task) != nil {
			return fmt.Sprintf("tasks[%d].%s", i, rest)
		}
	}
	return field
}

// jsonType names Go types the way a PRD author thinks of them.
func jsonType(goType string) string {
	switch {
	case goType == "string", goType == "prd.Status":
		return "string"
	case goType == "int":
		return "integer"
	case strings.HasPrefix(goType, "[]"):
		return "array"
	case strings.HasPrefix(goType, "map["), strings.HasPrefix(goType, "prd."):
		return "object"
	}
	return goType
}

func extras[V any](m map[string]V, known []string) map[string]json.RawMessage {
	var out map[string]json.RawMessage
	for k, v := range m {
		if slices.Contains(known, k) {
			continue
		}
		var raw json.RawMessage
		switch x := any(v).(type) {
		case json.RawMessage:
			raw = x
		default:
			b, err := marshal(x)
			if err != nil {
				continue // not representable in JSON (e.g. a YAML map with non-string keys)
			}
			raw = b
		}
		if out == nil {
			out = map[string]json.RawMessage{}
		}
		out[k] = raw
	}
	return out
}

// lineCol converts a byte offset into a 1-based line and column.
func lineCol(data []byte, offset int64) (line, col int) {
	if offset < 0 {
		return 0, 0
	}
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	before := data[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(offset) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// --- YAML ------------------------------------------------------------------------

var errYAMLPanic = errors.New("YAML could not be decoded")

func parseYAML(name string, data []byte) (p *PRD, err error) {
	// go-yaml has panicked on hostile input (see agents.parseYAML); a parser
	// must never panic, so the whole YAML path runs behind a recover.
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, &ParseError{Name: name, Format: "yaml", Offset: -1, Msg: fmt.Sprintf("%v: %v", errYAMLPanic, r), Err: errYAMLPanic}
		}
	}()
	perr := func(line, col int, field, msg string, err error) *ParseError {
		return &ParseError{Name: name, Format: "yaml", Line: line, Column: col, Offset: -1, Field: field, Msg: msg, Err: err}
	}

	// One guarded loader: size, depth and alias expansion are bounded
	// before anything is decoded (a 428-byte alias bomb among the unknown
	// keys used to expand to gigabytes in setExtras).
	file, err := yamlguard.Parse(name, data, yamlguard.Limits{MaxBytes: MaxYAMLSize})
	if err != nil {
		var le *yamlguard.LimitError
		if errors.As(err, &le) {
			return nil, perr(le.Line, 0, "", le.Limit.Error()+": "+le.Msg, err)
		}
		return nil, yamlError(name, err, nil)
	}
	var body ast.Node
	docs := 0
	for _, d := range file.Docs {
		if d != nil && d.Body != nil {
			docs++
			if body == nil {
				body = d.Body
			}
		}
	}
	switch {
	case docs == 0:
		return nil, perr(0, 0, "", "empty document", nil)
	case docs > 1:
		return nil, perr(0, 0, "", fmt.Sprintf("file holds %d YAML documents, want one", docs), nil)
	}
	body = yamlguard.Unwrap(body)
	if _, ok := body.(ast.MapNode); !ok {
		line, col := nodePos(body)
		return nil, perr(line, col, "", "top level must be a mapping with meta and tasks", nil)
	}

	var w wire
	if err := yamlguard.Decode(name, body, &w); err != nil {
		return nil, yamlError(name, err, yamlFieldIndex(body))
	}
	p = w.prd()

	var top map[string]any
	if err := yamlguard.Decode(name, body, &top); err != nil {
		return p, nil // the typed decode succeeded; extras are best effort
	}
	meta, _ := top["meta"].(map[string]any)
	list, _ := top["tasks"].([]any)
	if err := setExtras(p, top, meta, func(i int) map[string]any {
		if i < len(list) {
			m, _ := list[i].(map[string]any)
			return m
		}
		return nil
	}); err != nil {
		err.Name, err.Format = name, "yaml"
		return nil, err
	}
	return p, nil
}

func yamlError(name string, err error, fields map[[2]int]string) *ParseError {
	pe := &ParseError{Name: name, Format: "yaml", Offset: -1, Msg: err.Error(), Err: err}
	var ye yaml.Error
	if errors.As(err, &ye) {
		pe.Msg = ye.GetMessage()
		var te *yaml.TypeError
		if errors.As(err, &te) && te.DstType != nil && te.SrcType != nil {
			pe.Msg = fmt.Sprintf("expected %s, got %s", jsonType(te.DstType.String()), te.SrcType)
		}
		if tk := ye.GetToken(); tk != nil && tk.Position != nil {
			pe.Line, pe.Column = tk.Position.Line, tk.Position.Column
			pe.Field = fields[[2]int{pe.Line, pe.Column}]
		}
	}
	if pe.Field == "" {
		pe.Msg = "invalid YAML: " + pe.Msg
	}
	return pe
}

func nodePos(n ast.Node) (int, int) {
	if n == nil {
		return 0, 0
	}
	if tk := n.GetToken(); tk != nil && tk.Position != nil {
		return tk.Position.Line, tk.Position.Column
	}
	return 0, 0
}

// yamlFieldIndex maps the position of every value under meta and tasks[i]
// to its field path, so that a decode error can name the field.
func yamlFieldIndex(body ast.Node) map[[2]int]string {
	out := map[[2]int]string{}
	put := func(n ast.Node, field string) {
		if l, c := nodePos(n); l > 0 {
			out[[2]int{l, c}] = field
		}
	}
	top, ok := body.(ast.MapNode)
	if !ok {
		return out
	}
	for it := top.MapRange(); it.Next(); {
		key := keyName(it.Key())
		val := it.Value()
		put(val, key)
		switch v := val.(type) {
		case ast.MapNode:
			for mi := v.MapRange(); mi.Next(); {
				put(mi.Value(), key+"."+keyName(mi.Key()))
			}
		case *ast.SequenceNode:
			for i, el := range v.Values {
				put(el, fmt.Sprintf("%s[%d]", key, i))
				if m, ok := el.(ast.MapNode); ok {
					for mi := m.MapRange(); mi.Next(); {
						put(mi.Value(), fmt.Sprintf("%s[%d].%s", key, i, keyName(mi.Key())))
					}
				}
			}
		}
	}
	return out
}

func keyName(k ast.MapKeyNode) string {
	if s, ok := k.(*ast.StringNode); ok {
		return s.Value
	}
	return strings.TrimSpace(k.String())
}
