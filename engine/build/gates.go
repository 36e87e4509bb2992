package build

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/tools"
)

// Gate names.
const (
	GateOutput      = "output"
	GateConfinement = "confinement"
	GateCheck       = "check" // "check: <command>"
	GateJudge       = "judge"
)

// CopyLimit bounds the temporary workspace copy the checks run on.
type CopyLimit struct {
	Files int   // default 20 000
	Bytes int64 // default 256 MiB
}

// ErrCopyTooLarge: the workspace exceeds CopyLimit.
var ErrCopyTooLarge = errors.New("workspace too large to copy for checks")

// maxGateOutput bounds the command output kept per gate.
const maxGateOutput = 16 << 10

// gate runs the gates on an attempt. A failed execution still gets the
// output gate (with the failure) so the record says why.
func (e *Engine) gate(ctx context.Context, b Build, t Task, res attemptResult) []GateResult {
	gs := []GateResult{outputGate(res)}
	var cs changes.Changeset
	if res.changesetID != 0 {
		var err error
		cs, err = e.d.Changes.Get(ctx, res.changesetID)
		if err != nil {
			gs = append(gs, GateResult{Name: GateConfinement, Detail: "changeset: " + err.Error()})
			return gs
		}
	}
	conf := confinementGate(e.cfg.Root, cs)
	gs = append(gs, conf)
	if res.failure != "" || !gs[0].Passed || !conf.Passed {
		return gs // checks and judge would only repeat the failure
	}
	if !b.SkipChecks {
		gs = append(gs, e.checkGates(ctx, cs)...)
	}
	if e.cfg.Judge {
		gs = append(gs, e.judgeGate(ctx, t, res, cs))
	}
	return gs
}

// combine scores the gates: the mean of the scores of the gates that ran;
// the attempt passes when every one passed. reason names the failures.
func combine(gs []GateResult) (score float64, passed bool, reason string) {
	n := 0
	passed = true
	var why []string
	for _, g := range gs {
		if g.Skipped {
			continue
		}
		n++
		score += g.Score
		if !g.Passed {
			passed = false
			msg := g.Name + " gate failed"
			if g.Detail != "" {
				msg += ": " + g.Detail
			}
			if g.Output != "" {
				msg += "\n" + tail(g.Output, 1500)
			}
			why = append(why, msg)
		}
	}
	if n > 0 {
		score /= float64(n)
	}
	return score, passed, strings.Join(why, "\n")
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && s[i]&0xC0 == 0x80 {
		i++
	}
	return "…" + s[i:]
}

// outputGate: the output is non-empty, and parses when it is JSON (a JSON
// document, or a ```json fenced block).
func outputGate(res attemptResult) GateResult {
	g := GateResult{Name: GateOutput}
	out := strings.TrimSpace(res.output)
	switch {
	case res.failure != "":
		g.Detail = res.failure
	case out == "":
		g.Detail = "the agent produced no output"
	default:
		if err := jsonProblem(out); err != "" {
			g.Detail = err
			break
		}
		g.Passed, g.Score = true, 1
	}
	return g
}

// jsonProblem reports why output that claims to be JSON does not parse.
func jsonProblem(out string) string {
	if (out[0] == '{' || out[0] == '[') && !json.Valid([]byte(out)) {
		var v any
		err := json.Unmarshal([]byte(out), &v)
		return fmt.Sprintf("output looks like JSON but does not parse: %v", err)
	}
	rest := out
	for {
		i := strings.Index(rest, "```json")
		if i < 0 {
			return ""
		}
		rest = rest[i+len("```json"):]
		j := strings.Index(rest, "```")
		if j < 0 {
			return "unterminated ```json block"
		}
		block := strings.TrimSpace(rest[:j])
		if block != "" && !json.Valid([]byte(block)) {
			var v any
			err := json.Unmarshal([]byte(block), &v)
			return fmt.Sprintf("```json block does not parse: %v", err)
		}
		rest = rest[j+3:]
	}
}

// confinementGate: every staged path resolves inside the workspace and
// outside .nova/ and .git/.
func confinementGate(root string, cs changes.Changeset) GateResult {
	g := GateResult{Name: GateConfinement}
	start := time.Now()
	var bad []string
	for _, f := range cs.Files {
		rel, _, err := tools.ConfineRel(root, f.Path)
		if err != nil {
			bad = append(bad, err.Error())
			continue
		}
		first, _, _ := strings.Cut(rel, "/")
		if first == ".nova" || first == ".git" || rel == "." {
			bad = append(bad, fmt.Sprintf("%q is reserved", f.Path))
		}
	}
	g.Duration = time.Since(start)
	if len(bad) > 0 {
		g.Detail = strings.Join(bad, "; ")
		return g
	}
	g.Passed, g.Score = true, 1
	g.Detail = fmt.Sprintf("%d staged path(s) inside the workspace", len(cs.Files))
	return g
}

// checkGates runs each configured check command on a temporary copy of the
// workspace with the changeset applied. One gate per command.
func (e *Engine) checkGates(ctx context.Context, cs changes.Changeset) []GateResult {
	if len(e.cfg.Checks) == 0 {
		return nil
	}
	tmp, err := os.MkdirTemp("", "nova-check-*")
	if err != nil {
		return []GateResult{{Name: GateCheck, Detail: "temporary copy: " + err.Error()}}
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	if err := CopyWorkspace(ctx, e.cfg.Root, tmp, e.cfg.CopyLimit); err != nil {
		return []GateResult{{Name: GateCheck, Detail: "temporary copy: " + err.Error()}}
	}
	if err := ApplyTo(tmp, cs); err != nil {
		return []GateResult{{Name: GateCheck, Detail: "apply changeset to the copy: " + err.Error()}}
	}
	var out []GateResult
	for _, c := range e.cfg.Checks {
		out = append(out, runCheck(ctx, tmp, c, e.cfg.CheckTimeout))
	}
	return out
}

func runCheck(ctx context.Context, dir, command string, timeout time.Duration) GateResult {
	g := GateResult{Name: GateCheck + ": " + command}
	argv, err := tools.SplitCommand(command)
	if err != nil || len(argv) == 0 {
		g.Detail = fmt.Sprintf("bad check command %q: %v", command, err)
		return g
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.WaitDelay = 2 * time.Second
	var buf bytes.Buffer
	w := &limitWriter{w: &buf, n: maxGateOutput}
	cmd.Stdout, cmd.Stderr = w, w
	start := time.Now()
	err = cmd.Run()
	g.Duration = time.Since(start)
	g.Output = buf.String()
	switch {
	case cctx.Err() == context.DeadlineExceeded:
		g.Detail = fmt.Sprintf("timed out after %s", timeout)
	case err != nil:
		g.Detail = err.Error()
	default:
		g.Passed, g.Score = true, 1
		g.Detail = "exit 0"
	}
	return g
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

// CopyWorkspace copies root into dst, leaving out .nova/ and .git/,
// symlinks and special files, within lim. The standard library's
// os.CopyFS follows no exclusions and no bounds, hence the walk.
func CopyWorkspace(ctx context.Context, root, dst string, lim CopyLimit) error {
	if lim.Files <= 0 {
		lim.Files = 20000
	}
	if lim.Bytes <= 0 {
		lim.Bytes = 256 << 20
	}
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
			if name := d.Name(); rel == ".nova" || rel == ".git" || name == ".git" {
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

// ApplyTo writes a changeset's pending files into dir (a workspace copy),
// each path confined to dir.
func ApplyTo(dir string, cs changes.Changeset) error {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer func() { _ = r.Close() }()
	for _, f := range cs.Files {
		if f.Status == changes.FileDiscarded {
			continue
		}
		rel := filepath.FromSlash(f.Path)
		if f.Op == changes.OpDelete {
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
		if err := r.WriteFile(rel, []byte(f.Proposed), 0o644); err != nil {
			return fmt.Errorf("%s: %w", f.Path, err)
		}
	}
	return nil
}

// judgeSchema is the MERCURY judge's structured reply.
var judgeSchema = []byte(`{"type":"object","properties":{"score":{"type":"number","minimum":0,"maximum":1},"passed":{"type":"boolean"},"reason":{"type":"string"}},"required":["score","passed","reason"]}`)

type judgeReply struct {
	Score  float64 `json:"score"`
	Passed bool    `json:"passed"`
	Reason string  `json:"reason"`
}

// judgeGate asks MERCURY whether the output and the diff do the task.
func (e *Engine) judgeGate(ctx context.Context, t Task, res attemptResult, cs changes.Changeset) GateResult {
	g := GateResult{Name: GateJudge}
	if e.d.LLM == nil || e.cfg.JudgeModel == "" {
		g.Skipped, g.Detail = true, "no judge model configured"
		return g
	}
	start := time.Now()
	var sb strings.Builder
	fmt.Fprintf(&sb, "You are MERCURY, nova's reviewer. Judge whether this work completes the task.\n\n%s\n%s\n\nAgent output:\n%s\n",
		TaskHeader(t.ID, t.Title), t.Description, truncateRunes(res.output, 6000))
	if len(cs.Files) > 0 {
		sb.WriteString("\nStaged diff:\n" + truncateRunes(cs.Diff(), 12000))
	}
	var jr judgeReply
	_, err := llm.Structured(ctx, e.d.LLM, llm.ChatRequest{Model: e.cfg.JudgeModel,
		Messages: []llm.Message{{Role: "user", Content: sb.String()}}}, judgeSchema, &jr)
	g.Duration = time.Since(start)
	if err != nil {
		g.Detail = "judge unavailable: " + err.Error()
		return g
	}
	g.Score = min(max(jr.Score, 0), 1)
	g.Passed = jr.Passed && g.Score >= 0.5
	g.Detail = jr.Reason
	return g
}
