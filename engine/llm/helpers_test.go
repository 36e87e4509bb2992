package llm_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
)

const model = "llama3.2:3b"

// newClient points a client with tiny backoff at srv.
func newClient(t testing.TB, srv *ollamatest.Server, mod ...func(*llm.Config)) *llm.Client {
	t.Helper()
	cfg := llm.Config{Host: srv.URL(), Backoff: time.Millisecond, MaxBackoff: 4 * time.Millisecond}
	for _, m := range mod {
		m(&cfg)
	}
	c, err := llm.New(cfg)
	require.NoError(t, err)
	return c
}

func user(s string) []llm.Message { return []llm.Message{{Role: llm.RoleUser, Content: s}} }

// deltas collects streamed deltas; safe to read after Chat returns.
type deltas struct {
	mu  sync.Mutex
	all []llm.Delta
}

func (d *deltas) add(x llm.Delta) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.all = append(d.all, x)
}

func (d *deltas) get() []llm.Delta {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]llm.Delta(nil), d.all...)
}

// text concatenates content after the last reset.
func (d *deltas) text() string {
	s := ""
	for _, x := range d.get() {
		if x.Reset {
			s = ""
		}
		s += x.Content
	}
	return s
}

func (d *deltas) resets() int {
	n := 0
	for _, x := range d.get() {
		if x.Reset {
			n++
		}
	}
	return n
}
