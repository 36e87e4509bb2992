package maketest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// repoRoot walks up from the test's directory to the go.mod.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		require.NotEqual(t, parent, dir, "no go.mod above the test")
		dir = parent
	}
}

// run runs a command in dir with a hermetic Go environment (no network, the
// local toolchain) and returns its combined output and error.
func run(t *testing.T, dir string, name string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Regression (issue 10): after `make run` and an approved change, `make
// test` failed (`go vet`: playground/gen/…: Run redeclared) because the
// playground lived inside the Go module. `make run` now prepares the
// playground as a module of its own; whatever agents write there is never
// one of the repository's packages.
func TestPlaygroundIsNotPartOfTheModule(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"make", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s", tool)
		}
	}
	makefile, err := os.ReadFile(filepath.Join(repoRoot(t), "Makefile"))
	require.NoError(t, err)

	// A small repository with nova's Makefile.
	repo := t.TempDir()
	files := map[string]string{
		"Makefile":    string(makefile),
		"go.mod":      "module example.com/repo\n\ngo 1.22\n",
		"tool/ok.go":  "package tool\n\n// Ok is fine.\nfunc Ok() {}\n",
		"playground/": "",
	}
	for p, c := range files {
		if strings.HasSuffix(p, "/") {
			require.NoError(t, os.MkdirAll(filepath.Join(repo, p), 0o755))
			continue
		}
		require.NoError(t, os.MkdirAll(filepath.Join(repo, filepath.Dir(p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(repo, p), []byte(c), 0o644))
	}
	// What agents write into the playground: two files of one package that
	// declare the same function (the case from the issue).
	gen := filepath.Join(repo, "playground", "gen")
	require.NoError(t, os.MkdirAll(gen, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(gen, "a.go"), []byte("package gen\n\nfunc Run() {}\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(gen, "b.go"), []byte("package gen\n\nfunc Run() {}\n"), 0o644))

	// Without the fix the playground is one of the repository's packages.
	out, err := run(t, repo, "go", "vet", "./...")
	require.Error(t, err, "control: a playground inside the module breaks go vet")
	assert.Contains(t, out, "Run redeclared")

	out, err = run(t, repo, "make", "playground")
	require.NoError(t, err, out)
	assert.FileExists(t, filepath.Join(repo, "playground", "go.mod"))
	out, err = run(t, repo, "go", "vet", "./...")
	require.NoError(t, err, "go vet ./... must pass with code in the playground:\n%s", out)
	out, err = run(t, repo, "go", "list", "./...")
	require.NoError(t, err, out)
	assert.Contains(t, out, "example.com/repo/tool")
	assert.NotContains(t, out, "playground", "the playground is not one of the module's packages")

	// Running the target again keeps the playground's own go.mod.
	require.NoError(t, os.WriteFile(filepath.Join(repo, "playground", "go.mod"), []byte("module mine\n\ngo 1.22\n"), 0o644))
	out, err = run(t, repo, "make", "playground")
	require.NoError(t, err, out)
	data, err := os.ReadFile(filepath.Join(repo, "playground", "go.mod"))
	require.NoError(t, err)
	assert.Equal(t, "module mine\n\ngo 1.22\n", string(data))

	// A workspace outside the repository gets no go.mod.
	outside := t.TempDir()
	out, err = run(t, repo, "make", "playground", "WORKSPACE="+outside)
	require.NoError(t, err, out)
	assert.NoFileExists(t, filepath.Join(outside, "go.mod"))
}
