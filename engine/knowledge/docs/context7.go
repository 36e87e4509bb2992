package docs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/nova-dev/nova/engine/failure"
)

// DefaultBaseURL is Context7's public API host.
const DefaultBaseURL = "https://context7.com"

// DefaultTimeout bounds one Context7 request, body included.
const DefaultTimeout = 10 * time.Second

// Bounds on what a response may hold.
const (
	// MaxSearchBody: a library search answer larger than this is refused.
	MaxSearchBody = 1 << 20
	// MaxContextBody: a context answer is read up to this size and the
	// rest dropped (a fetch only keeps MaxStoredChars of it anyway).
	MaxContextBody = 1 << 20
)

// Library is one result of a Context7 library search.
type Library struct {
	ID            string   `json:"id"`
	Title         string   `json:"title"`
	Description   string   `json:"description,omitempty"`
	State         string   `json:"state,omitempty"`
	TotalSnippets int      `json:"totalSnippets,omitempty"`
	TrustScore    float64  `json:"trustScore,omitempty"`
	Versions      []string `json:"versions,omitempty"`
}

// Client speaks Context7's v2 HTTP API:
//
//	GET {base}/api/v2/libs/search?libraryName=NAME&query=Q → {"results":[{id,title,…}]}
//	GET {base}/api/v2/context?libraryId=/org/lib&query=Q&type=txt → text
//
// A base URL that already ends in /api (the convention of Context7's MCP
// server's CONTEXT7_API_URL) is accepted too.
type Client struct {
	base   string
	apiKey string
	http   *http.Client
	agent  string
}

// ClientOptions configures NewClient.
type ClientOptions struct {
	// BaseURL defaults to DefaultBaseURL.
	BaseURL string
	// APIKey is sent as "Authorization: Bearer KEY" when set.
	APIKey string
	// Timeout bounds one request, body included (default DefaultTimeout).
	Timeout time.Duration
	// UserAgent is sent with every request (default "nova").
	UserAgent string
	// Transport overrides the HTTP transport (tests).
	Transport http.RoundTripper
}

// NewClient returns a client; an invalid base URL is ErrInvalid.
func NewClient(o ClientOptions) (*Client, error) {
	base := strings.TrimSpace(o.BaseURL)
	if base == "" {
		base = DefaultBaseURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: docs URL %q is not an http(s) URL", ErrInvalid, base)
	}
	base = strings.TrimRight(u.String(), "/")
	base = strings.TrimSuffix(base, "/api")
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.UserAgent == "" {
		o.UserAgent = "nova"
	}
	return &Client{base: base, apiKey: strings.TrimSpace(o.APIKey), agent: o.UserAgent,
		http: &http.Client{Timeout: o.Timeout, Transport: o.Transport, CheckRedirect: sameOriginRedirects}}, nil
}

// maxRedirects bounds the redirects followed within the service's origin.
const maxRedirects = 5

// crossOriginError stops a redirect to another origin.
type crossOriginError struct{ from, to string }

func (e *crossOriginError) Error() string {
	return fmt.Sprintf("the docs service at %s redirected to another origin (%s); nova does not follow it "+
		"(the API key stays with its origin and documentation is only taken from the configured service)", e.from, e.to)
}

// sameOriginRedirects follows a redirect only within the origin (scheme,
// host and port) of the first request. net/http would follow any redirect,
// and it keeps the Authorization header on a redirect to the same host on
// another port: the API key could reach another service on the machine,
// and another host's answer would be cached as Context7 documentation.
func sameOriginRedirects(req *http.Request, via []*http.Request) error {
	if len(via) == 0 {
		return nil
	}
	first := via[0].URL
	if origin(req.URL) != origin(first) {
		return &crossOriginError{from: origin(first), to: origin(req.URL)}
	}
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	return nil
}

// origin is scheme://host:port, the port made explicit.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch strings.ToLower(u.Scheme) {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return strings.ToLower(u.Scheme) + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// BaseURL returns the normalised base URL.
func (c *Client) BaseURL() string { return c.base }

// Search resolves a library name to Context7 libraries, best first.
// query helps the ranking (the topic, or the name again).
func (c *Client) Search(ctx context.Context, libraryName, query string) ([]Library, error) {
	if query == "" {
		query = libraryName
	}
	q := url.Values{"libraryName": {libraryName}, "query": {query}}
	body, ctype, err := c.get(ctx, "/api/v2/libs/search", q, MaxSearchBody, false)
	if err != nil {
		return nil, err
	}
	libs, err := ParseSearch(ctype, body)
	if err != nil {
		return nil, err
	}
	if len(libs) == 0 {
		return nil, fmt.Errorf("%w: no library called %q", ErrNotFound, libraryName)
	}
	return libs, nil
}

// Context returns the documentation text of a library id for a query.
func (c *Client) Context(ctx context.Context, libraryID, query string) (string, error) {
	q := url.Values{"libraryId": {libraryID}, "query": {query}, "type": {"txt"}}
	body, ctype, err := c.get(ctx, "/api/v2/context", q, MaxContextBody, true)
	if err != nil {
		return "", err
	}
	return ParseContext(ctype, body)
}

// Lookup resolves a library (a name, or an id like /org/lib) and fetches its
// documentation for topic. It returns the library it used.
func (c *Client) Lookup(ctx context.Context, library, topic string) (Library, string, error) {
	query := topic
	if query == "" {
		query = library
	}
	var lib Library
	if looksLikeID(library) {
		lib = Library{ID: library, Title: library}
	} else {
		libs, err := c.Search(ctx, library, query)
		if err != nil {
			return Library{}, "", err
		}
		lib = pick(libs)
	}
	text, err := c.Context(ctx, lib.ID, query)
	if err != nil {
		return lib, "", err
	}
	return lib, text, nil
}

// looksLikeID reports whether s is a Context7 library id (/org/project[/version]).
func looksLikeID(s string) bool {
	if !strings.HasPrefix(s, "/") || strings.ContainsAny(s, " ?#") {
		return false
	}
	parts := strings.Split(strings.TrimPrefix(s, "/"), "/")
	if len(parts) < 2 || len(parts) > 3 {
		return false
	}
	for _, p := range parts {
		if p == "" || p == "." || p == ".." {
			return false
		}
	}
	return true
}

// pick chooses the first usable library (the service ranks them).
func pick(libs []Library) Library {
	for _, l := range libs {
		switch l.State {
		case "error", "delete":
			continue
		}
		return l
	}
	return libs[0]
}

// get performs one GET and returns the body (at most limit bytes; a longer
// body is an error unless keepPrefix, when it is cut) and its content type.
func (c *Client) get(ctx context.Context, path string, q url.Values, limit int, keepPrefix bool) ([]byte, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path+"?"+q.Encode(), nil)
	if err != nil {
		return nil, "", fmt.Errorf("docs request: %w", err)
	}
	req.Header.Set("Accept", "application/json, text/plain")
	req.Header.Set("User-Agent", c.agent)
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if co := (*crossOriginError)(nil); errors.As(err, &co) {
			return nil, "", fmt.Errorf("%w: %w", ErrBadResponse, co)
		}
		return nil, "", describeTransport(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(limit)+1))
	if err != nil {
		return nil, "", describeTransport(err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, "", statusError(resp.StatusCode, body)
	}
	if len(body) > limit {
		if !keepPrefix {
			return nil, "", fmt.Errorf("%w: the answer is larger than %d bytes", ErrBadResponse, limit)
		}
		body = body[:limit]
	}
	return body, resp.Header.Get("Content-Type"), nil
}

// describeTransport turns a transport failure into a short error marked
// with its failure kind (stalled for a timeout, unreachable otherwise).
func describeTransport(err error) error {
	var ne net.Error
	switch {
	case errors.Is(err, context.Canceled):
		return err
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return failure.New(failure.Stalled, fmt.Errorf("docs service did not answer in time: %w", err))
	}
	return failure.New(failure.Unreachable, fmt.Errorf("docs service unreachable: %w", err))
}

// statusError describes a non-200 answer, with the service's own message
// when it sent one as JSON ({"error"|"message": …}).
func statusError(code int, body []byte) error {
	msg := ""
	var e struct {
		Error   string `json:"error"`
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &e) == nil {
		msg = cmpOr(e.Message, e.Error)
	}
	msg = clip(CleanName(msg), 200)
	base := ErrBadResponse
	if code == http.StatusNotFound {
		base = ErrNotFound
	}
	hint := ""
	switch code {
	case http.StatusUnauthorized, http.StatusForbidden:
		hint = " (check CONTEXT7_API_KEY or docs.context7.apiKey)"
	case http.StatusTooManyRequests:
		hint = " (rate limited; an API key raises the limit)"
	}
	if msg != "" {
		return fmt.Errorf("%w: HTTP %d: %s%s", base, code, msg, hint)
	}
	return fmt.Errorf("%w: HTTP %d%s", base, code, hint)
}

// ParseSearch decodes a library search answer. It accepts exactly
// {"results":[…]} (other fields ignored); HTML or anything else is
// ErrBadResponse. Results without an id are dropped; text fields are
// cleaned.
func ParseSearch(contentType string, body []byte) ([]Library, error) {
	if isHTML(contentType, body) {
		return nil, fmt.Errorf("%w: got an HTML page instead of JSON (is docs.context7.url right?)", ErrBadResponse)
	}
	var doc struct {
		Results *[]json.RawMessage `json:"results"`
		Error   string             `json:"error"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(body), &doc); err != nil {
		return nil, fmt.Errorf("%w: the library search is not JSON: %v", ErrBadResponse, clipErr(err))
	}
	if doc.Results == nil {
		if doc.Error != "" {
			return nil, fmt.Errorf("%w: %s", ErrBadResponse, clip(CleanName(doc.Error), 200))
		}
		return nil, fmt.Errorf("%w: the library search has no results field", ErrBadResponse)
	}
	out := make([]Library, 0, len(*doc.Results))
	for _, raw := range *doc.Results {
		var l Library
		if json.Unmarshal(raw, &l) != nil {
			continue
		}
		l.ID = strings.TrimSpace(l.ID)
		if l.ID == "" || len(l.ID) > MaxNameBytes || strings.ContainsAny(l.ID, "\x00\r\n") {
			continue
		}
		l.Title = clip(CleanName(l.Title), 200)
		l.Description = clip(CleanName(l.Description), 500)
		if l.Title == "" {
			l.Title = l.ID
		}
		out = append(out, l)
	}
	return out, nil
}

// Texts the service sends when it has nothing.
var emptyTexts = []string{"no content available", "no context data available", "no documentation found"}

// ParseContext checks a context answer and returns its text: HTML, an
// empty or "no content" answer, or text that is mostly not UTF-8 is
// ErrBadResponse. Invalid bytes of otherwise valid text are replaced, NUL
// and other control characters (except tab and newline) dropped, CRLF
// normalised.
func ParseContext(contentType string, body []byte) (string, error) {
	if isHTML(contentType, body) {
		return "", fmt.Errorf("%w: got an HTML page instead of documentation (is docs.context7.url right?)", ErrBadResponse)
	}
	mt, _, _ := mime.ParseMediaType(contentType)
	if mt == "application/json" {
		// Some deployments wrap the text: {"content": "..."}.
		var doc struct {
			Content *string `json:"content"`
		}
		if json.Unmarshal(body, &doc) == nil && doc.Content != nil {
			body = []byte(*doc.Content)
		}
	}
	if !utf8.Valid(body) {
		bad := 0
		for i := 0; i < len(body); {
			r, n := utf8.DecodeRune(body[i:])
			if r == utf8.RuneError && n == 1 {
				bad++
			}
			i += n
		}
		if bad*10 > len(body) {
			return "", fmt.Errorf("%w: the documentation is not UTF-8 text", ErrBadResponse)
		}
	}
	text := cleanText(string(body))
	if strings.TrimSpace(text) == "" {
		return "", fmt.Errorf("%w: the documentation is empty", ErrBadResponse)
	}
	low := strings.ToLower(strings.TrimSpace(text))
	for _, e := range emptyTexts {
		if strings.HasPrefix(low, e) && len(low) < len(e)+40 {
			return "", fmt.Errorf("%w: %s", ErrNotFound, strings.TrimSpace(text))
		}
	}
	return text, nil
}

// cleanText makes text safe to store and show: valid UTF-8, LF line ends,
// no control characters but tab and newline.
func cleanText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return -1
		}
		return r
	}, s)
}

// isHTML reports whether an answer is an HTML page (by type or content).
func isHTML(contentType string, body []byte) bool {
	if mt, _, err := mime.ParseMediaType(contentType); err == nil && (mt == "text/html" || mt == "application/xhtml+xml") {
		return true
	}
	head := bytes.TrimLeft(body, " \t\r\n\ufeff")
	if len(head) > 64 {
		head = head[:64]
	}
	low := bytes.ToLower(head)
	return bytes.HasPrefix(low, []byte("<!doctype html")) || bytes.HasPrefix(low, []byte("<html")) ||
		bytes.HasPrefix(low, []byte("<head")) || bytes.HasPrefix(low, []byte("<body"))
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func clipErr(err error) string { return clip(err.Error(), 160) }

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
