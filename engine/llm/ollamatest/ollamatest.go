// Package ollamatest is an in-process fake Ollama server for tests. It runs on
// net/http/httptest and speaks Ollama's real wire protocol, so code under test
// talks to it through the official github.com/ollama/ollama/api client exactly
// as it would talk to `ollama serve`. No test needs a real Ollama or the
// network.
//
// Endpoints:
//
//	HEAD|GET /              "Ollama is running"
//	GET  /api/version       {"version": "0.34.4"} (WithVersion)
//	GET  /api/tags          the configured models (WithModels / WithModel)
//	POST /api/show          details, model_info and capabilities of one model
//	POST /api/embed         deterministic embeddings (see [Embedding])
//	POST /api/chat          scripted replies, streamed as NDJSON
//
// /api/chat streams like Ollama: Content-Type application/x-ndjson, one JSON
// [api.ChatResponse] per line, flushed per chunk — thinking chunks, then
// content chunks, then a chunk with tool_calls, then the final message with
// "done": true, done_reason, durations, prompt_eval_count and eval_count. With
// "stream": false it answers one aggregated JSON object instead. An unknown
// model gets 404 {"error":"model 'NAME' not found"} before any reply is
// consumed; names without a tag match ":latest", as in Ollama.
//
// Scripting: each /api/chat request takes the next [Reply] from the queue
// (WithReplies / Enqueue); when the queue is empty the handler set with
// WithHandler / SetHandler is asked; otherwise the default reply (Text("ok"),
// see WithDefaultReply) is played. A Reply can stream text in chunks with an
// initial latency and a per-chunk delay, carry thinking and native tool
// calls, put an {"error": ...} line in the middle of a 200 stream, cut the
// stream halfway (connection dropped, or response ended, without the done
// message), answer an HTTP error (500, 404 in Ollama's shape, ...), write a
// raw (malformed or empty) body, or be empty. Other endpoints can be scripted
// the same way with EnqueuePath (status errors, latency, raw bodies).
//
// Like the real server (Ollama v0.17.4, checked by nova's real-server suite
// in realollama/), the fake also: answers 400 `"NAME" does not support chat`
// for a model without the "completion" capability and 400 "NAME does not
// support tools" for tools sent to a model without "tools"; caps num_ctx at
// the model's context length and, for a prompt longer than that (estimated
// as ceil(chars/4)), answers 400 "the input length exceeds the context
// length" when the request says "truncate": false, or counts a silent
// truncation (Truncations) otherwise; stops a reply at options.num_predict
// chunks with done_reason "length"; and plays [Repetition] the way the real
// server stops a model that repeats itself: a 200 stream that ends without a
// done message (stream false: one object with "done": false).
//
// Every request is recorded (method, path, body) and can be inspected with
// Requests, ChatRequests and Count; the server is safe for concurrent use.
// It is closed on t.Cleanup; Close stops it earlier (to simulate Ollama going
// away).
//
// Usage:
//
//	srv := ollamatest.New(t, ollamatest.WithModels("llama3.2:3b"))
//	srv.Enqueue(ollamatest.ServerError("boom"), ollamatest.Text("hello world").WithChunkSize(3))
//	c, _ := llm.New(llm.Config{Host: srv.URL()})
//	res, err := c.Chat(ctx, llm.ChatRequest{Model: "llama3.2:3b", Messages: msgs}, onDelta)
//	require.Len(t, srv.ChatRequests(), 2)
package ollamatest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode"

	"github.com/ollama/ollama/api"
)

// DefaultVersion is what /api/version reports unless WithVersion is used.
const DefaultVersion = "0.34.4"

// DefaultEmbedDim is the length of the vectors /api/embed returns unless
// WithEmbedDim is used.
const DefaultEmbedDim = 256

// DefaultModels are installed when no WithModels/WithModel option is given.
func DefaultModels() []string {
	return []string{"llama3.2:3b", "qwen2.5-coder:7b", "nomic-embed-text:latest"}
}

// Model describes one installed model of the fake server.
type Model struct {
	Name          string // e.g. "llama3.2:3b"; a missing tag becomes ":latest"
	Family        string
	ParameterSize string // e.g. "3.2B"
	Quantization  string // e.g. "Q4_K_M"
	Size          int64  // bytes
	ContextLength int
	Capabilities  []string // e.g. "completion", "tools", "thinking", "embedding"
	ModifiedAt    time.Time
}

// ChatFunc computes the reply to the n-th chat request (1-based, counting
// every request that reached the scripting stage).
type ChatFunc func(n int, req api.ChatRequest) Reply

// Request is one recorded HTTP request.
type Request struct {
	Method string
	Path   string
	Body   []byte
	At     time.Time
}

// Option configures a Server.
type Option func(*Server)

// WithModels installs models by name; family, parameter size, size,
// quantization and capabilities are derived from the name (names containing
// "embed" become embedding models).
func WithModels(names ...string) Option {
	return func(s *Server) {
		s.models = s.models[:0]
		for i, n := range names {
			s.models = append(s.models, deriveModel(n, i))
		}
		s.modelsSet = true
	}
}

// WithModel installs models with explicit metadata (added to WithModels).
func WithModel(models ...Model) Option {
	return func(s *Server) {
		if !s.modelsSet {
			s.models = nil
			s.modelsSet = true
		}
		for _, m := range models {
			m.Name = normalizeName(m.Name)
			s.models = append(s.models, m)
		}
	}
}

// WithVersion sets what /api/version reports.
func WithVersion(v string) Option { return func(s *Server) { s.version = v } }

// WithReplies queues chat replies.
func WithReplies(replies ...Reply) Option {
	return func(s *Server) { s.queues[pathChat] = append(s.queues[pathChat], replies...) }
}

// WithHandler sets the function asked for a chat reply when the queue is empty.
func WithHandler(fn ChatFunc) Option { return func(s *Server) { s.chatFn = fn } }

// WithDefaultReply sets the reply played when the queue is empty and no
// handler is set (default Text("ok")).
func WithDefaultReply(r Reply) Option { return func(s *Server) { s.defaultReply = r } }

// WithSlots makes the server work on at most n chats at once, as one GPU
// does (Ollama's OLLAMA_NUM_PARALLEL); the others wait their turn.
func WithSlots(n int) Option {
	return func(s *Server) {
		if n > 0 {
			s.slots = make(chan struct{}, n)
		}
	}
}

// WithEmbedDim sets the embedding length.
func WithEmbedDim(n int) Option {
	return func(s *Server) {
		if n > 0 {
			s.embedDim = n
		}
	}
}

// Server is a running fake Ollama.
type Server struct {
	srv       *httptest.Server
	closing   chan struct{}
	closeOnce sync.Once

	mu           sync.Mutex
	models       []Model
	modelsSet    bool
	version      string
	queues       map[string][]Reply
	chatFn       ChatFunc
	defaultReply Reply
	embedDim     int
	requests     []Request
	chatN        int
	toolCallN    int
	truncations  int
	streamed     atomic.Int64 // bytes of chat stream lines written
	slots        chan struct{}
	loaded       map[string]time.Time // models a chat used, for /api/ps
}

const (
	pathChat    = "/api/chat"
	pathTags    = "/api/tags"
	pathShow    = "/api/show"
	pathEmbed   = "/api/embed"
	pathVersion = "/api/version"
	pathPs      = "/api/ps"
)

// New starts a fake Ollama; it is closed on t.Cleanup.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := Start(opts...)
	t.Cleanup(s.Close)
	return s
}

// Start starts a fake Ollama outside a test (a development server, see
// fakeollamad); the caller closes it.
func Start(opts ...Option) *Server {
	return StartOn(nil, opts...)
}

// StartOn starts a fake Ollama on a listener of the caller's (nil: a free
// port on 127.0.0.1); the caller closes it.
func StartOn(ln net.Listener, opts ...Option) *Server {
	s := &Server{
		closing:      make(chan struct{}),
		version:      DefaultVersion,
		queues:       map[string][]Reply{},
		defaultReply: Text("ok"),
		embedDim:     DefaultEmbedDim,
	}
	for i, n := range DefaultModels() {
		s.models = append(s.models, deriveModel(n, i))
	}
	for _, o := range opts {
		o(s)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/", s.handleRoot)
	mux.HandleFunc(pathVersion, s.handleVersion)
	mux.HandleFunc(pathTags, s.handleTags)
	mux.HandleFunc(pathShow, s.handleShow)
	mux.HandleFunc(pathEmbed, s.handleEmbed)
	mux.HandleFunc(pathChat, s.handleChat)
	mux.HandleFunc(pathPs, s.handlePs)
	s.srv = httptest.NewUnstartedServer(mux)
	if ln != nil {
		_ = s.srv.Listener.Close()
		s.srv.Listener = ln
	}
	s.srv.Start()
	return s
}

// URL is the base URL, e.g. "http://127.0.0.1:40123".
func (s *Server) URL() string { return s.srv.URL }

// Host is the host:port part of URL (what OLLAMA_HOST usually holds).
func (s *Server) Host() string { return strings.TrimPrefix(s.srv.URL, "http://") }

// Close stops the server at once: in-flight streams are dropped and later
// requests fail to connect. It is safe to call more than once.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.closing)
		s.srv.CloseClientConnections()
		s.srv.Close()
	})
}

// Enqueue adds chat replies to the queue.
func (s *Server) Enqueue(replies ...Reply) { s.EnqueuePath(pathChat, replies...) }

// EnqueuePath adds replies for another endpoint ("/api/tags", "/api/show",
// "/api/embed", "/api/version"): each request to it takes one, honouring
// Latency, Status/ErrorMessage, Raw and Cut, and otherwise answering normally.
func (s *Server) EnqueuePath(path string, replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queues[path] = append(s.queues[path], replies...)
}

// Pending is the number of queued, not yet played, chat replies.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queues[pathChat])
}

// SetHandler replaces the chat handler.
func (s *Server) SetHandler(fn ChatFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chatFn = fn
}

// SetModels replaces the installed models (names as in WithModels).
func (s *Server) SetModels(names ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = nil
	for i, n := range names {
		s.models = append(s.models, deriveModel(n, i))
	}
}

// StreamedBytes is how many bytes of chat stream lines the fake wrote
// (what reached the connection, not what the client read).
func (s *Server) StreamedBytes() int64 { return s.streamed.Load() }

// Truncations is how many chat prompts the fake truncated silently, as the
// real server does (and logs "truncating input prompt") when a prompt is
// longer than the context and the request did not say "truncate": false.
func (s *Server) Truncations() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.truncations
}

// Requests returns a copy of every recorded request, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.requests))
	copy(out, s.requests)
	return out
}

// Count is the number of recorded requests to path.
func (s *Server) Count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.requests {
		if r.Path == path {
			n++
		}
	}
	return n
}

// ChatRequests decodes every recorded /api/chat body, oldest first. Bodies
// that do not decode are skipped.
func (s *Server) ChatRequests() []api.ChatRequest {
	var out []api.ChatRequest
	for _, r := range s.Requests() {
		if r.Path != pathChat {
			continue
		}
		var cr api.ChatRequest
		if err := json.Unmarshal(r.Body, &cr); err == nil {
			out = append(out, cr)
		}
	}
	return out
}

// EmbedRequests decodes every recorded /api/embed body, oldest first.
func (s *Server) EmbedRequests() []api.EmbedRequest {
	var out []api.EmbedRequest
	for _, r := range s.Requests() {
		if r.Path != pathEmbed {
			continue
		}
		var er api.EmbedRequest
		if err := json.Unmarshal(r.Body, &er); err == nil {
			out = append(out, er)
		}
	}
	return out
}

func (s *Server) record(r *http.Request) []byte {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Body: body, At: time.Now()})
	return body
}

func (s *Server) popPath(path string) (Reply, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queues[path]
	if len(q) == 0 {
		return Reply{}, false
	}
	r := q[0]
	s.queues[path] = q[1:]
	return r, true
}

func (s *Server) findModel(name string) (Model, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := normalizeName(name)
	for _, m := range s.models {
		if m.Name == n {
			return m, true
		}
	}
	return Model{}, false
}

// wait sleeps d unless the request or the server ends first.
func (s *Server) wait(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	case <-s.closing:
		return false
	}
}

// writeJSON answers like gin's c.JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	bts, err := json.Marshal(v)
	if err != nil {
		status, bts = http.StatusInternalServerError, []byte(`{"error":"marshal failed"}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(bts)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

// abort drops the connection without finishing the response; net/http
// recovers this sentinel panic silently.
func abort() { panic(http.ErrAbortHandler) }

// preamble plays the parts of a scripted reply shared by every endpoint. It
// reports whether the caller should go on with its normal answer.
func (s *Server) preamble(w http.ResponseWriter, r *http.Request, rep Reply) bool {
	if !s.wait(r, rep.Latency) {
		return false
	}
	switch {
	case rep.Status != 0:
		writeError(w, rep.Status, rep.ErrorMessage)
		return false
	case rep.RawSet:
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, rep.Raw)
		return false
	case rep.Cut:
		abort()
	case rep.CutClean:
		w.WriteHeader(http.StatusOK)
		return false
	}
	return true
}

func (s *Server) handleRoot(w http.ResponseWriter, r *http.Request) {
	s.record(r)
	if r.URL.Path != "/" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = io.WriteString(w, "Ollama is running")
}

func (s *Server) handleVersion(w http.ResponseWriter, r *http.Request) {
	s.record(r)
	if rep, ok := s.popPath(pathVersion); ok && !s.preamble(w, r, rep) {
		return
	}
	s.mu.Lock()
	v := s.version
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]string{"version": v})
}

func (s *Server) handleTags(w http.ResponseWriter, r *http.Request) {
	s.record(r)
	if rep, ok := s.popPath(pathTags); ok && !s.preamble(w, r, rep) {
		return
	}
	s.mu.Lock()
	models := append([]Model(nil), s.models...)
	s.mu.Unlock()
	resp := api.ListResponse{Models: []api.ListModelResponse{}}
	for _, m := range models {
		resp.Models = append(resp.Models, api.ListModelResponse{
			Name:       m.Name,
			Model:      m.Name,
			ModifiedAt: m.ModifiedAt,
			Size:       m.Size,
			Digest:     digest(m.Name),
			Details:    details(m),
		})
	}
	writeJSON(w, http.StatusOK, resp)
}

func (s *Server) handleShow(w http.ResponseWriter, r *http.Request) {
	body := s.record(r)
	if r.Method != http.MethodPost {
		writeError(w, http.StatusMethodNotAllowed, "method not allowed")
		return
	}
	var req api.ShowRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	name := req.Model
	if name == "" {
		writeError(w, http.StatusBadRequest, "model is required")
		return
	}
	if rep, ok := s.popPath(pathShow); ok && !s.preamble(w, r, rep) {
		return
	}
	m, ok := s.findModel(name)
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", name))
		return
	}
	arch := m.Family
	if arch == "" {
		arch = "llama"
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"modelfile":  "# Modelfile generated by ollamatest\nFROM " + m.Name + "\n",
		"parameters": "stop \"<|eot_id|>\"",
		"template":   "{{ .Prompt }}",
		"details":    details(m),
		"model_info": map[string]any{
			"general.architecture":     arch,
			"general.parameter_count":  parameterCount(m.ParameterSize),
			arch + ".context_length":   m.ContextLength,
			arch + ".embedding_length": 4096,
		},
		"capabilities": m.Capabilities,
		"modified_at":  m.ModifiedAt,
	})
}

func (s *Server) handleEmbed(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	body := s.record(r)
	if r.Method != http.MethodPost {
		writeError(w, http.StatusMethodNotAllowed, "method not allowed")
		return
	}
	var req api.EmbedRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if rep, ok := s.popPath(pathEmbed); ok && !s.preamble(w, r, rep) {
		return
	}
	if _, ok := s.findModel(req.Model); !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", req.Model))
		return
	}
	var inputs []string
	switch in := req.Input.(type) {
	case string:
		if in != "" {
			inputs = append(inputs, in)
		}
	case []any:
		for _, v := range in {
			str, ok := v.(string)
			if !ok {
				writeError(w, http.StatusBadRequest, "invalid input type")
				return
			}
			inputs = append(inputs, str)
		}
	case nil:
	default:
		writeError(w, http.StatusBadRequest, "invalid input type")
		return
	}
	s.mu.Lock()
	dim := s.embedDim
	s.mu.Unlock()
	resp := api.EmbedResponse{Model: req.Model, Embeddings: [][]float32{}}
	tokens := 0
	for _, in := range inputs {
		resp.Embeddings = append(resp.Embeddings, Embedding(in, dim))
		tokens += estimateTokens(in)
	}
	resp.PromptEvalCount = tokens
	resp.TotalDuration = time.Since(start)
	writeJSON(w, http.StatusOK, resp)
}

// handlePs lists the models chats have used (loaded), as /api/ps does.
func (s *Server) handlePs(w http.ResponseWriter, r *http.Request) {
	s.record(r)
	s.mu.Lock()
	out := api.ProcessResponse{Models: []api.ProcessModelResponse{}}
	for _, m := range s.models {
		if at, ok := s.loaded[m.Name]; ok {
			out.Models = append(out.Models, api.ProcessModelResponse{Name: m.Name, Model: m.Name, Size: m.Size,
				Digest: digest(m.Name), Details: details(m), ExpiresAt: at.Add(5 * time.Minute), SizeVRAM: m.Size,
				ContextLength: m.ContextLength})
		}
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	body := s.record(r)
	if r.Method != http.MethodPost {
		writeError(w, http.StatusMethodNotAllowed, "method not allowed")
		return
	}
	var req api.ChatRequest
	if len(bytes.TrimSpace(body)) == 0 {
		writeError(w, http.StatusBadRequest, "missing request body")
		return
	}
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if req.Model == "" {
		writeError(w, http.StatusBadRequest, "model is required")
		return
	}
	m, ok := s.findModel(req.Model)
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", req.Model))
		return
	}
	if len(m.Capabilities) > 0 && !slices.Contains(m.Capabilities, "completion") {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("%q does not support chat", req.Model))
		return
	}
	if len(req.Tools) > 0 && len(m.Capabilities) > 0 && !slices.Contains(m.Capabilities, "tools") {
		writeError(w, http.StatusBadRequest, "registry.ollama.ai/library/"+m.Name+" does not support tools")
		return
	}
	if s.slots != nil {
		select {
		case s.slots <- struct{}{}:
			defer func() { <-s.slots }()
		case <-r.Context().Done():
			return
		case <-s.closing:
			return
		}
	}
	s.mu.Lock()
	if s.loaded == nil {
		s.loaded = map[string]time.Time{}
	}
	s.loaded[m.Name] = time.Now()
	s.mu.Unlock()
	if numCtx := contextOf(req, m); numCtx > 0 && promptTokens(req) > numCtx {
		if req.Truncate != nil && !*req.Truncate {
			writeError(w, http.StatusBadRequest, "the input length exceeds the context length")
			return
		}
		s.mu.Lock()
		s.truncations++
		s.mu.Unlock()
	}

	rep := s.nextChatReply(req)
	stream := req.Stream == nil || *req.Stream
	if req.Think != nil && req.Think.IsBool() && !req.Think.Bool() {
		rep.Thinking = ""
	}
	for i := range rep.ToolCalls {
		if rep.ToolCalls[i].ID == "" {
			rep.ToolCalls[i].ID = s.nextToolCallID()
		}
		rep.ToolCalls[i].Function.Index = i
	}

	if !s.wait(r, rep.Latency) {
		return
	}
	switch {
	case rep.Status != 0:
		writeError(w, rep.Status, rep.ErrorMessage)
		return
	case rep.RawSet:
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, rep.Raw)
		return
	}

	thinking := splitRunes(rep.Thinking, rep.ChunkSize)
	content := rep.contentChunks()
	if rep.RepeatUnit != "" {
		rep.CutClean = true
		for range repeatLimit + 1 {
			content = append(content, rep.RepeatUnit)
		}
	}
	if np := numPredictOf(req); np > 0 && len(thinking)+len(content) > np && rep.RepeatUnit == "" {
		// One chunk stands for one token: stop at the limit, as the
		// runner does, and say why.
		if len(thinking) >= np {
			thinking, content = thinking[:np], nil
		} else {
			content = content[:np-len(thinking)]
		}
		rep.ToolCalls = nil
		rep.DoneReason = "length"
		rep.Chunks = content
		rep.Content = ""
	}
	final := s.doneMessage(req, rep, start)

	if !stream {
		s.playUnary(w, r, req, rep, final)
		return
	}

	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	flush := func() { _ = http.NewResponseController(w).Flush() }
	flush()
	send := func(msg api.Message) bool {
		if !s.wait(r, rep.ChunkDelay) {
			return false
		}
		line, _ := json.Marshal(api.ChatResponse{Model: req.Model, CreatedAt: time.Now().UTC(), Message: msg})
		n, err := w.Write(append(line, '\n'))
		s.streamed.Add(int64(n))
		if err != nil {
			return false
		}
		flush()
		return true
	}
	for _, c := range thinking {
		if !send(api.Message{Role: "assistant", Thinking: c}) {
			return
		}
	}
	for _, c := range content {
		if !send(api.Message{Role: "assistant", Content: c}) {
			return
		}
	}
	if rep.ContentStream != nil {
		for c := range rep.ContentStream {
			if !send(api.Message{Role: "assistant", Content: c}) {
				return
			}
		}
	}
	if rep.ErrorMessage != "" {
		line, _ := json.Marshal(map[string]string{"error": rep.ErrorMessage})
		_, _ = w.Write(append(line, '\n'))
		flush()
		return
	}
	if rep.Cut {
		abort()
	}
	if rep.CutClean {
		return
	}
	if len(rep.ToolCalls) > 0 && !send(api.Message{Role: "assistant", ToolCalls: rep.ToolCalls}) {
		return
	}
	if !s.wait(r, rep.ChunkDelay) {
		return
	}
	final.CreatedAt = time.Now().UTC()
	line, _ := json.Marshal(final)
	_, _ = w.Write(append(line, '\n'))
	flush()
}

// playUnary answers a "stream": false chat the way Ollama's writeChatResponse
// does: one aggregated object, or 500 {"error"} when generation failed.
func (s *Server) playUnary(w http.ResponseWriter, r *http.Request, req api.ChatRequest, rep Reply, final api.ChatResponse) {
	// Generation time still passes when not streaming.
	n := len(rep.contentChunks()) + len(splitRunes(rep.Thinking, rep.ChunkSize)) + 1
	if !s.wait(r, time.Duration(n)*rep.ChunkDelay) {
		return
	}
	switch {
	case rep.ErrorMessage != "":
		writeError(w, http.StatusInternalServerError, rep.ErrorMessage)
		return
	case rep.Cut:
		abort()
	case rep.RepeatUnit != "":
		// Ollama aggregates what was generated and never sets done.
		text := strings.Join(rep.contentChunks(), "") + strings.Repeat(rep.RepeatUnit, repeatLimit+1)
		writeJSON(w, http.StatusOK, api.ChatResponse{Model: req.Model, CreatedAt: time.Now().UTC(),
			Message: api.Message{Role: "assistant", Content: text}})
		return
	case rep.CutClean:
		w.WriteHeader(http.StatusOK)
		return
	}
	final.Message.Content = strings.Join(rep.contentChunks(), "")
	final.Message.Thinking = rep.Thinking
	if len(req.Tools) > 0 || len(rep.ToolCalls) > 0 {
		final.Message.ToolCalls = rep.ToolCalls
	}
	final.CreatedAt = time.Now().UTC()
	writeJSON(w, http.StatusOK, final)
}

func (s *Server) doneMessage(req api.ChatRequest, rep Reply, start time.Time) api.ChatResponse {
	prompt := rep.PromptTokens
	if prompt == 0 {
		chars := 0
		for _, m := range req.Messages {
			chars += len(m.Content)
		}
		prompt = max(1, ceilDiv(chars, 4))
	}
	eval := rep.EvalTokens
	if eval == 0 {
		eval = max(1, ceilDiv(len(strings.Join(rep.contentChunks(), ""))+len(rep.Thinking), 4))
	}
	reason := rep.DoneReason
	if reason == "" {
		reason = "stop"
	}
	elapsed := time.Since(start)
	return api.ChatResponse{
		Model:      req.Model,
		Message:    api.Message{Role: "assistant"},
		Done:       true,
		DoneReason: reason,
		Metrics: api.Metrics{
			TotalDuration:      elapsed + time.Millisecond,
			LoadDuration:       time.Microsecond,
			PromptEvalCount:    prompt,
			PromptEvalDuration: time.Duration(prompt) * time.Microsecond,
			EvalCount:          eval,
			EvalDuration:       time.Duration(eval) * time.Microsecond,
		},
	}
}

// repeatLimit is the real server's limit: a token repeated more than this
// many times in a row ends the completion.
const repeatLimit = 30

// contextOf is the context the server would use: min(num_ctx, the model's
// context length); 0 when neither is set.
func contextOf(req api.ChatRequest, m Model) int {
	n := optionInt(req.Options, "num_ctx")
	switch {
	case n > 0 && m.ContextLength > 0:
		return min(n, m.ContextLength)
	case n > 0:
		return n
	}
	return m.ContextLength
}

// promptTokens estimates a chat's prompt as ceil(chars/4) of its messages
// and tool schemas, plus a few tokens of template per message.
func promptTokens(req api.ChatRequest) int {
	n := 0
	for _, m := range req.Messages {
		n += 4 + ceilDiv(len(m.Content), 4)
	}
	for _, t := range req.Tools {
		b, _ := json.Marshal(t)
		n += ceilDiv(len(b), 4)
	}
	return n
}

func numPredictOf(req api.ChatRequest) int { return optionInt(req.Options, "num_predict") }

func optionInt(opts map[string]any, key string) int {
	switch v := opts[key].(type) {
	case float64:
		return int(v)
	case int:
		return v
	}
	return 0
}

func (s *Server) nextChatReply(req api.ChatRequest) Reply {
	s.mu.Lock()
	s.chatN++
	n := s.chatN
	fn := s.chatFn
	def := s.defaultReply
	var rep Reply
	queued := false
	if q := s.queues[pathChat]; len(q) > 0 {
		rep, queued = q[0], true
		s.queues[pathChat] = q[1:]
	}
	s.mu.Unlock()
	switch {
	case queued:
	case fn != nil:
		rep = fn(n, req)
	default:
		rep = def
	}
	// Copy slices so that filling IDs never mutates the caller's reply.
	rep.ToolCalls = append([]api.ToolCall(nil), rep.ToolCalls...)
	return rep
}

func (s *Server) nextToolCallID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.toolCallN++
	return fmt.Sprintf("call_%08d", s.toolCallN)
}

// Embedding is the deterministic vector the fake returns for text: a hashed
// bag of lower-cased words (FNV-1a, signed feature hashing) in dim
// dimensions, L2-normalised. Texts sharing words have a positive cosine
// similarity; the empty text (or one without letters or digits) maps to the
// zero vector.
func Embedding(text string, dim int) []float32 {
	if dim <= 0 {
		dim = DefaultEmbedDim
	}
	v := make([]float64, dim)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		h := fnv1a(w)
		sign := 1.0
		if h&(1<<31) != 0 {
			sign = -1
		}
		v[int(h%uint32(dim))] += sign
	}
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	out := make([]float32, dim)
	if norm == 0 {
		return out
	}
	norm = math.Sqrt(norm)
	for i, x := range v {
		out[i] = float32(x / norm)
	}
	return out
}

func fnv1a(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

func normalizeName(n string) string {
	n = strings.TrimSpace(n)
	last := n[strings.LastIndex(n, "/")+1:]
	if n != "" && !strings.Contains(last, ":") {
		n += ":latest"
	}
	return n
}

func deriveModel(name string, i int) Model {
	name = normalizeName(name)
	base, tag, _ := strings.Cut(name[strings.LastIndex(name, "/")+1:], ":")
	m := Model{
		Name:          name,
		Quantization:  "Q4_K_M",
		ContextLength: 131072,
		Capabilities:  []string{"completion", "tools"},
		ModifiedAt:    time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC).Add(-time.Duration(i) * time.Hour),
	}
	fam := strings.TrimRightFunc(strings.TrimRight(strings.SplitN(base, "-", 2)[0], "0123456789."), func(r rune) bool {
		return !unicode.IsLetter(r)
	})
	if fam == "" {
		fam = "llama"
	}
	m.Family = fam
	billions := 7.0
	if strings.HasSuffix(tag, "b") {
		if f, err := strconv.ParseFloat(strings.TrimSuffix(tag, "b"), 64); err == nil && f > 0 {
			billions = f
		}
	}
	m.ParameterSize = strconv.FormatFloat(billions, 'f', -1, 64) + "B"
	m.Size = int64(billions * 0.6e9)
	if strings.Contains(base, "embed") {
		m.Family = "nomic-bert"
		m.ParameterSize = "137M"
		m.Quantization = "F16"
		m.Size = 274302450
		m.ContextLength = 2048
		m.Capabilities = []string{"embedding"}
	}
	if strings.HasPrefix(base, "qwen3") || strings.HasPrefix(base, "deepseek-r1") {
		m.Capabilities = append(m.Capabilities, "thinking")
	}
	return m
}

func details(m Model) api.ModelDetails {
	return api.ModelDetails{
		Format:            "gguf",
		Family:            m.Family,
		Families:          []string{m.Family},
		ParameterSize:     m.ParameterSize,
		QuantizationLevel: m.Quantization,
	}
}

func parameterCount(size string) int64 {
	mult := 1e9
	if strings.HasSuffix(size, "M") {
		mult = 1e6
	}
	f, _ := strconv.ParseFloat(strings.TrimRight(size, "BM"), 64)
	return int64(f * mult)
}

func digest(name string) string {
	sum := sha256.Sum256([]byte(name))
	return hex.EncodeToString(sum[:])
}

func estimateTokens(s string) int { return max(1, ceilDiv(len(s), 4)) }

func ceilDiv(a, b int) int { return (a + b - 1) / b }
