// Package checks is nova's one runner of check commands: build gates and
// rehearsal scoring both run the configured checks (config `checks:`)
// through it, so a command behaves the same in both.
//
// # Command syntax
//
// A check is a shell command line. Checks come from the user's own
// configuration, never from a model, so they run through the shell (`sh -c`;
// `cmd /C` on Windows) with its whole syntax: `go build ./... && go vet
// ./...`, pipes, quoting, variables. (The runCommand tool that agents call is
// different: it runs one allowlisted command without a shell.) A check
// passes when it exits 0 within its timeout.
//
// # The temporary copy
//
// Checks never run in the workspace. Each run copies the workspace into a
// fresh temporary directory, writes the proposed files there, runs the
// commands in order in that copy and removes it. The copy policy is the same
// for every caller:
//
//   - left out: the directories named in ExcludedDirs wherever they occur
//     (.git, .nova, node_modules, .cache: version control, nova's own state,
//     and dependency and tool caches; a check that needs dependencies
//     installs them, e.g. `npm ci && npm test`), symlinks (the copy must not
//     point back into the workspace) and special files;
//   - bounded: at most Limit.Files files and Limit.Bytes bytes (defaults
//     20,000 files and 256 MiB); a larger workspace gives ErrCopyTooLarge;
//   - proposed paths are confined to the copy (os.Root): "../x" is refused.
package checks

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

// Defaults of a Runner.
const (
	DefaultTimeout   = 2 * time.Minute
	DefaultFiles     = 20000
	DefaultBytes     = 256 << 20
	DefaultMaxOutput = 16 << 10
)

// ExcludedDirs are never copied, at any depth.
var ExcludedDirs = []string{".git", ".nova", "node_modules", ".cache"}

// ErrCopyTooLarge: the workspace exceeds the copy limit.
var ErrCopyTooLarge = errors.New("workspace too large to copy for checks")

// Limit bounds the temporary copy (zero fields take the defaults).
type Limit struct {
	Files int
	Bytes int64
}

func (l Limit) withDefaults() Limit {
	if l.Files <= 0 {
		l.Files = DefaultFiles
	}
	if l.Bytes <= 0 {
		l.Bytes = DefaultBytes
	}
	return l
}

// File is a proposed change written into the copy before the checks run.
type File struct {
	Path    string // slash path relative to the workspace root
	Content string
	Delete  bool
}

// Result is one command's outcome.
type Result struct {
	Command  string `json:"command"`
	Passed   bool   `json:"passed"`
	ExitCode int    `json:"exitCode"`
	TimedOut bool   `json:"timedOut,omitempty"`
	Output   string `json:"output,omitempty"` // stdout and stderr, the first MaxOutput bytes
	Detail   string `json:"detail"`           // "exit 0", "exit status 1", "timed out after 2m0s"
	// NothingRan marks a command that found nothing to run (Go's "matched
	// no packages": a module without packages yet). It is not a failure,
	// and it is not evidence that the changed code ran either.
	NothingRan bool          `json:"nothingRan,omitempty"`
	Duration   time.Duration `json:"duration"`
}

// Runner runs check commands on temporary copies of a workspace.
type Runner struct {
	Root     string
	Commands []string
	// Timeout bounds each command (0 = DefaultTimeout).
	Timeout time.Duration
	Limit   Limit
	// MaxOutput bounds the output kept per command (0 = DefaultMaxOutput).
	MaxOutput int
	// OnCommand, when set, is called before each command starts (progress:
	// "running check: go test ./...").
	OnCommand func(command string)
}

// Run copies the workspace, writes files into the copy and runs every
// command there in order (all of them, even after a failure, so the report
// is complete). The error is for a copy that could not be made or a
// cancelled ctx; failing commands are results.
func (r Runner) Run(ctx context.Context, files []File) ([]Result, error) {
	if len(r.Commands) == 0 {
		return nil, nil
	}
	tmp, err := os.MkdirTemp("", "nova-check-*")
	if err != nil {
		return nil, fmt.Errorf("temporary copy: %w", err)
	}
	// Best-effort cleanup of a scratch copy: the results stand even if some
	// of it cannot be removed.
	defer func() { _ = os.RemoveAll(tmp) }()
	if err := Copy(ctx, r.Root, tmp, r.Limit); err != nil {
		return nil, fmt.Errorf("temporary copy: %w", err)
	}
	if err := Write(tmp, files); err != nil {
		return nil, fmt.Errorf("write the proposed files into the copy: %w", err)
	}
	out := make([]Result, 0, len(r.Commands))
	for _, c := range r.Commands {
		if r.OnCommand != nil {
			r.OnCommand(c)
		}
		res := r.runOne(ctx, tmp, c)
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		out = append(out, res)
	}
	return out, nil
}

// Hash identifies a set of proposed files (order-independent): two callers
// that hash the same changeset get the same value, so results of checks run
// on it can be reused instead of running the commands twice.
func Hash(files []File) string {
	fs := slices.Clone(files)
	slices.SortFunc(fs, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	h := sha256.New()
	for _, f := range fs {
		op := "w"
		if f.Delete {
			op = "d"
		}
		// A hash.Hash never returns a write error.
		_, _ = fmt.Fprintf(h, "%s\x00%s\x00%d\x00", op, f.Path, len(f.Content))
		if !f.Delete {
			_, _ = h.Write([]byte(f.Content))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// MaxLine bounds one check command line.
const MaxLine = 4096

// LineProblem says what is wrong with a check command line written in a
// file (config, a PRD task, a workflow step, a skill): "" when nothing.
func LineProblem(line string) string {
	switch {
	case strings.TrimSpace(line) == "":
		return "a check must not be empty"
	case strings.ContainsRune(line, 0):
		return "a check must not contain a NUL byte"
	case len(line) > MaxLine:
		return fmt.Sprintf("a check is at most %d bytes long, this one has %d", MaxLine, len(line))
	}
	return ""
}

// Passed reports whether every result passed (and there was at least one).
func Passed(rs []Result) bool {
	return len(rs) > 0 && !slices.ContainsFunc(rs, func(r Result) bool { return !r.Passed })
}

// Shell returns the command that runs line through the platform's shell.
func Shell(ctx context.Context, line string) *exec.Cmd {
	if runtime.GOOS == "windows" {
		return exec.CommandContext(ctx, "cmd", "/C", line)
	}
	return exec.CommandContext(ctx, "sh", "-c", line)
}

func (r Runner) runOne(ctx context.Context, dir, line string) Result {
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	maxOut := r.MaxOutput
	if maxOut <= 0 {
		maxOut = DefaultMaxOutput
	}
	res := Result{Command: line, ExitCode: -1}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := Shell(cctx, line)
	cmd.Dir = dir
	cmd.WaitDelay = 2 * time.Second
	var buf bytes.Buffer
	w := &limitWriter{w: &buf, n: maxOut}
	cmd.Stdout, cmd.Stderr = w, w
	start := time.Now()
	err := cmd.Run()
	res.Duration = time.Since(start)
	res.Output = buf.String()
	var ee *exec.ExitError
	switch {
	case errors.Is(cctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
		res.TimedOut = true
		res.Detail = fmt.Sprintf("timed out after %s", timeout)
	case err == nil:
		res.Passed, res.ExitCode, res.Detail = true, 0, "exit 0"
	case errors.As(err, &ee):
		res.ExitCode, res.Detail = ee.ExitCode(), err.Error()
	default:
		res.Detail = err.Error()
	}
	if res.ExitCode == 127 && !res.TimedOut {
		res.Detail = NotFoundDetail
	}
	if nothingToRun(res.Output) {
		res.NothingRan, res.Passed, res.Detail = true, true, "nothing to run: no packages matched"
	}
	return res
}

// NotFoundDetail is the Detail of a check whose command the shell could not
// find (exit status 127): the machine lacks a tool, which is no fault of the
// work being checked.
const NotFoundDetail = "command not found (exit status 127): install it, or change checks: in .nova/config.yaml"

// Missing returns the first result whose command was not found.
func Missing(rs []Result) (Result, bool) {
	for _, r := range rs {
		if !r.Passed && r.Detail == NotFoundDetail {
			return r, true
		}
	}
	return Result{}, false
}

// nothingToRun recognises the go command finding no package to build, test
// or vet ("go: warning: \"./...\" matched no packages", then "no packages to
// test" with exit 1 for go test and go vet).
func nothingToRun(out string) bool {
	if !strings.Contains(out, "matched no packages") {
		return false
	}
	for line := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.Contains(line, "matched no packages") && !strings.HasPrefix(line, "no packages to ") {
			return false
		}
	}
	return true
}

type limitWriter struct {
	w io.Writer
	n int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		_, _ = l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}

// excluded reports whether a directory name is left out of the copy.
func excluded(name string) bool { return slices.Contains(ExcludedDirs, name) }

// Copy copies root into dst under the copy policy (see the package
// comment). The standard library's os.CopyFS follows no exclusions and no
// bounds, hence the walk.
func Copy(ctx context.Context, root, dst string, lim Limit) error {
	lim = lim.withDefaults()
	files, size := 0, int64(0)
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		if rel == "." {
			return nil
		}
		if d.IsDir() {
			if excluded(d.Name()) {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		files++
		size += info.Size()
		if files > lim.Files || size > lim.Bytes {
			return fmt.Errorf("%w (more than %d files or %d bytes)", ErrCopyTooLarge, lim.Files, lim.Bytes)
		}
		return copyFile(p, filepath.Join(dst, rel), info.Mode().Perm())
	})
}

func copyFile(src, dst string, mode fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer func() { _ = in.Close() }()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode|0o200)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}

// Write writes files into dir (a workspace copy), each path confined to dir.
func Write(dir string, files []File) error {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer func() { _ = r.Close() }()
	for _, f := range files {
		rel := filepath.FromSlash(f.Path)
		if f.Delete {
			if err := r.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			continue
		}
		if d := filepath.Dir(rel); d != "." {
			if err := r.MkdirAll(d, 0o755); err != nil {
				return err
			}
		}
		if err := r.WriteFile(rel, []byte(f.Content), 0o644); err != nil {
			return fmt.Errorf("%s: %w", f.Path, err)
		}
	}
	return nil
}
