package agents

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/nova-dev/nova/engine/tools"
)

func TestVerifyNeedsAnExecution(t *testing.T) {
	t.Parallel()
	code := func(n int) *int { return &n }
	hashA := tools.SHA256([]byte("a"))
	write := Trace{ID: 2, Tool: "writeFile", Status: tools.StatusOK, Evidence: []tools.Evidence{{Kind: "file", Path: "a.go", SHA256: hashA}}}
	vet := Trace{ID: 1, Tool: "runCommand", Status: tools.StatusOK, Evidence: []tools.Evidence{{Kind: "command", Command: "go vet", ExitCode: code(0)}}}
	staged := func(string) (string, error) { return hashA, nil }
	ok := SpecialistOutcome{OK: true, Result: "Added a.go."}
	pass := Check{Tier: TierExecution, Subject: "check: go test ./...", Status: VerdictPassed, Detail: "exit 0"}
	fail := Check{Tier: TierExecution, Subject: "check: go test ./...", Status: VerdictFailed, Detail: "exit status 1"}

	v := Verify(VerifyInput{Outcome: ok, Traces: []Trace{write}, StagedHash: staged})
	assert.Equal(t, VerdictUnverified, v.Status, "a consistent write nothing executed")

	v = Verify(VerifyInput{Outcome: ok, Traces: []Trace{write}, StagedHash: staged, Executions: []Check{pass}})
	assert.Equal(t, VerdictPassed, v.Status, "%+v", v.Checks)

	v = Verify(VerifyInput{Outcome: ok, Traces: []Trace{write}, StagedHash: staged, Executions: []Check{pass, fail}})
	assert.Equal(t, VerdictFailed, v.Status)

	v = Verify(VerifyInput{Outcome: ok, Traces: []Trace{vet, write}, StagedHash: staged, Executions: []Check{pass}})
	assert.Equal(t, VerdictPassed, v.Status, "passing configured checks on the final changeset supersede an earlier command")

	v = Verify(VerifyInput{Outcome: ok, Traces: []Trace{vet, write}, StagedHash: staged})
	assert.Equal(t, VerdictInconclusive, v.Status, "an earlier command alone proves nothing about the last change")

	v = Verify(VerifyInput{Outcome: ok, Traces: []Trace{write}, StagedHash: staged,
		Executions: []Check{{Tier: TierExecution, Subject: "checks", Status: VerdictUnverified, Detail: "the configured checks could not run: too large"}}})
	assert.Equal(t, VerdictUnverified, v.Status)
	assert.Contains(t, v.ProblemLines()[0], "too large")
}

func TestDisplayStatus(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		status   string
		files    int
		verified bool
		want     string
	}{
		{"done", 2, false, "done (unverified)"},
		{"done", 2, true, "done"},
		{"done", 0, false, "done"},
		{"failed", 2, false, "failed"},
		{"blocked", 1, false, "blocked"},
	} {
		assert.Equal(t, c.want, DisplayStatus(c.status, c.files, c.verified), "%+v", c)
	}
}

func TestVerdictOnlyAnswerClaims(t *testing.T) {
	t.Parallel()
	answer := Check{Tier: TierClaim, Subject: "answer", Status: VerdictInconclusive}
	path := Check{Tier: TierClaim, Subject: "config.go", Status: VerdictInconclusive}
	tests := Check{Tier: TierClaim, Subject: "tests", Status: VerdictInconclusive}
	evidence := Check{Tier: TierEvidence, Subject: "x.go", Status: VerdictInconclusive}
	assert.True(t, Verdict{Status: VerdictInconclusive, Checks: []Check{answer}}.OnlyAnswerClaims())
	assert.True(t, Verdict{Status: VerdictInconclusive, Checks: []Check{path}}.OnlyAnswerClaims())
	assert.False(t, Verdict{Status: VerdictInconclusive, Checks: []Check{path, tests}}.OnlyAnswerClaims(), "an unrun test claim still counts")
	assert.False(t, Verdict{Status: VerdictInconclusive, Checks: []Check{evidence}}.OnlyAnswerClaims())
	assert.False(t, Verdict{Status: VerdictFailed, Checks: []Check{answer}}.OnlyAnswerClaims())
	assert.False(t, Verdict{Status: VerdictInconclusive}.OnlyAnswerClaims())
}
