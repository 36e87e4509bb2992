package agents

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/internal/lazyre"
)

// VerifyInput is what Verify checks.
type VerifyInput struct {
	Outcome SpecialistOutcome
	Traces  []Trace
	// StagedHash returns the sha256 of path as the run leaves it (the
	// changeset's proposed content, else the disk's), or tools.Absent.
	StagedHash func(path string) (string, error)
	// StagedContent returns path's content as the run leaves it (ok false
	// when it is absent); it checks edit claims' anchors. Nil skips them.
	StagedContent func(path string) (content []byte, ok bool, err error)
	// Executions are the configured checks the runner ran on the final
	// changeset (tier execution, subject "check: <command>"): they ran
	// after the last write by construction.
	Executions []Check
	// FastChecks are the language servers' verdicts on the final changeset
	// (loop_lsp.go): a failed one (errors) fails the verdict; a passed one
	// is evidence, never execution (it does not make a change verified).
	FastChecks []Check
}

// Verify checks what a run claims against what it did, in three tiers:
//
//   - evidence: every file a tool reported staging must still hash, in the
//     changeset, to what the tool reported;
//   - execution: the last run of each command must have exited 0 (a command
//     that ran before a later change proves nothing about it: inconclusive,
//     unless the configured checks then ran on the final changeset and
//     passed); the configured checks (in.Executions) must have passed;
//   - claim: files the final answer says it changed without any staged
//     change, and "tests pass" without a command, are only the model's word:
//     inconclusive.
//
// The verdict is failed when the run failed or any check failed,
// inconclusive when any check is inconclusive or nothing was checked,
// unverified when the run staged files but nothing executed them (no
// passing execution check: "verified means executed"), and passed
// otherwise. A run that staged no file and claims none is a text answer:
// inconclusive for its claim tier, as before.
func Verify(in VerifyInput) Verdict {
	v := Verdict{Checks: []Check{}}
	type fileClaim struct {
		hash  string
		trace uint64
		index int
	}
	lastFile := map[string]fileClaim{}
	var fileOrder []string
	type cmdRun struct {
		code  int
		trace uint64
		index int
		timed bool
	}
	lastCmd := map[string]cmdRun{}
	var cmdOrder []string
	lastWrite := -1
	// anchored holds, per file, the edit claims since its last write that
	// carried none (a whole-file write replaces every earlier claim).
	anchored := map[string][]anchoredEdit{}
	for i, t := range in.Traces {
		if t.Status == tools.StatusTimeout && t.Tool == tools.NameRunCommand {
			cmd := commandOf(t)
			if _, seen := lastCmd[cmd]; !seen {
				cmdOrder = append(cmdOrder, cmd)
			}
			lastCmd[cmd] = cmdRun{trace: t.ID, index: i, timed: true}
			continue
		}
		if t.Status != tools.StatusOK && t.Status != tools.StatusFailed {
			continue
		}
		for _, e := range t.Evidence {
			switch e.Kind {
			case "file":
				if _, seen := lastFile[e.Path]; !seen {
					fileOrder = append(fileOrder, e.Path)
				}
				lastFile[e.Path] = fileClaim{hash: e.SHA256, trace: t.ID, index: i}
				lastWrite = i
				if e.Anchor != nil {
					anchored[e.Path] = append(anchored[e.Path], anchoredEdit{anchor: e.Anchor, trace: t.ID})
				} else {
					delete(anchored, e.Path)
				}
			case "command":
				if e.ExitCode == nil {
					continue
				}
				if _, seen := lastCmd[e.Command]; !seen {
					cmdOrder = append(cmdOrder, e.Command)
				}
				lastCmd[e.Command] = cmdRun{code: *e.ExitCode, trace: t.ID, index: i}
			}
		}
	}

	for _, p := range fileOrder {
		fc := lastFile[p]
		c := Check{Tier: TierEvidence, Subject: p, TraceID: fc.trace}
		var got string
		var err error
		if in.StagedHash != nil {
			got, err = in.StagedHash(p)
		}
		switch {
		case in.StagedHash == nil:
			c.Status, c.Detail = VerdictInconclusive, "no changeset to check against"
		case err != nil:
			c.Status, c.Detail = VerdictInconclusive, "could not read the staged content: "+err.Error()
		case got == fc.hash:
			c.Status, c.Detail = VerdictPassed, "staged content matches sha256 "+short(fc.hash)
			if fc.hash == tools.Absent {
				c.Detail = "deletion is staged"
			}
		default:
			c.Status = VerdictFailed
			c.Detail = fmt.Sprintf("the tool reported sha256 %s but the changeset holds %s", short(fc.hash), short(got))
		}
		v.Checks = append(v.Checks, c)
		if c.Status == VerdictPassed && in.StagedContent != nil {
			v.Checks = append(v.Checks, anchorChecks(p, anchored[p], in.StagedContent)...)
		}
	}

	// Configured checks that all passed on the final changeset supersede a
	// command the agent ran before its last write.
	superseded := len(in.Executions) > 0 &&
		!slices.ContainsFunc(in.Executions, func(c Check) bool { return c.Status != VerdictPassed })
	for _, cmd := range cmdOrder {
		r := lastCmd[cmd]
		c := Check{Tier: TierExecution, Subject: cmd, TraceID: r.trace}
		switch {
		case r.timed:
			c.Status, c.Detail = VerdictFailed, "did not finish within its timeout"
		case r.code != 0:
			c.Status, c.Detail = VerdictFailed, fmt.Sprintf("exit code %d", r.code)
		case r.index < lastWrite && superseded:
			c.Status, c.Detail = VerdictPassed, "exit code 0 before later changes; the configured checks passed on the final changeset"
		case r.index < lastWrite:
			c.Status, c.Detail = VerdictInconclusive, "exit code 0, but files were changed after it ran"
		default:
			c.Status, c.Detail = VerdictPassed, "exit code 0"
		}
		v.Checks = append(v.Checks, c)
	}
	v.Checks = append(v.Checks, in.Executions...)
	v.Checks = append(v.Checks, in.FastChecks...)
	executed := slices.ContainsFunc(v.Checks, func(c Check) bool { return c.Tier == TierExecution && c.Status == VerdictPassed })
	if len(fileOrder) > 0 && !executed && len(in.Executions) == 0 {
		v.Checks = append(v.Checks, Check{Tier: TierExecution, Subject: "execution", Status: VerdictUnverified,
			Detail: "nothing executed the changed code: no check ran on the changeset and no command ran after the last change"})
	}

	if in.Outcome.OK {
		for _, p := range claimedPaths(in.Outcome.Result) {
			if covered(p, fileOrder) {
				continue
			}
			v.Checks = append(v.Checks, Check{Tier: TierClaim, Subject: p, Status: VerdictInconclusive,
				Detail: "the answer says this file changed, but no change to it was staged"})
		}
		if len(cmdOrder) == 0 && claimsTestsPass(in.Outcome.Result) {
			v.Checks = append(v.Checks, Check{Tier: TierClaim, Subject: "tests", Status: VerdictInconclusive,
				Detail: "the answer says checks passed, but no command was run"})
		}
		if len(v.Checks) == 0 {
			v.Checks = append(v.Checks, Check{Tier: TierClaim, Subject: "answer", Status: VerdictInconclusive,
				Detail: "the answer is backed by no tool evidence"})
		}
	}

	switch {
	case !in.Outcome.OK:
		v.Status = VerdictFailed
	case slices.ContainsFunc(v.Checks, func(c Check) bool { return c.Status == VerdictFailed }):
		v.Status = VerdictFailed
	case slices.ContainsFunc(v.Checks, func(c Check) bool { return c.Status == VerdictInconclusive }):
		v.Status = VerdictInconclusive
	case slices.ContainsFunc(v.Checks, func(c Check) bool { return c.Status == VerdictUnverified }),
		len(fileOrder) > 0 && !executed:
		v.Status = VerdictUnverified
	default:
		v.Status = VerdictPassed
	}
	return v
}

// anchoredEdit is one editFile claim: where its block sits, and the trace
// that made it.
type anchoredEdit struct {
	anchor *tools.EditAnchor
	trace  uint64
}

// anchorChecks checks the edit claims of path against its staged content:
// each edit's block must still sit between its anchors. An edit that a
// later edit of the same file rewrote is no longer a claim about the file
// and is not checked; the last one always is.
func anchorChecks(path string, claims []anchoredEdit, staged func(string) ([]byte, bool, error)) []Check {
	if len(claims) == 0 {
		return nil
	}
	content, ok, err := staged(path)
	if err != nil || !ok {
		return nil // the hash check already judged the file
	}
	var out []Check
	for i, ae := range claims {
		subject := fmt.Sprintf("%s:%d-%d", path, ae.anchor.StartLine, ae.anchor.EndLine)
		c := Check{Tier: TierEvidence, Subject: subject, TraceID: ae.trace}
		switch {
		case ae.anchor.Locate(string(content)):
			c.Status, c.Detail = VerdictPassed, "the edited block is in the staged file between its anchors"
		case i < len(claims)-1:
			continue // rewritten by a later edit of the same file
		default:
			c.Status, c.Detail = VerdictFailed, "the edited block is not in the staged file between its anchors"
		}
		out = append(out, c)
	}
	return out
}

func commandOf(t Trace) string {
	var a struct {
		Command string `json:"command"`
	}
	_ = json.Unmarshal(t.Args, &a)
	if argv, err := tools.SplitCommand(a.Command); err == nil {
		return strings.Join(argv, " ")
	}
	return a.Command
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

var (
	claimVerb = lazyre.New(`(?i)\b(add|added|adds|create|created|creates|write|wrote|written|change|changed|changes|update|updated|updates|modify|modified|modifies|edit|edited|edits|delete|deleted|deletes|remove|removed|removes)\b`)
	pathToken = lazyre.New(`[A-Za-z0-9_./\-]+\.[A-Za-z0-9]{1,8}`)
	testsPass = lazyre.New(`(?i)\b(tests?|build|checks?)\b[^.\n]{0,40}\b(pass|passed|passes|ok|green|succeed|succeeded)\b`)
)

var sourceExt = map[string]bool{
	"go": true, "ts": true, "tsx": true, "js": true, "jsx": true, "mjs": true, "py": true, "rs": true,
	"java": true, "kt": true, "swift": true, "rb": true, "c": true, "h": true, "cpp": true, "cc": true,
	"cs": true, "php": true, "md": true, "json": true, "yaml": true, "yml": true, "toml": true, "sql": true,
	"css": true, "scss": true, "html": true, "sh": true, "txt": true, "mod": true, "sum": true, "proto": true,
}

// claimedPaths extracts paths the answer says it changed: path-like tokens
// on lines that carry a change verb.
func claimedPaths(answer string) []string {
	var out []string
	for line := range strings.SplitSeq(answer, "\n") {
		if !claimVerb.MatchString(line) {
			continue
		}
		for _, tok := range pathToken.FindAllString(line, -1) {
			if strings.Contains(line, "://"+tok) {
				continue
			}
			tok = strings.TrimLeft(strings.TrimRight(tok, ".-"), "./")
			ext := strings.TrimPrefix(path.Ext(tok), ".")
			if tok == "" || (!strings.Contains(tok, "/") && !sourceExt[strings.ToLower(ext)]) {
				continue
			}
			if !slices.Contains(out, tok) {
				out = append(out, tok)
			}
		}
	}
	return out
}

// covered reports whether a claimed path matches a staged one (the answer
// may name it by its tail: "health.go" for "internal/health/health.go").
func covered(claim string, staged []string) bool {
	for _, p := range staged {
		if p == claim || strings.HasSuffix(p, "/"+claim) {
			return true
		}
	}
	return false
}

func claimsTestsPass(answer string) bool { return testsPass.MatchString(answer) }

// ChangeTargets lists the files a text asks to (or says it did) change:
// path-like tokens on lines with a change verb ("Add a handler in
// internal/health/health.go"). A build uses it to tell a task whose
// deliverable is text from one that names files to change.
func ChangeTargets(text string) []string { return claimedPaths(text) }

// ProblemLines renders the checks of a verdict that did not pass, one line
// each ("[claim] internal/x.go: the answer says …"): the evidence a build
// feeds back into a retry or shows as a blocked task's reason.
func (v Verdict) ProblemLines() []string {
	var out []string
	for _, c := range v.Checks {
		if c.Status == VerdictPassed {
			continue
		}
		out = append(out, fmt.Sprintf("[%s, %s] %s: %s", c.Tier, c.Status, c.Subject, c.Detail))
	}
	return out
}

// OnlyAnswerClaims reports whether the verdict is inconclusive only for
// what the final answer says: no tool evidence behind it, or files it names
// with a change verb that no change was staged for. For an agent that cannot
// stage changes (Run.AnswerOnly) those are not broken promises: it was asked
// for an answer ("the fix belongs in config.go"), and that is what it gave.
// A claim that tests passed without a command still counts against it.
func (v Verdict) OnlyAnswerClaims() bool {
	if v.Status != VerdictInconclusive {
		return false
	}
	seen := false
	for _, c := range v.Checks {
		switch {
		case c.Status == VerdictPassed:
		case c.Tier == TierClaim && c.Subject != "tests":
			seen = true
		default:
			return false
		}
	}
	return seen
}

// OnlyUnbackedAnswer reports whether the verdict is inconclusive for one
// reason only: a final answer that claims no file change and no passing
// check, backed by no tool evidence (a text deliverable).
func (v Verdict) OnlyUnbackedAnswer() bool {
	if v.Status != VerdictInconclusive {
		return false
	}
	seen := false
	for _, c := range v.Checks {
		switch {
		case c.Status == VerdictPassed:
		case c.Tier == TierClaim && c.Subject == "answer":
			seen = true
		default:
			return false
		}
	}
	return seen
}
