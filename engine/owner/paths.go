package owner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/nova-dev/nova/engine/workspace"
)

// Names inside .nova/.
const (
	// SocketName is the owner's socket, .nova/nova.sock.
	SocketName = "nova.sock"
	// PointerName holds the socket's path when it lives in the runtime
	// directory because .nova/nova.sock would be too long.
	PointerName = "nova.sock.path"
)

// maxSocketPath is the longest path a Unix socket may have: sun_path is
// 108 bytes on Linux and 104 on the BSDs and macOS, NUL included.
func maxSocketPath() int {
	if runtime.GOOS == "linux" {
		return 107
	}
	return 103
}

// location says where a workspace's socket lives.
type location struct {
	root    string
	primary string // <root>/.nova/nova.sock
	pointer string // <root>/.nova/nova.sock.path
	// fallback is <runtime dir>/<hash>.sock, used when primary is too long.
	fallback string
	long     bool // primary is too long: the socket is the fallback
}

func locate(root string) (location, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return location{}, fmt.Errorf("workspace root: %w", err)
	}
	dir := filepath.Join(abs, workspace.DirName)
	loc := location{
		root:    abs,
		primary: filepath.Join(dir, SocketName),
		pointer: filepath.Join(dir, PointerName),
	}
	loc.long = len(loc.primary) > maxSocketPath()
	if loc.long {
		rd, err := runtimeDir()
		if err != nil {
			return loc, err
		}
		loc.fallback = filepath.Join(rd, socketHash(abs)+".sock")
		if len(loc.fallback) > maxSocketPath() {
			return loc, fmt.Errorf("%w: both %s and %s are longer than a Unix socket allows (%d bytes); set XDG_RUNTIME_DIR or TMPDIR to a shorter directory",
				ErrUnsafeSocket, loc.primary, loc.fallback, maxSocketPath())
		}
	}
	return loc, nil
}

// socket is where this process would listen.
func (l location) socket() string {
	if l.long {
		return l.fallback
	}
	return l.primary
}

func socketHash(root string) string {
	sum := sha256.Sum256([]byte(root))
	return hex.EncodeToString(sum[:8])
}

// runtimeDir is $XDG_RUNTIME_DIR/nova, or <temp dir>/nova-<uid> when
// XDG_RUNTIME_DIR is unset. It is not created here.
func runtimeDir() (string, error) {
	if x := os.Getenv("XDG_RUNTIME_DIR"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "nova"), nil
	}
	return filepath.Join(os.TempDir(), "nova-"+strconv.Itoa(os.Getuid())), nil
}

// ensureRuntimeDir creates the runtime directory (0700) and checks that it
// is ours and closed to others: in a shared temp dir another user could
// have made it first.
func ensureRuntimeDir(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	return checkPrivateDir(dir)
}

func checkPrivateDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSymlink != 0 || !fi.IsDir() {
		return fmt.Errorf("%w: %s is not a directory (a symlink?)", ErrUnsafeSocket, dir)
	}
	if uid, ok := fileUID(fi); ok && uid != os.Getuid() {
		return fmt.Errorf("%w: %s belongs to uid %d, not to you (uid %d)", ErrUnsafeSocket, dir, uid, os.Getuid())
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("%w: %s is open to other users (mode %v); `chmod 700` it", ErrUnsafeSocket, dir, fi.Mode().Perm())
	}
	return nil
}

// errNoSocket: nothing at the socket's path.
var errNoSocket = errors.New("no socket")

// checkSocket refuses a socket path that is a symlink, not a socket, or
// another user's. It returns errNoSocket when nothing is there.
func checkSocket(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return errNoSocket
	}
	if err != nil {
		return fmt.Errorf("check %s: %w", path, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%w: %s is a symlink; nova refuses to follow it (remove it if you did not make it)", ErrUnsafeSocket, path)
	}
	if fi.Mode()&fs.ModeSocket == 0 {
		return fmt.Errorf("%w: %s is not a socket; move it away", ErrUnsafeSocket, path)
	}
	if uid, ok := fileUID(fi); ok && uid != os.Getuid() {
		return fmt.Errorf("%w: %s belongs to uid %d, not to you (uid %d)", ErrUnsafeSocket, path, uid, os.Getuid())
	}
	return nil
}

// findSocket returns the socket a client should dial: .nova/nova.sock, or
// the path in .nova/nova.sock.path (checked to be a nova runtime socket of
// this workspace), or the computed fallback.
func findSocket(loc location) (string, error) {
	if err := checkSocket(loc.primary); !errors.Is(err, errNoSocket) {
		return loc.primary, err
	}
	data, err := os.ReadFile(loc.pointer)
	if err == nil {
		p := strings.TrimSpace(string(data))
		if err := checkPointer(loc, p); err != nil {
			return p, err
		}
		return p, checkSocket(p)
	}
	if loc.long {
		return loc.fallback, checkSocket(loc.fallback)
	}
	return loc.primary, errNoSocket
}

// checkPointer accepts a pointer only to <dir>/<hash of this root>.sock
// where dir is a private nova runtime directory: a pointer file cannot
// send a client to an arbitrary socket.
func checkPointer(loc location, p string) error {
	bad := func(why string) error {
		return fmt.Errorf("%w: %s points to %q, %s; remove the file", ErrUnsafeSocket, loc.pointer, p, why)
	}
	if !filepath.IsAbs(p) || filepath.Clean(p) != p {
		return bad("not a clean absolute path")
	}
	if filepath.Base(p) != socketHash(loc.root)+".sock" {
		return bad("not this workspace's socket")
	}
	dir := filepath.Dir(p)
	if b := filepath.Base(dir); b != "nova" && b != "nova-"+strconv.Itoa(os.Getuid()) {
		return bad("not in a nova runtime directory")
	}
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return errNoSocket // a pointer left from another runtime directory
	}
	return checkPrivateDir(dir)
}

// dialTimeout bounds one connection attempt.
const dialTimeout = time.Second

// dialSocket connects to path and checks the peer is the same user.
func dialSocket(ctx context.Context, path string) (net.Conn, error) {
	d := net.Dialer{Timeout: dialTimeout}
	conn, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOENT) {
			return nil, fmt.Errorf("%w (%s: %w)", ErrNoOwner, path, err)
		}
		return nil, fmt.Errorf("connect to %s: %w", path, err)
	}
	cred, err := peerCred(conn)
	if err == nil && cred.uid != os.Getuid() {
		err = fmt.Errorf("%w: the process serving %s runs as uid %d, not as you (uid %d)", ErrUnsafeSocket, path, cred.uid, os.Getuid())
	}
	if err != nil && !errors.Is(err, errNoPeerCred) {
		_ = conn.Close()
		return nil, err
	}
	return conn, nil
}
