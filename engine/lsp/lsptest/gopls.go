// Package lsptest installs the language servers nova's tests run against
// (gopls from the Go module proxy) into the user's cache directory, once.
package lsptest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// GoplsVersion is the gopls the tests install (v0.24 needs a newer Go).
const GoplsVersion = "v0.21.1"

// CacheDir is where test servers are kept: NOVA_LSP_CACHE, else
// $XDG_CACHE_HOME/nova/lsp.
func CacheDir() (string, error) {
	if d := os.Getenv("NOVA_LSP_CACHE"); d != "" {
		return d, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory: %w", err)
	}
	return filepath.Join(base, "nova", "lsp"), nil
}

// Gopls returns the path of gopls GoplsVersion, installing it with
// `go install` into the cache when it is missing (about 25 s of CPU, once).
// When it cannot be installed the test is skipped with the reason, or
// fails when CI is set.
func Gopls(tb testing.TB) string {
	tb.Helper()
	p, err := gopls()
	if err != nil {
		if os.Getenv("CI") != "" {
			tb.Fatalf("gopls %s is needed in CI and could not be installed: %v", GoplsVersion, err)
		}
		tb.Skipf("skipped: gopls %s is not installed and could not be installed (%v); "+
			"it goes to %s (NOVA_LSP_CACHE moves it)", GoplsVersion, err, dirHint())
	}
	return p
}

func gopls() (string, error) {
	cache, err := CacheDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cache, "gopls-"+GoplsVersion)
	bin := filepath.Join(dir, "gopls")
	if st, err := os.Stat(bin); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	unlock, err := lock(filepath.Join(cache, ".install.lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	if _, err := os.Stat(bin); err == nil {
		return bin, nil // installed by whoever held the lock
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("no go command: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	tmp, err := os.MkdirTemp(dir, "install-")
	if err != nil {
		return "", err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	cmd := exec.CommandContext(ctx, goBin, "install", "golang.org/x/tools/gopls@"+GoplsVersion)
	cmd.Env = append(os.Environ(), "GOBIN="+tmp, "GOFLAGS=", "GOWORK=off")
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go install gopls@%s: %w\n%s", GoplsVersion, err, tail(out, 1500))
	}
	if err := os.Rename(filepath.Join(tmp, "gopls"), bin); err != nil {
		return "", err
	}
	return bin, nil
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

func dirHint() string {
	c, err := CacheDir()
	if err != nil {
		return "the user cache directory"
	}
	return filepath.Join(c, "gopls-"+GoplsVersion)
}
