package ace

import (
	"context"
	"fmt"

	"github.com/nova-dev/nova/engine/vault"
)

// Confidences of user-signal deltas: a user's decision is the strongest
// signal, so a stated reason is trusted more than any model's lesson.
const (
	SignalReasonConfidence  = 0.9
	SignalGenericConfidence = 0.6
	// SignalReinforce is added to a similar rule's confidence instead of
	// adding a duplicate.
	SignalReinforce = 0.05
)

// SignalReport says what a user signal changed.
type SignalReport struct {
	Agent    string `json:"agent"`
	TaskType string `json:"taskType"`
	Approved bool   `json:"approved"`
	Delta    Delta  `json:"delta"`
	Version  int    `json:"version"`
	VaultID  uint64 `json:"vaultId,omitempty"`
}

// RecordUserSignal learns from a user approving or rejecting a change of an
// agent (at every autonomy level). It produces one delta: with a reason, a
// Preference (approved) or Mistake (rejected) rule quoting it, and a vault
// node of the same type; without one, a generic Strategy or Mistake rule for
// the task type. A rule that already says the same (Jaccard ≥ 0.65) is
// reinforced instead of duplicated. taskType "" means "general"; it may also
// be a task title, which is classified with TaskType.
func (s *System) RecordUserSignal(ctx context.Context, agent, taskType string, approved bool, reason string) (SignalReport, error) {
	tt := taskType
	if !isTaskClass(tt) {
		tt = TaskType(taskType)
	}
	reason = cleanText(reason)
	if len(reason) > 500 {
		reason = reason[:500]
	}
	d := Delta{Op: OpAdd, Source: SourceLearned, Helpful: 1, Tags: []string{tt, "user-signal"}}
	switch {
	case approved && reason != "":
		d.Kind, d.Confidence = KindPreference, SignalReasonConfidence
		d.Content = fmt.Sprintf("For %s tasks the user approved a change because: %s", tt, reason)
	case approved:
		d.Kind, d.Confidence = KindStrategy, SignalGenericConfidence
		d.Content = fmt.Sprintf("For %s tasks the user approves changes made the current way: keep the approach.", tt)
	case reason != "":
		d.Kind, d.Confidence = KindMistake, SignalReasonConfidence
		d.Content = fmt.Sprintf("For %s tasks the user rejected a change because: %s. Do not repeat it.", tt, reason)
	default:
		d.Kind, d.Confidence = KindMistake, SignalGenericConfidence
		d.Content = fmt.Sprintf("For %s tasks the user rejected a change: re-read the task, keep changes focused and explain them.", tt)
	}
	d.Reason = "user signal"
	rep := SignalReport{Agent: canonAgent(agent), TaskType: tt, Approved: approved}
	p, err := s.m.GetPlaybook(ctx, agent)
	if err != nil {
		return rep, err
	}
	if r, _, ok := mostSimilar(p.Rules, d.Content); ok {
		d = Delta{Op: OpUpdate, RuleID: r.ID, Source: r.Source, Confidence: min(1, max(r.Confidence, d.Confidence)+SignalReinforce),
			Reason: "user signal reinforces " + r.ID}
	}
	pb, _, err := s.m.UpdatePlaybook(ctx, agent, []Delta{d}, "signal")
	if err != nil {
		return rep, err
	}
	rep.Delta, rep.Version = d, pb.Version
	if reason != "" {
		typ := vault.Preference
		if !approved {
			typ = vault.Mistake
		}
		rep.VaultID = s.vaultNode(ctx, vault.Node{Type: typ, Content: reason, Confidence: SignalReasonConfidence,
			Tags: []string{tt, "user-signal", canonTag(agent)}, Source: "user-signal:" + rep.Agent})
	}
	return rep, nil
}

func isTaskClass(s string) bool {
	if s == "general" {
		return true
	}
	for _, c := range taskClasses {
		if c.name == s {
			return true
		}
	}
	return false
}
