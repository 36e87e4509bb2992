package owner_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAStoppingOwnerAnswersTheConnectionsAlreadyMade: an owner that stops
// (its command ended) while clients have just connected — their
// connections still waiting to be accepted — answers every one of them
// before it goes: closing the listener would have reset them, and their
// calls would be lost halfway ("connection lost … may or may not have been
// applied"). A nova that connects after the owner began to stop finds no
// socket and goes on without it.
func TestAStoppingOwnerAnswersTheConnectionsAlreadyMade(t *testing.T) {
	t.Parallel()
	root := newRoot(t)
	first := join(t, demoOptions(root))
	require.NotNil(t, first.Owner)
	sock := filepath.Join(root, ".nova", "nova.sock")

	const n = 200
	conns := make([]net.Conn, 0, n)
	for range n {
		c, err := net.Dial("unix", sock)
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
		_, err = fmt.Fprintf(c, "GET /nothing HTTP/1.1\r\nHost: nova\r\nConnection: close\r\n\r\n")
		require.NoError(t, err)
		conns = append(conns, c)
	}
	require.NoError(t, first.Close())

	answered := 0
	for i, c := range conns {
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if assert.NoError(t, err, "connection %d of %d was dropped", i+1, n) {
			_ = resp.Body.Close()
			answered++
		}
	}
	assert.Equal(t, n, answered)
	_, err := net.Dial("unix", sock)
	assert.Error(t, err, "no new connection once the owner stopped")
}
