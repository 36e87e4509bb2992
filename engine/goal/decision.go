package goal

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/nova-dev/nova/engine/board"
	"github.com/nova-dev/nova/engine/secrets"
)

// MaxTaskChars bounds a delegated task: a task says what to do; material
// travels as board artifacts (includeArtifacts).
const MaxTaskChars = 4000

// maxField bounds the other free-text fields of a decision.
const maxField = 2000

// DecisionSchema is the JSON Schema of the lead's decision (structured
// output). Lengths are checked by Validate, which can say what is wrong in
// words the lead acts on.
var DecisionSchema = []byte(`{
  "type": "object",
  "properties": {
    "action": {"type": "string", "enum": ["delegate", "complete", "escalate"],
      "description": "delegate one task to one agent, complete the goal, or escalate a question to the user"},
    "reasoning": {"type": "string", "description": "two or three sentences on why, shown to the user"},
    "agent": {"type": "string", "description": "delegate: the agent id from the team list"},
    "task": {"type": "string", "description": "delegate: what the agent must do and how it will be checked"},
    "includeArtifacts": {"type": "array", "items": {"type": "string"},
      "description": "delegate: ids of board artifacts the agent needs in full, e.g. a3"},
    "summary": {"type": "string", "description": "complete: what was done and where, for the user"},
    "question": {"type": "string", "description": "escalate: one clear question for the user"},
    "keyDecision": {"type": "string", "description": "optional: a decision the whole team must follow from now on"},
    "goal": {"type": "string", "description": "optional: the current sub-goal"},
    "resolveBlockers": {"type": "array", "items": {"type": "string"},
      "description": "optional: ids of board blockers that are resolved now, e.g. b1"},
    "confidence": {"type": "number",
      "description": "optional: how sure you are of this decision, from 0 (guessing) to 1 (certain)"}
  },
  "required": ["action", "reasoning"]
}`)

// RejectError says why a decision was refused, in words for the lead.
type RejectError struct{ Reason string }

func (e *RejectError) Error() string { return "decision rejected: " + e.Reason }

// IsRejected reports whether err is a rejected decision.
func IsRejected(err error) bool {
	var re *RejectError
	return errors.As(err, &re)
}

func reject(format string, a ...any) error { return &RejectError{Reason: fmt.Sprintf(format, a...)} }

// Check is what a decision is validated against.
type Check struct {
	// Lead is the lead's id (it does not delegate to itself).
	Lead string
	// Agents is the roster's ids.
	Agents []string
	// Board is the run's board (open blockers, artifact references).
	Board board.Board
	// Artifact finds an artifact that is not among the board's newest
	// references (nil: only those count).
	Artifact func(id uint64) (board.Artifact, error)
	// MinConfidence is the confidence below which a delegation or a
	// completion is asked of the user first (0: never).
	MinConfidence float64
}

// Validated is a decision that passed Validate: the agent's canonical id
// and the included artifacts' ids.
type Validated struct {
	Decision
	Include []uint64
	// Notes say what Validate left out of an optional field (a blocker that
	// is not open, an artifact id that names nothing) instead of refusing
	// the whole decision for it; Decision no longer holds those values.
	Notes []string
}

// Validate checks a decision before anything happens: the action is one of
// the three, a delegation names an agent of the roster (not the lead), a
// task of at most MaxTaskChars and artifacts of this board whose tasks have
// no open blocker (unless the decision resolves it); complete has a summary
// and escalate a question. The error is a *RejectError whose reason the lead
// reads on its next turn.
//
// Junk in an optional field does not cost the lead its turn: a
// resolveBlockers id that is not open, and (on a delegation) an
// includeArtifacts entry that is not an artifact id at all ("the spec"), are
// dropped and noted in Validated.Notes; the rest of the decision stands. A
// well-formed artifact id that is not on the board is still refused: the
// task was written to rely on it.
func Validate(d Decision, c Check) (Validated, error) {
	v := Validated{Decision: d}
	v.Action = Action(strings.ToLower(strings.TrimSpace(string(d.Action))))
	// The reasoning is shown (timeline, --json events, the board's note)
	// and stored; what the lead repeats from a tool output is redacted.
	v.Reasoning = secrets.Redact(clipText(d.Reasoning, maxField))
	v.KeyDecision = clipText(d.KeyDecision, board.MaxTextChars)
	v.Goal = clipText(d.Goal, board.MaxTextChars)
	open := map[string]board.Blocker{}
	for _, b := range c.Board.Blockers {
		open[b.ID] = b
	}
	resolving := map[string]bool{}
	v.ResolveBlockers = nil
	for _, raw := range d.ResolveBlockers {
		id := strings.ToLower(strings.TrimSpace(raw))
		if _, ok := open[id]; !ok {
			v.Notes = append(v.Notes, fmt.Sprintf("resolveBlockers: ignored %q, which is not an open blocker (open: %s)", clipText(raw, 40), orNone(keys(open))))
			continue
		}
		if !resolving[id] {
			v.ResolveBlockers = append(v.ResolveBlockers, id)
		}
		resolving[id] = true
	}
	v.Confidence, v.Notes = confidence(d.Confidence, v.Notes)
	if v.Action == ActionDelegate || v.Action == ActionComplete {
		if q, ok := unsure(v.Decision, c.MinConfidence); ok {
			// An unsure lead asks before anything happens: the user's answer
			// comes back on its next turn.
			v.Notes = append(v.Notes, fmt.Sprintf("confidence %.2f is below orchestrator.minConfidence %.2f: asked the user instead of acting", *v.Confidence, c.MinConfidence))
			v.Action, v.Question = ActionEscalate, q
			v.Agent, v.Task, v.IncludeArtifacts, v.Summary = "", "", nil, ""
			return v, nil
		}
	}
	switch v.Action {
	case "":
		return v, reject("the decision has no action: set action to delegate, complete or escalate")
	case ActionComplete:
		v.Summary = clipText(d.Summary, maxField)
		if v.Summary == "" {
			return v, reject("complete needs a summary: say what was done and where, for the user")
		}
		return v, nil
	case ActionEscalate:
		v.Question = clipText(d.Question, maxField)
		if v.Question == "" {
			return v, reject("escalate needs a question for the user")
		}
		return v, nil
	case ActionDelegate:
	default:
		return v, reject("action %q is not one of delegate, complete, escalate", clipText(string(d.Action), 40))
	}
	team := slices.DeleteFunc(slices.Clone(c.Agents), func(a string) bool { return strings.EqualFold(a, c.Lead) })
	agent := strings.TrimSpace(d.Agent)
	if agent == "" {
		return v, reject("delegate needs an agent: one of %s", strings.Join(team, ", "))
	}
	i := slices.IndexFunc(c.Agents, func(a string) bool { return strings.EqualFold(a, agent) })
	if i < 0 {
		return v, reject("there is no agent %q on the team; delegate to one of %s", clipText(agent, 40), strings.Join(team, ", "))
	}
	v.Agent = c.Agents[i]
	if strings.EqualFold(v.Agent, c.Lead) {
		return v, reject("%s is the lead: delegate the work to a specialist of the team", c.Lead)
	}
	task := strings.TrimSpace(d.Task)
	switch n := utf8.RuneCountInString(task); {
	case n == 0:
		return v, reject("delegate needs a task: what %s must do and how it will be checked", v.Agent)
	case n > MaxTaskChars:
		return v, reject("the task is %d characters; keep it under %d: say what to do, and pass material as board artifacts (includeArtifacts)", n, MaxTaskChars)
	}
	v.Task = task
	v.IncludeArtifacts = nil
	for _, raw := range d.IncludeArtifacts {
		id, err := board.ParseArtifactID(raw)
		if err != nil {
			v.Notes = append(v.Notes, fmt.Sprintf("includeArtifacts: ignored %q, which is not an artifact id (like a3)", clipText(raw, 40)))
			continue
		}
		ref, ok := c.Board.Ref(id)
		if !ok && c.Artifact != nil {
			if a, err := c.Artifact(id); err == nil && a.Board == c.Board.Key {
				ref, ok = a.ArtifactRef, true
			}
		}
		if !ok {
			// A well-formed id names material the task was written to
			// rely on: delegating without it would waste the run.
			return v, reject("artifact %s is not on this run's board (its artifacts: %s)", board.ArtifactRefID(id), orNone(refIDs(c.Board)))
		}
		for _, b := range c.Board.BlockersOf(ref.Task) {
			if !resolving[b.ID] {
				return v, reject("artifact %s comes from %s, which has open blocker %s (%s): resolve it (resolveBlockers) or escalate to the user first",
					ref.Ref(), ref.Task, b.ID, clipText(b.Text, 120))
			}
		}
		if !slices.Contains(v.Include, id) {
			v.Include = append(v.Include, id)
			v.IncludeArtifacts = append(v.IncludeArtifacts, raw)
		}
	}
	return v, nil
}

// confidence reads the lead's confidence: a value from 0 to 1 is taken, a
// percentage (1 < c ≤ 100) is scaled, anything else is ignored with a note.
func confidence(c *float64, notes []string) (*float64, []string) {
	if c == nil {
		return nil, notes
	}
	v := *c
	switch {
	case v >= 0 && v <= 1:
	case v > 1 && v <= 100:
		v /= 100
		notes = append(notes, fmt.Sprintf("confidence: read %g as %.2f (a value from 0 to 1)", *c, v))
	default:
		return nil, append(notes, fmt.Sprintf("confidence: ignored %g, which is not between 0 and 1", *c))
	}
	return &v, notes
}

// unsure returns the question an unsure lead puts to the user instead of
// acting on d: ok when d's confidence is below min.
func unsure(d Decision, min float64) (q string, ok bool) {
	if d.Confidence == nil || *d.Confidence >= min {
		return "", false
	}
	what := "complete the goal"
	if d.Action == ActionDelegate {
		what = fmt.Sprintf("delegate to %s: %s", strings.TrimSpace(d.Agent), oneLine(d.Task, 400))
	}
	q = fmt.Sprintf("I am unsure (confidence %.2f) whether to %s", *d.Confidence, what)
	if r := strings.TrimSpace(d.Reasoning); r != "" {
		q += " — " + oneLine(r, 300)
	}
	return q + ". Should I go ahead, or what should I do instead?", true
}

// key is what makes two delegations the same (stuck detection).
func (d Decision) key() string {
	return strings.ToLower(strings.TrimSpace(d.Agent)) + "\x00" + strings.Join(strings.Fields(strings.ToLower(d.Task)), " ")
}

func clipText(s string, n int) string {
	s = strings.TrimSpace(strings.ToValidUTF8(s, "\uFFFD"))
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

func keys(m map[string]board.Blocker) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func refIDs(b board.Board) []string {
	var out []string
	for _, r := range b.Artifacts {
		out = append(out, r.Ref())
	}
	return out
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
