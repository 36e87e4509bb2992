package rpc_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/engine/internal/rpcdemo"
	"github.com/nova-dev/nova/engine/rpc"
)

// FuzzCallArguments: any request body, to any method, is answered with a
// result or a clear error; the owner never panics on input.
func FuzzCallArguments(f *testing.F) {
	for _, seed := range []struct{ method, body string }{
		{"Add", `[1, 2]`}, {"Join", `[["a","b"], "-"]`}, {"Put", `[{"name":"x","tags":["t"],"meta":{"k":"v"}}]`},
		{"Sum", `[[1,2,3]]`}, {"Find", `[null]`}, {"Find", `[{"name":"x","prefix":true}]`}, {"Get", `[18446744073709551615]`},
		{"Add", `[1e400, 2]`}, {"Add", `["x"]`}, {"Put", `[{"at":"not a time"}]`}, {"Nope", ``}, {"Add", `[1,2]]`},
		{"Watch", `["t", 0]`}, {"Fail", `["typed"]`}, {"Pair", `[1]`}, {"List", `[-1]`},
	} {
		f.Add(seed.method, seed.body)
	}
	st, err := rpcdemo.Open(filepath.Join(f.TempDir(), "nova.db"), time.Second)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = st.Close() })
	srv, err := rpc.NewServer[rpcdemo.Demo](st, rpc.ServerOptions{MaxRequestBytes: 1 << 16})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, method, body string) {
		if method == "" || method == "Block" || method == "Fill" || method == "Steps" ||
			strings.ContainsFunc(method, func(r rune) bool { return r <= ' ' || r >= 0x7f || strings.ContainsRune("/?#%", r) }) {
			return // not a name a URL path can carry, or slow by design
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		path := "/v1/call/" + method
		if method == "Watch" || method == "Subscribe" {
			path = "/v1/stream/" + method
		}
		req := httptest.NewRequest("POST", path, strings.NewReader(body)).WithContext(ctx)
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, req)
		switch w.Code {
		case http.StatusOK:
			if !strings.HasPrefix(path, "/v1/stream/") && !json.Valid(w.Body.Bytes()) {
				t.Fatalf("200 with invalid JSON: %q", w.Body.String())
			}
		default:
			var env struct {
				Error *rpc.WireError `json:"error"`
			}
			if err := json.Unmarshal(w.Body.Bytes(), &env); err != nil || env.Error == nil || env.Error.Message == "" {
				t.Fatalf("%d without an error envelope: %q", w.Code, w.Body.String())
			}
		}
	})
}

// FuzzErrorEnvelope: whatever an owner (or something pretending to be
// one) sends as an error, the client decodes it without panicking.
func FuzzErrorEnvelope(f *testing.F) {
	for _, err := range []error{
		fmt.Errorf("x: %w", rpcdemo.ErrNotFound),
		&rpcdemo.ValidationError{Field: "f", Problems: []string{"a"}, Err: rpcdemo.ErrInvalid},
		errors.Join(context.Canceled, rpcdemo.ErrUnreachable),
	} {
		data, _ := json.Marshal(rpc.Encode(err))
		f.Add(data)
	}
	f.Add([]byte(`{"message":"m","errors":[{"type":"rpcdemo.ValidationError","value":{"Err":{"message":"inner","errors":[{"type":"rpcdemo.ValidationError","value":{"Problems":7}}]},"Field":[1]}}]}`))
	f.Add([]byte(`{"message":"m","codes":["rpcdemo.ErrNotFound","nope"],"failureKind":"bogus"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var we rpc.WireError
		if json.Unmarshal(data, &we) != nil {
			return
		}
		err := rpc.Decode(&we)
		if err == nil {
			t.Fatal("a decoded envelope is an error")
		}
		_ = err.Error()
		_ = errors.Is(err, rpcdemo.ErrNotFound)
		var ve *rpcdemo.ValidationError
		if errors.As(err, &ve) && ve.Err != nil {
			_ = ve.Error()
		}
		// Encoding it again never panics either.
		_ = rpc.Encode(err)
	})
}

// FuzzResults: whatever an owner answers with 200, the client decodes it
// or returns an error; it never panics.
func FuzzResults(f *testing.F) {
	for _, s := range []string{`[{"id":1,"name":"x"}]`, `[[{"id":1},{"id":2}]]`, `[null]`, `[`, `[1`, `{}`, `[[1,2]`, `[{"id":"x"}]`, `[[{"id":1}],["t"]]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		dial := func(context.Context) (net.Conn, error) {
			client, server := net.Pipe()
			go func() {
				defer server.Close()
				req, err := http.ReadRequest(bufio.NewReader(server))
				if err != nil {
					return
				}
				_ = req.Body.Close()
				_, _ = fmt.Fprintf(server, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
			}()
			return client, nil
		}
		c := rpc.NewClient(dial, rpc.ClientOptions{ReconnectWait: 10 * time.Millisecond})
		defer c.Close()
		r := rpcdemo.NewRemote(c)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_, _ = r.Get(ctx, 1)
		_, _ = r.List(ctx, 0)
		_, _, _ = r.Pair(ctx, 1)
		_, _ = r.Tags(ctx)
	})
}
