package agents

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/tools"
)

// anchoredTrace is an editFile trace whose claim is the block
// updated[start:end].
func anchoredTrace(id uint64, path, updated, block string) Trace {
	start := strings.Index(updated, block)
	return Trace{ID: id, Tool: tools.NameEditFile, Status: tools.StatusOK, Evidence: []tools.Evidence{{
		Kind: "file", Path: path, SHA256: tools.SHA256([]byte(updated)),
		Anchor: tools.NewEditAnchor(updated, start, start+len(block)),
	}}}
}

func TestVerifyChecksEditClaimsByTheirAnchors(t *testing.T) {
	t.Parallel()
	first := "package a\n\nfunc A() int {\n\treturn 2\n}\n\nfunc B() int {\n\treturn 1\n}\n"
	final := strings.Replace(first, "return 1", "return 3", 1)
	staged := map[string]string{"a.go": final}
	in := VerifyInput{
		Outcome: SpecialistOutcome{OK: true, Result: "Fixed A and B."},
		Traces: []Trace{
			anchoredTrace(1, "a.go", first, "\treturn 2\n"),
			anchoredTrace(2, "a.go", final, "\treturn 3\n"),
		},
		StagedHash: func(p string) (string, error) { return tools.SHA256([]byte(staged[p])), nil },
		StagedContent: func(p string) ([]byte, bool, error) {
			c, ok := staged[p]
			return []byte(c), ok, nil
		},
		Executions: []Check{{Tier: TierExecution, Subject: "check: go test ./...", Status: VerdictPassed}},
	}
	v := Verify(in)
	require.Equal(t, VerdictPassed, v.Status, "%+v", v.Checks)
	var subjects []string
	for _, c := range v.Checks {
		if strings.HasPrefix(c.Subject, "a.go:") {
			subjects = append(subjects, c.Subject)
			assert.Equal(t, VerdictPassed, c.Status)
		}
	}
	assert.Equal(t, []string{"a.go:4-4", "a.go:8-8"}, subjects, "both edits are claims about the final file")

	// The later edit rewrote the first one's block: only the last is a claim.
	rewritten := strings.Replace(first, "return 2", "return 5", 1)
	staged["a.go"] = rewritten
	in.Traces = []Trace{anchoredTrace(1, "a.go", first, "\treturn 2\n"), anchoredTrace(2, "a.go", rewritten, "\treturn 5\n")}
	v = Verify(in)
	assert.Equal(t, VerdictPassed, v.Status, "%+v", v.Checks)

	// A whole-file write replaces the claims before it.
	in.Traces = []Trace{anchoredTrace(1, "a.go", first, "\treturn 2\n"),
		{ID: 2, Tool: tools.NameWriteFile, Status: tools.StatusOK, Evidence: []tools.Evidence{{Kind: "file", Path: "a.go", SHA256: tools.SHA256([]byte(rewritten))}}}}
	v = Verify(in)
	assert.Equal(t, VerdictPassed, v.Status, "%+v", v.Checks)
	for _, c := range v.Checks {
		assert.NotContains(t, c.Subject, "a.go:", "no claim survives a whole-file write")
	}
}

func TestVerifyFailsAnEditClaimTheStagedFileContradicts(t *testing.T) {
	t.Parallel()
	updated := "one\ntwo\nNEW\nthree\nfour\n"
	tr := anchoredTrace(1, "b.txt", updated, "NEW\n")
	// The file hashes as claimed, but its content was swapped under the
	// claim (a broken changeset store): the anchors catch it.
	swapped := "one\ntwo\nOLD\nthree\nfour\n"
	v := Verify(VerifyInput{
		Outcome:       SpecialistOutcome{OK: true, Result: "done"},
		Traces:        []Trace{tr},
		StagedHash:    func(string) (string, error) { return tr.Evidence[0].SHA256, nil },
		StagedContent: func(string) ([]byte, bool, error) { return []byte(swapped), true, nil },
		Executions:    []Check{{Tier: TierExecution, Subject: "check: make test", Status: VerdictPassed}},
	})
	assert.Equal(t, VerdictFailed, v.Status)
	assert.Contains(t, strings.Join(v.ProblemLines(), "\n"), "b.txt:3-3")
}
