package llm

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
)

// DefaultHost is where Ollama listens when nothing else is configured.
const DefaultHost = "http://127.0.0.1:11434"

// ResolveHost turns a host setting into the base URL the client talks to,
// with Ollama's own OLLAMA_HOST rules. An empty s reads OLLAMA_HOST (trimmed
// of spaces and quotes, as Ollama does); an empty result is 127.0.0.1:11434.
//
//	""                     -> http://127.0.0.1:11434
//	"localhost"            -> http://localhost:11434
//	"localhost:8080"       -> http://localhost:8080
//	":8080"                -> http://127.0.0.1:8080
//	"http://box"           -> http://box:80
//	"https://box"          -> https://box:443
//	"http://box:1/ollama"  -> http://box:1/ollama
//	"ollama.com"           -> https://ollama.com:443
//	"0.0.0.0:11434"        -> http://127.0.0.1:11434 (a bind address is not connectable)
//
// This mirrors envconfig.Host and envconfig.ConnectableHost of
// github.com/ollama/ollama v0.34.4. It is re-implemented because nova uses
// only the api package of Ollama, and api.ClientFromEnvironment neither
// exposes the URL it resolved (Host and Probe must report it) nor lets us set
// an HTTP client with timeouts. Unlike Ollama, a scheme other than http or
// https is an error rather than a request that can only fail later.
func ResolveHost(s string) (*url.URL, error) {
	if strings.TrimSpace(s) == "" {
		s = os.Getenv("OLLAMA_HOST")
	}
	s = strings.Trim(strings.TrimSpace(s), "\"'")

	defaultPort := "11434"
	scheme, hostport, ok := strings.Cut(s, "://")
	switch {
	case !ok:
		scheme, hostport = "http", s
		if s == "ollama.com" {
			scheme, hostport = "https", "ollama.com:443"
		}
	case scheme == "http":
		defaultPort = "80"
	case scheme == "https":
		defaultPort = "443"
	default:
		return nil, fmt.Errorf("ollama host %q: unsupported scheme %q (use http or https)", s, scheme)
	}

	hostport, path, _ := strings.Cut(hostport, "/")
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = "127.0.0.1", defaultPort
		if ip := net.ParseIP(strings.Trim(hostport, "[]")); ip != nil {
			host = ip.String()
		} else if hostport != "" {
			host = hostport
		}
	}
	if host == "" {
		// ":8080" binds every interface for the server; connect to loopback.
		host = "127.0.0.1"
	}
	if n, err := strconv.ParseInt(port, 10, 32); err != nil || n > 65535 || n < 0 {
		port = defaultPort
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		if ip.To4() != nil {
			host = "127.0.0.1"
		} else {
			host = "::1"
		}
	}
	u := &url.URL{Scheme: scheme, Host: net.JoinHostPort(host, port)}
	if path != "" {
		u.Path = "/" + path
	}
	return u, nil
}
