package owner_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/nova-dev/nova/engine/owner"
)

// FuzzPointerFile: whatever .nova/nova.sock.path holds, a client never
// follows it anywhere but a nova runtime socket of this workspace, and
// never panics.
func FuzzPointerFile(f *testing.F) {
	for _, s := range []string{"", "/tmp/x.sock\n", "../../etc/passwd", "/run/user/0/nova/0123456789abcdef.sock", "\x00", "relative/nova/x.sock"} {
		f.Add(s)
	}
	root := newRoot(f)
	pointer := filepath.Join(root, ".nova", owner.PointerName)
	dial, err := owner.Dialer(root)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, content string) {
		if err := os.WriteFile(pointer, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		conn, err := dial(context.Background())
		if err == nil {
			_ = conn.Close()
			t.Fatalf("dialled through pointer %q", content)
		}
		if !errors.Is(err, owner.ErrUnsafeSocket) && !errors.Is(err, owner.ErrNoOwner) {
			t.Fatalf("pointer %q: unexpected error %v", content, err)
		}
	})
}
