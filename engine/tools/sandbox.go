package tools

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// SandboxPolicy says how runCommand confines the commands it starts. Where
// the platform offers it (Landlock on Linux) a command may write only
// beneath the workspace's top-level entries (never .git/ or .nova/), the
// temporary directory and the toolchains' caches, and has no network; it
// reads everywhere.
type SandboxPolicy struct {
	// Off runs commands unconfined (commands.sandbox: off).
	Off bool
	// Network leaves the network on (commands.network: true), e.g. for
	// tests that start local servers where nova cannot give the command a
	// namespace with its own loopback (not root).
	Network bool
	// Writable lists the directories besides the workspace where commands
	// may write; nil means DefaultWritable.
	Writable []string

	// net forces how the network is turned off (tests; zero: the
	// strongest way the machine offers).
	net netMode
}

// SandboxStatus says what the sandbox does on this machine.
type SandboxStatus struct {
	Active         bool   `json:"active"`
	ABI            int    `json:"abi,omitempty"`
	NetworkOff     bool   `json:"networkOff"`
	WritesConfined bool   `json:"writesConfined"`
	Detail         string `json:"detail"`
}

// SandboxProbe reports what the sandbox does for p on this machine, e.g.
// "landlock ABI v7, network off (TCP), writes confined" or "not available: …".
func SandboxProbe(p SandboxPolicy) SandboxStatus { return sandboxProbe(p) }

// DefaultWritable lists where sandboxed commands may write besides the
// workspace: the temporary directory, the user's cache directory (go-build,
// pip, …), Go's module cache, npm's cache and the harmless devices. get
// reads the environment the command gets (nil: os.Getenv).
func DefaultWritable(get func(string) string) []string {
	if get == nil {
		get = os.Getenv
	}
	home := get("HOME")
	var out []string
	add := func(p string) {
		if p != "" && filepath.IsAbs(p) {
			out = append(out, filepath.Clean(p))
		}
	}
	if t := get("TMPDIR"); t != "" {
		add(t)
	} else {
		add(os.TempDir())
	}
	add("/tmp")
	add("/var/tmp")
	add("/dev/shm")
	if c := get("XDG_CACHE_HOME"); c != "" {
		add(c)
	} else if home != "" {
		add(filepath.Join(home, ".cache"))
	}
	add(get("GOCACHE"))
	add(get("GOMODCACHE"))
	if gp := get("GOPATH"); gp != "" {
		add(filepath.Join(filepath.SplitList(gp)[0], "pkg", "mod"))
	} else if home != "" {
		add(filepath.Join(home, "go", "pkg", "mod"))
	}
	add(get("npm_config_cache"))
	if home != "" {
		add(filepath.Join(home, ".npm"))
	}
	for _, d := range []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty"} {
		add(d)
	}
	return out
}

// goEnvDirs asks the go command where its caches are (they may be set in
// go's own configuration file rather than the environment), once.
var goEnvDirs = sync.OnceValue(func() []string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "env", "GOCACHE", "GOMODCACHE", "GOTMPDIR").Output()
	if err != nil {
		return nil
	}
	var dirs []string
	for _, l := range strings.Split(string(out), "\n") {
		if l = strings.TrimSpace(l); filepath.IsAbs(l) {
			dirs = append(dirs, l)
		}
	}
	return dirs
})

// maxWorkspaceRules bounds the per-entry rules of workspaceWritable; a root
// with more entries is granted whole.
const maxWorkspaceRules = 1000

// workspaceWritable lists what of the workspace a command may change: every
// top-level entry but .git and .nova (hooks and git's configuration, nova's
// configuration and database: code a command runs must not be able to turn
// the sandbox off or plant a hook that runs outside it) and but symlinks
// (they may point outside). Landlock grants whole hierarchies and cannot
// subtract one, so the root itself gets no rule: a command cannot create or
// delete top-level entries (new files go into existing directories or the
// temp dir).
func workspaceWritable(rootReal string) []string {
	entries, err := os.ReadDir(rootReal)
	if err != nil || len(entries) > maxWorkspaceRules {
		return []string{rootReal}
	}
	var out []string
	for _, e := range entries {
		if e.Name() == ".git" || e.Name() == ".nova" || e.Type()&os.ModeSymlink != 0 {
			continue
		}
		out = append(out, filepath.Join(rootReal, e.Name()))
	}
	return out
}

// sandboxWritable is where a command may write: the workspace (but .git and
// .nova) and the policy's directories (Go's caches as go reports them for go
// commands).
func sandboxWritable(p CommandPolicy, rootReal string, argv []string) []string {
	w := p.Sandbox.Writable
	if w == nil {
		get := p.Getenv
		if get == nil {
			get = os.Getenv
		}
		w = DefaultWritable(get)
		if len(argv) > 0 && argv[0] == "go" {
			w = append(w, goEnvDirs()...)
		}
	}
	return append(workspaceWritable(rootReal), w...)
}
