//go:build linux

package tools

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSandboxHelperProcess is the sandboxed child of TestSandboxConfines
// (the test binary run again); it does nothing in a normal test run.
func TestSandboxHelperProcess(t *testing.T) {
	if os.Getenv("NOVA_SANDBOX_HELPER") != "1" {
		t.Skip("helper process only")
	}
	try := func(name string, err error) {
		if err != nil {
			fmt.Printf("%s: denied %v\n", name, errors.Is(err, os.ErrPermission) || strings.Contains(err.Error(), "permission denied"))
			return
		}
		fmt.Printf("%s: ok\n", name)
	}
	try("write-inside", os.WriteFile(filepath.Join(os.Getenv("INSIDE"), "f"), []byte("x"), 0o600))
	try("write-outside", os.WriteFile(filepath.Join(os.Getenv("OUTSIDE"), "f"), []byte("x"), 0o600))
	try("mkdir-outside", os.Mkdir(filepath.Join(os.Getenv("OUTSIDE"), "d"), 0o700))
	try("remove-outside", os.Remove(filepath.Join(os.Getenv("OUTSIDE"), "keep")))
	_, err := os.ReadFile(filepath.Join(os.Getenv("OUTSIDE"), "keep"))
	try("read-outside", err)
	c, err := net.Dial("tcp", os.Getenv("ADDR"))
	if err == nil {
		c.Close()
	}
	try("connect", err)
	u, err := net.Dial("udp", "192.0.2.1:53") // TEST-NET-1: never answers
	if err == nil {
		_, err = u.Write([]byte("x"))
		u.Close()
	}
	try("udp", err)
	ll, err := net.Listen("tcp", "127.0.0.1:0")
	if err == nil {
		var c net.Conn
		c, err = net.Dial("tcp", ll.Addr().String())
		if err == nil {
			c.Close()
		}
		ll.Close()
	}
	try("loopback", err)
}

func TestSandboxConfinesWritesAndNetwork(t *testing.T) {
	t.Parallel()
	st := SandboxProbe(SandboxPolicy{})
	if !st.Active {
		t.Skip(st.Detail)
	}
	inside, outside := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "keep"), []byte("k"), 0o600))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()

	run := func(p SandboxPolicy) string {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSandboxHelperProcess$", "-test.v=false")
		cmd.Env = append(os.Environ(), "NOVA_SANDBOX_HELPER=1", "INSIDE="+inside, "OUTSIDE="+outside, "ADDR="+l.Addr().String())
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		require.NoError(t, startSandboxed(cmd, p, []string{inside, "/dev/null"}))
		require.NoError(t, cmd.Wait(), out.String())
		return out.String()
	}
	out := run(SandboxPolicy{})
	assert.Contains(t, out, "write-inside: ok")
	assert.Contains(t, out, "write-outside: denied true")
	assert.Contains(t, out, "mkdir-outside: denied true")
	assert.Contains(t, out, "remove-outside: denied true")
	assert.Contains(t, out, "read-outside: ok", "reads stay allowed")
	switch {
	case netnsUsable():
		// Its own network namespace: nothing is reachable, UDP included,
		// but the command's own loopback works (tests start servers).
		assert.Contains(t, out, "connect: denied")
		assert.Contains(t, out, "udp: denied")
		assert.Contains(t, out, "loopback: ok")
	case st.ABI >= 4:
		assert.Contains(t, out, "connect: denied true")
	}
	assert.FileExists(t, filepath.Join(outside, "keep"))
	assert.NoFileExists(t, filepath.Join(outside, "f"))

	// Where nova may not create a network namespace, a seccomp filter
	// refuses IP sockets (UDP included).
	if seccompUsable() {
		out = run(SandboxPolicy{net: netSeccomp})
		assert.Contains(t, out, "connect: denied true")
		assert.Contains(t, out, "udp: denied true")
		assert.Contains(t, out, "write-outside: denied true")
		assert.Contains(t, out, "write-inside: ok")
	}

	out = run(SandboxPolicy{Network: true})
	assert.Contains(t, out, "connect: ok")
	assert.Contains(t, out, "write-outside: denied true")

	// nova itself stays unrestricted: this process still writes anywhere.
	require.NoError(t, os.WriteFile(filepath.Join(outside, "parent"), []byte("p"), 0o600))
}
