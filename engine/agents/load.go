package agents

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"

	"github.com/nova-dev/nova/internal/safefile"
	"github.com/nova-dev/nova/internal/yamlguard"
)

// maxSpecSize bounds one agent file; a role prompt is a few KiB.
const maxSpecSize = 256 << 10

// ParseSpec decodes and validates one agent file. name is used in errors and
// for the file-name/id check (pass "" to skip that check). The returned Spec
// has defaults applied. On errors the Spec holds whatever could be decoded.
// ParseSpec never panics on input.
func ParseSpec(name string, data []byte) (Spec, []error) {
	var spec Spec
	spec.Source = name
	fail := func(line int, field, msg string, cause error) (Spec, []error) {
		return spec, []error{&SpecError{File: name, Line: line, Field: field, Msg: msg, Err: cause}}
	}
	file, err := yamlguard.Parse(name, data, yamlguard.Limits{MaxBytes: maxSpecSize})
	var le *yamlguard.LimitError
	if errors.As(err, &le) {
		if errors.Is(err, yamlguard.ErrTooLarge) {
			return fail(0, "", fmt.Sprintf("file is %d bytes, larger than the %d-byte limit", len(data), maxSpecSize), err)
		}
		return fail(le.Line, "", le.Limit.Error()+": "+le.Msg, err)
	}
	if err != nil {
		return spec, []error{yamlError(name, err, nil)}
	}
	var body ast.Node
	docs := 0
	for _, d := range file.Docs {
		if d == nil || d.Body == nil {
			continue
		}
		docs++
		if body == nil {
			body = d.Body
		}
	}
	switch {
	case docs == 0:
		return fail(0, "", "file is empty", nil)
	case docs > 1:
		return fail(0, "", fmt.Sprintf("file holds %d YAML documents, want exactly one", docs), nil)
	}
	if _, ok := unwrap(body).(ast.MapNode); !ok {
		return fail(nodeLine(body), "", "top level must be a mapping of fields (schema, id, role, …)", nil)
	}

	// Unknown keys are reported (all of them, with lines) rather than ignored:
	// a typo such as "tols:" would otherwise silently drop an agent's tools.
	fields := map[[2]int]string{}
	errs := checkKeys(name, body, reflect.TypeFor[Spec](), "", fields)

	if err := yamlguard.Decode(name, body, &spec); err != nil {
		return spec, append(errs, yamlError(name, err, fields))
	}
	spec.Source = name

	for _, e := range Validate(spec) {
		var se *SpecError
		if errors.As(e, &se) && se.Line == 0 {
			se.Line = fieldLine(body, se.Field)
		}
		errs = append(errs, e)
	}
	spec = spec.WithDefaults()
	// Report in file order; problems without a line (the whole file, a
	// missing field) come first.
	slices.SortStableFunc(errs, func(a, b error) int { return cmp.Compare(errLine(a), errLine(b)) })
	return spec, errs
}

func errLine(err error) int {
	var se *SpecError
	if errors.As(err, &se) {
		return se.Line
	}
	return 0
}

// Load reads every *.yaml / *.yml file directly in dir. Good files are loaded
// even when others are bad; every problem is returned, each naming its file.
// Errors carry the path as filepath.Join(dir, name).
func Load(dir string) (*Roster, []error) {
	// Read through safefile.ReadFile (O_NONBLOCK, regular files only): a
	// FIFO in .nova/agents/ blocked `agents validate` and `build run`
	// forever, and a link to /dev/zero filled memory.
	return load(os.DirFS(dir), ".", func(name string) string { return filepath.Join(dir, name) },
		func(name string) ([]byte, error) { return safefile.ReadFile(filepath.Join(dir, name), maxSpecSize) })
}

// LoadFS is Load over an fs.FS, e.g. the defaults embedded in the binary.
// Errors carry the path as path.Join(dir, name).
func LoadFS(fsys fs.FS, dir string) (*Roster, []error) {
	return load(fsys, dir, func(name string) string { return path.Join(dir, name) },
		func(name string) ([]byte, error) { return safefile.ReadFS(fsys, path.Join(dir, name), maxSpecSize) })
}

func load(fsys fs.FS, dir string, display func(string) string, read func(name string) ([]byte, error)) (*Roster, []error) {
	r := &Roster{}
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return r, []error{fmt.Errorf("read agents dir %s: %w", display(""), err)}
	}
	var errs []error
	owner := map[string]string{} // lower-cased id -> file that defined it
	for _, e := range entries {  // fs.ReadDir sorts by name, so results are deterministic
		if e.IsDir() || !isSpecFile(e.Name()) {
			continue
		}
		file := display(e.Name())
		data, err := read(e.Name())
		var sfe *safefile.Error
		switch {
		case errors.As(err, &sfe) && errors.Is(err, safefile.ErrTooLarge):
			errs = append(errs, &SpecError{File: file, Msg: fmt.Sprintf("file is larger than the %d-byte limit", maxSpecSize), Err: err})
			continue
		case errors.As(err, &sfe):
			errs = append(errs, &SpecError{File: file, Msg: "cannot read file: it is " + sfe.Detail + ", not a regular file", Err: err})
			continue
		case err != nil:
			errs = append(errs, &SpecError{File: file, Msg: "cannot read file", Err: err})
			continue
		}
		spec, specErrs := ParseSpec(file, data)
		if len(specErrs) > 0 {
			errs = append(errs, specErrs...)
			continue
		}
		key := strings.ToLower(spec.ID)
		if first, dup := owner[key]; dup {
			errs = append(errs, &SpecError{
				File: file, Line: idLine(data), Field: "id",
				Msg: fmt.Sprintf("duplicate id %q: already defined in %s", spec.ID, first),
			})
			continue
		}
		owner[key] = file
		r.add(spec)
	}
	return r, errs
}

func isSpecFile(name string) bool {
	if strings.HasPrefix(name, ".") {
		return false
	}
	ext := strings.ToLower(path.Ext(name))
	return ext == ".yaml" || ext == ".yml"
}

// Roster is the set of loaded agents. Lookups are case-insensitive. The zero
// value (and a nil *Roster) is an empty roster. A Roster is not modified after
// it is built, so it is safe for concurrent readers.
type Roster struct {
	specs map[string]*Spec // key: lower-cased id
}

// NewRoster builds a roster from specs made in code. Each spec is validated
// and defaulted; invalid and duplicate specs are left out and reported.
func NewRoster(specs ...Spec) (*Roster, []error) {
	r := &Roster{}
	var errs []error
	for _, s := range specs {
		if es := Validate(s); len(es) > 0 {
			errs = append(errs, es...)
			continue
		}
		if r.Has(s.ID) {
			errs = append(errs, &SpecError{File: s.Source, Field: "id", Msg: fmt.Sprintf("duplicate id %q", s.ID)})
			continue
		}
		s = s.clone().WithDefaults()
		r.add(s)
	}
	return r, errs
}

func (r *Roster) add(s Spec) {
	if r.specs == nil {
		r.specs = map[string]*Spec{}
	}
	r.specs[strings.ToLower(s.ID)] = &s
}

// Get returns a copy of the agent with this id (any case), or ErrUnknownAgent.
func (r *Roster) Get(id string) (Spec, error) {
	if r != nil {
		if s, ok := r.specs[strings.ToLower(id)]; ok {
			return s.clone(), nil
		}
	}
	return Spec{}, fmt.Errorf("agent %q: %w", id, ErrUnknownAgent)
}

// Has reports whether the roster holds the id (any case). It fits
// prd.Validate's knownAgents parameter.
func (r *Roster) Has(id string) bool {
	if r == nil {
		return false
	}
	_, ok := r.specs[strings.ToLower(id)]
	return ok
}

// Len is the number of agents.
func (r *Roster) Len() int {
	if r == nil {
		return 0
	}
	return len(r.specs)
}

// IDs returns the agent ids as written in their files, sorted
// case-insensitively.
func (r *Roster) IDs() []string {
	list := r.List()
	ids := make([]string, len(list))
	for i, s := range list {
		ids[i] = s.ID
	}
	return ids
}

// List returns copies of all specs sorted case-insensitively by id.
func (r *Roster) List() []Spec {
	if r == nil {
		return nil
	}
	out := make([]Spec, 0, len(r.specs))
	for _, s := range r.specs {
		out = append(out, s.clone())
	}
	slices.SortFunc(out, func(a, b Spec) int {
		return cmp.Or(cmp.Compare(strings.ToLower(a.ID), strings.ToLower(b.ID)), cmp.Compare(a.ID, b.ID))
	})
	return out
}

// --- YAML helpers -----------------------------------------------------------

// yamlError turns a go-yaml error into a *SpecError with the line of the
// offending token. fields maps token positions to field paths (may be nil).
func yamlError(file string, err error, fields map[[2]int]string) *SpecError {
	se := &SpecError{File: file, Msg: err.Error(), Err: err}
	var ye yaml.Error
	if errors.As(err, &ye) {
		se.Msg = ye.GetMessage()
		var te *yaml.TypeError
		if errors.As(err, &te) && te.SrcType != nil && te.DstType != nil {
			se.Msg = fmt.Sprintf("expected %s, got %s", te.DstType, te.SrcType)
		}
		if tk := ye.GetToken(); tk != nil && tk.Position != nil {
			se.Line = tk.Position.Line
			se.Field = fields[[2]int{tk.Position.Line, tk.Position.Column}]
		}
	}
	if se.Line == 0 && se.Field == "" {
		se.Msg = "invalid YAML: " + se.Msg
	}
	return se
}

// unwrap looks through anchors and tags to the node that holds the value.
func unwrap(n ast.Node) ast.Node {
	for range 64 { // bounded: a node chain cannot loop, but fuzzed input should not spin
		switch v := n.(type) {
		case *ast.AnchorNode:
			n = v.Value
		case *ast.TagNode:
			n = v.Value
		default:
			return n
		}
	}
	return n
}

func nodeLine(n ast.Node) int {
	if n == nil || reflect.ValueOf(n).IsNil() {
		return 0
	}
	if tk := n.GetToken(); tk != nil && tk.Position != nil {
		return tk.Position.Line
	}
	return 0
}

func tokenPos(tk *token.Token) ([2]int, bool) {
	if tk == nil || tk.Position == nil {
		return [2]int{}, false
	}
	return [2]int{tk.Position.Line, tk.Position.Column}, true
}

// yamlFields maps the yaml tag names of a struct type to their field types.
func yamlFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := strings.Split(f.Tag.Get("yaml"), ",")[0]
		if tag == "-" || !f.IsExported() {
			continue
		}
		if tag == "" {
			tag = f.Name
		}
		out[tag] = f.Type
	}
	return out
}

// checkKeys walks node against the struct type t and reports every mapping key
// that t does not declare. It also records the field path of every value
// token in fields, so that decode errors can name their field.
func checkKeys(file string, node ast.Node, t reflect.Type, prefix string, fields map[[2]int]string) []error {
	node = unwrap(node)
	if node == nil || reflect.ValueOf(node).IsNil() {
		return nil
	}
	if pos, ok := tokenPos(node.GetToken()); ok && prefix != "" {
		if _, seen := fields[pos]; !seen {
			fields[pos] = prefix
		}
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := node.(ast.MapNode)
		if !ok {
			return nil // a type mismatch; the decoder reports it
		}
		known := yamlFields(t)
		var errs []error
		it := m.MapRange()
		for it.Next() {
			key := it.Key()
			name := strings.TrimSpace(key.String())
			if kv, ok := key.(*ast.StringNode); ok {
				name = kv.Value
			}
			field := name
			if prefix != "" {
				field = prefix + "." + name
			}
			if pos, ok := tokenPos(key.GetToken()); ok {
				fields[pos] = field
			}
			ft, ok := known[name]
			if !ok {
				if name == "<<" { // merge key: its contents are checked by the decoder
					continue
				}
				errs = append(errs, &SpecError{
					File: file, Line: nodeLine(key), Field: field,
					Msg: fmt.Sprintf("unknown field %q", name),
				})
				continue
			}
			errs = append(errs, checkKeys(file, it.Value(), ft, field, fields)...)
		}
		return errs
	case reflect.Slice:
		seq, ok := node.(*ast.SequenceNode)
		if !ok {
			return nil
		}
		var errs []error
		for i, v := range seq.Values {
			errs = append(errs, checkKeys(file, v, t.Elem(), fmt.Sprintf("%s[%d]", prefix, i), fields)...)
		}
		return errs
	}
	return nil
}

// fieldLine finds the line of a field path such as "limits.timeout" or
// "tools[2]" using go-yaml's path queries; when the field itself is absent it
// falls back to its parent. 0 when nothing is found.
func fieldLine(body ast.Node, field string) (line int) {
	defer func() {
		if recover() != nil { // go-yaml has panicked on fuzzed input
			line = 0
		}
	}()
	for field != "" {
		if p, err := yaml.PathString("$." + field); err == nil {
			if n, err := p.FilterNode(body); err == nil && n != nil {
				if l := nodeLine(n); l > 0 {
					return l
				}
			}
		}
		i := strings.LastIndexAny(field, ".[")
		if i <= 0 {
			return 0
		}
		field = field[:i]
	}
	return 0
}

// idLine finds the line of the top-level id key (for duplicate-id errors).
func idLine(data []byte) int {
	file, err := yamlguard.Parse("", data, yamlguard.Limits{MaxBytes: maxSpecSize})
	if err != nil || len(file.Docs) == 0 || file.Docs[0] == nil {
		return 0
	}
	return fieldLine(file.Docs[0].Body, "id")
}
