package board

import (
	"fmt"
	"strings"
)

// Per-section caps of the inline part (characters; tokens are ceil(runes/4)).
// They add up to less than InlineTokens, so every section always has room;
// artifact references take what the others leave.
const (
	inlineGoalChars     = 200
	inlineDecisionChars = 150
	inlineBlockerChars  = 170
	inlineSummaryChars  = SummaryTokens * 4
	inlinePreviewChars  = 90
	inlineNameChars     = 60
)

// Inline renders the part of the board that goes into every prompt: the
// goal, the key decisions, the open blockers, the history summary and as
// many artifact references (newest first) as fit. It never exceeds
// InlineTokens tokens, whatever the board holds.
func (b Board) Inline() string {
	var head strings.Builder
	head.WriteString("<session_board>\n")
	head.WriteString("Shared board of this work (" + b.Key + "). Keep it current: addDecision, addBlocker, resolveBlocker, setGoal; readArtifact ID loads an artifact.\n")
	if g := oneLine(b.Goal, inlineGoalChars); g != "" {
		head.WriteString("Goal: " + g + "\n")
	} else {
		head.WriteString("Goal: (not set)\n")
	}
	if len(b.Decisions) > 0 {
		head.WriteString("Key decisions:\n")
		for _, d := range lastN(b.Decisions, MaxDecisions) {
			fmt.Fprintf(&head, "- %s (%s)\n", oneLine(d.Text, inlineDecisionChars), oneLine(who(d.By, d.Task), 40))
		}
	}
	if len(b.Blockers) > 0 {
		head.WriteString("Open blockers:\n")
		for _, x := range lastN(b.Blockers, MaxBlockers) {
			fmt.Fprintf(&head, "- %s %s (%s)\n", oneLine(x.ID, 8), oneLine(x.Text, inlineBlockerChars), oneLine(who(x.By, x.Task), 40))
		}
	}
	if s := strings.TrimSpace(cleanText(b.Summary)); s != "" {
		head.WriteString("History:\n" + clip(s, inlineSummaryChars) + "\n")
	}
	const tail = "</session_board>"
	budget := InlineTokens*4 - len([]rune(head.String())) - len(tail) - 1
	var arts strings.Builder
	if len(b.Artifacts) > 0 {
		label := "Artifacts (newest first):\n"
		budget -= len(label)
		shown := 0
		var lines strings.Builder
		for i := len(b.Artifacts) - 1; i >= 0; i-- {
			line := artifactLine(b.Artifacts[i])
			n := len([]rune(line))
			// Keep room for the "older" line.
			if n > budget-40 {
				break
			}
			budget -= n
			lines.WriteString(line)
			shown++
		}
		if shown > 0 {
			arts.WriteString(label)
			arts.WriteString(lines.String())
		}
		if older := max(b.ArtifactCount, len(b.Artifacts)) - shown; older > 0 {
			fmt.Fprintf(&arts, "(%d older artifacts: readArtifact ID)\n", older)
		}
	}
	out := head.String() + arts.String() + tail
	// A guard for the caps above: never over the budget.
	if EstimateTokens(out) > InlineTokens {
		out = clip(out, InlineTokens*4-len(tail)-1) + "\n" + tail
	}
	return out
}

func artifactLine(r ArtifactRef) string {
	name := oneLine(r.Name, inlineNameChars)
	if name != "" {
		name = " " + name
	}
	return fmt.Sprintf("- %s %s%s (%s, %d tok): %s\n", r.Ref(), r.Type, name, oneLine(who(r.By, r.Task), 40), r.Tokens,
		oneLine(r.Preview, inlinePreviewChars))
}

func who(by, task string) string {
	switch {
	case by == "" && task == "":
		return "?"
	case task == "":
		return by
	case by == "":
		return task
	}
	return by + ", " + task
}

func lastN[T any](s []T, n int) []T {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
