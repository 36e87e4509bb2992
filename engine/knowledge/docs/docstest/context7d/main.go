// Command context7d runs the docstest Context7-compatible server by hand,
// for trying `nova docs fetch` and agent runs without the real service:
//
//	go run ./engine/knowledge/docs/docstest/context7d -addr 127.0.0.1:7007
//	CONTEXT7_API_URL=http://127.0.0.1:7007 nova docs fetch react hooks
//
// -mode makes it misbehave (500, html, huge, notutf8, empty, hang). Each
// request is logged to stderr (-quiet turns that off).
package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/nova-dev/nova/engine/knowledge/docs/docstest"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:7007", "address to listen on")
	mode := flag.String("mode", "normal", "normal, 500, html, huge, notutf8, empty or hang")
	key := flag.String("key", "", "require this API key as a bearer token")
	quiet := flag.Bool("quiet", false, "do not log each request to stderr")
	flag.Parse()
	modes := map[string]docstest.Mode{"normal": docstest.Normal, "500": docstest.Status500, "html": docstest.HTML,
		"huge": docstest.Huge, "notutf8": docstest.NotUTF8, "empty": docstest.Empty, "hang": docstest.Hang}
	m, ok := modes[*mode]
	if !ok {
		fmt.Fprintf(os.Stderr, "context7d: unknown -mode %q\n", *mode)
		os.Exit(2)
	}
	h := docstest.NewHandler(docstest.Options{APIKey: *key})
	h.SetMode(m)
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "context7d: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("CONTEXT7_API_URL=http://%s\n", ln.Addr())
	var handler http.Handler = h
	if !*quiet {
		// One line per request, so a user trying the cache sees what
		// reached the server.
		handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(os.Stderr, "%s %s %s\n", time.Now().Format("15:04:05"), r.Method, r.URL.RequestURI())
			h.ServeHTTP(w, r)
		})
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 5 * time.Second}
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(os.Stderr, "context7d: %v\n", err)
		os.Exit(1)
	}
}
