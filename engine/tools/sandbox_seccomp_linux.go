//go:build linux

package tools

import (
	"fmt"
	"runtime"
	"syscall"
	"unsafe"
)

// A seccomp filter that refuses IP sockets: network off where nova may not
// give the command its own network namespace (a user without CAP_SYS_ADMIN)
// and Landlock's TCP rules leave UDP and MPTCP open. socket(AF_INET or
// AF_INET6, …) fails with EACCES; so does io_uring_setup (io_uring can
// create sockets without the socket system call) and, on amd64, every x32
// system call. Unix sockets stay. Hand-written: the BPF program is 13
// instructions, and go.mod has no seccomp library.

type sockFilter struct {
	code uint16
	jt   uint8
	jf   uint8
	k    uint32
}

type sockFprog struct {
	len    uint16
	filter *sockFilter
}

const (
	bpfLdWAbs = 0x20 // BPF_LD | BPF_W | BPF_ABS
	bpfJeqK   = 0x15 // BPF_JMP | BPF_JEQ | BPF_K
	bpfJgeK   = 0x35 // BPF_JMP | BPF_JGE | BPF_K
	bpfRetK   = 0x06 // BPF_RET | BPF_K

	seccompRetAllow = 0x7fff0000
	seccompRetErrno = 0x00050000

	prSetSeccomp      = 22
	seccompModeFilter = 2

	afInet  = 2
	afInet6 = 10
)

// seccompArch returns the audit arch and the socket system call number of
// this architecture; ok is false where nova has no filter.
func seccompArch() (arch, socketNr uint32, ok bool) {
	switch runtime.GOARCH {
	case "amd64":
		return 0xC000003E, 41, true
	case "arm64":
		return 0xC00000B7, 198, true
	}
	return 0, 0, false
}

const sysIoUringSetup = 425 // the same on amd64 and arm64

// denyIPSockets installs the filter on the calling thread (no_new_privs
// must be set); children started from the thread inherit it.
func denyIPSockets() error {
	arch, socketNr, ok := seccompArch()
	if !ok {
		return fmt.Errorf("sandbox: no seccomp filter for %s", runtime.GOARCH)
	}
	deny := seccompRetErrno | uint32(syscall.EACCES)
	prog := []sockFilter{
		/* 0 */ {bpfLdWAbs, 0, 0, 4}, // arch
		/* 1 */ {bpfJeqK, 1, 0, arch},
		/* 2 */ {bpfRetK, 0, 0, deny},
		/* 3 */ {bpfLdWAbs, 0, 0, 0}, // nr
		/* 4 */ {bpfJgeK, 7, 0, 0x40000000}, // x32
		/* 5 */ {bpfJeqK, 2, 0, socketNr},
		/* 6 */ {bpfJeqK, 5, 0, sysIoUringSetup},
		/* 7 */ {bpfRetK, 0, 0, seccompRetAllow},
		/* 8 */ {bpfLdWAbs, 0, 0, 16}, // args[0], low half
		/* 9 */ {bpfJeqK, 2, 0, afInet},
		/* 10 */ {bpfJeqK, 1, 0, afInet6},
		/* 11 */ {bpfRetK, 0, 0, seccompRetAllow},
		/* 12 */ {bpfRetK, 0, 0, deny},
	}
	fprog := sockFprog{len: uint16(len(prog)), filter: &prog[0]}
	_, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetSeccomp, seccompModeFilter, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	if errno != 0 {
		return fmt.Errorf("sandbox: seccomp filter: %w", errno)
	}
	return nil
}
