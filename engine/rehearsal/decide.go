package rehearsal

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/internal/safefile"
)

// ApproveOptions configure Approve.
type ApproveOptions struct {
	// Reason is an optional note stored with the decision.
	Reason string
	// Force overwrites files that changed on disk since the rehearsal.
	Force bool
}

// Approve writes one branch of a pending session (by id or 1-based number)
// through the changeset path (staged, then applied: confinement, conflict
// check, atomic writes) and records the decision; only that branch's files
// are written. The choice is learned as a Preference.
func (s *Service) Approve(ctx context.Context, id uint64, ref string, o ApproveOptions) (Session, error) {
	ss, err := s.Get(ctx, id)
	if err != nil {
		return ss, err
	}
	if !ss.Pending() {
		return ss, fmt.Errorf("approve rehearsal %d: %w (it is %s)", id, ErrNotPending, ss.Status)
	}
	b, ok := ss.Branch(ref)
	if !ok {
		return ss, fmt.Errorf("rehearsal %d: %w %q (have %s)", id, ErrNoBranch, ref, branchRefs(ss))
	}
	if !o.Force {
		if err := s.checkOriginals(b); err != nil {
			return ss, err
		}
	}
	csID, written, err := s.stage(ctx, ss, b, true, o.Force)
	if err != nil {
		return ss, err
	}
	yes := true
	ss, err = s.update(ctx, id, func(x *Session) error {
		if !x.Pending() {
			return fmt.Errorf("approve rehearsal %d: %w", id, ErrNotPending)
		}
		x.Status, x.Winner, x.UserApproved, x.Auto = StatusApproved, b.ID, &yes, false
		x.Reason, x.ChangesetID, x.Written, x.DecidedAt = o.Reason, csID, written, s.now()
		return nil
	})
	if err != nil {
		return ss, err
	}
	return s.learnChoice(ctx, ss)
}

// Reject rejects every branch of a pending session: the task is blocked with
// the reason, nothing is written, and the patterns that dominated the
// rejected branches are demoted.
func (s *Service) Reject(ctx context.Context, id uint64, reason string) (Session, error) {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		reason = "rejected by the user"
	}
	no := false
	ss, err := s.update(ctx, id, func(x *Session) error {
		if !x.Pending() {
			return fmt.Errorf("reject rehearsal %d: %w (it is %s)", id, ErrNotPending, x.Status)
		}
		x.Status, x.UserApproved, x.Reason, x.DecidedAt = StatusRejected, &no, reason, s.now()
		return nil
	})
	if err != nil {
		return ss, err
	}
	if s.Vault == nil {
		return ss, nil
	}
	var demote []uint64
	for _, r := range ss.Results {
		demote = appendNew(demote, r.Reflected...)
	}
	for _, nid := range demote {
		if _, err := s.Vault.Demote(ctx, nid); err != nil && !errors.Is(err, vault.ErrNotFound) {
			return ss, fmt.Errorf("learn from rehearsal %d: %w", id, err)
		}
	}
	approaches := make([]string, 0, len(ss.Branches))
	for _, b := range ss.Branches {
		approaches = append(approaches, string(b.Approach))
	}
	n, err := s.learnPreference(ctx, vault.Node{
		Type:       vault.Preference,
		Content:    fmt.Sprintf("for %s, the user rejected the %s candidates: %s", ss.TaskType, strings.Join(approaches, ", "), reason),
		Tags:       []string{"rehearsal", "rejected", tagOf(ss.TaskType)},
		Source:     "rehearsal:" + strconv.FormatUint(ss.ID, 10),
		Confidence: 0.6,
		Meta:       map[string]string{"session": strconv.FormatUint(ss.ID, 10), "task": ss.TaskID},
	})
	if err != nil {
		return ss, fmt.Errorf("learn from rehearsal %d: %w", id, err)
	}
	return s.update(ctx, id, func(x *Session) error { x.PreferenceID = n; return nil })
}

// autoSelect picks the best branch (autonomy ≥ 3), stages it and, when
// apply is set, applies it. UserApproved stays unset.
func (s *Service) autoSelect(ctx context.Context, ss Session, apply bool) (Session, error) {
	ranked := ss.Ranked()
	if len(ranked) == 0 {
		return ss, ErrNoValid
	}
	b, _ := ss.Branch(ranked[0].BranchID)
	// Autonomy applies only what something executed: a branch whose checks
	// did not run (none configured) is staged for the user, never written.
	note := ""
	if apply && (!ranked[0].CheckRan || !ranked[0].CheckPassed) {
		apply, note = false, "selected automatically but not applied: no check ran on it (unverified); review and apply it yourself"
	}
	csID, written, err := s.stage(ctx, ss, b, apply, false)
	if err != nil {
		return ss, err
	}
	ss, err = s.update(ctx, ss.ID, func(x *Session) error {
		x.Status, x.Winner, x.Auto, x.UserApproved = StatusApproved, b.ID, true, nil
		x.ChangesetID, x.Written, x.DecidedAt = csID, written, s.now()
		if note != "" {
			x.Reason = note
		}
		return nil
	})
	if err != nil {
		return ss, err
	}
	return s.learnChoice(ctx, ss)
}

// stage puts the branch's files into a changeset and, when apply is set,
// applies it. Only this branch's files are staged.
func (s *Service) stage(ctx context.Context, ss Session, b Branch, apply, force bool) (uint64, []string, error) {
	if s.Changes == nil {
		return 0, nil, errors.New("rehearsal: no changeset store")
	}
	d := s.Changes.NewDraft(changes.Meta{Agent: ss.AgentName,
		Task: fmt.Sprintf("rehearsal %d, %s: %s (%s)", ss.ID, ss.TaskID, ss.TaskTitle, b.Approach)})
	for _, f := range b.Files {
		if _, err := d.Put(ctx, f.Path, []byte(f.ProposedContent)); err != nil {
			s.discard(d.ID())
			return 0, nil, fmt.Errorf("stage %s: %w", f.Path, err)
		}
	}
	if d.ID() == 0 {
		return 0, []string{}, nil // the branch changes nothing on disk
	}
	if !apply {
		return d.ID(), []string{}, nil
	}
	rep, err := s.Changes.Apply(ctx, d.ID(), changes.ApplyOptions{Force: force})
	if err != nil {
		s.discard(d.ID())
		return 0, nil, fmt.Errorf("apply branch %s: %w", b.ID, err)
	}
	return d.ID(), rep.Applied, nil
}

func (s *Service) discard(id uint64) {
	if id != 0 {
		_, _ = s.Changes.Discard(context.WithoutCancel(context.Background()), id)
	}
}

// learnChoice records the Preference "for <task type>, prefer <approach>
// over <other>", reinforces the patterns the winner reflects and demotes the
// patterns that only the losing branches reflect.
func (s *Service) learnChoice(ctx context.Context, ss Session) (Session, error) {
	if s.Vault == nil {
		return ss, nil
	}
	win, ok := ss.Branch(ss.Winner)
	if !ok {
		return ss, nil
	}
	var others []string
	for _, b := range ss.Branches {
		if b.ID != win.ID && !slices.Contains(others, string(b.Approach)) {
			others = append(others, string(b.Approach))
		}
	}
	content := fmt.Sprintf("for %s, prefer %s over %s", ss.TaskType, win.Approach, strings.Join(others, " and "))
	if len(others) == 0 {
		content = fmt.Sprintf("for %s, prefer the %s approach", ss.TaskType, win.Approach)
	}
	if win.Description != "" {
		content += " (chosen: " + oneLine(win.Description, 160) + ")"
	}
	conf := 0.8
	how := "user"
	if ss.Auto {
		conf, how = 0.6, "auto"
	}
	prefID, err := s.learnPreference(ctx, vault.Node{
		Type:       vault.Preference,
		Content:    content,
		Tags:       []string{"rehearsal", string(win.Approach), tagOf(ss.TaskType)},
		Source:     "rehearsal:" + strconv.FormatUint(ss.ID, 10),
		Confidence: conf,
		Meta: map[string]string{"session": strconv.FormatUint(ss.ID, 10), "task": ss.TaskID,
			"branch": win.ID, "decidedBy": how},
	})
	if err != nil {
		return ss, fmt.Errorf("learn from rehearsal %d: %w", ss.ID, err)
	}
	var winHit, loseHit []uint64
	for _, r := range ss.Results {
		if r.BranchID == win.ID {
			winHit = appendNew(winHit, r.Reflected...)
		} else {
			loseHit = appendNew(loseHit, r.Reflected...)
		}
	}
	for _, id := range winHit {
		if _, err := s.Vault.Reinforce(ctx, id); err != nil && !errors.Is(err, vault.ErrNotFound) {
			return ss, err
		}
	}
	for _, id := range loseHit {
		if slices.Contains(winHit, id) {
			continue
		}
		if _, err := s.Vault.Demote(ctx, id); err != nil && !errors.Is(err, vault.ErrNotFound) {
			return ss, err
		}
	}
	return s.update(ctx, ss.ID, func(x *Session) error { x.PreferenceID = prefID; return nil })
}

func appendNew(dst []uint64, ids ...uint64) []uint64 {
	for _, id := range ids {
		if !slices.Contains(dst, id) {
			dst = append(dst, id)
		}
	}
	return dst
}

func tagOf(s string) string { return strings.ReplaceAll(strings.TrimSpace(s), " ", "-") }

func branchRefs(ss Session) string {
	var out []string
	for i, b := range ss.Branches {
		out = append(out, fmt.Sprintf("%d=%s", i+1, b.ID))
	}
	return strings.Join(out, ", ")
}

// checkOriginals refuses a branch whose files changed on disk since the
// rehearsal read them (the diff the user approved would not be the change
// written). The error wraps changes.ErrConflict and names the files.
func (s *Service) checkOriginals(b Branch) error {
	var changed []string
	for _, f := range b.Files {
		_, abs, err := tools.ConfineRel(s.Root, f.Path)
		if err != nil {
			return fmt.Errorf("branch %s: %w", b.ID, err)
		}
		data, err := safefile.ReadFile(abs, 256<<20) // never blocks on a FIFO
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if !f.New {
				changed = append(changed, f.Path+" (deleted)")
			}
		case err != nil:
			return fmt.Errorf("read %s: %w", f.Path, err)
		case string(data) == f.ProposedContent:
			// Already holds this branch's content: an approval interrupted
			// between writing and recording it (issue 11), not a conflict.
		case f.New:
			changed = append(changed, f.Path+" (created)")
		case string(data) != f.OriginalContent:
			changed = append(changed, f.Path)
		}
	}
	if len(changed) > 0 {
		return fmt.Errorf("branch %s: %w since the rehearsal: %s (regenerate, or approve with force)",
			b.ID, changes.ErrConflict, strings.Join(changed, ", "))
	}
	return nil
}

// learnPreference learns what a rehearsal decision taught as learning
// (vault.ByLearning): a full vault archives a less confident node or leaves
// this one out, in which case the id is 0.
func (s *Service) learnPreference(ctx context.Context, n vault.Node) (uint64, error) {
	rs, err := s.Vault.LearnAs(ctx, vault.ByLearning, n)
	if err != nil || len(rs) == 0 || rs[0].NotStored {
		return 0, err
	}
	return rs[0].Node.ID, nil
}
