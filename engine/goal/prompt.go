package goal

import (
	"fmt"
	"strings"

	"github.com/nova-dev/nova/engine/board"
)

// Agent is one member of the team the lead delegates to.
type Agent struct {
	ID          string `json:"id"`
	Description string `json:"description"`
	// Record is the agent's track record on earlier delegations, for
	// tasks like this goal first (Records); "" when it has none.
	Record string `json:"record,omitempty"`
	// Writes is true for an agent that can stage file changes: its
	// delegations count towards the implement share of the budget, the
	// others' towards research.
	Writes bool `json:"writes,omitempty"`
}

// historyTurns is how many recent turns the lead sees in detail; older ones
// live in the board's history summary.
const historyTurns = 6

// leadSystem is the lead's system prompt (nova's own text).
func leadSystem(lead, role string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "You are %s, the lead of a team of coding agents working in one workspace. You do not write code or "+
		"files yourself: each turn you take exactly one decision and reply with it as JSON.\n\n", lead)
	b.WriteString("The decisions:\n")
	b.WriteString("- delegate: give one agent of the team one task it can finish in a single run (a few files, a clear check). " +
		"Say exactly what to do and how the result will be checked. List in includeArtifacts the board artifacts (ids like a3) " +
		"the agent needs in full; it sees the board's previews anyway.\n")
	b.WriteString("- complete: the goal is met and the work that meets it passed verification. Summarise for the user what " +
		"was done and where (the changes wait in staged changesets for review).\n")
	b.WriteString("- escalate: only the user can go on (a choice that is theirs, access nobody on the team has). Ask one clear question.\n\n")
	b.WriteString("How to read an outcome: status done with verdict passed means the work is staged and its evidence checks out. " +
		"Blocked, failed or inconclusive means it is not done: change the task, give it to a better-suited agent, or escalate. " +
		"Never send the same task to the same agent again unchanged; a third identical delegation stops the run. " +
		"Problems of the model server are handled for you: you only see outcomes of the work.\n\n")
	b.WriteString("Optional fields: keyDecision records a decision the whole team follows from now on; goal sets the current " +
		"sub-goal on the board; resolveBlockers lists blocker ids (b1, …) that the work or the user's answer resolved. " +
		"reasoning is two or three sentences the user reads in the timeline. confidence (0 to 1) says how sure you are of " +
		"the decision; when you are unsure, say so with a low value and the user is asked before anything happens. " +
		"A team member's record tells how its earlier tasks like this one went: prefer the agent whose record fits.\n")
	if role = strings.TrimSpace(role); role != "" {
		fmt.Fprintf(&b, "\nYour own role in nova: %s\n", role)
	}
	return b.String()
}

// leadPrompt is the user message of a turn: the goal, the team, the board,
// vault context, the recent turns and what the lead must do now.
func leadPrompt(r Run, turns []Turn, b board.Board, team []Agent, vault, feedback string) string {
	var sb strings.Builder
	sb.WriteString("Goal: " + r.Goal + "\n\nTeam (agent: what it does):\n")
	for _, a := range team {
		if strings.EqualFold(a.ID, r.Lead) {
			continue
		}
		fmt.Fprintf(&sb, "- %s: %s\n", a.ID, oneLine(a.Description, 120))
		if a.Record != "" {
			fmt.Fprintf(&sb, "  record: %s\n", a.Record)
		}
	}
	sb.WriteString("\n" + b.Inline() + "\n")
	if v := strings.TrimSpace(vault); v != "" {
		sb.WriteString("\n" + v + "\n")
	}
	sb.WriteString("\nTurns so far:\n")
	if len(turns) == 0 {
		sb.WriteString("(none: this is the first turn)\n")
	}
	start := max(0, len(turns)-historyTurns)
	if start > 0 {
		fmt.Fprintf(&sb, "(%d earlier turns are summarised in the board's history)\n", start)
	}
	for _, t := range turns[start:] {
		sb.WriteString(turnLine(t) + "\n")
		for _, n := range t.Notes {
			sb.WriteString("  (taken, but " + oneLine(n, 300) + ")\n")
		}
	}
	if feedback != "" {
		sb.WriteString("\n" + feedback + "\n")
	}
	fmt.Fprintf(&sb, "\nThis is turn %d", r.Turns+1)
	if r.Limits.MaxTurns > 0 {
		fmt.Fprintf(&sb, " of at most %d", r.Limits.MaxTurns)
	}
	if r.Limits.MaxTokens > 0 {
		fmt.Fprintf(&sb, "; %d of %d tokens used", r.Tokens, r.Limits.MaxTokens)
	}
	sb.WriteString(". Decide the next step.")
	return sb.String()
}

// turnLine is one turn as the lead reads it.
func turnLine(t Turn) string {
	switch t.Kind {
	case TurnInvalid:
		return fmt.Sprintf("Turn %d: your reply was not a usable decision (%s).", t.N, oneLine(t.Rejected, 300))
	case TurnRejected:
		what := "a decision"
		if t.Decision != nil {
			what = describe(*t.Decision)
		}
		return fmt.Sprintf("Turn %d: rejected %s — %s", t.N, what, oneLine(t.Rejected, 300))
	}
	if t.Decision == nil {
		return fmt.Sprintf("Turn %d.", t.N)
	}
	d := *t.Decision
	switch d.Action {
	case ActionEscalate:
		line := fmt.Sprintf("Turn %d: you asked the user: %s", t.N, oneLine(d.Question, 300))
		if t.Answer != "" {
			line += fmt.Sprintf(" — the user answered: %s", oneLine(t.Answer, 600))
		} else {
			line += " — no answer yet"
		}
		return line
	case ActionComplete:
		return fmt.Sprintf("Turn %d: you completed the goal.", t.N)
	}
	line := fmt.Sprintf("Turn %d (%s): %s", t.N, t.TaskID, describe(d))
	if t.Outcome == nil {
		return line + " — still running"
	}
	return line + " → " + t.Outcome.Line()
}

func describe(d Decision) string {
	switch d.Action {
	case ActionDelegate:
		if strings.TrimSpace(d.Agent) == "" {
			return "a delegation without an agent"
		}
		s := fmt.Sprintf("delegated to %s: %s", d.Agent, oneLine(d.Task, 240))
		if len(d.IncludeArtifacts) > 0 {
			s += " with " + strings.Join(d.IncludeArtifacts, ", ")
		}
		return s
	case ActionComplete:
		return "complete"
	case ActionEscalate:
		return "escalate: " + oneLine(d.Question, 200)
	}
	return fmt.Sprintf("action %q", oneLine(string(d.Action), 40))
}

// Line is an outcome as the lead (and the CLI) reads it.
func (o Outcome) Line() string {
	var parts []string
	s := o.Status
	switch {
	case o.Passed() && o.Verdict == "unverified":
		// Consistent work that nothing executed: no check ran on it.
		s += ", unverified (nothing executed the change: no check ran on it)"
	case o.Passed() && o.Verdict != "" && o.Verdict != "passed":
		// The gates took the answer as text (a spec, an analysis): the
		// verifier had no tool evidence either way.
		s += ", accepted as a text deliverable (verdict " + o.Verdict + ": no tool evidence)"
	case o.Verdict != "":
		s += ", verdict " + o.Verdict
	}
	if o.Kind != "" && !o.Passed() {
		s += " (" + string(o.Kind) + ")"
	}
	parts = append(parts, s)
	if o.Reason != "" && !o.Passed() {
		parts = append(parts, "why: "+oneLine(o.Reason, 300))
	}
	for _, p := range o.Problems[:min(len(o.Problems), 3)] {
		if o.Passed() {
			break // a done task's inconclusive check is not a problem for the lead
		}
		parts = append(parts, "evidence: "+oneLine(p, 200))
	}
	if o.Hypothesis != "" && !o.Passed() {
		parts = append(parts, "likely cause: "+oneLine(o.Hypothesis, 240))
	}
	if len(o.Hints) > 0 {
		parts = append(parts, "hints: "+strings.Join(o.Hints, ", "))
	}
	if o.Suggested != "" {
		parts = append(parts, "suggested agent: "+o.Suggested)
	}
	if h := o.Handoff; h != nil {
		if h.Summary != "" {
			parts = append(parts, "handoff: "+oneLine(h.Summary, 300))
		}
		if len(h.Constraints) > 0 {
			parts = append(parts, "constraints: "+strings.Join(h.Constraints, "; "))
		}
		if h.Next != "" {
			parts = append(parts, "next: "+h.Next)
		}
		if len(h.Questions) > 0 {
			parts = append(parts, "open questions: "+strings.Join(h.Questions, "; "))
		}
		if len(h.Artifacts) > 0 {
			ids := make([]string, len(h.Artifacts))
			for i, a := range h.Artifacts {
				ids[i] = board.ArtifactRefID(a)
			}
			parts = append(parts, "artifacts: "+strings.Join(ids, " "))
		}
	}
	if o.ChangesetID != 0 {
		state := "staged"
		if o.Applied {
			state = "applied"
		}
		parts = append(parts, fmt.Sprintf("changeset %d %s", o.ChangesetID, state))
	}
	return strings.Join(parts, "; ")
}

func oneLine(s string, n int) string {
	return clipText(strings.Join(strings.Fields(s), " "), n)
}
