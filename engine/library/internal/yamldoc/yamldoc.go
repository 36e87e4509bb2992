// Package yamldoc reads the library's YAML files (skills, workflows,
// blueprints): one document, a mapping at the top, every unknown key
// reported with its line, decode errors naming their field, and every
// problem as an *Error formatted "file:line: field: message" like the
// agent loader's.
//
// Reading and parsing go through nova's one guarded YAML loader
// (internal/yamlguard): regular files only, read up to MaxSize, nesting
// depth capped before parsing, alias expansion capped after it, and a
// decoder panic turned into an error. On top of it this package refuses
// anchors and aliases outright (none of the formats needs them) so a file's
// fields are always written out where they are read.
package yamldoc

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/goccy/go-yaml/ast"

	"github.com/nova-dev/nova/internal/safefile"
	"github.com/nova-dev/nova/internal/yamlguard"
)

// MaxSize bounds one library file.
const MaxSize = 1 << 20

// ErrInvalid is wrapped by every *Error.
var ErrInvalid = errors.New("invalid file")

// Error is one problem with one file.
type Error struct {
	File  string
	Line  int    // 1-based; 0 when unknown
	Field string // YAML path such as "steps[2].agent"; "" for the whole file
	Msg   string
	Err   error
}

// Error formats as "file:line: field: message".
func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
		}
		b.WriteString(": ")
	} else if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap exposes ErrInvalid and the cause.
func (e *Error) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrInvalid, e.Err}
	}
	return []error{ErrInvalid}
}

// Doc is a parsed file whose top level is a mapping.
type Doc struct {
	name   string
	body   ast.Node
	fields yamlguard.Fields
}

// limits are the guard's caps for a library file.
var limits = yamlguard.Limits{MaxBytes: MaxSize}

// ReadFile reads one library file through the guard: a regular file only
// (a FIFO, socket or device is refused before a byte is read) and at most
// MaxSize bytes, counted on what is read. kind names the format in
// messages.
func ReadFile(path, kind string) ([]byte, error) {
	data, err := yamlguard.ReadFile(path, limits)
	if err == nil {
		return data, nil
	}
	var le *yamlguard.LimitError
	switch {
	case errors.As(err, &le):
		return nil, &Error{File: path, Msg: fmt.Sprintf("file is larger than the %d-byte limit of a %s file", MaxSize, kind), Err: err}
	case errors.Is(err, safefile.ErrNotRegular):
		return nil, NotRegular(path)
	}
	return nil, &Error{File: path, Msg: MsgCannotRead, Err: err}
}

// NotRegular is the error of a path that is no regular file (a directory,
// FIFO, socket, device, or a symbolic link in a library folder).
func NotRegular(path string) *Error {
	return &Error{File: path, Msg: "not a regular file", Err: safefile.ErrNotRegular}
}

// MsgCannotRead is the message of a file that could not be read at all
// (missing, no permission), as opposed to one the guard refused.
const MsgCannotRead = "cannot read file"

// Parse checks and parses one file. kind names the format in messages
// ("skill", "workflow", "blueprint"). It never panics on input.
func Parse(name, kind string, data []byte) (doc *Doc, err error) {
	fail := func(line int, msg string, cause error) (*Doc, error) {
		return nil, &Error{File: name, Line: line, Msg: msg, Err: cause}
	}
	if len(data) > MaxSize {
		return fail(0, fmt.Sprintf("file is %d bytes, larger than the %d-byte limit of a %s file", len(data), MaxSize, kind), yamlguard.ErrTooLarge)
	}
	file, perr := yamlguard.Parse(name, data, limits)
	if perr != nil {
		var le *yamlguard.LimitError
		if errors.As(perr, &le) {
			return fail(le.Line, le.Limit.Error()+": "+le.Msg, perr)
		}
		return nil, yamlError(name, perr, nil)
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
		return fail(0, "file is empty", nil)
	case docs > 1:
		return fail(0, fmt.Sprintf("file holds %d YAML documents, want exactly one %s", docs, kind), nil)
	}
	first := 0 // the earliest anchor or alias
	for _, typ := range []ast.NodeType{ast.AnchorType, ast.AliasType} {
		for _, n := range ast.Filter(typ, body) {
			if l := yamlguard.NodeLine(n); first == 0 || (l > 0 && l < first) {
				first = max(l, 1)
			}
		}
	}
	if first > 0 {
		return fail(first, fmt.Sprintf("anchors and aliases (&name, *name) are not supported in a %s file; write the value out", kind), nil)
	}
	if _, ok := yamlguard.Unwrap(body).(ast.MapNode); !ok {
		return fail(yamlguard.NodeLine(body), fmt.Sprintf("the top level of a %s file must be a mapping of fields", kind), nil)
	}
	return &Doc{name: name, body: body, fields: yamlguard.Fields{}}, nil
}

// Decode decodes the document into v (a pointer to a struct with yaml
// tags). It reports every key the struct does not declare, with its line,
// and a decode error naming its field. Fields of interface or map type are
// not checked below themselves.
func (d *Doc) Decode(v any) (errs []error) {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	errs = checkKeys(d.name, d.body, t, d.fields)
	if err := yamlguard.Decode(d.name, d.body, v); err != nil {
		var le *yamlguard.LimitError
		if errors.As(err, &le) {
			return append(errs, &Error{File: d.name, Msg: le.Limit.Error() + ": " + le.Msg, Err: err})
		}
		errs = append(errs, yamlError(d.name, err, d.fields))
	}
	return errs
}

// Line returns the line of a field path such as "steps[2].agent"; when the
// field is absent it falls back to its parent. 0 when nothing is found.
func (d *Doc) Line(field string) int { return yamlguard.FieldLine(d.body, field) }

// Errorf builds an *Error for field, finding its line.
func (d *Doc) Errorf(field, format string, args ...any) *Error {
	return &Error{File: d.name, Line: d.Line(field), Field: field, Msg: fmt.Sprintf(format, args...)}
}

func yamlError(file string, err error, fields yamlguard.Fields) *Error {
	loc := yamlguard.Locate(err, fields)
	return &Error{File: file, Line: loc.Line, Field: loc.Field, Msg: loc.Msg, Err: err}
}

func checkKeys(file string, body ast.Node, t reflect.Type, fields yamlguard.Fields) []error {
	var errs []error
	for _, k := range yamlguard.CheckKeys(body, t, "", fields) {
		errs = append(errs, &Error{File: file, Line: k.Line, Field: k.Field, Msg: fmt.Sprintf("unknown field %q", k.Name)})
	}
	return errs
}
