package remote_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/remote"
	"github.com/nova-dev/nova/engine/rpc"
)

// Subscribers that never read (a client suspended with ctrl+z) no longer
// hold the owner's memory: each is dropped MaxEventBacklog events behind
// with a last event saying so, and a reader that keeps up gets every event
// (issue 26, finding 10). Not parallel: it measures the heap.
func TestStuckSubscribersAreDroppedAndMemoryStaysBounded(t *testing.T) {
	l := openLocal(t)
	srv, err := rpc.NewServer[engine.Workspace](l, rpc.ServerOptions{Version: "test"})
	require.NoError(t, err)
	dir, err := os.MkdirTemp("", "stuck")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	sock := filepath.Join(dir, "s.sock")
	ln, err := net.Listen("unix", sock)
	require.NoError(t, err)
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })

	// 20 readers that subscribe and never read a byte.
	const stuckN = 20
	stuck := make([]net.Conn, stuckN)
	for i := range stuck {
		c, err := net.Dial("unix", sock)
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
		_, err = fmt.Fprintf(c, "POST %s/stream/Subscribe HTTP/1.1\r\nHost: nova\r\nContent-Length: 0\r\n\r\n", rpc.Prefix())
		require.NoError(t, err)
		stuck[i] = c
	}
	require.Eventually(t, func() bool { return l.Subscribers() == stuckN }, 5*time.Second, time.Millisecond)

	// One reader that keeps up, through the ordinary client.
	c := rpc.NewClient(func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", sock)
	}, rpc.ClientOptions{Version: "test"})
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	live := remote.NewWorkspace(c).Subscribe(ctx)
	require.Eventually(t, func() bool { return l.Subscribers() == stuckN+1 }, 5*time.Second, time.Millisecond)

	text := strings.Repeat("x", 300)
	n := 0
	publish := func(count int) {
		for range count {
			l.Publish(engine.Event{Type: engine.EventLog, Topic: engine.TopicKnowledge, Text: text, Done: n})
			n++
			if n%100 == 0 {
				for {
					ev, ok := <-live
					require.True(t, ok, "the live reader's stream ended at %d", n)
					require.NotEqual(t, engine.EventDropped, ev.Type, "the live reader was dropped")
					if ev.Done == n-1 {
						break
					}
				}
			}
		}
	}
	publish(6000)
	mid := heapAfterGC().HeapInuse
	publish(6000)
	end := heapAfterGC().HeapInuse
	t.Logf("heap after 6,000 events: %.1f MiB; after 12,000: %.1f MiB (20 stuck readers)", mib(mid), mib(end))
	assert.Less(t, float64(end), 1.2*float64(mid)+float64(1<<20), "stuck readers' queues do not grow with the events")
	assert.Equal(t, 1, l.Subscribers(), "only the live reader is left")

	// A stuck reader that wakes up reads what the socket held, then the end.
	c0 := stuck[0]
	require.NoError(t, c0.SetReadDeadline(time.Now().Add(10*time.Second)))
	resp, err := http.ReadResponse(bufio.NewReader(c0), nil)
	require.NoError(t, err)
	defer func() { _ = resp.Body.Close() }()
	dec := json.NewDecoder(resp.Body)
	var last engine.Event
	for {
		var ev engine.Event
		if err := dec.Decode(&ev); err != nil {
			break
		}
		last = ev
	}
	assert.Equal(t, engine.EventDropped, last.Type)
	assert.Contains(t, last.Text, "dropped: you fell")
	assert.Contains(t, last.Text, "events behind; reconnect")
	assert.Greater(t, last.Done, engine.MaxEventBacklog)
}
