package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// DialFunc connects to the owner. It is called for every new connection,
// so it can find a new owner after a hand-over (engine/owner's dialer
// re-reads the socket's location and checks it each time).
type DialFunc func(ctx context.Context) (net.Conn, error)

// ClientOptions configures a Client.
type ClientOptions struct {
	// Version is this nova's version (sent to the owner for messages).
	Version string
	// ReconnectWait is how long a call waits for an owner to answer again
	// after the connection could not be made (a hand-over, an owner
	// restarting, an exclusive operation); default 5 s. Then the call fails
	// with ErrOwnerGone (or ErrBusy).
	ReconnectWait time.Duration
	// CallTimeout bounds methods that take no ctx; default 30 s.
	CallTimeout time.Duration
	// OnError receives the errors of methods that cannot return one (no
	// error result, or a stream that ends for good). Nil keeps the last one
	// for LastError.
	OnError func(method string, err error)
	// OnReconnect is called after a stream was re-established with a new
	// connection (events published meanwhile are lost: refresh views).
	OnReconnect func(method string)
	// NoKeepAlive makes every call a connection of its own. An owner that
	// stops closes its idle kept-alive connections, and a request sent on
	// one at that moment cannot be told from one the owner ran: without
	// them, a stopping owner refuses new connections (retried as
	// undelivered) and finishes the calls it has begun. A short-lived
	// command uses it; it costs one connect per call (~0.1 ms).
	NoKeepAlive bool

	// Protocol overrides ProtocolVersion; only tests of version
	// mismatches set it.
	Protocol int
}

// Client calls the methods a Server serves.
type Client struct {
	dial DialFunc
	tr   *http.Transport
	hc   *http.Client
	opts ClientOptions

	life   context.Context // ends streams on Close
	cancel context.CancelFunc
	closed atomic.Bool

	mu      sync.Mutex
	lastErr error
}

// NewClient returns a client that reaches the owner through dial.
func NewClient(dial DialFunc, opts ClientOptions) *Client {
	if opts.ReconnectWait <= 0 {
		opts.ReconnectWait = 5 * time.Second
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = 30 * time.Second
	}
	if opts.Protocol == 0 {
		opts.Protocol = ProtocolVersion
	}
	c := &Client{dial: dial, opts: opts}
	c.life, c.cancel = context.WithCancel(context.Background())
	c.tr = &http.Transport{
		Proxy: nil, // never route the socket through HTTP_PROXY
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			conn, err := dial(ctx)
			if err != nil {
				return nil, &dialError{err}
			}
			return conn, nil
		},
		DisableCompression:  true, // a local socket: compression only costs CPU
		DisableKeepAlives:   opts.NoKeepAlive,
		MaxIdleConnsPerHost: 8,
		IdleConnTimeout:     90 * time.Second,
	}
	c.hc = &http.Client{Transport: c.tr}
	return c
}

// dialError marks a failure to connect: the request never reached an
// owner, so it is always safe to retry (unless the error is Permanent).
type dialError struct{ err error }

// Permanent marks a dial error that waiting will not cure (an unsafe
// socket): the call fails at once instead of waiting for an owner.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &permanentError{err}
}

type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

func (e *dialError) Error() string { return e.err.Error() }
func (e *dialError) Unwrap() error { return e.err }

// Close ends the client's streams and idle connections. It never touches
// the owner's workspace.
func (c *Client) Close() error {
	if c.closed.Swap(true) {
		return nil
	}
	c.cancel()
	c.tr.CloseIdleConnections()
	return nil
}

// Background returns a ctx for a method that takes none, bounded by
// CallTimeout so that nothing waits forever.
func (c *Client) Background() (context.Context, context.CancelFunc) {
	return context.WithTimeout(c.life, c.opts.CallTimeout)
}

// Report hands the error of a method that cannot return one to OnError
// (or keeps it for LastError).
func (c *Client) Report(method string, err error) {
	if err == nil {
		return
	}
	if c.opts.OnError != nil {
		c.opts.OnError(method, err)
		return
	}
	c.mu.Lock()
	c.lastErr = fmt.Errorf("%s: %w", method, err)
	c.mu.Unlock()
}

// LastError returns the last error given to Report (when OnError is nil).
func (c *Client) LastError() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastErr
}

// Version asks the owner which protocol and nova version it runs, and
// fails with ErrProtocolMismatch (naming both versions) when they differ.
func (c *Client) Version(ctx context.Context) (VersionInfo, error) {
	var vi VersionInfo
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+Host+PathVersion, nil)
	if err != nil {
		return vi, err
	}
	c.header(req)
	resp, err := c.hc.Do(req)
	if err != nil {
		return vi, fmt.Errorf("ask the owner its version: %w", err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return vi, c.readError(resp)
	}
	if err := json.NewDecoder(resp.Body).Decode(&vi); err != nil {
		return vi, fmt.Errorf("ask the owner its version: %w", err)
	}
	if vi.Protocol != c.opts.Protocol {
		return vi, mismatch(c.opts.Version, strconv.Itoa(c.opts.Protocol), vi.Version, strconv.Itoa(vi.Protocol), vi.PID)
	}
	return vi, nil
}

func (c *Client) header(req *http.Request) {
	req.Header.Set(HeaderProtocol, strconv.Itoa(c.opts.Protocol))
	if c.opts.Version != "" {
		req.Header.Set(HeaderVersion, c.opts.Version)
	}
}

// CallOptions qualifies a call.
type CallOptions struct {
	// Idempotent allows one retry when the connection breaks after the
	// request was sent (the owner may have run it already).
	Idempotent bool
}

// Call invokes method on the owner with args (the arguments after ctx)
// and decodes the results (before the error) into the pointers in results.
// A request that cannot reach an owner waits up to ReconnectWait for one
// (re-dialling each time); a connection lost after sending is retried once
// when opts.Idempotent, and fails with ErrConnLost otherwise.
func (c *Client) Call(ctx context.Context, method string, args, results []any, opts CallOptions) error {
	body, err := marshalArgs(args)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	path := prefix(c.opts.Protocol) + "/call/" + method
	retried := false
	var r retrier
	for {
		if c.closed.Load() {
			return fmt.Errorf("%s: %w", method, ErrClosed)
		}
		err := c.do(ctx, path, body, results)
		if err == nil {
			return nil
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return fmt.Errorf("%s: %w", method, ctxErr)
		}
		switch classify(err) {
		case notDelivered:
			if werr := r.wait(ctx, c.opts.ReconnectWait, err); werr != nil {
				return fmt.Errorf("%s: %w", method, werr)
			}
		case lost:
			if opts.Idempotent && !retried {
				retried = true
				continue
			}
			return fmt.Errorf("%w during %s: it may or may not have been applied; check, then retry (%w)", ErrConnLost, method, err)
		default:
			return err
		}
	}
}

// retrier paces retries of undelivered requests within a window.
type retrier struct {
	start time.Time
	delay time.Duration
}

func (r *retrier) wait(ctx context.Context, window time.Duration, cause error) error {
	now := time.Now()
	if r.start.IsZero() {
		r.start, r.delay = now, 25*time.Millisecond
	}
	if now.Sub(r.start) >= window {
		var re *Error
		if errors.As(cause, &re) && errors.Is(re, ErrBusy) {
			return cause
		}
		return fmt.Errorf("%w: no nova answers on this workspace's socket since %s (%w); run the command again",
			ErrOwnerGone, window, cause)
	}
	t := time.NewTimer(r.delay)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
	}
	r.delay = min(r.delay*2, 250*time.Millisecond)
	return nil
}

type errClass int

const (
	final        errClass = iota
	notDelivered          // never reached an owner (or the owner refused it for now): retry
	lost                  // sent, answer lost: retry only when idempotent
)

func classify(err error) errClass {
	var pe *permanentError
	if errors.As(err, &pe) {
		return final
	}
	var de *dialError
	if errors.As(err, &de) {
		return notDelivered
	}
	var re *Error
	if errors.As(err, &re) {
		if errors.Is(re, ErrBusy) {
			return notDelivered
		}
		return final
	}
	var le *lostError
	if errors.As(err, &le) {
		return lost
	}
	return final
}

// lostError marks a connection that broke after the request was sent.
type lostError struct{ err error }

func (e *lostError) Error() string { return e.err.Error() }
func (e *lostError) Unwrap() error { return e.err }

func isBrokenConn(err error) bool {
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, net.ErrClosed)
}

func (c *Client) do(ctx context.Context, path string, body []byte, results []any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+Host+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	c.header(req)
	req.Header.Set("Content-Type", contentJSON)
	resp, err := c.hc.Do(req)
	if err != nil {
		var de *dialError
		if errors.As(err, &de) {
			return err
		}
		return &lostError{err}
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return c.readError(resp)
	}
	if err := decodeResults(resp.Body, results); err != nil {
		if isBrokenConn(err) {
			return &lostError{err}
		}
		return fmt.Errorf("decode the owner's answer: %w", err)
	}
	return nil
}

// readError decodes the error envelope of a non-200 answer.
func (c *Client) readError(resp *http.Response) error {
	var env envelope
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil || env.Error == nil {
		if err != nil && isBrokenConn(err) {
			return &lostError{err}
		}
		return fmt.Errorf("the owner answered %s without an error envelope", resp.Status)
	}
	return Decode(env.Error)
}

func marshalArgs(args []any) ([]byte, error) {
	if len(args) == 0 {
		return nil, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(args); err != nil {
		return nil, fmt.Errorf("encode arguments: %w", err)
	}
	return buf.Bytes(), nil
}

// decodeResults reads the JSON array of results into the pointers; a slice
// result is decoded element by element, so the answer's text is never held
// whole beside the decoded value.
func decodeResults(r io.Reader, results []any) error {
	dec := json.NewDecoder(r)
	tok, err := dec.Token()
	if err != nil {
		return unexpected(err)
	}
	if tok != json.Delim('[') {
		return fmt.Errorf("results are not a JSON array")
	}
	for i, p := range results {
		if !dec.More() {
			return fmt.Errorf("the owner sent %d result(s), want %d", i, len(results))
		}
		if err := decodeValue(dec, p); err != nil {
			return unexpected(err)
		}
	}
	if _, err := dec.Token(); err != nil {
		return unexpected(err)
	}
	return nil
}

// unexpected turns an EOF in the middle of an answer into
// io.ErrUnexpectedEOF.
func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

func decodeValue(dec *json.Decoder, p any) error {
	rv := reflect.ValueOf(p).Elem()
	t := rv.Type()
	if t.Kind() != reflect.Slice || t.Elem().Kind() == reflect.Uint8 ||
		reflect.PointerTo(t).Implements(jsonUnmarshalerType) || reflect.PointerTo(t).Implements(textUnmarshalerType) {
		return dec.Decode(p)
	}
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		rv.SetZero()
		return nil
	}
	if tok != json.Delim('[') {
		return fmt.Errorf("want a JSON array for %v", t)
	}
	// Decode each element in place, growing the slice by doubling
	// (reflect.Append grows large slices by a quarter, which allocates
	// several times the final size).
	s := reflect.New(t).Elem()
	s.Set(reflect.MakeSlice(t, 0, 16))
	for dec.More() {
		n := s.Len()
		if n == s.Cap() {
			s.Grow(n)
		}
		s.SetLen(n + 1)
		if err := dec.Decode(s.Index(n).Addr().Interface()); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return err
	}
	rv.Set(s)
	return nil
}

// Subscribe calls a streaming method and returns its channel, for methods
// that cannot return an error: a failure is given to Report and closes the
// channel. See Stream.
func Subscribe[T any](ctx context.Context, c *Client, method string, args ...any) <-chan T {
	ch, err := Stream[T](ctx, c, method, args...)
	if err != nil {
		c.Report(method, err)
		out := make(chan T)
		close(out)
		return out
	}
	return ch
}

// Stream calls a streaming method. It returns once the owner has
// subscribed (so nothing published after it returns is missed), then
// delivers values until ctx ends or the method closes its channel. A
// stream broken by a new owner (hand-over,
// restart) is re-opened after OnReconnect; when no owner comes back within
// ReconnectWait, the error goes to Report and the channel closes.
func Stream[T any](ctx context.Context, c *Client, method string, args ...any) (<-chan T, error) {
	body, err := marshalArgs(args)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	stopLife := context.AfterFunc(c.life, cancel)
	path := prefix(c.opts.Protocol) + "/stream/" + method
	st, err := c.openStream(ctx, method, path, body)
	if err != nil {
		stopLife()
		cancel()
		return nil, err
	}
	out := make(chan T)
	go func() {
		defer close(out)
		defer stopLife()
		defer cancel()
		for {
			pump(ctx, st.body, out)
			_ = st.body.Close()
			if ctx.Err() != nil || st.trailer.Get(trailerStreamEnd) != "" {
				return // ended by the caller, or by the method itself
			}
			st, err = c.openStream(ctx, method, path, body)
			if err != nil {
				if ctx.Err() == nil {
					c.Report(method, err)
				}
				return
			}
			if c.opts.OnReconnect != nil {
				c.opts.OnReconnect(method)
			}
		}
	}()
	return out, nil
}

// openedStream is a stream's answer: its body, and its trailer (filled in
// once the body has been read to its end).
type openedStream struct {
	body    io.ReadCloser
	trailer http.Header
}

// openStream opens a stream, waiting up to ReconnectWait for an owner.
func (c *Client) openStream(ctx context.Context, method, path string, body []byte) (*openedStream, error) {
	var r retrier
	for {
		if c.closed.Load() {
			return nil, fmt.Errorf("%s: %w", method, ErrClosed)
		}
		resp, err := c.startStream(ctx, path, body)
		if err == nil {
			return resp, nil
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, fmt.Errorf("%s: %w", method, ctxErr)
		}
		if classify(err) == final {
			return nil, err
		}
		// A stream is re-subscribable: a lost one is opened again.
		if werr := r.wait(ctx, c.opts.ReconnectWait, err); werr != nil {
			return nil, fmt.Errorf("%s: %w", method, werr)
		}
	}
}

func (c *Client) startStream(ctx context.Context, path string, body []byte) (*openedStream, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+Host+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	c.header(req)
	req.Header.Set("Content-Type", contentJSON)
	resp, err := c.hc.Do(req)
	if err != nil {
		var de *dialError
		if errors.As(err, &de) {
			return nil, err
		}
		return nil, &lostError{err}
	}
	if resp.StatusCode != http.StatusOK {
		defer func() { _ = resp.Body.Close() }()
		return nil, c.readError(resp)
	}
	return &openedStream{body: resp.Body, trailer: resp.Trailer}, nil
}

// pump decodes NDJSON values from r into out until r ends or ctx is done.
func pump[T any](ctx context.Context, r io.Reader, out chan<- T) {
	dec := json.NewDecoder(r)
	for {
		var v T
		if err := dec.Decode(&v); err != nil {
			return
		}
		select {
		case out <- v:
		case <-ctx.Done():
			return
		}
	}
}

// Get fetches one JSON document from the owner (GET path, e.g.
// "/v1/owner") into v, once: no re-dial, no retry. Errors in the envelope
// are decoded as for calls.
func (c *Client) Get(ctx context.Context, path string, v any) error {
	if c.closed.Load() {
		return ErrClosed
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+Host+path, nil)
	if err != nil {
		return err
	}
	c.header(req)
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return c.readError(resp)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	return nil
}
