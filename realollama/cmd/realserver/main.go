// Command realserver builds the real Ollama server the suite runs against
// (or finds it in the cache) and prints its path on stdout. `make test`
// runs it beside the unit tests, so the suite finds the server ready.
//
// Without CI set, a machine that cannot build the server is told what is
// missing and the command exits 0 (the suite then skips the same way); with
// CI set it exits 1.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/nova-dev/nova/realollama/harness"
)

func main() { os.Exit(run()) }

func run() int {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	logf := func(format string, a ...any) { fmt.Fprintf(os.Stderr, format+"\n", a...) }
	start := time.Now()
	d, err := harness.FindDirs()
	if err != nil {
		logf("realollama: %v", err)
		return 1
	}
	bin, err := harness.ServerBinary(ctx, d, logf)
	switch {
	case errors.Is(err, harness.ErrMissing) && os.Getenv("CI") == "":
		logf("realollama: SKIP: %v", err)
		return 0
	case err != nil:
		logf("realollama: FAIL: %v", err)
		return 1
	}
	logf("realollama: server %s ready after %s", bin, time.Since(start).Round(time.Second))
	fmt.Println(bin)
	return 0
}
