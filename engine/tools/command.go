package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Command defaults.
const (
	DefaultCommandTimeout = 2 * time.Minute
	DefaultMaxOutput      = 64 << 10
	// ApprovalAutonomy is the autonomy level from which runCommand no
	// longer asks before running an allowlisted command.
	ApprovalAutonomy = 4
)

// PassEnv lists the environment variables a command inherits by default:
// what toolchains need to find themselves and their caches, nothing that
// usually carries secrets.
var PassEnv = []string{
	"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "TMPDIR", "TZ",
	"GOPATH", "GOROOT", "GOCACHE", "GOMODCACHE", "GOPROXY", "GOFLAGS", "GOTOOLCHAIN",
	"GONOSUMDB", "GONOPROXY", "GOPRIVATE", "GOSUMDB", "CGO_ENABLED",
	"NODE_PATH", "npm_config_cache",
}

// SplitCommand splits a command line into argv the way a shell would split
// plain words: whitespace separates words; single quotes, double quotes and
// backslashes quote. Nothing is expanded. Shell syntax outside quotes
// (| & ; < > ( ) $ ` and line breaks) is refused with ErrPolicyDenied:
// commands run without a shell, so such syntax could only mislead. An
// unbalanced quote is ErrInvalidArgs.
//
// Hand-written: the standard library has no shell-word splitter and go.mod
// carries none.
func SplitCommand(s string) ([]string, error) {
	var argv []string
	var cur strings.Builder
	inWord := false
	var quote rune
	escaped := false
	for _, r := range s {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped = false
			inWord = true
		case quote != 0:
			switch {
			case r == quote:
				quote = 0
			case r == '\\' && quote == '"':
				escaped = true
			default:
				cur.WriteRune(r)
			}
		case r == '\\':
			escaped = true
		case r == '\'' || r == '"':
			quote = r
			inWord = true
		case r == ' ' || r == '\t':
			if inWord {
				argv = append(argv, cur.String())
				cur.Reset()
				inWord = false
			}
		case strings.ContainsRune("|&;<>()$`\n\r", r):
			return nil, denied("shell syntax %q is not supported: commands run without a shell (one command, no pipes, redirections or variables)", string(r))
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 || escaped {
		return nil, invalid("runCommand: unbalanced quote or trailing backslash in %q", s)
	}
	if inWord {
		argv = append(argv, cur.String())
	}
	if len(argv) == 0 {
		return nil, invalid("runCommand: empty command")
	}
	return argv, nil
}

var approvalSeq atomic.Uint64

// NewApprovalID returns a process-unique approval request id.
func NewApprovalID() string {
	return fmt.Sprintf("approval-%d", approvalSeq.Add(1))
}

func runCommand(ctx context.Context, env *Env, raw json.RawMessage) (Output, error) {
	a, err := decodeArgs[struct {
		Command string `json:"command"`
		Dir     string `json:"dir"`
	}](raw)
	if err != nil {
		return Output{}, err
	}
	argv, err := SplitCommand(a.Command)
	if err != nil {
		return Output{}, err
	}
	line := strings.Join(argv, " ")
	pol := env.Commands
	if _, ok := pol.Allowed(argv); !ok {
		allow := "none configured"
		if len(pol.Allow) > 0 {
			allow = strings.Join(pol.Allow, ", ")
		}
		return Output{}, denied("`%s` is not on the command allowlist (commands.allow in .nova/config.yaml: %s)", line, allow)
	}
	dirRel, dirAbs, err := ConfineRel(env.Root, a.Dir)
	if err != nil {
		return Output{}, err
	}
	if fi, err := os.Stat(dirAbs); err != nil || !fi.IsDir() {
		return Output{}, fmt.Errorf("%w: %s is not a directory", ErrFileNotFound, dirRel)
	}
	verdict := pol.CheckArgv(env.Root, dirRel, argv)
	if env.Autonomy < ApprovalAutonomy || !verdict.Safe {
		reason := fmt.Sprintf("autonomy %d asks before running commands (from %d it does not)", env.Autonomy, ApprovalAutonomy)
		if !verdict.Safe {
			reason = verdict.Reason + "; a command whose arguments nova cannot vouch for is asked at every autonomy level"
		}
		if env.Approve == nil {
			return Output{}, denied("running `%s` needs approval (%s) and nobody can answer", line, reason)
		}
		req := ApprovalRequest{
			ID: NewApprovalID(), RunID: env.RunID, Agent: env.Agent, Tool: NameRunCommand,
			Command: line, Dir: dirRel, Reason: reason,
		}
		if !verdict.Safe {
			req.Unvetted = verdict.Reason
		}
		ok, err := env.Approve(ctx, req)
		if err != nil {
			if ctx.Err() != nil {
				return Output{}, ctx.Err()
			}
			return Output{}, denied("approval of `%s` failed: %v", line, err)
		}
		if !ok {
			if !verdict.Safe {
				return Output{}, denied("the user declined to run `%s` (%s)", line, verdict.Reason)
			}
			return Output{}, denied("the user declined to run `%s`", line)
		}
	}

	timeout := pol.Timeout
	if timeout <= 0 {
		timeout = DefaultCommandTimeout
	}
	maxOut := pol.MaxOutput
	if maxOut <= 0 {
		maxOut = DefaultMaxOutput
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, argv[0], argv[1:]...)
	cmd.Dir = dirAbs
	cmd.Env = commandEnv(pol)
	out := &cappedBuffer{max: maxOut}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = 2 * time.Second
	setProcessGroup(cmd)
	rootReal, err := RealRoot(env.Root)
	if err != nil {
		return Output{}, err
	}
	runErr := startSandboxed(cmd, pol.Sandbox, sandboxWritable(pol, rootReal, argv))
	if runErr == nil {
		runErr = cmd.Wait()
	}

	text := out.String()
	if out.dropped > 0 {
		text += fmt.Sprintf("\n[output capped at %d bytes; %d more bytes dropped]", maxOut, out.dropped)
	}
	switch {
	case ctx.Err() != nil:
		return Output{}, ctx.Err()
	case cctx.Err() != nil:
		return Output{}, fmt.Errorf("%w: `%s` did not finish within %s; output so far:\n%s", ErrToolTimeout, line, timeout, text)
	}
	code := 0
	var ee *exec.ExitError
	switch {
	case runErr == nil:
	case errors.As(runErr, &ee):
		code = ee.ExitCode()
	case errors.Is(runErr, exec.ErrNotFound):
		return Output{}, fmt.Errorf("`%s`: command %q not found on PATH", line, argv[0])
	default:
		return Output{}, fmt.Errorf("`%s`: %w", line, runErr)
	}
	body := strings.TrimRight(text, "\n")
	if body == "" {
		body = "(no output)"
	}
	return Output{
		Text:     fmt.Sprintf("$ %s\nexit code %d\n%s", line, code, body),
		Evidence: []Evidence{{Kind: "command", Command: line, ExitCode: &code}},
		Failed:   code != 0,
	}, nil
}

func commandEnv(p CommandPolicy) []string {
	names := p.Env
	if names == nil {
		names = PassEnv
	}
	get := p.Getenv
	if get == nil {
		get = os.Getenv
	}
	env := make([]string, 0, len(names))
	for _, n := range names {
		if v := get(n); v != "" {
			env = append(env, n+"="+v)
		}
	}
	return env
}

// cappedBuffer keeps the first max bytes written and counts the rest.
type cappedBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	max     int
	dropped int
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	room := c.max - c.buf.Len()
	if room >= len(p) {
		c.buf.Write(p)
		return len(p), nil
	}
	if room > 0 {
		c.buf.Write(p[:room])
	}
	c.dropped += len(p) - max(room, 0)
	return len(p), nil
}

func (c *cappedBuffer) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.ToValidUTF8(c.buf.String(), "\uFFFD")
}
