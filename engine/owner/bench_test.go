package owner_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/owner"
)

// BenchmarkTakeoverAfterKill: the time from a kill -9 of the owner to the
// next process owning the workspace (the design says within 2 s). Each
// iteration starts an owner process (not timed), kills it, and times Join.
func BenchmarkTakeoverAfterKill(b *testing.B) {
	root := newRoot(b)
	for b.Loop() {
		b.StopTimer()
		p := startChild(b, "join", root)
		p.expect("owner ")
		p.expect("put ")
		p.kill()
		b.StartTimer()
		s, err := owner.Join(context.Background(), demoOptions(root))
		b.StopTimer()
		require.NoError(b, err)
		require.NotNil(b, s.Owner)
		require.NoError(b, s.Close())
		b.StartTimer()
	}
}

// BenchmarkJoinAsClient: what a CLI command pays to find a live owner and
// become its client (dial, peer check, GET /v1/owner).
func BenchmarkJoinAsClient(b *testing.B) {
	root := newRoot(b)
	s, err := owner.Join(context.Background(), demoOptions(root))
	require.NoError(b, err)
	defer s.Close()
	for b.Loop() {
		c, err := owner.Join(context.Background(), demoOptions(root))
		if err != nil || c.Client == nil {
			b.Fatal(err)
		}
		_ = c.Close()
	}
}
