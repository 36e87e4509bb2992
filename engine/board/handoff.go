package board

import (
	"strings"
	"time"
	"unicode"
)

// Bounds of a handoff.
const (
	maxHandoffSummary = 600
	maxConstraints    = 8
	maxQuestions      = 5
)

// Handoff is how a task ends: what it did, what it leaves for the next
// agent, and what is still open (bucket board_handoffs). Constraints reach
// the prompts of the tasks that come after it.
type Handoff struct {
	ID    uint64 `json:"id"`
	Board string `json:"board"`
	Task  string `json:"task"`
	Agent string `json:"agent"`
	// Status is the task's outcome when the handoff was written (done,
	// blocked, …).
	Status  string `json:"status,omitempty"`
	Summary string `json:"summary"`
	// Artifacts are the artifacts the task produced (registered on the
	// board).
	Artifacts []uint64 `json:"artifacts"`
	// Constraints are rules the next agent must keep ("do not change the
	// public API").
	Constraints []string `json:"constraints"`
	// Next is the agent the task suggests to continue ("" = no opinion).
	Next string `json:"next,omitempty"`
	// Questions are still open.
	Questions []string `json:"questions"`
	// Written is true when the agent wrote the handoff; false when it was
	// derived from the outcome (the agent wrote none).
	Written   bool      `json:"written"`
	CreatedAt time.Time `json:"createdAt,omitzero"`
}

func (h Handoff) clean() Handoff {
	h.Summary = oneLine(h.Summary, maxHandoffSummary)
	h.Next = oneLine(h.Next, 40)
	h.Agent, h.Task, h.Status = oneLine(h.Agent, 40), oneLine(h.Task, 60), oneLine(h.Status, 20)
	h.Constraints = cleanList(h.Constraints, maxConstraints)
	h.Questions = cleanList(h.Questions, maxQuestions)
	if h.Artifacts == nil {
		h.Artifacts = []uint64{}
	}
	return h
}

func cleanList(items []string, n int) []string {
	out := []string{}
	for _, it := range items {
		if it = oneLine(it, MaxTextChars); it != "" && !isNone(it) && len(out) < n {
			out = append(out, it)
		}
	}
	return out
}

// HandoffInstructions tell an agent how to end its answer so ParseHandoff
// finds its handoff.
const HandoffInstructions = "When you finish, end your answer with a handoff for whoever continues, in this form:\n" +
	"Handoff:\n" +
	"summary: one or two sentences on what you did and where it is\n" +
	"constraints: rules the next agent must keep, separated by ';' (or none)\n" +
	"next: the agent best placed to continue (or none)\n" +
	"questions: what is still open, separated by ';' (or none)"

// ParseHandoff finds the handoff section at the end of an answer (a line
// "Handoff:", also as a Markdown heading or in bold, followed by "key:
// value" lines: summary, constraints, next, questions, artifacts; list
// values are separated by ';' or written as bullets). It returns the
// handoff, the answer without it, and whether one was found. It never fails:
// text it cannot read is left out.
func ParseHandoff(answer string) (h Handoff, body string, found bool) {
	lines := strings.Split(answer, "\n")
	start := -1
	for i := len(lines) - 1; i >= 0; i-- {
		if isHandoffHeader(lines[i]) {
			start = i
			break
		}
	}
	if start < 0 {
		return Handoff{}, answer, false
	}
	field := ""
	var summary []string
	for _, raw := range lines[start+1:] {
		line := strings.TrimSpace(raw)
		if line == "" {
			continue
		}
		bullet := false
		if t, ok := cutBullet(line); ok {
			line, bullet = t, true
		}
		if k, v, ok := keyValue(line); ok {
			field = k
			if v != "" {
				addValue(&h, &summary, field, v)
			}
			continue
		}
		switch {
		case field == "":
			// Text before the first key: take it as the summary.
			field = "summary"
			summary = append(summary, line)
		case bullet || field != "summary":
			addValue(&h, &summary, field, line)
		default:
			summary = append(summary, line)
		}
	}
	h.Summary = strings.Join(summary, " ")
	h.Written = true
	h = h.clean()
	return h, strings.TrimRight(strings.Join(lines[:start], "\n"), " \t\n"), true
}

func addValue(h *Handoff, summary *[]string, field, v string) {
	switch field {
	case "summary":
		*summary = append(*summary, v)
	case "next":
		if !isNone(v) && h.Next == "" {
			h.Next = firstWord(v)
		}
	case "constraints":
		h.Constraints = append(h.Constraints, splitList(v)...)
	case "questions":
		h.Questions = append(h.Questions, splitList(v)...)
	case "artifacts":
		for _, a := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ';' || unicode.IsSpace(r) }) {
			if id, err := ParseArtifactID(a); err == nil {
				h.Artifacts = append(h.Artifacts, id)
			}
		}
	}
}

// isHandoffHeader matches "Handoff", "Handoff:", "## Handoff", "**Handoff:**".
func isHandoffHeader(line string) bool {
	t := strings.TrimSpace(line)
	t = strings.Trim(t, "#*_ \t")
	t = strings.TrimSuffix(strings.TrimSpace(t), ":")
	t = strings.Trim(t, "*_ \t")
	return strings.EqualFold(t, "handoff")
}

var handoffKeys = map[string]string{
	"summary": "summary", "what i did": "summary", "done": "summary",
	"constraints": "constraints", "constraint": "constraints", "rules": "constraints",
	"next": "next", "next agent": "next", "suggested next": "next", "suggested next agent": "next", "suggested": "next",
	"questions": "questions", "question": "questions", "open questions": "questions", "open": "questions",
	"artifacts": "artifacts", "artifact": "artifacts",
}

// keyValue splits "summary: text" (keys case-insensitive, in bold or not).
func keyValue(line string) (key, value string, ok bool) {
	k, v, found := strings.Cut(line, ":")
	if !found {
		return "", "", false
	}
	k = strings.ToLower(strings.Trim(strings.TrimSpace(k), "*_ "))
	key, ok = handoffKeys[k]
	if !ok {
		return "", "", false
	}
	return key, strings.TrimSpace(strings.Trim(strings.TrimSpace(v), "*_")), true
}

func cutBullet(line string) (string, bool) {
	for _, p := range []string{"- ", "* ", "• "} {
		if strings.HasPrefix(line, p) {
			return strings.TrimSpace(line[len(p):]), true
		}
	}
	return line, false
}

func splitList(v string) []string {
	var out []string
	for _, part := range strings.Split(v, ";") {
		if part = strings.TrimSpace(part); part != "" && !isNone(part) {
			out = append(out, part)
		}
	}
	return out
}

func isNone(s string) bool {
	switch strings.ToLower(strings.Trim(strings.TrimSpace(s), ".")) {
	case "none", "n/a", "na", "-", "—", "nothing", "no", "(none)":
		return true
	}
	return false
}

func firstWord(s string) string {
	f := strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == ',' || r == '(' || r == '.' })
	if len(f) == 0 {
		return ""
	}
	return strings.Trim(f[0], "*_`'\"")
}

// DeriveHandoff is the handoff of a task whose agent wrote none: the first
// paragraph of its answer (outside code) as the summary.
func DeriveHandoff(answer string) Handoff {
	var para []string
	inCode := false
	for _, line := range strings.Split(answer, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") {
			inCode = !inCode
			continue
		}
		if inCode {
			continue
		}
		if t == "" {
			if len(para) > 0 {
				break
			}
			continue
		}
		para = append(para, t)
	}
	return Handoff{Summary: clip(strings.Join(para, " "), 300)}.clean()
}

// Body returns the answer without its handoff section (the verifier checks
// the answer's own claims; the handoff's constraints and questions name
// files without claiming to change them).
func Body(answer string) string {
	h, body, ok := ParseHandoff(answer)
	if !ok {
		return answer
	}
	if h.Summary == "" {
		return body
	}
	return body + "\n" + h.Summary
}
