// Package docstest is a local Context7-compatible documentation server for
// tests and for trying nova by hand (cmd: docstest/context7d). It speaks the
// two v2 endpoints nova uses:
//
//	GET /api/v2/libs/search?libraryName=NAME&query=Q → {"results":[{id,title,…}]}
//	GET /api/v2/context?libraryId=/org/lib&query=Q&type=txt → text/plain
//
// and can misbehave on demand (Mode): answer 500, an HTML page, 5 MB, bytes
// that are not UTF-8, an empty body, or start an answer and never finish.
package docstest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
)

// Library is one library the server knows.
type Library struct {
	ID    string // e.g. /facebook/react
	Title string // e.g. React
	// Docs maps a topic to its text; the text under "" answers any other
	// query.
	Docs map[string]string
}

// Mode makes the server misbehave.
type Mode int

// Modes.
const (
	Normal    Mode = iota
	Status500      // every request answers 500 with a JSON error
	HTML           // 200 with an HTML page (a captive portal, a wrong URL)
	Huge           // 200 with 5 MB of text
	NotUTF8        // 200 with bytes that are not UTF-8
	Empty          // 200 with an empty body
	Hang           // 200, a first chunk, then nothing until the client gives up
)

// Options configures a server.
type Options struct {
	// Libraries default to DefaultLibraries().
	Libraries []Library
	// APIKey, when set, is required as "Authorization: Bearer KEY" (401
	// otherwise).
	APIKey string
}

// Handler is the server's http.Handler; it counts requests.
type Handler struct {
	mu      sync.Mutex
	libs    []Library
	key     string
	mode    Mode
	counts  map[string]int
	auth    []string
	release chan struct{}
	closed  bool
}

// NewHandler returns a handler serving o's libraries.
func NewHandler(o Options) *Handler {
	libs := o.Libraries
	if libs == nil {
		libs = DefaultLibraries()
	}
	return &Handler{libs: libs, key: o.APIKey, counts: map[string]int{}, release: make(chan struct{})}
}

// SetMode changes how the server answers from now on.
func (h *Handler) SetMode(m Mode) {
	h.mu.Lock()
	h.mode = m
	h.mu.Unlock()
}

// Count returns how many requests reached path ("" for all).
func (h *Handler) Count(path string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	if path == "" {
		n := 0
		for _, c := range h.counts {
			n += c
		}
		return n
	}
	return h.counts[path]
}

// Authorizations lists the Authorization headers received, in order.
func (h *Handler) Authorizations() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.auth...)
}

// Release ends every hanging answer (and makes later Hang answers end at
// once).
func (h *Handler) Release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.closed {
		close(h.release)
		h.closed = true
	}
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.counts[r.URL.Path]++
	h.auth = append(h.auth, r.Header.Get("Authorization"))
	mode, key := h.mode, h.key
	h.mu.Unlock()

	if r.Method != http.MethodGet {
		writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "only GET"})
		return
	}
	if key != "" && r.Header.Get("Authorization") != "Bearer "+key {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "unauthorized", "message": "Invalid API key."})
		return
	}
	switch mode {
	case Status500:
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": "internal", "message": "Something broke."})
		return
	case HTML:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte("<!DOCTYPE html><html><head><title>Sign in</title></head><body>Please sign in to the network.</body></html>"))
		return
	case Huge:
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if r.URL.Path == "/api/v2/libs/search" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"results":[`))
			for range 70000 { // ≈ 5 MB of results
				_, _ = w.Write([]byte(`{"id":"/big/lib","title":"Big library with a long title for padding out the body"},`))
			}
			_, _ = w.Write([]byte(`{"id":"/big/end","title":"End"}]}`))
			return
		}
		line := bytes.Repeat([]byte("Huge documentation line that repeats. "), 26) // ≈ 1 KB
		for range 5 * 1024 {
			_, _ = w.Write(line)
			_, _ = w.Write([]byte("\n"))
		}
		return
	case NotUTF8:
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write(bytes.Repeat([]byte{0xff, 0xfe, 0xc3, 0x28, 0xa0, 0xa1}, 200))
		return
	case Empty:
		w.Header().Set("Content-Type", "text/plain")
		return
	case Hang:
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("The first line arrives, the rest never does"))
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		select {
		case <-r.Context().Done():
		case <-h.release:
		}
		return
	}
	switch r.URL.Path {
	case "/api/v2/libs/search":
		h.search(w, r)
	case "/api/v2/context":
		h.context(w, r)
	default:
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "not found"})
	}
}

func (h *Handler) search(w http.ResponseWriter, r *http.Request) {
	name := strings.ToLower(strings.TrimSpace(r.URL.Query().Get("libraryName")))
	if name == "" || r.URL.Query().Get("query") == "" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "libraryName and query are required"})
		return
	}
	type result struct {
		ID            string `json:"id"`
		Title         string `json:"title"`
		Description   string `json:"description"`
		State         string `json:"state"`
		TotalSnippets int    `json:"totalSnippets"`
		TrustScore    int    `json:"trustScore"`
	}
	out := []result{}
	for _, l := range h.libs {
		if strings.Contains(strings.ToLower(l.Title), name) || strings.Contains(strings.ToLower(l.ID), name) {
			out = append(out, result{ID: l.ID, Title: l.Title, Description: "Documentation of " + l.Title,
				State: "finalized", TotalSnippets: len(l.Docs), TrustScore: 9})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		return strings.EqualFold(out[i].Title, name) && !strings.EqualFold(out[j].Title, name)
	})
	writeJSON(w, http.StatusOK, map[string]any{"results": out, "metadata": map[string]string{"authentication": "none"}})
}

func (h *Handler) context(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("libraryId")
	query := strings.ToLower(r.URL.Query().Get("query"))
	if id == "" || query == "" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "libraryId and query are required"})
		return
	}
	for _, l := range h.libs {
		if l.ID != id {
			continue
		}
		text, ok := "", false
		topics := make([]string, 0, len(l.Docs))
		for t := range l.Docs {
			topics = append(topics, t)
		}
		sort.Strings(topics)
		for _, t := range topics {
			if t != "" && strings.Contains(query, strings.ToLower(t)) {
				text, ok = l.Docs[t], true
				break
			}
		}
		if !ok {
			text, ok = l.Docs[""]
		}
		if !ok {
			w.Header().Set("Content-Type", "text/plain")
			_, _ = w.Write([]byte("No content available"))
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte(text))
		return
	}
	writeJSON(w, http.StatusNotFound, map[string]string{"error": "not found", "message": "The library does not exist."})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// DefaultLibraries are a few libraries with short made-up documentation.
func DefaultLibraries() []Library {
	return []Library{
		{ID: "/facebook/react", Title: "React", Docs: map[string]string{
			"hooks": "React hooks (docstest)\n\nuseState returns a value and a setter; call hooks only at the top level of a component.\n" +
				"useEffect runs after render; return a cleanup function to undo subscriptions.\n",
			"": "React (docstest)\n\nComponents are functions of props that return elements.\n",
		}},
		{ID: "/colinhacks/zod", Title: "Zod", Docs: map[string]string{
			"": "Zod (docstest)\n\nz.object({...}).parse(input) validates input and throws on bad data; safeParse returns a result instead.\n",
		}},
		{ID: "/vercel/next.js", Title: "Next.js", Docs: map[string]string{
			"routing": "Next.js routing (docstest)\n\nFiles under app/ become routes; page.tsx renders a route and layout.tsx wraps its children.\n",
		}},
	}
}

// Server is a Handler on a local httptest server.
type Server struct {
	*Handler
	srv *httptest.Server
}

// New starts a server that stops when the test ends.
func New(t testing.TB, o Options) *Server {
	t.Helper()
	h := NewHandler(o)
	s := &Server{Handler: h, srv: httptest.NewServer(h)}
	t.Cleanup(s.Close)
	return s
}

// URL is the server's base URL (set it as docs.context7.url or
// CONTEXT7_API_URL).
func (s *Server) URL() string { return s.srv.URL }

// Close stops the server (a later request fails to connect).
func (s *Server) Close() {
	s.Release()
	s.srv.CloseClientConnections()
	s.srv.Close()
}
