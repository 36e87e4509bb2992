package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxFrame bounds one message read from a server (a JSON-RPC line on
// stdio, an event over HTTP): a result up to MaxFrame is read and cut to
// MaxResult; a larger one ends the call with an error.
const MaxFrame = 64 << 20

// commandTransport starts a stdio server; it is the SDK's CommandTransport
// with nova's frame limit (the SDK's is 16 MiB) and a bounded shutdown.
type commandTransport struct {
	cmd *exec.Cmd
}

func (t *commandTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	stdout, err := t.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stdin, err := t.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := t.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", t.cmd.Path, err)
	}
	w := &procStdin{WriteCloser: stdin, cmd: t.cmd}
	return (&sdk.IOTransport{Reader: io.NopCloser(stdout), Writer: w, MaxLineLength: MaxFrame}).Connect(ctx)
}

// procStdin closes the server's stdin, then waits a moment for it to exit
// before asking it to (SIGTERM), then kills it. Many servers (node ones)
// do not exit when stdin closes.
type procStdin struct {
	io.WriteCloser
	cmd  *exec.Cmd
	once sync.Once
	err  error
}

func (p *procStdin) Close() error {
	p.once.Do(func() {
		_ = p.WriteCloser.Close()
		done := make(chan error, 1)
		go func() { done <- p.cmd.Wait() }()
		wait := func(d time.Duration) bool {
			select {
			case err := <-done:
				var ee *exec.ExitError
				if err != nil && !errors.As(err, &ee) {
					p.err = err
				}
				return true
			case <-time.After(d):
				return false
			}
		}
		if wait(300 * time.Millisecond) {
			return
		}
		if p.cmd.Process.Signal(syscall.SIGTERM) == nil && wait(time.Second) {
			return
		}
		_ = p.cmd.Process.Kill()
		wait(2 * time.Second)
	})
	return p.err
}
