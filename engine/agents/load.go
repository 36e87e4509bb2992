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

	"github.com/goccy/go-yaml/ast"

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
	if _, ok := yamlguard.Unwrap(body).(ast.MapNode); !ok {
		return fail(yamlguard.NodeLine(body), "", "top level must be a mapping of fields (schema, id, role, …)", nil)
	}

	// Unknown keys are reported (all of them, with lines) rather than ignored:
	// a typo such as "tols:" would otherwise silently drop an agent's tools.
	fields := yamlguard.Fields{}
	errs := checkKeys(name, body, fields)

	if err := yamlguard.Decode(name, body, &spec); err != nil {
		return spec, append(errs, yamlError(name, err, fields))
	}
	spec.Source = name
	adoptSeedFields(&spec)

	for _, e := range Validate(spec) {
		var se *SpecError
		if errors.As(e, &se) && se.Line == 0 {
			se.Line = yamlguard.FieldLine(body, se.Field)
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

// --- YAML helpers (the shared strict reading lives in internal/yamlguard) ---

func yamlError(file string, err error, fields yamlguard.Fields) *SpecError {
	loc := yamlguard.Locate(err, fields)
	return &SpecError{File: file, Line: loc.Line, Field: loc.Field, Msg: loc.Msg, Err: err}
}

// checkKeys reports every key an agent file's mapping does not declare: a
// typo such as "tols:" would otherwise silently drop an agent's tools.
func checkKeys(file string, body ast.Node, fields yamlguard.Fields) []error {
	var errs []error
	for _, k := range yamlguard.CheckKeys(body, reflect.TypeFor[Spec](), "", fields) {
		errs = append(errs, &SpecError{File: file, Line: k.Line, Field: k.Field, Msg: fmt.Sprintf("unknown field %q", k.Name)})
	}
	return errs
}

// idLine finds the line of the top-level id key (for duplicate-id errors).
func idLine(data []byte) int {
	file, err := yamlguard.Parse("", data, yamlguard.Limits{MaxBytes: maxSpecSize})
	if err != nil || len(file.Docs) == 0 || file.Docs[0] == nil {
		return 0
	}
	return yamlguard.FieldLine(file.Docs[0].Body, "id")
}
