package build

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/engine/checks"
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

// CopyLimit bounds the temporary workspace copy the checks run on (the one
// copy policy of engine/checks).
type CopyLimit = checks.Limit

// ErrCopyTooLarge: the workspace exceeds CopyLimit.
var ErrCopyTooLarge = checks.ErrCopyTooLarge

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
	var checkGs []GateResult
	if !b.SkipChecks {
		checkGs = e.checkGates(ctx, e.checksFor(b, t), cs, res.checked)
	}
	if res.verdict != nil {
		gs = append(gs, e.verdictGate(t, *res.verdict, checkGs, res.answerOnly && res.changesetID == 0))
	}
	gs = append(gs, checkGs...)
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

// checksFor are the check commands of a task: none for a build that skips
// them, the task's own when it has them (a PRD task's or a workflow step's
// checks), else the workspace's (config checks). Never nil.
func (e *Engine) checksFor(b Build, t Task) []string {
	switch {
	case b.SkipChecks:
		return []string{}
	case t.Checks != nil:
		return slices.Clone(t.Checks)
	}
	return append([]string{}, e.cfg.Checks...)
}

// checkGates runs each check command on a temporary copy of the workspace
// with the changeset applied (engine/checks: the same runner, syntax and
// copy policy as rehearsal scoring). One gate per command. When the agent
// run already ran the same commands on the same changeset (prior, its
// agents.CheckRun, compared by checks.Hash), its results are the gates:
// the commands do not run twice.
func (e *Engine) checkGates(ctx context.Context, cmds []string, cs changes.Changeset, prior *agents.CheckRun) []GateResult {
	if len(cmds) == 0 {
		return nil
	}
	files := ChangesetFiles(cs)
	rs, reused := reusable(prior, cmds, files)
	if !reused {
		r := checks.Runner{Root: e.cfg.Root, Commands: cmds, Timeout: e.cfg.CheckTimeout,
			Limit: e.cfg.CopyLimit, MaxOutput: maxGateOutput}
		var err error
		rs, err = r.Run(ctx, files)
		if err != nil {
			return []GateResult{{Name: GateCheck, Detail: err.Error()}}
		}
	}
	out := make([]GateResult, 0, len(rs))
	for _, x := range rs {
		g := GateResult{Name: GateCheck + ": " + x.Command, Passed: x.Passed, Detail: x.Detail, Output: x.Output, Duration: x.Duration,
			NothingRan: x.NothingRan}
		if reused {
			g.Detail += " (run by the agent on this changeset)"
		}
		if x.Passed {
			g.Score = 1
		}
		out = append(out, g)
	}
	return out
}

// reusable returns the agent run's check results when they are for these
// commands on these files.
func reusable(prior *agents.CheckRun, cmds []string, files []checks.File) ([]checks.Result, bool) {
	if prior == nil || !slices.Equal(prior.Commands, cmds) || len(prior.Results) != len(cmds) || prior.Hash != checks.Hash(files) {
		return nil, false
	}
	return prior.Results, true
}

// executed reports whether something ran the attempt's change: the
// verdict passed (it needs an execution), or check gates ran and all
// passed.
func executed(v *agents.Verdict, gs []GateResult) bool {
	if v != nil && v.Status == agents.VerdictPassed {
		return true
	}
	ran := false
	for _, g := range gs {
		if g.Name == GateCheck || strings.HasPrefix(g.Name, GateCheck+": ") {
			if !g.Passed {
				return false
			}
			ran = ran || !g.NothingRan
		}
	}
	return ran
}

// checkToolMissing reports whether a check gate failed because its command
// was not found (checks.NotFoundDetail).
func checkToolMissing(gs []GateResult) bool {
	for _, g := range gs {
		if strings.HasPrefix(g.Name, GateCheck) && !g.Passed && g.Detail == checks.NotFoundDetail {
			return true
		}
	}
	return false
}

// ChangesetFiles turns a changeset's pending files into the checks' files.
func ChangesetFiles(cs changes.Changeset) []checks.File {
	out := make([]checks.File, 0, len(cs.Files))
	for _, f := range cs.Files {
		if f.Status == changes.FileDiscarded {
			continue
		}
		out = append(out, checks.File{Path: f.Path, Content: f.Proposed, Delete: f.Op == changes.OpDelete})
	}
	return out
}

// CopyWorkspace copies root into dst under the checks' copy policy (see
// engine/checks).
func CopyWorkspace(ctx context.Context, root, dst string, lim CopyLimit) error {
	return checks.Copy(ctx, root, dst, lim)
}

// ApplyTo writes a changeset's pending files into dir (a workspace copy),
// each path confined to dir.
func ApplyTo(dir string, cs changes.Changeset) error { return checks.Write(dir, ChangesetFiles(cs)) }

// GateVerdict is the gate that reads the verifier's verdict on the run.
const GateVerdict = "verdict"

// verdictGate reads the verifier's verdict: passed passes; failed fails
// with its evidence; inconclusive follows Config.Inconclusive (retry and
// fail fail the gate with the evidence, warn passes it with score 0.5 and
// the warning as detail). An answer that claims no change and no passing
// check, for a task that names no file to change, is a text deliverable:
// the output gate has checked it, so the gate passes. So is the answer of
// an agent that cannot change files (answerOnly: an investigate or review
// step), even when its task says "do not change anything" or its answer
// names the file a fix belongs in.
//
// Unverified (the work is consistent but nothing executed it): when the
// build's own check gates (checkGs) ran and passed, that execution
// verifies it and the gate passes. Otherwise the task is done but not
// verified (Task.Verified false, shown "done (unverified)", never applied
// automatically): the gate passes with score 0.75 and the reason as
// warning, because a retry cannot make a check appear. Only
// verify.inconclusive: fail makes it strict: the gate fails and the task is
// blocked at once.
func (e *Engine) verdictGate(t Task, v agents.Verdict, checkGs []GateResult, answerOnly bool) GateResult {
	g := GateResult{Name: GateVerdict}
	evidence := strings.Join(v.ProblemLines(), "\n")
	switch v.Status {
	case agents.VerdictPassed:
		g.Passed, g.Score, g.Detail = true, 1, fmt.Sprintf("verified (%d check(s))", len(v.Checks))
	case agents.VerdictFailed:
		g.Detail, g.Output = "the verifier found that the work does not hold", evidence
	case agents.VerdictUnverified:
		switch {
		case len(checkGs) > 0 && executed(nil, checkGs):
			g.Passed, g.Score, g.Detail = true, 1, "verified by the check gates (the run itself executed nothing)"
		case e.cfg.Inconclusive == InconclusiveFail:
			g.Detail, g.Output = "nothing executed the changed code (unverified; verify.inconclusive: fail)", evidence
		default:
			g.Passed, g.Score = true, 0.75
			g.Detail, g.Output = "unverified: nothing executed the changed code (configure checks to verify it)", evidence
		}
	default:
		if v.OnlyUnbackedAnswer() && len(agents.ChangeTargets(t.Title+"\n"+t.Description)) == 0 {
			g.Passed, g.Score, g.Detail = true, 1, "a text answer (no file to change, no claim of one): checked by the output gate"
			return g
		}
		if answerOnly && v.OnlyAnswerClaims() {
			g.Passed, g.Score, g.Detail = true, 1, "a read-only step's answer (its agent cannot change files): checked by the output gate"
			return g
		}
		switch e.cfg.Inconclusive {
		case InconclusiveWarn:
			g.Passed, g.Score = true, 0.5
			g.Detail, g.Output = "unverified: "+firstLine(cmpOr(evidence, "the verifier could not confirm the work")), evidence
		default:
			g.Detail, g.Output = "the verifier could not confirm the work (inconclusive)", evidence
		}
	}
	return g
}

// gateNamed finds a gate by name.
func gateNamed(gs []GateResult, name string) (GateResult, bool) {
	for _, g := range gs {
		if g.Name == name {
			return g, true
		}
	}
	return GateResult{}, false
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
