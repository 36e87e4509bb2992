package rehearsal

import (
	"fmt"
	"strings"
)

// FormatSummary is the console summary of a session: each branch with its
// score breakdown, the decision, and the key differences between the
// winner (or the leader) and the runner-up.
func FormatSummary(ss Session) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Rehearsal %d — task %s", ss.ID, ss.TaskID)
	if ss.TaskTitle != "" {
		fmt.Fprintf(&b, " (%s)", ss.TaskTitle)
	}
	fmt.Fprintf(&b, ", agent %s, round %d, %s\n", cmpOr(ss.AgentName, "-"), len(ss.Rounds), ss.Status)
	for i, br := range ss.Branches {
		r, _ := ss.Result(br.ID)
		mark := " "
		if br.ID == ss.Winner {
			mark = "*"
		}
		fmt.Fprintf(&b, "%s %d. %-9s %.2f %-6s typeCheck %s  lineDelta %.2f  self %.2f  taste %.2f  (+%d −%d, %d file(s))\n",
			mark, i+1, br.Approach, r.Score, r.Band, r.TypeCheck.ScoreText(), r.LineDelta.Score,
			r.SelfAssessment.Score, r.TasteAlignment.Score, r.Adds, r.Dels, len(br.Files))
		if br.Description != "" {
			fmt.Fprintf(&b, "     %s\n", oneLine(br.Description, 110))
		}
	}
	if t := ss.Trimmed(); t != "" {
		fmt.Fprintf(&b, "  ✂ %s\n", t)
	}
	if len(ss.Rounds) > 0 {
		for _, sk := range ss.Rounds[len(ss.Rounds)-1].Skipped {
			fmt.Fprintf(&b, "  skipped %s: %s\n", sk.Approach, sk.Reason)
		}
	}
	if d := KeyDifferences(ss); d != "" {
		b.WriteString(d)
	}
	switch ss.Status {
	case StatusPending:
		fmt.Fprintf(&b, "Waiting for a decision: nova rehearsal approve %d BRANCH | nova rehearsal reject %d\n", ss.ID, ss.ID)
	case StatusApproved:
		how := "approved by the user"
		if ss.Auto {
			how = "selected automatically (autonomy ≥ 3)"
		}
		fmt.Fprintf(&b, "Winner %s, %s; wrote %s\n", ss.Winner, how, strings.Join(ss.Written, ", "))
	case StatusRejected:
		fmt.Fprintf(&b, "Rejected: %s\n", ss.Reason)
	case StatusFailed:
		fmt.Fprintf(&b, "Failed: %s\n", ss.Failure)
	}
	return b.String()
}

// KeyDifferences compares the winner (or the best) with the runner-up.
func KeyDifferences(ss Session) string {
	ranked := ss.Ranked()
	if len(ranked) < 2 {
		return ""
	}
	first, second := ranked[0], ranked[1]
	if ss.Winner != "" && ss.Winner != first.BranchID {
		for _, r := range ranked {
			if r.BranchID == ss.Winner {
				first, second = r, ranked[0]
				break
			}
		}
	}
	a, _ := ss.Branch(first.BranchID)
	c, _ := ss.Branch(second.BranchID)
	var b strings.Builder
	fmt.Fprintf(&b, "Key differences, %s vs %s:\n", a.Approach, c.Approach)
	dims := []struct {
		name string
		x, y Dimension
	}{
		{"typeCheck", first.TypeCheck, second.TypeCheck},
		{"lineDelta", first.LineDelta, second.LineDelta},
		{"selfAssessment", first.SelfAssessment, second.SelfAssessment},
		{"tasteAlignment", first.TasteAlignment, second.TasteAlignment},
	}
	for _, d := range dims {
		if d.x.ScoreText() != d.y.ScoreText() {
			fmt.Fprintf(&b, "  %-14s %s vs %s (%s | %s)\n", d.name, d.x.ScoreText(), d.y.ScoreText(), d.x.Evidence, d.y.Evidence)
		}
	}
	pa, pc := paths(a), paths(c)
	if pa != pc {
		fmt.Fprintf(&b, "  files          %s vs %s\n", pa, pc)
	}
	fmt.Fprintf(&b, "  size           +%d −%d vs +%d −%d\n", first.Adds, first.Dels, second.Adds, second.Dels)
	return b.String()
}

func paths(b Branch) string {
	var out []string
	for _, f := range b.Files {
		out = append(out, f.Path)
	}
	return strings.Join(out, ", ")
}

// BuildRehearsalContext is the <rehearsal_context> block given to later
// prompts (a retry, the dependent tasks): what was tried and chosen.
func BuildRehearsalContext(ss Session) string {
	var b strings.Builder
	b.WriteString("<rehearsal_context>\n")
	fmt.Fprintf(&b, "Task %s was rehearsed with %d candidate(s) (session %d, %s).\n", ss.TaskID, len(ss.Branches), ss.ID, ss.Status)
	for _, br := range ss.Branches {
		r, _ := ss.Result(br.ID)
		tag := ""
		if br.ID == ss.Winner {
			tag = " [chosen]"
		}
		fmt.Fprintf(&b, "- %s%s, score %.2f (%s): %s\n", br.Approach, tag, r.Score, r.Band, oneLine(br.Description, 200))
	}
	if ss.Status == StatusRejected && ss.Reason != "" {
		fmt.Fprintf(&b, "The user rejected every candidate: %s\n", ss.Reason)
	} else if ss.Reason != "" {
		fmt.Fprintf(&b, "The user's note: %s\n", ss.Reason)
	}
	b.WriteString("</rehearsal_context>")
	return b.String()
}
