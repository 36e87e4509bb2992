package harness

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
)

// Recorder is a reverse proxy in front of a real server that records every
// request body (tests assert on what nova sent: attempts, options) and
// streams answers through unbuffered.
type Recorder struct {
	srv *httptest.Server

	mu   sync.Mutex
	reqs []Recorded
}

// Recorded is one proxied request.
type Recorded struct {
	Method, Path string
	Body         []byte
	Status       int
}

// Record starts a recording proxy to target (a base URL).
func Record(target string) (*Recorder, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	r := &Recorder{}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.FlushInterval = -1 // stream NDJSON chunk by chunk
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		rp.ServeHTTP(sw, req)
		r.mu.Lock()
		r.reqs = append(r.reqs, Recorded{Method: req.Method, Path: req.URL.Path, Body: body, Status: sw.status})
		r.mu.Unlock()
	}))
	return r, nil
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// URL is the proxy's base URL.
func (r *Recorder) URL() string { return r.srv.URL }

// Host is the proxy's host:port.
func (r *Recorder) Host() string { return strings.TrimPrefix(r.srv.URL, "http://") }

// Close stops the proxy.
func (r *Recorder) Close() { r.srv.Close() }

// Requests returns the recorded requests to path ("" for all), oldest first.
func (r *Recorder) Requests(path string) []Recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Recorded
	for _, q := range r.reqs {
		if path == "" || q.Path == path {
			out = append(out, q)
		}
	}
	return out
}

// Chats decodes the recorded /api/chat bodies as generic JSON objects.
func (r *Recorder) Chats() []map[string]any {
	var out []map[string]any
	for _, q := range r.Requests("/api/chat") {
		var m map[string]any
		if json.Unmarshal(q.Body, &m) == nil {
			out = append(out, m)
		}
	}
	return out
}
