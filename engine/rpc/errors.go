package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/nova-dev/nova/engine/failure"
)

// Protocol-level sentinel errors. They are registered, so they cross the
// wire like any other.
var (
	// ErrProtocolMismatch: the client and the owner speak different
	// protocol versions; the message names both nova versions.
	ErrProtocolMismatch = errors.New("protocol mismatch")
	// ErrUnknownMethod: the owner does not serve this method (an older
	// owner, or a method that is not servable).
	ErrUnknownMethod = errors.New("unknown method")
	// ErrBadRequest: the request's arguments do not fit the method.
	ErrBadRequest = errors.New("bad request")
	// ErrPanic: the method panicked in the owner; the owner keeps running.
	ErrPanic = errors.New("owner panicked")
	// ErrBusy: the owner runs an exclusive operation (db compact…) and
	// answers nothing else meanwhile; clients wait and retry by themselves.
	ErrBusy = errors.New("owner busy")
	// ErrConnLost: the connection to the owner broke after a request that
	// is not idempotent was sent, so it may or may not have been applied.
	ErrConnLost = errors.New("connection to the owning nova lost")
	// ErrOwnerGone: no owner answers any more and none came back in time.
	ErrOwnerGone = errors.New("the owning nova process is gone")
	// ErrClosed: the client was closed.
	ErrClosed = errors.New("client closed")
)

func init() {
	RegisterSentinel("context.Canceled", context.Canceled)
	RegisterSentinel("context.DeadlineExceeded", context.DeadlineExceeded)
	RegisterSentinel("rpc.ErrProtocolMismatch", ErrProtocolMismatch)
	RegisterSentinel("rpc.ErrUnknownMethod", ErrUnknownMethod)
	RegisterSentinel("rpc.ErrBadRequest", ErrBadRequest)
	RegisterSentinel("rpc.ErrPanic", ErrPanic)
	RegisterSentinel("rpc.ErrBusy", ErrBusy)
	RegisterSentinel("rpc.ErrConnLost", ErrConnLost)
	RegisterSentinel("rpc.ErrOwnerGone", ErrOwnerGone)
	RegisterSentinel("rpc.ErrClosed", ErrClosed)
}

// registry maps sentinel errors and error types to stable wire names.
var registry = struct {
	sync.RWMutex
	sentinels  []sentinelEntry // registration order
	byCode     map[string]error
	types      map[reflect.Type]string
	typeByName map[string]reflect.Type
}{
	byCode:     map[string]error{},
	types:      map[reflect.Type]string{},
	typeByName: map[string]reflect.Type{},
}

type sentinelEntry struct {
	code string
	err  error
}

// RegisterSentinel names a sentinel error on the wire: an error matching it
// (errors.Is) on the owner matches it on the client. Codes are
// "package.Name"; registering a code twice keeps the first. The registry of
// the engine's sentinels is generated (engine/remote/zz_generated_errors.go).
func RegisterSentinel(code string, err error) {
	if code == "" || err == nil || !reflect.TypeOf(err).Comparable() {
		panic(fmt.Sprintf("rpc: cannot register sentinel %q", code))
	}
	registry.Lock()
	defer registry.Unlock()
	if _, ok := registry.byCode[code]; ok {
		return
	}
	registry.byCode[code] = err
	registry.sentinels = append(registry.sentinels, sentinelEntry{code, err})
}

// RegisterType names an error type on the wire. T is the type that
// implements error (usually a pointer to a struct). Its exported fields
// cross the wire (fields of type error cross as nested errors, so a wrapped
// sentinel survives), and errors.As finds a *T-shaped value on the client.
func RegisterType[T error](name string) {
	t := reflect.TypeFor[T]()
	st := t
	if st.Kind() == reflect.Pointer {
		st = st.Elem()
	}
	if name == "" || st.Kind() != reflect.Struct {
		panic(fmt.Sprintf("rpc: cannot register error type %q (%v): want a struct or a pointer to one", name, t))
	}
	registry.Lock()
	defer registry.Unlock()
	if _, ok := registry.typeByName[name]; ok {
		return
	}
	registry.types[t] = name
	registry.typeByName[name] = t
}

// WireError is the error envelope: {"error": WireError}.
type WireError struct {
	// Message is the error's full text, as the owner would have printed it.
	Message string `json:"message"`
	// Code is the outermost registered sentinel the error matches.
	Code string `json:"code,omitempty"`
	// Codes lists every registered sentinel the error matches, Code first.
	Codes []string `json:"codes,omitempty"`
	// FailureKind is failure.Of(err) on the owner.
	FailureKind failure.Kind `json:"failureKind,omitempty"`
	// Errors carries the registered error types found in the chain,
	// outermost first, with their exported fields.
	Errors []TypedError `json:"errors,omitempty"`
}

// TypedError is one registered error type with its fields.
type TypedError struct {
	Type  string                     `json:"type"`
	Value map[string]json.RawMessage `json:"value"`
}

type envelope struct {
	Error *WireError `json:"error"`
}

// maxErrorDepth bounds the walk of an error tree (cycles, absurd nesting).
const maxErrorDepth = 64

// Encode turns err into its wire form.
func Encode(err error) *WireError {
	if err == nil {
		return nil
	}
	registry.RLock()
	defer registry.RUnlock()
	return encodeLocked(err, 0)
}

// encodeLocked encodes err; the caller holds the registry's read lock.
func encodeLocked(err error, depth int) *WireError {
	we := &WireError{Message: err.Error(), FailureKind: failure.Of(err)}
	seen := map[string]bool{}
	addCode := func(code string) {
		if !seen[code] {
			seen[code] = true
			we.Codes = append(we.Codes, code)
		}
	}
	walkErrors(err, func(e error) {
		if t := reflect.TypeOf(e); t.Comparable() {
			for _, s := range registry.sentinels {
				if s.err == e { //nolint:errorlint // identity: this node of the chain is the sentinel
					addCode(s.code)
				}
			}
		}
		if name, ok := registry.types[reflect.TypeOf(e)]; ok && depth < maxTypedDepth {
			we.Errors = append(we.Errors, TypedError{Type: name, Value: encodeFields(e, depth)})
		}
	})
	// Sentinels matched through an Is method rather than the chain.
	for _, s := range registry.sentinels {
		if !seen[s.code] && errors.Is(err, s.err) {
			addCode(s.code)
		}
	}
	if len(we.Codes) > 0 {
		we.Code = we.Codes[0]
	}
	return we
}

// maxTypedDepth bounds typed errors nested in typed errors.
const maxTypedDepth = 4

// walkErrors visits err and everything it wraps, depth first, outermost
// first.
func walkErrors(err error, fn func(error)) {
	var walk func(e error, depth int)
	walk = func(e error, depth int) {
		if e == nil || depth > maxErrorDepth {
			return
		}
		fn(e)
		switch u := e.(type) { //nolint:errorlint // this walks the chain itself

		case interface{ Unwrap() error }:
			walk(u.Unwrap(), depth+1)
		case interface{ Unwrap() []error }:
			for _, inner := range u.Unwrap() {
				walk(inner, depth+1)
			}
		}
	}
	walk(err, 0)
}

var errorType = reflect.TypeFor[error]()

// encodeFields encodes the exported fields of a registered error value by
// Go field name; fields of type error nest as WireErrors. A field that
// cannot be encoded is left out: the message already says everything.
func encodeFields(e error, depth int) map[string]json.RawMessage {
	v := reflect.ValueOf(e)
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	out := map[string]json.RawMessage{}
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		fv := v.Field(i)
		var data []byte
		var err error
		if f.Type == errorType {
			if fv.IsNil() {
				continue
			}
			data, err = json.Marshal(encodeLocked(fv.Interface().(error), depth+1))
		} else {
			data, err = json.Marshal(fv.Interface())
		}
		if err == nil {
			out[f.Name] = data
		}
	}
	return out
}

// Error is an error that crossed the wire. Error() is the owner's message;
// errors.Is matches every sentinel the owner's error matched, errors.As
// finds the registered error types it carried, and failure.Of gives the
// owner's failure kind.
type Error struct {
	WireError
	wrapped []error
}

// Decode turns a wire error back into an error (nil for nil).
func Decode(we *WireError) error {
	if we == nil {
		return nil
	}
	registry.RLock()
	defer registry.RUnlock()
	return decodeLocked(we)
}

// decodeLocked decodes we; the caller holds the registry's read lock.
func decodeLocked(we *WireError) error {
	e := &Error{WireError: *we}
	for _, te := range we.Errors {
		if t, ok := registry.typeByName[te.Type]; ok {
			e.wrapped = append(e.wrapped, decodeTyped(t, te.Value))
		}
	}
	codes := we.Codes
	if we.Code != "" && !slices.Contains(codes, we.Code) {
		codes = append([]string{we.Code}, codes...)
	}
	for _, code := range codes {
		if s, ok := registry.byCode[code]; ok {
			e.wrapped = append(e.wrapped, s)
		}
	}
	return e
}

func (e *Error) Error() string { return e.Message }

// Unwrap returns the decoded typed errors and the matched sentinels.
func (e *Error) Unwrap() []error { return e.wrapped }

// FailureKind implements failure.Kinded with the owner's classification.
func (e *Error) FailureKind() failure.Kind {
	if e.WireError.FailureKind.Valid() {
		return e.WireError.FailureKind
	}
	return failure.Unknown
}

// decodeTyped rebuilds a registered error value; fields that do not decode
// stay zero. Called with the registry's read lock held.
func decodeTyped(t reflect.Type, fields map[string]json.RawMessage) error {
	ptr := t.Kind() == reflect.Pointer
	st := t
	if ptr {
		st = t.Elem()
	}
	v := reflect.New(st)
	for name, raw := range fields {
		f, ok := st.FieldByName(name)
		if !ok || !f.IsExported() || len(f.Index) != 1 {
			continue
		}
		fv := v.Elem().Field(f.Index[0])
		if f.Type == errorType {
			var nested WireError
			if json.Unmarshal(raw, &nested) == nil {
				fv.Set(reflect.ValueOf(decodeLocked(&nested)))
			}
			continue
		}
		tmp := reflect.New(f.Type)
		if json.Unmarshal(raw, tmp.Interface()) == nil {
			fv.Set(tmp.Elem())
		}
	}
	if ptr {
		return v.Interface().(error)
	}
	return v.Elem().Interface().(error)
}

// statusOf picks the HTTP status of an error answer. Clients read the
// envelope, not the status; the status is for curl users and logs.
func statusOf(we *WireError) int {
	has := func(code string) bool { return slices.Contains(we.Codes, code) }
	switch {
	case has("rpc.ErrProtocolMismatch"), has("rpc.ErrBadRequest"):
		return http.StatusBadRequest
	case has("rpc.ErrUnknownMethod"):
		return http.StatusNotFound
	case has("rpc.ErrBusy"):
		return http.StatusServiceUnavailable
	case has("context.Canceled"):
		return 499 // client closed request (nginx's convention)
	case has("context.DeadlineExceeded"):
		return http.StatusGatewayTimeout
	}
	// The outermost code that says which decides: bad input before "not
	// found" when the error names both.
	for _, c := range we.Codes {
		switch {
		case BadInputCode(c):
			return http.StatusBadRequest
		case strings.Contains(c, "NotFound"):
			return http.StatusNotFound
		}
	}
	return http.StatusInternalServerError
}

// badInputNames are the names of the engine's sentinels that mean "the
// caller's input is wrong" (validation), whatever their package: answered
// 400 like rpc.ErrBadRequest. llm.ErrBadRequest is not among them: it is
// the model server refusing nova's request.
var badInputNames = []string{
	"ErrInvalid", "ErrInvalidArgs", "ErrInvalidSpec", "ErrUsage", "ErrBadOption", "ErrBadName",
	"ErrBadActionInput", "ErrBadComponent", "ErrMalformed", "ErrEmptyTask", "ErrEmptyGoal",
	"ErrRelativePath", "ErrReasonNeeded",
}

// BadInputCode reports whether a registered sentinel code means bad input
// (answered 400).
func BadInputCode(code string) bool {
	pkg, name, ok := strings.Cut(code, ".")
	if !ok || pkg == "llm" {
		return false
	}
	return slices.Contains(badInputNames, name)
}

// Codes returns the registered sentinel codes, in registration order.
func Codes() []string {
	registry.RLock()
	defer registry.RUnlock()
	out := make([]string, 0, len(registry.sentinels))
	for _, s := range registry.sentinels {
		out = append(out, s.code)
	}
	return out
}
