package vault_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// endless yields valid JSONL node lines forever.
type endless struct {
	n   int
	buf []byte
}

func (e *endless) Read(p []byte) (int, error) {
	if len(e.buf) == 0 {
		e.n++
		e.buf = fmt.Appendf(nil, `{"kind":"node","id":%d,"type":"Pattern","content":"line %d"}`+"\n", e.n, e.n)
	}
	n := copy(p, e.buf)
	e.buf = e.buf[n:]
	return n, nil
}

// Issue 11: signals always work. A cancelled import stops within a second
// whatever it is reading (before, the parser read the whole stream first).
func TestImportStopsSoonAfterCancellation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(100*time.Millisecond, cancel)
	done := make(chan error, 1)
	go func() {
		_, err := e.v.Import(ctx, &endless{})
		done <- err
	}()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(10 * time.Second):
		t.Fatal("the import ignored the cancellation")
	}
}
