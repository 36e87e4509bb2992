//go:build linux

package tools

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"unsafe"
)

// Landlock, by raw system calls (the standard library's syscall package;
// go-landlock restricts every thread of the calling process, and nova must
// restrict only the command it starts).
//
// How the command alone gets restricted, without re-executing nova as a
// launcher: a goroutine locks itself to its OS thread, restricts that
// thread (no_new_privs, then landlock_restrict_self, both per thread),
// starts the command (fork and exec happen on the calling thread, so the
// child inherits the restriction) and exits without unlocking, which makes
// the Go runtime end the thread. The runtime never clones new threads from a
// locked thread (it hands that to its template thread), so the restriction
// cannot leak into nova's other threads.

const (
	sysLandlockCreateRuleset = 444
	sysLandlockAddRule       = 445
	sysLandlockRestrictSelf  = 446

	landlockCreateRulesetVersion = 1 << 0
	landlockRulePathBeneath      = 1

	prSetNoNewPrivs = 38
)

// Filesystem rights: the ones that change something. Reading and executing
// are not handled, so they stay allowed everywhere.
const (
	llWriteFile  = 1 << 1
	llRemoveDir  = 1 << 4
	llRemoveFile = 1 << 5
	llMakeChar   = 1 << 6
	llMakeDir    = 1 << 7
	llMakeReg    = 1 << 8
	llMakeSock   = 1 << 9
	llMakeFifo   = 1 << 10
	llMakeBlock  = 1 << 11
	llMakeSym    = 1 << 12
	llRefer      = 1 << 13 // ABI 2
	llTruncate   = 1 << 14 // ABI 3

	llNetBindTCP    = 1 << 0 // ABI 4
	llNetConnectTCP = 1 << 1 // ABI 4

	llScopeAbstractUnix = 1 << 0 // ABI 6
	llScopeSignal       = 1 << 1 // ABI 6
)

// landlockRulesetAttr is struct landlock_ruleset_attr (ABI 6 layout; older
// kernels get a shorter size).
type landlockRulesetAttr struct {
	handledFS  uint64
	handledNet uint64
	scoped     uint64
}

// landlockPathBeneath is struct landlock_path_beneath_attr, which is packed
// (12 bytes); Go pads it to 16, the kernel reads the first 12.
type landlockPathBeneath struct {
	allowed  uint64
	parentFd int32
}

var landlockABI = sync.OnceValues(func() (int, error) {
	v, _, errno := syscall.Syscall(sysLandlockCreateRuleset, 0, 0, landlockCreateRulesetVersion)
	if errno != 0 {
		switch errno {
		case syscall.ENOSYS:
			return 0, errors.New("the kernel has no Landlock (Linux 5.13 or later with CONFIG_SECURITY_LANDLOCK)")
		case syscall.EOPNOTSUPP:
			return 0, errors.New("the kernel has Landlock turned off (add landlock to the lsm= boot parameter)")
		}
		return 0, fmt.Errorf("landlock: %w", errno)
	}
	return int(v), nil
})

// writesConfined ends the sandbox's description.
const writesConfined = "writes confined (workspace but .git/ and .nova/, temp dir, caches)"

func sandboxProbe(p SandboxPolicy) SandboxStatus {
	if p.Off {
		return SandboxStatus{Detail: "off (commands.sandbox: off)"}
	}
	abi, err := landlockABI()
	if err != nil {
		return SandboxStatus{Detail: "not available: " + err.Error()}
	}
	st := SandboxStatus{Active: true, ABI: abi, WritesConfined: true}
	switch {
	case p.Network:
		st.Detail = fmt.Sprintf("landlock ABI v%d, network on (commands.network), %s", abi, writesConfined)
	case netnsUsable():
		st.NetworkOff = true
		st.Detail = fmt.Sprintf("landlock ABI v%d, network off (own network namespace, loopback only), %s", abi, writesConfined)
	case seccompUsable():
		st.NetworkOff = true
		st.Detail = fmt.Sprintf("landlock ABI v%d, network off (IP sockets refused by seccomp), %s", abi, writesConfined)
	case abi >= 4:
		st.NetworkOff = true
		st.Detail = fmt.Sprintf("landlock ABI v%d, network off (TCP connect; UDP and MPTCP are not covered without a network namespace), %s", abi, writesConfined)
	default:
		st.Detail = fmt.Sprintf("landlock ABI v%d, network on (TCP rules need ABI v4, Linux 6.7), %s", abi, writesConfined)
	}
	return st
}

// netMode says how a command's network is turned off.
type netMode uint8

const (
	netAuto      netMode = iota // the strongest this machine offers
	netLandlock                 // Landlock's TCP rules only (ABI 4)
	netNamespace                // its own network namespace
	netSeccomp                  // IP sockets refused by a seccomp filter
)

// chooseNetMode picks the strongest way this machine offers.
func chooseNetMode() netMode {
	switch {
	case netnsUsable():
		return netNamespace
	case seccompUsable():
		return netSeccomp
	}
	return netLandlock
}

// seccompUsable reports whether the seccomp filter installs here, probed
// once on a locked thread that is thrown away.
var seccompUsable = sync.OnceValue(func() bool {
	if _, _, ok := seccompArch(); !ok {
		return false
	}
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends filtered
		if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0); errno != 0 {
			done <- errno
			return
		}
		done <- denyIPSockets()
	}()
	return <-done == nil
})

// netnsUsable reports whether nova may give a command its own network
// namespace (CLONE_NEWNET: root or CAP_SYS_ADMIN): no interface but the
// loopback, so no network at all, UDP included. Probed once on a locked
// thread that is thrown away.
var netnsUsable = sync.OnceValue(func() bool {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends in the new namespace
		done <- syscall.Unshare(syscall.CLONE_NEWNET)
	}()
	return <-done == nil
})

// startSandboxed starts cmd restricted by p: writes only beneath writable,
// no network unless p.Network (its own network namespace with a loopback
// where nova may create one; otherwise a seccomp filter refusing IP sockets,
// or at least Landlock's TCP rules). When Landlock is unavailable
// or p.Off, cmd starts unrestricted.
func startSandboxed(cmd *exec.Cmd, p SandboxPolicy, writable []string) error {
	if p.Off {
		return cmd.Start()
	}
	abi, err := landlockABI()
	if err != nil {
		return cmd.Start()
	}
	mode := netLandlock
	switch {
	case p.Network:
	case p.net != netAuto:
		mode = p.net
	default:
		mode = chooseNetMode()
	}
	done := make(chan error, 1)
	go func() {
		// Never unlocked: the thread carries the restriction and must end
		// with this goroutine.
		runtime.LockOSThread()
		if mode == netNamespace {
			// The thread moves to a new network namespace, which the
			// command inherits: only a loopback, brought up so that tests
			// can talk to servers they start; nothing outside is reachable.
			if err := syscall.Unshare(syscall.CLONE_NEWNET); err != nil {
				done <- fmt.Errorf("sandbox: network namespace: %w", err)
				return
			}
			if err := loopbackUp(); err != nil {
				done <- err
				return
			}
		}
		tcpRules := !p.Network && mode != netNamespace
		if err := restrictThread(abi, tcpRules, !p.Network, writable); err != nil {
			done <- err
			return
		}
		if mode == netSeccomp {
			if err := denyIPSockets(); err != nil {
				done <- err
				return
			}
		}
		done <- cmd.Start()
	}()
	return <-done
}

// loopbackUp brings up lo in the calling thread's network namespace
// (SIOCSIFFLAGS with IFF_UP).
func loopbackUp() error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("sandbox: loopback: %w", err)
	}
	defer func() { _ = syscall.Close(fd) }()
	var ifr struct {
		name  [syscall.IFNAMSIZ]byte
		flags uint16
		_     [22]byte // the rest of struct ifreq's union
	}
	copy(ifr.name[:], "lo")
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.SIOCGIFFLAGS, uintptr(unsafe.Pointer(&ifr))); errno != 0 {
		return fmt.Errorf("sandbox: loopback flags: %w", errno)
	}
	ifr.flags |= syscall.IFF_UP
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.SIOCSIFFLAGS, uintptr(unsafe.Pointer(&ifr))); errno != 0 {
		return fmt.Errorf("sandbox: loopback up: %w", errno)
	}
	return nil
}

// restrictThread applies Landlock to the calling thread: writes only
// beneath writable; with tcpRules no TCP bind or connect (ABI 4); with
// scopeUnix no abstract unix sockets outside the sandbox (ABI 6).
func restrictThread(abi int, tcpRules, scopeUnix bool, writable []string) error {
	attr := landlockRulesetAttr{handledFS: llWriteFile | llRemoveDir | llRemoveFile | llMakeChar | llMakeDir |
		llMakeReg | llMakeSock | llMakeFifo | llMakeBlock | llMakeSym}
	size := unsafe.Sizeof(uint64(0))
	if abi >= 2 {
		attr.handledFS |= llRefer
	}
	if abi >= 3 {
		attr.handledFS |= llTruncate
	}
	if abi >= 4 && tcpRules {
		attr.handledNet = llNetBindTCP | llNetConnectTCP
		size = 2 * unsafe.Sizeof(uint64(0))
	}
	if abi >= 6 {
		attr.scoped = llScopeSignal
		if scopeUnix {
			attr.scoped |= llScopeAbstractUnix
		}
		size = unsafe.Sizeof(attr)
	}
	fd, _, errno := syscall.Syscall(sysLandlockCreateRuleset, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return fmt.Errorf("sandbox: create landlock ruleset: %w", errno)
	}
	defer func() { _ = syscall.Close(int(fd)) }()
	for _, dir := range writable {
		if err := addWritable(int(fd), dir, attr.handledFS); err != nil {
			return err
		}
	}
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0); errno != 0 {
		return fmt.Errorf("sandbox: no_new_privs: %w", errno)
	}
	if _, _, errno := syscall.Syscall(sysLandlockRestrictSelf, fd, 0, 0); errno != 0 {
		return fmt.Errorf("sandbox: landlock_restrict_self: %w", errno)
	}
	return nil
}

// addWritable allows the handled rights beneath dir (a missing path is
// skipped). A file (e.g. /dev/null) gets the rights that apply to files.
func addWritable(rulesetFd int, dir string, handled uint64) error {
	// O_PATH (0x200000 on the architectures Go supports but alpha, parisc
	// and sparc, which Go does not) opens without reading: never blocks.
	const oPath = 0x200000
	f, err := os.OpenFile(dir, oPath|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil // missing or unreachable: nothing to allow
	}
	defer func() { _ = f.Close() }()
	allowed := handled
	if fi, err := f.Stat(); err == nil && !fi.IsDir() {
		allowed &= llWriteFile | llTruncate
	}
	rule := landlockPathBeneath{allowed: allowed, parentFd: int32(f.Fd())}
	_, _, errno := syscall.Syscall6(sysLandlockAddRule, uintptr(rulesetFd), landlockRulePathBeneath,
		uintptr(unsafe.Pointer(&rule)), 0, 0, 0)
	runtime.KeepAlive(f)
	if errno != 0 {
		return fmt.Errorf("sandbox: allow writes beneath %s: %w", dir, errno)
	}
	return nil
}
