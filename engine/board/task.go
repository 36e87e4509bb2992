package board

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// Bounds of a task's board block (beside the inline board).
const (
	// IncludeTokens bounds the full content of one included artifact in a
	// prompt, IncludeTotalTokens all of them; the rest is read with
	// readArtifact.
	IncludeTokens      = 1500
	IncludeTotalTokens = 3000
	// maxConstraintLines bounds the constraints passed down to a task.
	maxConstraintLines = 12
	// maxArtifactChars bounds one stored artifact (a huge file or answer is
	// kept up to here).
	maxArtifactChars = 2 << 20
)

// TaskBlock is the board block of a task's prompt: the inline board, the
// constraints the handoffs of the upstream tasks pass down (newest first),
// the full content of the artifacts the task includes (within
// IncludeTotalTokens) and how to end with a handoff.
func (s *Store) TaskBlock(ctx context.Context, key Key, include []uint64, upstream []string) (string, error) {
	b, err := s.Get(ctx, key)
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	sb.WriteString(b.Inline())
	sb.WriteByte('\n')
	if len(upstream) > 0 {
		hs, err := s.Handoffs(ctx, key)
		if err != nil {
			return "", err
		}
		if lines := constraintLines(hs, upstream); len(lines) > 0 {
			sb.WriteString("\n<constraints_from_earlier_tasks>\nKeep these rules, passed on by the tasks before yours:\n")
			for _, l := range lines {
				sb.WriteString(l + "\n")
			}
			sb.WriteString("</constraints_from_earlier_tasks>\n")
		}
	}
	if len(include) > 0 {
		sb.WriteString("\n<included_artifacts>\nThe lead included these artifacts for your task:\n")
		left := IncludeTotalTokens * 4
		for _, id := range include {
			a, err := s.Artifact(ctx, id)
			if err != nil || a.Board != key.String() {
				fmt.Fprintf(&sb, "\n%s: not on this board\n", ArtifactRefID(id))
				continue
			}
			n := min(IncludeTokens*4, left)
			if n <= 0 {
				fmt.Fprintf(&sb, "\n%s (%s %s): not shown here (read it with readArtifact %s)\n", a.Ref(), a.Type, a.Name, a.Ref())
				continue
			}
			page := Page(a, 0, n)
			left -= len([]rune(page))
			sb.WriteString("\n" + page + "\n")
		}
		sb.WriteString("</included_artifacts>\n")
	}
	sb.WriteString("\n" + HandoffInstructions + "\n")
	return sb.String(), nil
}

// constraintLines are the constraints of the upstream tasks' handoffs,
// newest first, one line each, at most maxConstraintLines.
func constraintLines(hs []Handoff, upstream []string) []string {
	var out []string
	for i := len(hs) - 1; i >= 0 && len(out) < maxConstraintLines; i-- {
		h := hs[i]
		if !slices.Contains(upstream, h.Task) {
			continue
		}
		for _, c := range h.Constraints {
			if len(out) >= maxConstraintLines {
				break
			}
			out = append(out, fmt.Sprintf("- %s (from %s, %s)", oneLine(c, MaxTextChars), h.Task, h.Agent))
		}
	}
	return out
}

// OpenBlockers returns a board's open blockers by the task that raised
// them ("b1: text").
func (s *Store) OpenBlockers(ctx context.Context, key Key) (map[string][]string, error) {
	b, err := s.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, x := range b.Blockers {
		if x.Task != "" {
			out[x.Task] = append(out[x.Task], x.ID+": "+x.Text)
		}
	}
	return out, nil
}

// TaskEnd is a finished task for Finish.
type TaskEnd struct {
	Task  string
	Title string
	Agent string
	// Status is the task's outcome (done, blocked); Passed whether it is
	// done; Reason why not.
	Status string
	Passed bool
	Reason string
	// Output is the agent's answer.
	Output string
	// Files are the staged files (path → proposed content) of a done task;
	// ChangesetID their changeset.
	Files       map[string]string
	ChangesetID uint64
	// Suggested is the agent a failed run suggests.
	Suggested string
}

// Finish registers what a task produced on the board (its answer, its
// staged files, the evidence of a failure), adds a history line and stores
// its handoff — the one the agent wrote at the end of its answer, or one
// derived from the outcome — in one transaction.
func (s *Store) Finish(ctx context.Context, key Key, e TaskEnd) (Handoff, error) {
	h, body, written := ParseHandoff(e.Output)
	if !written {
		h = DeriveHandoff(e.Output)
	}
	h.Task, h.Agent, h.Status = e.Task, e.Agent, e.Status
	if h.Summary == "" && !e.Passed {
		h.Summary = e.Status + ": " + oneLine(e.Reason, 300)
	}
	if h.Next == "" && e.Suggested != "" {
		h.Next = e.Suggested
	}
	var arts []Artifact
	add := func(t ArtifactType, name, content string) {
		if strings.TrimSpace(content) == "" {
			return
		}
		if r := []rune(content); len(r) > maxArtifactChars {
			content = string(r[:maxArtifactChars]) + "\n[cut: the artifact kept its first 2 MiB characters]"
		}
		arts = append(arts, Artifact{ArtifactRef: ArtifactRef{Type: t, Name: name, By: e.Agent, Task: e.Task,
			ChangesetID: e.ChangesetID}, Content: content})
	}
	add(TypeOutput, clip(oneLine(e.Title, 80), 80), body)
	paths := make([]string, 0, len(e.Files))
	for p := range e.Files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		add(TypeFile, p, e.Files[p])
	}
	if !e.Passed && e.Reason != "" {
		add(TypeErrorLog, "why "+e.Task+" is "+e.Status, e.Reason)
	}
	line := fmt.Sprintf("%s %s %s: %s", e.Task, e.Agent, e.Status, oneLine(h.Summary, 300))
	if !e.Passed && e.Reason != "" && written {
		line += " (" + oneLine(e.Reason, 160) + ")"
	}
	next, base, err := s.nextSummary(ctx, key, line)
	if err != nil {
		return Handoff{}, err
	}
	var stored Handoff
	_, err = s.update(ctx, key, "handoff", func(tx *bolt.Tx, b *Board) error {
		var ids []uint64
		for _, a := range arts {
			a, err := s.addArtifactTx(tx, key, b, a)
			if err != nil {
				return err
			}
			ids = append(ids, a.ID)
		}
		h.Artifacts = append(ids, h.Artifacts...)
		var err error
		if stored, err = s.addHandoffTx(tx, key, b, h); err != nil {
			return err
		}
		b.Summary = mergeSummary(b.Summary, base, next, line)
		return nil
	})
	return stored, err
}
