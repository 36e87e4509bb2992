package realollama_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/realollama/harness"
)

// suite is the state TestMain prepares for every test.
var suite struct {
	dirs   harness.Dirs
	bin    string // the built server
	models string // the shared OLLAMA_MODELS store
	plan   harness.Plan
	srv    *harness.Server // the shared server
	nova   string          // nova's binary
}

func TestMain(m *testing.M) { os.Exit(run(m)) }

func logf(format string, a ...any) { fmt.Fprintf(os.Stderr, format+"\n", a...) }

func run(m *testing.M) int {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	ci := os.Getenv("CI") != ""
	start := time.Now()
	d, err := harness.FindDirs()
	if err != nil {
		logf("realollama: %v", err)
		return 1
	}
	suite.dirs = d
	bin, err := harness.ServerBinary(ctx, d, logf)
	switch {
	case errors.Is(err, harness.ErrMissing) && !ci:
		logf("realollama: SKIP: the real-server suite did not run: %v\n"+
			"  install them (as root the suite does it itself), or set CI=1 to make this a failure", err)
		return 0
	case err != nil:
		logf("realollama: FAIL: %v", err)
		return 1
	}
	suite.bin = bin
	phase := time.Now()
	done := func(what string) {
		logf("realollama: %s: %s", what, time.Since(phase).Round(100*time.Millisecond))
		phase = time.Now()
	}
	done("server binary " + bin)

	tmp, err := os.MkdirTemp("", "nova-realollama-suite-*")
	if err != nil {
		logf("realollama: %v", err)
		return 1
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	suite.plan, err = harness.GenerateModels(ctx, d, filepath.Join(tmp, "gguf"))
	if err != nil {
		logf("realollama: FAIL: %v", err)
		return 1
	}
	done("models generated")
	suite.models = filepath.Join(tmp, "models")
	suite.srv, err = harness.Start(ctx, harness.StartOptions{Binary: bin, Models: suite.models, Dir: filepath.Join(tmp, "server")})
	if err != nil {
		logf("realollama: FAIL: %v", err)
		return 1
	}
	defer suite.srv.Stop()
	if err := suite.srv.CreateModels(ctx, suite.plan); err != nil {
		logf("realollama: FAIL: %v\n%s", err, suite.srv.Log())
		return 1
	}
	done("server started, models created")
	suite.nova = filepath.Join(tmp, "nova")
	// nova is built the way this test binary was: with -race under
	// `go test -race` (make test), so it reuses the unit tests' build cache
	// and the real flows are checked for data races too.
	args := []string{"build", "-o", suite.nova}
	if raceEnabled {
		args = append(args, "-race")
	}
	build := exec.CommandContext(ctx, "go", append(args, "./cmd/nova")...)
	build.Dir = d.Repo
	if out, err := build.CombinedOutput(); err != nil {
		logf("realollama: FAIL: build nova: %v\n%s", err, out)
		return 1
	}
	done(fmt.Sprintf("nova built (race %v)", raceEnabled))
	logf("realollama: server, models and nova ready after %s", time.Since(start).Round(time.Second))
	code := m.Run()
	done("tests")
	if code != 0 {
		logf("realollama: server log (last 4000 bytes):\n%s", lastBytes(suite.srv.Log(), 4000))
		_ = os.WriteFile(filepath.Join(os.TempDir(), "nova-realollama-server.log"), []byte(suite.srv.Log()), 0o644)
	}
	return code
}

func lastBytes(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// countTruncations counts the server's "truncating input prompt" lines.
func countTruncations(log string) int { return strings.Count(log, "truncating input prompt") }
