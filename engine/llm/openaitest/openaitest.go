// Package openaitest is an in-process fake OpenAI-compatible server for
// tests (the wire protocol of llama.cpp's llama-server, LM Studio, vLLM and
// Ollama's /v1): it runs on net/http/httptest and speaks HTTP with
// Server-Sent Events, so code under test talks to it through the official
// openai-go client exactly as it would talk to a real server.
//
// Endpoints:
//
//	GET  /v1/models            the configured models, with context_length
//	                           when a model reports one (WithModel)
//	POST /v1/chat/completions  scripted replies, streamed as SSE
//	                           ("data: {chunk}\n\n" ... "data: [DONE]\n\n")
//	                           or one JSON object when "stream" is false
//	POST /v1/embeddings        deterministic vectors
//
// A Reply can stream text in chunks, carry tool calls (their arguments are
// sent as written, valid JSON or not), finish with any finish_reason, and
// misbehave: a malformed SSE line (Malformed), no [DONE] with the connection
// held open (NoDone), no finish_reason at all (NoFinish), a dropped
// connection (Cut), an HTTP error in OpenAI's error shape (HTTPError), a
// first byte that comes late (Latency). A Model may lie about its context:
// it reports Reported in /v1/models but refuses (400, llama.cpp's message)
// prompts longer than Context tokens (estimated as ceil(chars/4)).
//
// WithSlots(n) makes the server work on at most n chats at once, as a
// single-GPU server does; others wait their turn.
package openaitest

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Model is one served model.
type Model struct {
	ID string
	// Context is the real context size (0: unlimited).
	Context int
	// Reported is what /v1/models says (0: nothing reported).
	Reported int
	// NoTools makes requests with tools answer 400.
	NoTools bool
}

// Call is one tool call of a reply; Args is sent verbatim.
type Call struct {
	Name string
	Args string
}

// Reply is one scripted chat answer.
type Reply struct {
	Content string
	// Reasoning is sent as delta.reasoning_content before the content.
	Reasoning string
	// ChunkSize splits Content into chunks of this many bytes (default 4).
	ChunkSize int
	Calls     []Call
	// Finish is the finish_reason (default "stop", or "tool_calls" with Calls).
	Finish string
	// Latency delays the response headers; ChunkDelay each chunk.
	Latency    time.Duration
	ChunkDelay time.Duration
	// Malformed sends a data line that is not JSON after the first chunk.
	Malformed bool
	// NoDone never sends [DONE] and keeps the connection open until the
	// client goes away.
	NoDone bool
	// NoFinish ends the stream (with [DONE]) without a finish_reason.
	NoFinish bool
	// Cut drops the connection after the content, before any finish.
	Cut bool
	// Status, when set, answers with that HTTP status and Message in
	// OpenAI's error shape.
	Status  int
	Message string
	// PromptTokens and CompletionTokens are reported in the usage chunk
	// (default: estimates).
	PromptTokens, CompletionTokens int
}

// Text is a plain reply.
func Text(s string) Reply { return Reply{Content: s} }

// ToolCalls is a reply of tool calls.
func ToolCalls(calls ...Call) Reply { return Reply{Calls: calls} }

// HTTPError answers status with message.
func HTTPError(status int, message string) Reply { return Reply{Status: status, Message: message} }

// Request is one recorded chat request body.
type Request struct {
	Body map[string]any
	// Raw is the body as sent.
	Raw string
	At  time.Time
}

// Option configures a Server.
type Option func(*Server)

// WithModel serves models (default: one "qwen2.5-coder:7b" reporting 32768).
func WithModel(ms ...Model) Option { return func(s *Server) { s.models = append(s.models, ms...) } }

// WithReplies queues replies.
func WithReplies(rs ...Reply) Option { return func(s *Server) { s.queue = append(s.queue, rs...) } }

// WithHandler answers when the queue is empty (n counts chats from 1).
func WithHandler(fn func(n int, body map[string]any) Reply) Option {
	return func(s *Server) { s.handler = fn }
}

// WithSlots bounds the chats served at once.
func WithSlots(n int) Option {
	return func(s *Server) {
		if n > 0 {
			s.slots = make(chan struct{}, n)
		}
	}
}

// WithAPIKey makes every request need "Authorization: Bearer KEY".
func WithAPIKey(key string) Option { return func(s *Server) { s.key = key } }

// Server is a running fake.
type Server struct {
	srv *httptest.Server

	mu       sync.Mutex
	models   []Model
	queue    []Reply
	handler  func(int, map[string]any) Reply
	slots    chan struct{}
	key      string
	requests []Request
	n        int
	closing  chan struct{}
	once     sync.Once
}

// New starts a fake closed on t.Cleanup.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := Start(opts...)
	t.Cleanup(s.Close)
	return s
}

// Start starts a fake on a free loopback port; Close stops it.
func Start(opts ...Option) *Server {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	return StartOn(ln, opts...)
}

// StartOn starts a fake on ln.
func StartOn(ln net.Listener, opts ...Option) *Server {
	s := &Server{closing: make(chan struct{})}
	for _, o := range opts {
		o(s)
	}
	if len(s.models) == 0 {
		s.models = []Model{{ID: "qwen2.5-coder:7b", Reported: 32768}}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", s.handleModels)
	mux.HandleFunc("POST /v1/chat/completions", s.handleChat)
	mux.HandleFunc("POST /v1/embeddings", s.handleEmbed)
	s.srv = httptest.NewUnstartedServer(mux)
	_ = s.srv.Listener.Close()
	s.srv.Listener = ln
	s.srv.Start()
	return s
}

// URL is the base URL with /v1, e.g. "http://127.0.0.1:4321/v1".
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// Close stops the server (held streams end at once).
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.closing)
		s.srv.CloseClientConnections()
		s.srv.Close()
	})
}

// Enqueue adds replies.
func (s *Server) Enqueue(rs ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, rs...)
}

// RawRequests are the chat request bodies as sent.
func (s *Server) RawRequests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.requests))
	for _, r := range s.requests {
		out = append(out, r.Raw)
	}
	return out
}

// Requests are the chat requests received.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	if s.key == "" || r.Header.Get("Authorization") == "Bearer "+s.key {
		return true
	}
	writeError(w, http.StatusUnauthorized, "invalid api key", "invalid_request_error")
	return false
}

func writeError(w http.ResponseWriter, status int, msg, typ string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": typ, "code": status}})
}

func (s *Server) handleModels(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(w, r) {
		return
	}
	s.mu.Lock()
	data := make([]map[string]any, 0, len(s.models))
	for _, m := range s.models {
		e := map[string]any{"id": m.ID, "object": "model", "created": 1700000000, "owned_by": "openaitest"}
		if m.Reported > 0 {
			e["context_length"] = m.Reported
		}
		data = append(data, e)
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
}

func (s *Server) model(id string) (Model, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.models {
		if m.ID == id {
			return m, true
		}
	}
	return Model{}, false
}

// promptTokens estimates a request's prompt as ceil(chars/4) of its
// messages and tools.
func promptTokens(body map[string]any) int {
	n := 0
	if msgs, ok := body["messages"].([]any); ok {
		for _, m := range msgs {
			b, _ := json.Marshal(m)
			n += (len(b) + 3) / 4
		}
	}
	if tools, ok := body["tools"].([]any); ok {
		b, _ := json.Marshal(tools)
		n += (len(b) + 3) / 4
	}
	return n
}

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(w, r) {
		return
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 64<<20))
	var body map[string]any
	if err == nil {
		err = json.Unmarshal(raw, &body)
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid JSON body: "+err.Error(), "invalid_request_error")
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, Request{Body: body, Raw: string(raw), At: time.Now()})
	s.mu.Unlock()
	id, _ := body["model"].(string)
	m, ok := s.model(id)
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("The model `%s` does not exist.", id), "invalid_request_error")
		return
	}
	if tools, _ := body["tools"].([]any); len(tools) > 0 && m.NoTools {
		writeError(w, http.StatusBadRequest, id+" does not support tools", "invalid_request_error")
		return
	}
	prompt := promptTokens(body)
	if m.Context > 0 && prompt > m.Context {
		writeError(w, http.StatusBadRequest, "the request exceeds the available context size, try increasing it", "exceed_context_size_error")
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
	s.n++
	n := s.n
	var rep Reply
	switch {
	case len(s.queue) > 0:
		rep, s.queue = s.queue[0], s.queue[1:]
	case s.handler != nil:
		h := s.handler
		s.mu.Unlock()
		rep = h(n, body)
		s.mu.Lock()
	default:
		rep = Text("ok")
	}
	s.mu.Unlock()
	if !s.wait(r, rep.Latency) {
		return
	}
	if rep.Status != 0 {
		writeError(w, rep.Status, rep.Message, "server_error")
		return
	}
	if rep.PromptTokens == 0 {
		rep.PromptTokens = prompt
	}
	if rep.CompletionTokens == 0 {
		rep.CompletionTokens = max(1, (len(rep.Content)+3)/4)
	}
	finish := rep.Finish
	if finish == "" {
		finish = "stop"
		if len(rep.Calls) > 0 {
			finish = "tool_calls"
		}
	}
	if max, ok := body["max_tokens"].(float64); ok && max > 0 && rep.CompletionTokens > int(max) {
		// Stop at max_tokens, as servers do.
		keep := int(max) * 4
		if keep < len(rep.Content) {
			rep.Content = rep.Content[:keep]
		}
		rep.CompletionTokens, finish, rep.Calls = int(max), "length", nil
	}
	if stream, _ := body["stream"].(bool); !stream {
		s.playUnary(w, id, rep, finish)
		return
	}
	s.playStream(w, r, id, rep, finish)
}

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

func (s *Server) playUnary(w http.ResponseWriter, model string, rep Reply, finish string) {
	msg := map[string]any{"role": "assistant", "content": rep.Content}
	if len(rep.Calls) > 0 {
		msg["tool_calls"] = wireCalls(rep.Calls, true)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-fake", "object": "chat.completion", "created": time.Now().Unix(), "model": model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": rep.PromptTokens, "completion_tokens": rep.CompletionTokens, "total_tokens": rep.PromptTokens + rep.CompletionTokens},
	})
}

func wireCalls(calls []Call, whole bool) []any {
	out := make([]any, 0, len(calls))
	for i, c := range calls {
		e := map[string]any{"index": i, "id": fmt.Sprintf("call_%d", i), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": c.Args}}
		if !whole {
			e["function"] = map[string]any{"name": c.Name, "arguments": c.Args}
		}
		out = append(out, e)
	}
	return out
}

func (s *Server) playStream(w http.ResponseWriter, r *http.Request, model string, rep Reply, finish string) {
	fl, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	created := time.Now().Unix()
	send := func(delta map[string]any, finishReason any, usage any) bool {
		chunk := map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": created, "model": model,
			"choices": []any{}}
		if delta != nil {
			chunk["choices"] = []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finishReason}}
		}
		if usage != nil {
			chunk["usage"] = usage
		}
		b, _ := json.Marshal(chunk)
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return false
		}
		if fl != nil {
			fl.Flush()
		}
		return s.wait(r, rep.ChunkDelay)
	}
	if !send(map[string]any{"role": "assistant", "content": ""}, nil, nil) {
		return
	}
	if rep.Reasoning != "" && !send(map[string]any{"reasoning_content": rep.Reasoning}, nil, nil) {
		return
	}
	size := rep.ChunkSize
	if size <= 0 {
		size = 4
	}
	for i := 0; i < len(rep.Content); i += size {
		if !send(map[string]any{"content": rep.Content[i:min(i+size, len(rep.Content))]}, nil, nil) {
			return
		}
		if i == 0 && rep.Malformed {
			_, _ = fmt.Fprint(w, "data: {\"choices\": [ this is not json\n\n")
			if fl != nil {
				fl.Flush()
			}
			return
		}
	}
	if rep.Malformed && rep.Content == "" {
		_, _ = fmt.Fprint(w, "data: {oops\n\n")
		return
	}
	for i, c := range rep.Calls {
		// Name first, then the arguments in two pieces, as servers stream them.
		half := len(c.Args) / 2
		if !send(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": fmt.Sprintf("call_%d", i), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": ""}}}}, nil, nil) {
			return
		}
		for _, part := range []string{c.Args[:half], c.Args[half:]} {
			if !send(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": part}}}}, nil, nil) {
				return
			}
		}
	}
	if rep.Cut {
		panic(http.ErrAbortHandler)
	}
	if !rep.NoFinish {
		if !send(map[string]any{}, finish, nil) {
			return
		}
		usage := map[string]any{"prompt_tokens": rep.PromptTokens, "completion_tokens": rep.CompletionTokens,
			"total_tokens": rep.PromptTokens + rep.CompletionTokens}
		if !send(nil, nil, usage) {
			return
		}
	}
	if rep.NoDone {
		select {
		case <-r.Context().Done():
		case <-s.closing:
		}
		return
	}
	_, _ = fmt.Fprint(w, "data: [DONE]\n\n")
	if fl != nil {
		fl.Flush()
	}
}

func (s *Server) handleEmbed(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(w, r) {
		return
	}
	var body struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeError(w, http.StatusBadRequest, "invalid JSON body", "invalid_request_error")
		return
	}
	data := make([]any, 0, len(body.Input))
	for i, in := range body.Input {
		v := make([]float64, 8)
		for j, c := range strings.ToLower(in) {
			v[(j+int(c))%8] += 1
		}
		data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": v})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": body.Model})
}
