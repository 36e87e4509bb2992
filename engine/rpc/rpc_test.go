package rpc_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/failure"
	"github.com/nova-dev/nova/engine/internal/rpcdemo"
	"github.com/nova-dev/nova/engine/rpc"
	"github.com/nova-dev/nova/storage"
)

func TestEveryMethodShapeCrossesTheWire(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := serve(t, openStore(t), "", rpc.ServerOptions{Version: "test"})
	_, r := newClient(t, s.sock, rpc.ClientOptions{})

	require.NoError(t, r.Ping(ctx))
	sum, err := r.Add(ctx, 40, 2)
	require.NoError(t, err)
	assert.Equal(t, 42, sum)
	joined, err := r.Join(ctx, []string{"a", "b", "c"}, "-")
	require.NoError(t, err)
	assert.Equal(t, "a-b-c", joined)

	at := time.Date(2026, 11, 24, 10, 30, 0, 123000000, time.UTC)
	put, err := r.Put(ctx, rpcdemo.Item{Name: "first", Tags: []string{"x", "y"}, Meta: map[string]string{"k": "v"}, At: at, Local: "dropped"})
	require.NoError(t, err)
	assert.NotZero(t, put.ID)
	assert.Nil(t, put.Local, "json:\"-\" fields stay in the owner")
	local, err := s.store.Get(ctx, put.ID)
	require.NoError(t, err)
	got, err := r.Get(ctx, put.ID)
	require.NoError(t, err)
	assert.Equal(t, local, got)
	assert.True(t, got.At.Equal(at))

	_, err = r.Put(ctx, rpcdemo.Item{Name: "second", Tags: []string{"x"}})
	require.NoError(t, err)
	list, err := r.List(ctx, 0)
	require.NoError(t, err)
	localList, err := s.store.List(ctx, 0)
	require.NoError(t, err)
	assert.Equal(t, localList, list)
	n, err := r.Count(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	tags, err := r.Tags(ctx)
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"x": 2, "y": 1}, tags)

	item, itemTags, err := r.Pair(ctx, put.ID)
	require.NoError(t, err)
	assert.Equal(t, "first", item.Name)
	assert.Equal(t, []string{"x", "y"}, itemTags)

	found, err := r.Find(ctx, &rpcdemo.Query{Name: "sec", Prefix: true})
	require.NoError(t, err)
	require.NotNil(t, found)
	assert.Equal(t, "second", found.Name)
	none, err := r.Find(ctx, nil)
	require.NoError(t, err)
	assert.Nil(t, none)

	total, err := r.Sum(ctx, 1, 2, 3, 4)
	require.NoError(t, err)
	assert.Equal(t, 10, total)
	total, err = r.Sum(ctx)
	require.NoError(t, err)
	assert.Equal(t, 0, total)

	assert.Equal(t, s.store.Version(), r.Version())

	empty, err := rpcdemo.NewRemote(rpc.NewClient(dialer(s.sock), rpc.ClientOptions{})).List(ctx, 0)
	require.NoError(t, err)
	assert.Len(t, empty, 2)
}

func TestEmptyAndNilResults(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := serve(t, openStore(t), "", rpc.ServerOptions{})
	_, r := newClient(t, s.sock, rpc.ClientOptions{})
	list, err := r.List(ctx, 0)
	require.NoError(t, err)
	assert.Nil(t, list, "a nil slice stays nil")
	tags, err := r.Tags(ctx)
	require.NoError(t, err)
	assert.Empty(t, tags)
}

// TestErrorsKeepWhatCallersBranchOn compares each error the owner returns
// with what the client gets: the same message, the same failure kind,
// and every sentinel errors.Is matched on the owner matches on the client.
func TestErrorsKeepWhatCallersBranchOn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := openStore(t)
	s := serve(t, st, "", rpc.ServerOptions{})
	_, r := newClient(t, s.sock, rpc.ClientOptions{})

	sentinels := []error{
		rpcdemo.ErrNotFound, rpcdemo.ErrInvalid, rpcdemo.ErrUnreachable,
		storage.ErrInUse, storage.ErrNotFound, context.Canceled, context.DeadlineExceeded,
	}
	for _, kind := range []string{"notFound", "typed", "kinded", "canceled", "inUse", "workFailed", "plain"} {
		t.Run(kind, func(t *testing.T) {
			want := st.Fail(ctx, kind)
			require.Error(t, want)
			got := r.Fail(ctx, kind)
			require.Error(t, got)
			assert.Equal(t, want.Error(), got.Error())
			assert.Equal(t, failure.Of(want), failure.Of(got))
			for _, s := range sentinels {
				assert.Equal(t, errors.Is(want, s), errors.Is(got, s), "errors.Is(err, %v)", s)
			}
			var wantVE, gotVE *rpcdemo.ValidationError
			if assert.Equal(t, errors.As(want, &wantVE), errors.As(got, &gotVE)) && wantVE != nil {
				assert.Equal(t, wantVE.Field, gotVE.Field)
				assert.Equal(t, wantVE.Problems, gotVE.Problems)
				assert.ErrorIs(t, gotVE.Err, rpcdemo.ErrInvalid, "an error field keeps its sentinel")
				assert.Equal(t, wantVE.Error(), gotVE.Error())
			}
		})
	}

	// A failing write: the typed error of a real method.
	_, err := r.Put(ctx, rpcdemo.Item{Name: " "})
	var ve *rpcdemo.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, []string{"empty"}, ve.Problems)
	assert.ErrorIs(t, err, rpcdemo.ErrInvalid)

	_, err = r.Get(ctx, 999)
	assert.ErrorIs(t, err, rpcdemo.ErrNotFound)
	assert.Equal(t, "item 999: item not found", err.Error())
}

func TestPanicInTheOwnerIsAnErrorNotACrash(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var logged atomic.Int32
	s := serve(t, openStore(t), "", rpc.ServerOptions{Logf: func(string, ...any) { logged.Add(1) }})
	_, r := newClient(t, s.sock, rpc.ClientOptions{})
	err := r.Fail(ctx, "panic")
	require.ErrorIs(t, err, rpc.ErrPanic)
	assert.Contains(t, err.Error(), "demo panic")
	assert.Positive(t, logged.Load())
	require.NoError(t, r.Ping(ctx), "the owner keeps serving")
}

// curl drives the protocol as a user with curl would: raw HTTP requests.
func curl(t *testing.T, sock, method, path, body string, header ...string) (int, []byte) {
	t.Helper()
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return dialer(sock)(ctx)
	}}}
	defer hc.CloseIdleConnections()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, "http://nova"+path, rd)
	require.NoError(t, err)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := hc.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, data
}

type envelope struct {
	Error rpc.WireError `json:"error"`
}

func TestProtocolAsCurlSeesIt(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	s := serve(t, st, "", rpc.ServerOptions{Version: "v9.9"})

	code, body := curl(t, s.sock, "GET", "/version", "")
	require.Equal(t, http.StatusOK, code)
	var vi rpc.VersionInfo
	require.NoError(t, json.Unmarshal(body, &vi))
	assert.Equal(t, rpc.ProtocolVersion, vi.Protocol)
	assert.Equal(t, "v9.9", vi.Version)
	assert.Equal(t, "rpcdemo.Demo", vi.Interface)
	assert.Positive(t, vi.PID)

	code, body = curl(t, s.sock, "GET", "/v1/methods", "")
	require.Equal(t, http.StatusOK, code)
	var mi rpc.MethodsInfo
	require.NoError(t, json.Unmarshal(body, &mi))
	names := map[string]rpc.MethodInfo{}
	for _, m := range mi.Methods {
		names[m.Name] = m
	}
	assert.Equal(t, []string{"int", "int"}, names["Add"].Args)
	assert.Equal(t, []string{"...int"}, names["Sum"].Args)
	assert.True(t, names["Subscribe"].Stream)
	assert.False(t, names["Version"].Context)
	skipped := map[string]string{}
	for _, sk := range mi.Skipped {
		skipped[sk.Name] = sk.Reason
	}
	assert.Contains(t, skipped["Callback"], "func")
	assert.Contains(t, skipped, "Close")

	code, body = curl(t, s.sock, "POST", "/v1/call/Add", `[2, 3]`)
	assert.Equal(t, http.StatusOK, code)
	assert.JSONEq(t, `[5]`, string(body))

	code, body = curl(t, s.sock, "POST", "/v1/call/Count", "")
	assert.Equal(t, http.StatusOK, code)
	assert.JSONEq(t, `[0]`, string(body))

	code, body = curl(t, s.sock, "POST", "/v1/call/Put", `[{"name":"from curl","tags":["c"]}]`)
	require.Equal(t, http.StatusOK, code, string(body))
	n, err := st.Count(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 1, n)

	code, body = curl(t, s.sock, "POST", "/v1/call/Get", `[77]`)
	assert.Equal(t, http.StatusNotFound, code)
	var env envelope
	require.NoError(t, json.Unmarshal(body, &env))
	assert.Equal(t, "rpcdemo.ErrNotFound", env.Error.Code)
	assert.Equal(t, "item 77: item not found", env.Error.Message)
	assert.Equal(t, failure.Unknown, env.Error.FailureKind)

	code, body = curl(t, s.sock, "POST", "/v1/call/Fail", `["kinded"]`)
	assert.Equal(t, http.StatusInternalServerError, code)
	require.NoError(t, json.Unmarshal(body, &env))
	assert.Equal(t, failure.Unreachable, env.Error.FailureKind)
}

func TestBadRequestsGetClearErrors(t *testing.T) {
	t.Parallel()
	s := serve(t, openStore(t), "", rpc.ServerOptions{Version: "v1.0"})
	cases := []struct {
		name, method, path, body string
		status                   int
		code, contains           string
	}{
		{"unknown method", "POST", "/v1/call/Nope", "", 404, "rpc.ErrUnknownMethod", "has no method Nope"},
		{"not servable", "POST", "/v1/call/Callback", "[]", 404, "rpc.ErrUnknownMethod", "func"},
		{"close is never served", "POST", "/v1/call/Close", "", 404, "rpc.ErrUnknownMethod", "excluded"},
		{"too few arguments", "POST", "/v1/call/Add", "[1]", 400, "rpc.ErrBadRequest", "Add takes 2 argument(s) [int int], got 1"},
		{"too many arguments", "POST", "/v1/call/Add", "[1,2,3]", 400, "rpc.ErrBadRequest", "got 3"},
		{"wrong type", "POST", "/v1/call/Add", `["one", 2]`, 400, "rpc.ErrBadRequest", "argument 1 (int)"},
		{"not an array", "POST", "/v1/call/Add", `{"a":1}`, 400, "rpc.ErrBadRequest", "JSON array"},
		{"malformed JSON", "POST", "/v1/call/Add", `[1,`, 400, "rpc.ErrBadRequest", "argument 2"},
		{"trailing data", "POST", "/v1/call/Add", `[1,2] [3]`, 400, "rpc.ErrBadRequest", "after the arguments"},
		{"stream at call", "POST", "/v1/call/Subscribe", "", 400, "rpc.ErrBadRequest", "/v1/stream/Subscribe"},
		{"call at stream", "POST", "/v1/stream/Add", "[1,2]", 400, "rpc.ErrBadRequest", "/v1/call/Add"},
		{"GET a call", "GET", "/v1/call/Count", "", 404, "rpc.ErrUnknownMethod", "GET /v1/call/Count"},
		{"another protocol's path", "POST", "/v2/call/Count", "", 400, "rpc.ErrProtocolMismatch", "protocol 2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, body := curl(t, s.sock, tc.method, tc.path, tc.body)
			assert.Equal(t, tc.status, code, string(body))
			var env envelope
			require.NoError(t, json.Unmarshal(body, &env), string(body))
			assert.Equal(t, tc.code, env.Error.Code)
			assert.Contains(t, env.Error.Message, tc.contains)
		})
	}
}

func TestProtocolMismatchNamesBothVersions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var so rpc.ServerOptions
	so.Version = "v0.4.0"
	s := serve(t, openStore(t), "", so)

	co := rpc.ClientOptions{Version: "v0.5.0"}
	co.Protocol = rpc.ProtocolVersion + 1
	c, r := newClient(t, s.sock, co)

	// The handshake tells before any call.
	_, err := c.Version(ctx)
	require.ErrorIs(t, err, rpc.ErrProtocolMismatch)
	assert.Contains(t, err.Error(), "nova v0.5.0, protocol 2")
	assert.Contains(t, err.Error(), "nova v0.4.0, protocol 1")

	// And a call without a handshake is refused by the owner, naming both.
	err = r.Ping(ctx)
	require.ErrorIs(t, err, rpc.ErrProtocolMismatch)
	assert.Contains(t, err.Error(), "nova v0.5.0, protocol 2")
	assert.Contains(t, err.Error(), "nova v0.4.0, protocol 1")

	// An owner newer than the client.
	so2 := rpc.ServerOptions{Version: "v0.6.0"}
	so2.Protocol = rpc.ProtocolVersion + 1
	s2 := serve(t, openStore(t), "", so2)
	c2, r2 := newClient(t, s2.sock, rpc.ClientOptions{Version: "v0.5.0"})
	_, err = c2.Version(ctx)
	require.ErrorIs(t, err, rpc.ErrProtocolMismatch)
	assert.Contains(t, err.Error(), "nova v0.6.0, protocol 2")
	err = r2.Ping(ctx)
	require.ErrorIs(t, err, rpc.ErrProtocolMismatch)
	assert.Contains(t, err.Error(), "nova v0.5.0, protocol 1")

	// Same versions: fine.
	c3, _ := newClient(t, s.sock, rpc.ClientOptions{})
	vi, err := c3.Version(ctx)
	require.NoError(t, err)
	assert.Equal(t, "v0.4.0", vi.Version)
}

// fillSpy reports when Fill returns in the owner.
type fillSpy struct {
	*rpcdemo.Store
	returned chan error
}

func (f *fillSpy) Fill(ctx context.Context, n int, pause time.Duration) (int, error) {
	got, err := f.Store.Fill(ctx, n, pause)
	f.returned <- err
	return got, err
}

// TestClientCancelStopsTheWorkAndAppliesNothing: the client's ctx ends
// mid-write; the owner's ctx ends with it, and the write's transaction is
// rolled back as a whole.
func TestClientCancelStopsTheWorkAndAppliesNothing(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	inTx := make(chan struct{}, 100)
	st.OnFill = func(int) { inTx <- struct{}{} }
	spy := &fillSpy{Store: st, returned: make(chan error, 1)}
	s := serve(t, spy, "", rpc.ServerOptions{})
	_, r := newClient(t, s.sock, rpc.ClientOptions{})

	_, err := r.Put(context.Background(), rpcdemo.Item{Name: "committed before"})
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := r.Fill(ctx, 1000, 50*time.Millisecond)
		errc <- err
	}()
	recv(t, inTx) // the owner is inside the write transaction
	cancel()
	err, _ = recv(t, errc)
	require.ErrorIs(t, err, context.Canceled)
	ownerErr, _ := recv(t, spy.returned)
	require.ErrorIs(t, ownerErr, context.Canceled, "the owner's ctx ended with the client's")

	n, err := st.Count(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 1, n, "the committed write stays; the cancelled one left nothing")
}

func TestBlockedCallEndsWithTheClient(t *testing.T) {
	t.Parallel()
	s := serve(t, openStore(t), "", rpc.ServerOptions{})
	_, r := newClient(t, s.sock, rpc.ClientOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err := r.Block(ctx)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, failure.Stalled, failure.Of(err))
}

func TestStreams(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := openStore(t)
	s := serve(t, st, "", rpc.ServerOptions{})
	_, r := newClient(t, s.sock, rpc.ClientOptions{})

	events := r.Subscribe(ctx)
	// Subscribe returned: the owner has subscribed, nothing is missed.
	put, err := r.Put(context.Background(), rpcdemo.Item{Name: "watched"})
	require.NoError(t, err)
	ev, ok := recv(t, events)
	require.True(t, ok)
	assert.Equal(t, rpcdemo.Event{Type: "changed", Topic: "items", ID: put.ID, Text: "watched"}, ev)

	// A stream the method ends itself closes without a re-subscription.
	watch, err := r.Watch(ctx, "t", 2)
	require.NoError(t, err)
	for i := range 3 {
		st.Publish(rpcdemo.Event{Type: "e", Topic: "t", ID: uint64(i + 1)})
	}
	first, _ := recv(t, watch)
	second, _ := recv(t, watch)
	assert.Equal(t, []uint64{1, 2}, []uint64{first.ID, second.ID})
	_, ok = recv(t, watch)
	assert.False(t, ok, "the stream ended after n events")

	// A stream method's error.
	_, err = r.Watch(ctx, "t", -1)
	assert.ErrorIs(t, err, rpcdemo.ErrInvalid)

	// Ending the ctx ends the owner's subscription too.
	require.Equal(t, 1, st.Subscribers())
	cancel()
	for range events {
	}
	eventually(t, func() bool { return st.Subscribers() == 0 }, "the owner to drop the subscription")
}

func TestStreamWithCurl(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	s := serve(t, st, "", rpc.ServerOptions{})
	go func() {
		eventually(t, func() bool { return st.Subscribers() == 1 }, "a subscriber")
		for i := range 3 {
			st.Publish(rpcdemo.Event{Type: "e", Topic: "t", ID: uint64(i + 1)})
		}
	}()
	code, body := curl(t, s.sock, "POST", "/v1/stream/Watch", `["t", 3]`)
	require.Equal(t, http.StatusOK, code)
	lines := strings.Split(strings.TrimSpace(string(body)), "\n")
	require.Len(t, lines, 3)
	assert.JSONEq(t, `{"type":"e","topic":"t","id":2}`, lines[1])
}

// bigList returns a prebuilt slice, so that measuring the server's
// allocations measures the encoding alone.
type bigList struct {
	*rpcdemo.Store
	items []rpcdemo.Item
}

func (b *bigList) List(context.Context, int) ([]rpcdemo.Item, error) { return b.items, nil }

type countingWriter struct {
	h http.Header
	n int64
}

func (w *countingWriter) Header() http.Header         { return w.h }
func (w *countingWriter) WriteHeader(int)             {}
func (w *countingWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// WriteString is what net/http's writer offers too (no []byte conversion).
func (w *countingWriter) WriteString(s string) (int, error) { w.n += int64(len(s)); return len(s), nil }

func makeItems(n int) []rpcdemo.Item {
	items := make([]rpcdemo.Item, n)
	for i := range items {
		items[i] = rpcdemo.Item{ID: uint64(i + 1), Name: fmt.Sprintf("node %d with some realistic content to encode", i), Tags: []string{"go", "errors"}}
	}
	return items
}

// TestHugeResponseIsStreamed: a 100k-element answer is encoded element by
// element straight to the connection, never built whole in memory.
func TestHugeResponseIsStreamed(t *testing.T) {
	// Not parallel: it reads the process's allocation counter.
	const n = 100_000
	big := &bigList{Store: openStore(t), items: makeItems(n)}
	srv, err := rpc.NewServer[rpcdemo.Demo](big, rpc.ServerOptions{})
	require.NoError(t, err)

	req, err := http.NewRequest("POST", "http://nova/v1/call/List", strings.NewReader("[0]"))
	require.NoError(t, err)
	w := &countingWriter{h: http.Header{}}
	var before, after runtimeMem
	before.read()
	srv.ServeHTTP(w, req)
	after.read()
	require.Positive(t, w.n)
	allocated := after.total - before.total
	t.Logf("answer %d bytes, allocated %d bytes while encoding", w.n, allocated)
	// Building the answer in memory allocates at least its size (json.Marshal
	// of the slice: about three times, with the buffer's growth and the final
	// copy). Streaming allocates only per-element garbage (time.Time's
	// MarshalJSON makes a small slice per call).
	if raceEnabled {
		t.Log("allocation figures are not meaningful under -race")
	} else {
		assert.Less(t, allocated, uint64(w.n)/2, "the answer must not be built in memory")
	}

	// And the client decodes it element by element into the same values.
	s := serve(t, big, "", rpc.ServerOptions{})
	_, r := newClient(t, s.sock, rpc.ClientOptions{})
	got, err := r.List(context.Background(), 0)
	require.NoError(t, err)
	require.Len(t, got, n)
	assert.Equal(t, big.items[n-1], got[n-1])
}

func TestRequestBodyIsBounded(t *testing.T) {
	t.Parallel()
	s := serve(t, openStore(t), "", rpc.ServerOptions{MaxRequestBytes: 1024})
	body := `[["` + strings.Repeat("x", 4096) + `"], "-"]`
	code, data := curl(t, s.sock, "POST", "/v1/call/Join", body)
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Contains(t, string(data), "too large")
}

// flakyHandler breaks the connection of the first n requests to a path
// after they were received, as an owner killed mid-answer would.
type flakyHandler struct {
	next  http.Handler
	path  string
	left  atomic.Int32
	seen  atomic.Int32
	after bool // break after running the method (the write is committed)
}

func (f *flakyHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == f.path {
		f.seen.Add(1)
		if f.left.Add(-1) >= 0 {
			if f.after {
				f.next.ServeHTTP(&countingWriter{h: http.Header{}}, r)
			}
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				_ = conn.Close()
			}
			return
		}
	}
	f.next.ServeHTTP(w, r)
}

func serveHandler(t *testing.T, h http.Handler) string {
	t.Helper()
	sock := shortDir(t) + "/s.sock"
	ln, err := net.Listen("unix", sock)
	require.NoError(t, err)
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	return sock
}

func TestLostConnectionRetriesOnlyIdempotentCalls(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := openStore(t)
	srv, err := rpc.NewServer[rpcdemo.Demo](st, rpc.ServerOptions{})
	require.NoError(t, err)

	// An idempotent read is retried once and succeeds.
	read := &flakyHandler{next: srv, path: "/v1/call/Count"}
	read.left.Store(1)
	_, r := newClient(t, serveHandler(t, read), rpc.ClientOptions{})
	n, err := r.Count(ctx)
	require.NoError(t, err)
	assert.Equal(t, 0, n)
	assert.Equal(t, int32(2), read.seen.Load())

	// Broken twice: one retry only.
	read.left.Store(2)
	_, err = r.Count(ctx)
	require.ErrorIs(t, err, rpc.ErrConnLost)

	// A write is not retried: the owner committed it, the client was told
	// it may or may not have been applied, and it is there once.
	write := &flakyHandler{next: srv, path: "/v1/call/Put", after: true}
	write.left.Store(1)
	_, w := newClient(t, serveHandler(t, write), rpc.ClientOptions{})
	_, err = w.Put(ctx, rpcdemo.Item{Name: "once"})
	require.ErrorIs(t, err, rpc.ErrConnLost)
	assert.Contains(t, err.Error(), "may or may not have been applied")
	assert.Equal(t, int32(1), write.seen.Load())
	n, err = st.Count(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
}

// busyHandler answers ErrBusy to the first n calls, as an owner running
// an exclusive operation does.
type busyHandler struct {
	next http.Handler
	left atomic.Int32
}

func (b *busyHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if b.left.Add(-1) >= 0 {
		rpc.WriteError(w, fmt.Errorf("%w: running db compact", rpc.ErrBusy))
		return
	}
	b.next.ServeHTTP(w, r)
}

func TestBusyOwnerIsWaitedFor(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv, err := rpc.NewServer[rpcdemo.Demo](openStore(t), rpc.ServerOptions{})
	require.NoError(t, err)
	busy := &busyHandler{next: srv}
	busy.left.Store(3)
	sock := serveHandler(t, busy)
	_, r := newClient(t, sock, rpc.ClientOptions{})
	_, err = r.Put(ctx, rpcdemo.Item{Name: "after the compaction"})
	require.NoError(t, err)

	// Busy for longer than the client waits: the busy error, as is.
	busy.left.Store(1 << 30)
	_, r2 := newClient(t, sock, rpc.ClientOptions{ReconnectWait: 100 * time.Millisecond})
	err = r2.Ping(ctx)
	require.ErrorIs(t, err, rpc.ErrBusy)
	assert.Contains(t, err.Error(), "db compact")
}

// TestClientFollowsANewOwner: the owner goes away and another one serves
// the same socket; calls and streams continue by themselves.
func TestClientFollowsANewOwner(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first := serve(t, openStore(t), "", rpc.ServerOptions{})
	var reconnects atomic.Int32
	_, r := newClient(t, first.sock, rpc.ClientOptions{OnReconnect: func(string) { reconnects.Add(1) }})
	events := r.Subscribe(ctx)
	require.NoError(t, r.Ping(ctx))

	first.stop()
	secondStore := openStore(t)
	srv, err := rpc.NewServer[rpcdemo.Demo](secondStore, rpc.ServerOptions{})
	require.NoError(t, err)
	second := &http.Server{Handler: srv, ReadHeaderTimeout: 5 * time.Second}
	t.Cleanup(func() { _ = second.Close() })
	go func() {
		time.Sleep(150 * time.Millisecond)
		ln, err := net.Listen("unix", first.sock)
		if err == nil {
			_ = second.Serve(ln)
		}
	}()
	// A write: it never reached the first owner (dial failed), so it is
	// sent to the second.
	put, err := r.Put(ctx, rpcdemo.Item{Name: "to the new owner"})
	require.NoError(t, err)
	got, err := secondStore.Get(ctx, put.ID)
	require.NoError(t, err)
	assert.Equal(t, "to the new owner", got.Name)

	// The event stream re-subscribed on its own.
	eventually(t, func() bool { return secondStore.Subscribers() == 1 }, "the stream to re-subscribe")
	secondStore.Publish(rpcdemo.Event{Type: "hello", Topic: "x"})
	for {
		ev, ok := recv(t, events)
		require.True(t, ok)
		if ev.Type == "hello" {
			break
		}
	}
	assert.Equal(t, int32(1), reconnects.Load())
}

func TestOwnerGoneEndsCallsAndStreams(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := serve(t, openStore(t), "", rpc.ServerOptions{})
	var reported lastErr
	c, r := newClient(t, s.sock, rpc.ClientOptions{
		ReconnectWait: 200 * time.Millisecond,
		OnError:       func(_ string, err error) { reported.set(err) },
	})
	events := r.Subscribe(ctx)
	s.stop()

	err := r.Ping(ctx)
	require.ErrorIs(t, err, rpc.ErrOwnerGone)
	assert.Contains(t, err.Error(), "run the command again")

	for range events {
	}
	assert.ErrorIs(t, reported.get(), rpc.ErrOwnerGone)

	// Methods without an error result report through OnError.
	reported.set(errTest)
	assert.Empty(t, r.Version())
	assert.ErrorIs(t, reported.get(), rpc.ErrOwnerGone)

	require.NoError(t, c.Close())
	assert.ErrorIs(t, r.Ping(ctx), rpc.ErrClosed)
}

func TestLastErrorWithoutOnError(t *testing.T) {
	t.Parallel()
	c := rpc.NewClient(dialer(shortDir(t)+"/none.sock"), rpc.ClientOptions{ReconnectWait: 50 * time.Millisecond})
	defer c.Close()
	assert.Empty(t, rpcdemo.NewRemote(c).Version())
	assert.ErrorIs(t, c.LastError(), rpc.ErrOwnerGone)
}

func TestNewServerRefusesNonInterfaces(t *testing.T) {
	t.Parallel()
	_, err := rpc.NewServer[*rpcdemo.Store](nil, rpc.ServerOptions{})
	require.Error(t, err)
	_, err = rpc.NewServer[rpcdemo.Demo](nil, rpc.ServerOptions{})
	require.Error(t, err)
}

func TestUnregisteredErrorsKeepTheirMessage(t *testing.T) {
	t.Parallel()
	err := rpc.Decode(rpc.Encode(fmt.Errorf("wrapped: %w", errTest)))
	assert.EqualError(t, err, "wrapped: test")
	assert.Equal(t, failure.Unknown, failure.Of(err))
	assert.NoError(t, rpc.Decode(nil))
	assert.Nil(t, rpc.Encode(nil))
}

func TestArgumentsEncodeOnce(t *testing.T) {
	t.Parallel()
	// A value that cannot be encoded fails before anything is sent.
	c := rpc.NewClient(dialer("/nonexistent.sock"), rpc.ClientOptions{})
	defer c.Close()
	err := c.Call(context.Background(), "Add", []any{make(chan int)}, nil, rpc.CallOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "encode arguments")
	assert.NotErrorIs(t, err, rpc.ErrOwnerGone)
}

// The method table is built on first use (NewServer does no reflection, for
// the CLI commands that own a workspace and are never called): many first
// requests at once all find their method, and the skipped ones still say why.
func TestMethodTableBuiltOnFirstUse(t *testing.T) {
	t.Parallel()
	srv, err := rpc.NewServer[rpcdemo.Demo](openStore(t), rpc.ServerOptions{})
	require.NoError(t, err)
	const n = 8
	codes := make([]int, n)
	bodies := make([]string, n)
	done := make(chan struct{})
	for i := range n {
		go func() {
			defer func() { done <- struct{}{} }()
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/call/Add", strings.NewReader("[2,3]")))
			codes[i], bodies[i] = rec.Code, rec.Body.String()
		}()
	}
	for range n {
		<-done
	}
	for i := range n {
		assert.Equal(t, http.StatusOK, codes[i], bodies[i])
		assert.JSONEq(t, "[5]", bodies[i])
	}
	assert.Contains(t, srv.Methods(), "Add")
	assert.NotEmpty(t, srv.Skipped(), "Close is never served")
}
