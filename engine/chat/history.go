package chat

import (
	"fmt"
	"strings"

	"github.com/nova-dev/nova/engine/untrusted"
)

// answerChars bounds one earlier answer in the history: the newest turns
// carry their answer up to this size, compacted ones a line.
const answerChars = 4000

// renderTurn is one earlier exchange as the prompt carries it.
func renderTurn(t Turn) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Turn %d — the user asked:\n%s\n", t.N, cut(t.Request, answerChars))
	who := t.Agent
	if who == "" {
		who = "the agent"
	}
	ans := strings.TrimSpace(t.Answer)
	switch {
	case ans != "":
		fmt.Fprintf(&b, "%s answered:\n%s\n", who, cut(ans, answerChars))
	case t.Error != "":
		fmt.Fprintf(&b, "%s did not finish: %s\n", who, cut(t.Error, 400))
	default:
		fmt.Fprintf(&b, "%s gave no answer (%s).\n", who, t.Status)
	}
	if len(t.Files) > 0 {
		fmt.Fprintf(&b, "Changed files: %s (changeset %d, %s).\n", strings.Join(t.Files, ", "), t.ChangesetID, changeState(t))
	}
	return b.String()
}

func changeState(t Turn) string {
	s := t.Change
	if s == "" {
		s = "pending"
	}
	if t.Verified {
		return s + ", verified"
	}
	return s
}

// summaryLine is one compacted turn in the session summary.
func summaryLine(t Turn) string {
	out := strings.TrimSpace(t.Answer)
	if out == "" {
		out = t.Error
	}
	line := fmt.Sprintf("- turn %d: %s → %s", t.N, oneLine(t.Request, 100), oneLine(out, 120))
	if len(t.Files) > 0 {
		line += fmt.Sprintf(" [changed %s; %s]", strings.Join(t.Files, ", "), changeState(t))
	}
	return line
}

// Plan is the history a turn's prompt carries.
type Plan struct {
	// Text is the history block ("" for a first turn).
	Text   string
	Tokens int
	// Summary is the session's summary after this turn's compaction; UpTo
	// the last turn it covers. Compacted is true when this turn compacted
	// turns (the session must be updated and the user told).
	Summary   string
	UpTo      int
	Compacted bool
}

// History builds the history block of the next turn from the session's
// finished earlier turns within budget tokens. Turns that do not fit are
// compacted, oldest first, into the session's visible summary (one line
// each); nothing is dropped silently: when even the summary outgrows half
// the budget its oldest lines are folded into a count that says where the
// full turns are (`nova chat show`).
func History(s Session, turns []Turn, budget int) Plan {
	p := Plan{Summary: s.Summary, UpTo: s.SummaryUpTo}
	var live []Turn
	for _, t := range turns {
		if t.N > p.UpTo && t.Finished() {
			live = append(live, t)
		}
	}
	rendered := make([]string, len(live))
	total := estimate(p.Summary)
	for i, t := range live {
		rendered[i] = renderTurn(t)
		total += estimate(rendered[i])
	}
	// Compact from the oldest until what is left fits (the newest turn is
	// always kept whole when it alone fits).
	first := 0
	for total > budget && first < len(live) {
		line := summaryLine(live[first])
		if p.Summary == "" {
			p.Summary = line
		} else {
			p.Summary += "\n" + line
		}
		total += estimate(line) + 1 - estimate(rendered[first])
		p.UpTo, p.Compacted = live[first].N, true
		first++
	}
	if lim := budget / 2; estimate(p.Summary) > lim && lim > 0 {
		p.Summary = foldSummary(p.Summary, lim, s.ID)
	}
	if p.Summary == "" && first == len(live) {
		return p
	}
	var b strings.Builder
	b.WriteString("The conversation so far (earlier turns of this chat session; the user's new request follows it):\n")
	if p.Summary != "" {
		fmt.Fprintf(&b, "\nSummary of turns 1–%d (compacted to fit the prompt):\n%s\n", p.UpTo, p.Summary)
	}
	for i := first; i < len(live); i++ {
		b.WriteString("\n" + rendered[i])
	}
	// The history holds model answers and file names: data, not
	// instructions.
	p.Text = "<chat_history>\n" + untrusted.Wrap("chat history", strings.TrimSpace(b.String())) + "\n</chat_history>"
	p.Tokens = estimate(p.Text)
	return p
}

// foldSummary keeps the newest summary lines within tokens and says how
// many older lines were folded and where they are.
func foldSummary(summary string, tokens int, session uint64) string {
	lines := strings.Split(summary, "\n")
	n := 0
	for n < len(lines) && estimate(strings.Join(lines[n:], "\n"))+20 > tokens {
		n++
	}
	folded := lines[n:]
	if n > 0 {
		folded = append([]string{fmt.Sprintf("- (%d earlier summary lines are not repeated here; `nova chat show %d` has every turn)", n, session)}, folded...)
	}
	return strings.Join(folded, "\n")
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	return cut(s, n)
}

// cut shortens s to n runes with a marker.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
