package rpc

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"reflect"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// ServerOptions configures a Server.
type ServerOptions struct {
	// Version is this nova's version, reported by GET /version and in
	// mismatch messages.
	Version string
	// Exclude names methods that are never served; Close is always
	// excluded (a client must not close the owner's workspace).
	Exclude []string
	// MaxRequestBytes bounds a request body (default 64 MiB).
	MaxRequestBytes int64
	// Logf logs owner-side problems (panics, encoding failures); nil is
	// silent.
	Logf func(format string, args ...any)

	// Protocol overrides ProtocolVersion; only tests of version
	// mismatches set it.
	Protocol int
}

// Server serves the methods of one interface implemented by one value.
type Server struct {
	iface string
	opts  ServerOptions
	mux   *http.ServeMux

	// The method table is built on first use (the first request, Methods
	// or Skipped), not by NewServer: inspecting the ~140 methods of
	// engine.Workspace by reflection was ~10 % of every CLI command that
	// owns its workspace, and most such commands are never called by
	// another nova (issue 16's process floor).
	it      reflect.Type
	impl    reflect.Value
	exclude []string
	once    sync.Once
	methods map[string]*methodSpec
	skipped []SkippedMethod
}

// NewServer serves impl through the interface type I, method by method.
// Methods that are not servable (see Servable) are listed by
// GET /v1/methods with the reason and answer ErrUnknownMethod.
func NewServer[I any](impl I, opts ServerOptions) (*Server, error) {
	it := reflect.TypeFor[I]()
	if it.Kind() != reflect.Interface {
		return nil, fmt.Errorf("rpc: %v is not an interface type", it)
	}
	v := reflect.ValueOf(impl)
	if !v.IsValid() || (v.Kind() == reflect.Pointer && v.IsNil()) {
		return nil, fmt.Errorf("rpc: nil %v", it)
	}
	if opts.MaxRequestBytes <= 0 {
		opts.MaxRequestBytes = 64 << 20
	}
	if opts.Protocol == 0 {
		opts.Protocol = ProtocolVersion
	}
	s := &Server{iface: it.String(), opts: opts, it: it, impl: v,
		exclude: append([]string{"Close"}, opts.Exclude...)}
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("GET "+PathVersion, s.version)
	p := prefix(opts.Protocol)
	s.mux.HandleFunc("GET "+p+"/methods", s.listMethods)
	s.mux.HandleFunc("POST "+p+"/call/{method}", s.call)
	s.mux.HandleFunc(p+"/stream/{method}", s.stream)
	s.mux.HandleFunc("/", s.notFound)
	return s, nil
}

// load builds the method table, once.
func (s *Server) load() {
	s.once.Do(func() {
		s.methods = map[string]*methodSpec{}
		for i := range s.it.NumMethod() {
			m := s.it.Method(i)
			if slices.Contains(s.exclude, m.Name) {
				s.skipped = append(s.skipped, SkippedMethod{Name: m.Name, Reason: "excluded: runs only in the owner"})
				continue
			}
			spec, err := inspect(m)
			if err != nil {
				s.skipped = append(s.skipped, SkippedMethod{Name: m.Name, Reason: err.Error()})
				continue
			}
			spec.fn = s.impl.MethodByName(m.Name)
			s.methods[m.Name] = spec
		}
	})
}

// Methods returns the served method names, sorted.
func (s *Server) Methods() []string {
	s.load()
	out := make([]string, 0, len(s.methods))
	for name := range s.methods {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// Skipped returns the methods that are not served, with the reason.
func (s *Server) Skipped() []SkippedMethod {
	s.load()
	return slices.Clone(s.skipped)
}

// VersionInfo is what GET /version answers.
func (s *Server) VersionInfo() VersionInfo {
	return VersionInfo{Protocol: s.opts.Protocol, Version: s.opts.Version, Interface: s.iface, PID: os.Getpid()}
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if p := r.URL.Path; p == "" || path.Clean(p) != p {
		// ServeMux would redirect; a client wants an answer.
		writeError(w, fmt.Errorf("%w: path %q is not clean", ErrBadRequest, p))
		return
	}
	if r.URL.Path != PathVersion {
		if err := s.checkProtocol(r); err != nil {
			writeError(w, err)
			return
		}
	}
	s.mux.ServeHTTP(w, r)
}

// checkProtocol refuses a client that announces another protocol version.
// A request without the header (curl) is served.
func (s *Server) checkProtocol(r *http.Request) error {
	return checkProtocol(r, s.opts.Version, s.opts.Protocol)
}

func checkProtocol(r *http.Request, version string, protocol int) error {
	h := r.Header.Get(HeaderProtocol)
	if h == "" || h == strconv.Itoa(protocol) {
		return nil
	}
	return mismatch(r.Header.Get(HeaderVersion), h, version, strconv.Itoa(protocol), os.Getpid())
}

// CheckProtocol refuses (ErrProtocolMismatch, naming both versions) a
// request whose client announces another protocol version; for handlers
// served beside a Server. ownerVersion is this nova's version.
func CheckProtocol(r *http.Request, ownerVersion string) error {
	return checkProtocol(r, ownerVersion, ProtocolVersion)
}

func mismatch(clientVersion, clientProtocol, ownerVersion, ownerProtocol string, ownerPID int) error {
	return fmt.Errorf("%w: this nova (%s, protocol %s) cannot work through the nova that owns this workspace (%s, protocol %s, pid %d); "+
		"close the other nova (or `nova serve`) and run the command again, or use the same nova version for both",
		ErrProtocolMismatch, orDev(clientVersion), clientProtocol, orDev(ownerVersion), ownerProtocol, ownerPID)
}

func orDev(v string) string {
	if v == "" {
		return "nova dev"
	}
	if strings.HasPrefix(v, "nova ") {
		return v
	}
	return "nova " + v
}

func (s *Server) version(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, s.VersionInfo())
}

func (s *Server) listMethods(w http.ResponseWriter, _ *http.Request) {
	info := MethodsInfo{Interface: s.iface, Methods: []MethodInfo{}, Skipped: s.Skipped()}
	for _, name := range s.Methods() {
		info.Methods = append(info.Methods, s.methods[name].info())
	}
	if info.Skipped == nil {
		info.Skipped = []SkippedMethod{}
	}
	writeJSON(w, http.StatusOK, info)
}

func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	// A path of another protocol version ("/v2/…") is a version mismatch,
	// whatever the headers say.
	if rest, ok := strings.CutPrefix(r.URL.Path, "/v"); ok {
		num, _, _ := strings.Cut(rest, "/")
		if n, err := strconv.Atoi(num); err == nil && n != s.opts.Protocol {
			writeError(w, mismatch(r.Header.Get(HeaderVersion), num, s.opts.Version, strconv.Itoa(s.opts.Protocol), os.Getpid()))
			return
		}
	}
	writeError(w, fmt.Errorf("%w: %s %s (see GET %s/methods)", ErrUnknownMethod, r.Method, r.URL.Path, prefix(s.opts.Protocol)))
}

// lookup finds a served method, or answers why not.
func (s *Server) lookup(w http.ResponseWriter, r *http.Request, stream bool) *methodSpec {
	name := r.PathValue("method")
	s.load()
	spec, ok := s.methods[name]
	if !ok {
		for _, sk := range s.skipped {
			if sk.Name == name {
				writeError(w, fmt.Errorf("%w: %s is not served by the owning nova (%s) (%s)", ErrUnknownMethod, name, orDev(s.opts.Version), sk.Reason))
				return nil
			}
		}
		writeError(w, fmt.Errorf("%w: the owning nova (%s, pid %d) has no method %s; is it an older nova?", ErrUnknownMethod, orDev(s.opts.Version), os.Getpid(), name))
		return nil
	}
	if spec.stream != stream {
		want := "/call/"
		if spec.stream {
			want = "/stream/"
		}
		writeError(w, fmt.Errorf("%w: %s is served at %s%s%s", ErrBadRequest, name, prefix(s.opts.Protocol), want, name))
		return nil
	}
	return spec
}

// decodeArgs reads the JSON array of arguments. An empty body means no
// arguments. The body is read to its end, so that net/http notices a
// client that goes away and cancels the request's ctx.
func (s *Server) decodeArgs(w http.ResponseWriter, r *http.Request, spec *methodSpec) ([]reflect.Value, error) {
	body := http.MaxBytesReader(w, r.Body, s.opts.MaxRequestBytes)
	defer func() { _, _ = io.Copy(io.Discard, body) }()
	dec := json.NewDecoder(body)
	args := make([]reflect.Value, 0, len(spec.args))
	tok, err := dec.Token()
	switch {
	case errors.Is(err, io.EOF):
		if len(spec.args) == 0 {
			return args, nil
		}
		return nil, argCountError(spec, 0)
	case err != nil:
		return nil, fmt.Errorf("%w: %s: arguments: %w", ErrBadRequest, spec.name, err)
	case tok != json.Delim('['):
		return nil, fmt.Errorf("%w: %s: arguments must be a JSON array", ErrBadRequest, spec.name)
	}
	for dec.More() {
		if len(args) == len(spec.args) {
			return nil, argCountError(spec, len(args)+1)
		}
		t := spec.args[len(args)]
		p := reflect.New(t)
		if err := dec.Decode(p.Interface()); err != nil {
			return nil, fmt.Errorf("%w: %s: argument %d (%v): %w", ErrBadRequest, spec.name, len(args)+1, t, err)
		}
		args = append(args, p.Elem())
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("%w: %s: arguments: %w", ErrBadRequest, spec.name, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: %s: unexpected data after the arguments", ErrBadRequest, spec.name)
	}
	if len(args) != len(spec.args) {
		return nil, argCountError(spec, len(args))
	}
	return args, nil
}

func argCountError(spec *methodSpec, got int) error {
	return fmt.Errorf("%w: %s takes %d argument(s) %v, got %d", ErrBadRequest, spec.name, len(spec.args), spec.info().Args, got)
}

// invoke calls the method, turning a panic into ErrPanic.
func (s *Server) invoke(r *http.Request, spec *methodSpec, args []reflect.Value) (out []reflect.Value, err error) {
	in := make([]reflect.Value, 0, len(args)+1)
	if spec.hasCtx {
		in = append(in, reflect.ValueOf(r.Context()))
	}
	in = append(in, args...)
	defer func() {
		if p := recover(); p != nil {
			s.logf("rpc: %s panicked: %v\n%s", spec.name, p, debug.Stack())
			out, err = nil, fmt.Errorf("%w in %s: %v", ErrPanic, spec.name, p)
		}
	}()
	if spec.variadic {
		out = spec.fn.CallSlice(in)
	} else {
		out = spec.fn.Call(in)
	}
	if spec.hasErr {
		if e := out[len(out)-1]; !e.IsNil() {
			return out, e.Interface().(error)
		}
		out = out[:len(out)-1]
	}
	return out, nil
}

func (s *Server) call(w http.ResponseWriter, r *http.Request) {
	spec := s.lookup(w, r, false)
	if spec == nil {
		return
	}
	args, err := s.decodeArgs(w, r, spec)
	if err != nil {
		writeError(w, err)
		return
	}
	out, err := s.invoke(r, spec, args)
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", contentJSON)
	w.WriteHeader(http.StatusOK)
	if err := encodeResults(w, out); err != nil {
		// The status is sent: break the connection so the client sees a
		// truncated answer rather than a wrong one.
		s.logf("rpc: %s: encode results: %v", spec.name, err)
		panic(http.ErrAbortHandler)
	}
}

// encodeResults writes the results as a JSON array straight to w. A slice
// result is written element by element, so a listing of 100k nodes is
// never held twice in memory.
func encodeResults(w io.Writer, out []reflect.Value) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if _, err := io.WriteString(w, "["); err != nil {
		return err
	}
	for i, v := range out {
		if i > 0 {
			if _, err := io.WriteString(w, ","); err != nil {
				return err
			}
		}
		if err := encodeValue(w, enc, v); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, "]\n")
	return err
}

func encodeValue(w io.Writer, enc *json.Encoder, v reflect.Value) error {
	t := v.Type()
	if t.Kind() != reflect.Slice || t.Elem().Kind() == reflect.Uint8 ||
		t.Implements(jsonMarshalerType) || t.Implements(textMarshalerType) {
		return enc.Encode(v.Interface())
	}
	if v.IsNil() {
		_, err := io.WriteString(w, "null")
		return err
	}
	if _, err := io.WriteString(w, "["); err != nil {
		return err
	}
	for i := range v.Len() {
		if i > 0 {
			if _, err := io.WriteString(w, ","); err != nil {
				return err
			}
		}
		// Through a pointer: boxing the element would copy it.
		if err := enc.Encode(v.Index(i).Addr().Interface()); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, "]")
	return err
}

func (s *Server) stream(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost && r.Method != http.MethodGet {
		writeError(w, fmt.Errorf("%w: use POST (or GET without arguments) for a stream", ErrBadRequest))
		return
	}
	spec := s.lookup(w, r, true)
	if spec == nil {
		return
	}
	args, err := s.decodeArgs(w, r, spec)
	if err != nil {
		writeError(w, err)
		return
	}
	out, err := s.invoke(r, spec, args)
	if err != nil {
		writeError(w, err)
		return
	}
	ch := out[0]
	if ch.IsNil() {
		writeError(w, fmt.Errorf("%s returned no stream", spec.name))
		return
	}
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", contentNDJSON)
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Trailer", trailerStreamEnd)
	w.WriteHeader(http.StatusOK)
	// Headers out now: the client knows it is subscribed.
	if err := rc.Flush(); err != nil {
		return
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	done := reflect.ValueOf(r.Context().Done())
	cases := []reflect.SelectCase{
		{Dir: reflect.SelectRecv, Chan: ch},
		{Dir: reflect.SelectRecv, Chan: done},
	}
	for {
		chosen, v, ok := reflect.Select(cases)
		if chosen == 1 {
			return // the client left, or the owner is shutting down
		}
		if !ok {
			// The method ended its stream by itself: say so, so that the
			// client does not subscribe again. A channel closed because the
			// ctx ended (the owner is stopping) is not an end.
			if r.Context().Err() == nil {
				w.Header().Set(trailerStreamEnd, "1")
			}
			return
		}
		if err := enc.Encode(v.Interface()); err != nil {
			return
		}
		if err := rc.Flush(); err != nil {
			return
		}
	}
}

func (s *Server) logf(format string, args ...any) {
	if s.opts.Logf != nil {
		s.opts.Logf(format, args...)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", contentJSON)
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// writeError answers with the error envelope.
func writeError(w http.ResponseWriter, err error) {
	we := Encode(err)
	writeJSON(w, statusOf(we), envelope{Error: we})
}

// WriteError answers an HTTP request with err in the error envelope (for
// handlers beside a Server, such as the owner's).
func WriteError(w http.ResponseWriter, err error) { writeError(w, err) }

// WriteJSON answers an HTTP request with one JSON document.
func WriteJSON(w http.ResponseWriter, status int, v any) { writeJSON(w, status, v) }
