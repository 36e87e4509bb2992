package owner

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nova-dev/nova/engine/workspace"
	"github.com/nova-dev/nova/storage"
)

// The environment of a hand-over's new owner. Handover sets them; Join in
// Takeover mode reads them (and removes them, so that its own children do
// not inherit them).
const (
	// EnvHandoverFD is the file descriptor of the pipe on which the new
	// owner reports to the old one ("waiting <pid>", then "serving <pid>
	// <socket>" or "failed <reason>").
	EnvHandoverFD = "NOVA_HANDOVER_FD"
	// EnvHandoverFrom is the old owner's pid.
	EnvHandoverFrom = "NOVA_HANDOVER_FROM"
	// LogName is the new owner's log, .nova/serve.log, unless the
	// command's output is set.
	LogName = "serve.log"
)

// HandoverOptions configures Handover.
type HandoverOptions struct {
	// Command starts the new owner, e.g. exec.Command(os.Executable(),
	// "serve", "--workspace", root): a process that calls Join with Mode
	// Takeover (`nova serve` does when EnvHandoverFD is set). Handover adds
	// the report pipe and the environment, starts it in its own session,
	// and sends its output to .nova/serve.log unless Stdout/Stderr are set.
	Command *exec.Cmd
	// Stop runs after this process stopped serving and before it releases
	// the database: stop the work in progress so that it is resumable
	// (builds become interrupted), for the new owner to resume.
	Stop func(ctx context.Context) error
	// Timeout bounds each step: the new owner's start, and its taking
	// over after the release (default 15 s).
	Timeout time.Duration
}

// HandoverError is a hand-over that did not complete. Released says
// whether this process had already released the workspace (then nobody
// owns it until the next nova starts, which takes over by itself).
type HandoverError struct {
	Released bool
	Err      error
}

func (e *HandoverError) Error() string {
	if e.Released {
		return fmt.Sprintf("hand-over: %v; nobody serves the workspace now: the next nova command takes it over, and interrupted builds resume with `nova build resume`", e.Err)
	}
	return fmt.Sprintf("hand-over: %v; this nova still owns the workspace", e.Err)
}

func (e *HandoverError) Unwrap() error { return e.Err }

// Handover gives the workspace to a new owner started for it (a headless
// `nova serve`), so that this process can exit while a build runs or
// clients are attached (DESIGN, "Many windows"):
//
//  1. start the new owner; it reports "waiting" before it blocks on the
//     database lock (a failure here leaves this process the owner);
//  2. stop serving: the socket goes away, streams end, in-flight calls
//     get stopGrace to finish; clients wait for the new owner by
//     themselves (rpc's reconnect window);
//  3. opts.Stop (make the work resumable), then close the workspace,
//     releasing the lock;
//  4. the new owner opens the database, serves, reports "serving"; its
//     Info is returned. Clients reconnect and re-subscribe transparently.
//
// The Owner is closed afterwards, whatever the outcome of step 4.
func (o *Owner[T]) Handover(ctx context.Context, opts HandoverOptions) (Info, error) {
	if opts.Command == nil {
		return Info{}, &HandoverError{Err: errors.New("no command to start the new owner")}
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 15 * time.Second
	}
	cmd := opts.Command
	r, w, err := os.Pipe()
	if err != nil {
		return Info{}, &HandoverError{Err: err}
	}
	defer func() { _ = r.Close() }()
	cmd.ExtraFiles = append(cmd.ExtraFiles, w)
	fd := 2 + len(cmd.ExtraFiles)
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, EnvHandoverFD+"="+strconv.Itoa(fd), EnvHandoverFrom+"="+strconv.Itoa(os.Getpid()))
	var logFile *os.File
	if cmd.Stdout == nil || cmd.Stderr == nil {
		logFile, err = os.OpenFile(filepath.Join(o.loc.root, workspace.DirName, LogName), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			_ = w.Close()
			return Info{}, &HandoverError{Err: fmt.Errorf("open the new owner's log: %w", err)}
		}
		defer func() { _ = logFile.Close() }()
		if cmd.Stdout == nil {
			cmd.Stdout = logFile
		}
		if cmd.Stderr == nil {
			cmd.Stderr = logFile
		}
	}
	detach(cmd)
	err = cmd.Start()
	_ = w.Close() // the child holds the write end now
	if err != nil {
		return Info{}, &HandoverError{Err: fmt.Errorf("start the new owner: %w", err)}
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	lines := bufio.NewReader(r)

	line, err := readReport(r, lines, opts.Timeout)
	if err != nil || !strings.HasPrefix(line, "waiting ") {
		_ = cmd.Process.Kill()
		return Info{}, &HandoverError{Err: fmt.Errorf("the new owner did not start: %s", why(line, err, exited))}
	}

	// Clients find no owner until the new one serves: the marker keeps
	// them from taking the workspace themselves meanwhile (a CLI client
	// adopting it, a TUI client rejoining), so that the new owner, which
	// resumes the builds, is the one that gets it.
	marker := handoverMarker(o.loc)
	if err := os.WriteFile(marker, []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o600); err != nil {
		o.logf("nova: hand-over: write %s: %v", marker, err)
	}
	defer func() { _ = os.Remove(marker) }()
	o.stopServing()
	var stopErr error
	if opts.Stop != nil {
		stopErr = opts.Stop(ctx)
	}
	closeErr := o.Close() // releases the lock; the new owner takes it

	line, err = readReport(r, lines, opts.Timeout)
	if err != nil || !strings.HasPrefix(line, "serving ") {
		return Info{}, &HandoverError{Released: true, Err: fmt.Errorf("the new owner did not take over: %s", why(line, err, exited))}
	}
	if err := errors.Join(stopErr, closeErr); err != nil {
		o.logf("nova: hand-over: %v", err)
	}
	info, err := Probe(ctx, o.loc.root, o.opts.Version)
	if err != nil {
		return Info{}, &HandoverError{Released: true, Err: fmt.Errorf("the new owner does not answer: %w", err)}
	}
	return info, nil
}

// handoverMarker is .nova/nova.handover: the pid of a hand-over's new
// owner, while a hand-over is under way.
func handoverMarker(loc location) string {
	return filepath.Join(loc.root, workspace.DirName, "nova.handover")
}

// markerTTL bounds how long a hand-over marker is believed (its old owner
// may have died before removing it).
const markerTTL = 45 * time.Second

// handingOver reports whether a hand-over to another live process is under
// way on the workspace: the process that should own it next is not this
// one, and others wait for it instead of owning the workspace themselves.
func handingOver(loc location) bool {
	path := handoverMarker(loc)
	fi, err := os.Stat(path)
	if err != nil || time.Since(fi.ModTime()) > markerTTL {
		return false
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 || pid == os.Getpid() {
		return false
	}
	return alive(pid)
}

func why(line string, err error, exited <-chan error) string {
	select {
	case werr := <-exited:
		if line == "" {
			return fmt.Sprintf("it exited (%v); see .nova/%s", werr, LogName)
		}
	default:
	}
	if line != "" {
		return strings.TrimPrefix(line, "failed ")
	}
	return fmt.Sprintf("%v; see .nova/%s", err, LogName)
}

func readReport(r *os.File, lines *bufio.Reader, timeout time.Duration) (string, error) {
	_ = r.SetReadDeadline(time.Now().Add(timeout))
	line, err := lines.ReadString('\n')
	line = strings.TrimSpace(line)
	if err != nil && line == "" {
		if errors.Is(err, io.EOF) {
			return "", errors.New("it closed its report pipe")
		}
		return "", err
	}
	return line, nil
}

// handoverReport returns the pipe to the old owner, when this process was
// started by Handover.
func handoverReport() (*os.File, int) {
	fdText := os.Getenv(EnvHandoverFD)
	if fdText == "" {
		return nil, 0
	}
	from, _ := strconv.Atoi(os.Getenv(EnvHandoverFrom))
	_ = os.Unsetenv(EnvHandoverFD)
	_ = os.Unsetenv(EnvHandoverFrom)
	fd, err := strconv.Atoi(fdText)
	if err != nil || fd < 3 {
		return nil, from
	}
	return os.NewFile(uintptr(fd), "handover"), from
}

// IsTakeover reports whether this process was started by Handover (so
// `nova serve` should Join with Mode Takeover).
func IsTakeover() bool { return os.Getenv(EnvHandoverFD) != "" }

// takeover waits for the old owner's lock, then serves.
func takeover[T io.Closer](ctx context.Context, loc location, opts Options[T]) (*Session[T], error) {
	report, from := handoverReport()
	say := func(format string, args ...any) {
		if report != nil {
			_, _ = fmt.Fprintf(report, format+"\n", args...)
		}
	}
	if report != nil {
		defer func() { _ = report.Close() }()
	}
	say("waiting %d", os.Getpid())
	deadline := time.Now().Add(opts.TakeoverWait)
	for {
		o, err := own(ctx, loc, opts, 250*time.Millisecond)
		if err == nil {
			say("serving %d %s", os.Getpid(), o.sock)
			return &Session[T]{Owner: o, Info: o.Info(), opts: opts}, nil
		}
		if !errors.Is(err, storage.ErrInUse) {
			say("failed %s", oneLine(err))
			return nil, err
		}
		// Someone else than the old owner serves: the workspace has an
		// owner, this hand-over is moot.
		if c, info, cerr := connect(ctx, loc, opts); cerr == nil {
			_ = c.Close()
			if info.PID != from {
				err := fmt.Errorf("%w by nova pid %d, which took the workspace first", ErrAlreadyServed, info.PID)
				say("failed %s", oneLine(err))
				return nil, err
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			err := fmt.Errorf("waited %s for the workspace: %w", opts.TakeoverWait, errors.Join(ctx.Err(), err))
			say("failed %s", oneLine(err))
			return nil, err
		}
	}
}

func oneLine(err error) string { return strings.ReplaceAll(err.Error(), "\n", " ") }

// ServeCommand is the command of a headless owner for the workspace at
// root: this executable, `serve --workspace ROOT` (the Command of a
// hand-over from the TUI).
func ServeCommand(root string) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find nova's executable: %w", err)
	}
	return exec.Command(exe, "serve", "--workspace", root), nil
}
