// Package hostile makes the hostile inputs of issue 11 for tests: an alias
// bomb, deeply nested YAML, a FIFO and a link to /dev/zero. The files are
// generated rather than kept, so they cannot be opened by accident.
package hostile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// AliasBombPRD is the 428-byte "billion laughs" PRD of issue 11: nine
// unknown top-level keys, each a list of nine aliases of the one before
// (9^9 strings once expanded), then a valid meta and one task.
func AliasBombPRD() string {
	var b strings.Builder
	b.WriteString(`a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]` + "\n")
	for c := 'b'; c <= 'i'; c++ {
		prev := string(c - 1)
		b.WriteString(string(c) + ": &" + string(c) + " [" + strings.TrimSuffix(strings.Repeat("*"+prev+",", 9), ",") + "]\n")
	}
	b.WriteString("meta: {name: bomb}\ntasks:\n  - {id: t1, title: x, description: defusable, agent: MARS}\n")
	return b.String()
}

// DeepYAML is `key: ` followed by n '[' and n ']' (200 KB for n = 100,000).
func DeepYAML(key string, n int) string {
	return key + ": " + strings.Repeat("[", n) + strings.Repeat("]", n) + "\n"
}

// FIFO makes a named pipe at path (skipping the test where there are none).
func FIFO(t testing.TB, path string) {
	t.Helper()
	if err := mkfifo(path); err != nil {
		t.Fatalf("mkfifo %s: %v", path, err)
	}
}

// DevZeroLink makes path a symlink to /dev/zero: stat says 0 bytes, reads
// never end.
func DevZeroLink(t testing.TB, path string) {
	t.Helper()
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	if err := os.Symlink("/dev/zero", path); err != nil {
		t.Fatalf("symlink %s: %v", path, err)
	}
}

// Write writes data at dir/name and returns the path.
func Write(t testing.TB, dir, name, data string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
