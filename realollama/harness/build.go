// Package harness builds, caches and runs the real Ollama server for nova's
// real-server suite, and creates its tiny scripted models.
//
// The server is Ollama v0.17.4, the last release that compiles llama.cpp
// into the binary with cgo. It lives in its own module
// (realollama/upstream), so neither its code nor its dependencies ever enter
// nova's module graph. Go module zips drop vendor/ directories, so three C
// headers are missing from the module: nlohmann/json and stb_image come from
// Debian (nlohmann-json3-dev, libstb-dev; installed here when running as
// root), and miniaudio.h is replaced by a stand-in in upstream/shim (audio
// input is never used).
//
// The built binary is cached under the user's cache directory, keyed by the
// Ollama version and the Go toolchain: a cold build takes about three
// minutes and 1 GB of memory on two cores, a cached one nothing.
package harness

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// OllamaVersion is the release the suite builds.
const OllamaVersion = "0.17.4"

// ErrMissing means the toolchain cannot build the server; the message says
// what is missing and how to install it.
var ErrMissing = errors.New("cannot build the real Ollama server")

// Dirs locates the suite's sources.
type Dirs struct {
	// Upstream is realollama/upstream (the module that pins the release).
	Upstream string
	// Repo is nova's repository root.
	Repo string
}

// FindDirs walks up from the working directory to realollama/upstream.
func FindDirs() (Dirs, error) {
	wd, err := os.Getwd()
	if err != nil {
		return Dirs{}, err
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		up := filepath.Join(dir, "realollama", "upstream")
		if st, err := os.Stat(filepath.Join(up, "go.mod")); err == nil && !st.IsDir() {
			return Dirs{Upstream: up, Repo: dir}, nil
		}
		if filepath.Dir(dir) == dir {
			return Dirs{}, fmt.Errorf("realollama/upstream not found above %s", wd)
		}
	}
}

// header is a C header the build needs and the Debian package that has it.
type header struct {
	path, pkg string
}

var headers = []header{
	{"/usr/include/nlohmann/json.hpp", "nlohmann-json3-dev"},
	{"/usr/include/stb/stb_image.h", "libstb-dev"},
}

// Missing lists what the machine lacks to build the server (tools and
// headers), each with how to get it. Empty means ready.
func Missing() []string {
	var out []string
	for _, tool := range []string{"gcc", "g++"} {
		if _, err := exec.LookPath(tool); err != nil {
			out = append(out, tool+" (apt-get install "+map[string]string{"gcc": "gcc", "g++": "g++"}[tool]+")")
		}
	}
	for _, h := range headers {
		if _, err := os.Stat(h.path); err != nil {
			out = append(out, h.path+" (apt-get install "+h.pkg+")")
		}
	}
	return out
}

// Install installs the missing Debian packages when running as root with
// apt-get; otherwise it does nothing. It reports what it ran.
func Install(ctx context.Context, logf func(string, ...any)) error {
	missing := Missing()
	if len(missing) == 0 || os.Geteuid() != 0 {
		return nil
	}
	if _, err := exec.LookPath("apt-get"); err != nil {
		return nil
	}
	pkgs := []string{}
	for _, tool := range []string{"gcc", "g++"} {
		if _, err := exec.LookPath(tool); err != nil {
			pkgs = append(pkgs, tool)
		}
	}
	for _, h := range headers {
		if _, err := os.Stat(h.path); err != nil {
			pkgs = append(pkgs, h.pkg)
		}
	}
	install := func() error {
		args := append([]string{"install", "-y", "--no-install-recommends"}, pkgs...)
		logf("realollama: apt-get %s", strings.Join(args, " "))
		cmd := exec.CommandContext(ctx, "apt-get", args...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("apt-get install %s: %w\n%s", strings.Join(pkgs, " "), err, tail(out, 2000))
		}
		return nil
	}
	if err := install(); err == nil {
		return nil
	}
	// A fresh machine may have no package lists yet.
	logf("realollama: apt-get update")
	if out, err := exec.CommandContext(ctx, "apt-get", "update").CombinedOutput(); err != nil {
		return fmt.Errorf("apt-get update: %w\n%s", err, tail(out, 2000))
	}
	return install()
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// CacheDir is where built servers are kept: NOVA_REALOLLAMA_CACHE (the
// Makefile sets it from REALOLLAMA_CACHE), else
// $XDG_CACHE_HOME/nova/realollama. It is reused across runs and clones.
func CacheDir() (string, error) {
	if d := os.Getenv("NOVA_REALOLLAMA_CACHE"); d != "" {
		return d, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory: %w", err)
	}
	return filepath.Join(base, "nova", "realollama"), nil
}

// cflags are the C/C++ flags of the build: no debug info and -O1 cut the
// compile's CPU time by about a quarter against cgo's default "-g -O2", and
// the tiny models need no speed.
const cflags = "-O1"

// buildKey names a cached binary: the release, the toolchain and the
// stand-in header (a change to either means a different binary).
func buildKey(d Dirs) (string, error) {
	shim, err := os.ReadFile(filepath.Join(d.Upstream, "shim", "miniaudio", "miniaudio.h"))
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(append([]byte(runtime.Version()+"\n"+cflags+"\n"), shim...))
	return fmt.Sprintf("ollama-v%s-%s-%s", OllamaVersion, runtime.Version(), hex.EncodeToString(sum[:4])), nil
}

// ServerBinary returns the path of the built server, building it first when
// the cache has none. Concurrent callers (two worktrees) wait on a lock
// instead of building twice. When the toolchain cannot build it, the error
// wraps ErrMissing and lists what is missing.
func ServerBinary(ctx context.Context, d Dirs, logf func(string, ...any)) (string, error) {
	cache, err := CacheDir()
	if err != nil {
		return "", err
	}
	key, err := buildKey(d)
	if err != nil {
		return "", err
	}
	bin := filepath.Join(cache, key, "ollama")
	if st, err := os.Stat(bin); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
		return bin, nil
	}
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		return "", err
	}
	unlock, err := lock(filepath.Join(cache, ".build.lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	if _, err := os.Stat(bin); err == nil {
		return bin, nil // built by whoever held the lock
	}
	if err := Install(ctx, logf); err != nil {
		logf("realollama: %v", err)
	}
	if m := Missing(); len(m) > 0 {
		return "", fmt.Errorf("%w: missing %s", ErrMissing, strings.Join(m, ", "))
	}
	// Download what the build needs first (Go modules through the proxy),
	// so that the two phases are timed apart.
	t0 := time.Now()
	dl := exec.CommandContext(ctx, "go", "list", "-deps", "github.com/ollama/ollama")
	dl.Dir = d.Upstream
	dl.Env = append(os.Environ(), "CGO_ENABLED=1")
	if out, err := dl.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%w: download github.com/ollama/ollama@v%s: %w\n%s", ErrMissing, OllamaVersion, err, tail(out, 4000))
	}
	logf("realollama: modules for Ollama v%s ready after %s", OllamaVersion, time.Since(t0).Round(time.Second))
	t0 = time.Now()
	logf("realollama: building Ollama v%s with llama.cpp (cgo; about 3 minutes cold, cached afterwards in %s)", OllamaVersion, filepath.Dir(bin))
	tmp := bin + ".tmp"
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath",
		"-ldflags", "-X github.com/ollama/ollama/version.Version="+OllamaVersion,
		"-o", tmp, "github.com/ollama/ollama")
	cmd.Dir = d.Upstream
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1", "CGO_CFLAGS="+cflags, "CGO_CXXFLAGS="+cflags,
		"CGO_CPPFLAGS="+strings.TrimSpace(os.Getenv("CGO_CPPFLAGS")+" -I"+filepath.Join(d.Upstream, "shim")))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		_ = os.Remove(tmp)
		return "", fmt.Errorf("%w: go build github.com/ollama/ollama@v%s: %w\n%s", ErrMissing, OllamaVersion, err, tail(out.Bytes(), 4000))
	}
	if err := os.Rename(tmp, bin); err != nil {
		return "", err
	}
	logf("realollama: server built in %s", time.Since(t0).Round(time.Second))
	return bin, nil
}

// lock takes an exclusive advisory lock on path, waiting for it.
func lock(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		_ = f.Close()
	}, nil
}
