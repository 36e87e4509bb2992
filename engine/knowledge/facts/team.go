package facts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"
)

// ErrNoTeam: a team-scope fact in a workspace that has not joined a team.
var ErrNoTeam = errors.New("this workspace has not joined a team (nova team join URL)")

// TeamWriter shares team-scope facts (engine/team). Its writes project the
// merged chain back into this file (PutTeamChainTx) in their transaction.
type TeamWriter interface {
	// AddTeamFact shares a new fact; it returns its chain's subject.
	AddTeamFact(ctx context.Context, content string, tags []string, confidence float64) (string, error)
	// CorrectTeamFact adds a correction to a chain (replacement "" invalidates).
	CorrectTeamFact(ctx context.Context, subject, replacement, reason string) error
}

type teamHolder struct{ w TeamWriter }

// SetTeam sets (or, with nil, clears) the team writer.
func (s *Service) SetTeam(w TeamWriter) {
	if w == nil {
		s.team.Store(nil)
		return
	}
	s.team.Store(&teamHolder{w: w})
}

func (s *Service) teamWriter() (TeamWriter, error) {
	h := s.team.Load()
	if h == nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, ErrNoTeam)
	}
	return h.w, nil
}

func (s *Service) addTeam(ctx context.Context, f Fact) (Fact, error) {
	w, err := s.teamWriter()
	if err != nil {
		return Fact{}, err
	}
	subject, err := w.AddTeamFact(ctx, f.Content, f.Tags, f.Confidence)
	if err != nil {
		return Fact{}, fmt.Errorf("share team fact: %w", err)
	}
	return s.teamHead(ctx, subject)
}

// teamHead is the version of a team chain that holds now.
func (s *Service) teamHead(ctx context.Context, subject string) (Fact, error) {
	var out Fact
	err := s.read(ctx, false, func(tx *bolt.Tx) error {
		fs := teamChainTx(tx, subject)
		for i := len(fs) - 1; i >= 0; i-- {
			if fs[i].Valid() {
				out = fs[i]
				return nil
			}
		}
		if len(fs) > 0 {
			out = fs[len(fs)-1]
			return nil
		}
		return fmt.Errorf("%w: team fact %s", ErrNotFound, subject)
	})
	return out, err
}

func (s *Service) correctTeam(ctx context.Context, old Fact, reason, repl string) (Correction, error) {
	w, err := s.teamWriter()
	if err != nil {
		return Correction{}, err
	}
	if !old.Valid() {
		return Correction{}, alreadyClosed(old)
	}
	if err := w.CorrectTeamFact(ctx, old.Source.TeamSubject, repl, reason); err != nil {
		return Correction{}, fmt.Errorf("correct team fact %s: %w", old.ID, err)
	}
	closed, err := s.Get(ctx, old.ID)
	if err != nil {
		return Correction{}, err
	}
	out := Correction{Old: closed}
	if repl != "" {
		if head, err := s.teamHead(ctx, old.Source.TeamSubject); err == nil && head.ID != old.ID {
			out.New = &head
		}
	}
	return out, nil
}

func (s *Service) promoteToTeam(ctx context.Context, old Fact) (Correction, error) {
	nf, err := s.addTeam(ctx, Fact{Content: old.Content, Tags: old.Tags, Confidence: old.Confidence})
	if err != nil {
		return Correction{}, err
	}
	fid, err := parseID(old.ID)
	if err != nil {
		return Correction{}, err
	}
	var out Correction
	err = s.write(ctx, fid.user, func(tx *bolt.Tx) ([]Fact, error) {
		cur, err := getFact(tx, fid)
		if err != nil {
			return nil, err
		}
		prev := cur
		cur.ValidUntil, cur.Reason, cur.SupersededBy = nf.ValidFrom, "promoted to team", nf.ID
		if err := putFact(tx, fid.user, &cur, &prev); err != nil {
			return nil, err
		}
		out = Correction{Old: cur, New: &nf}
		return []Fact{cur}, nil
	})
	return out, err
}

// teamChainTx lists the local facts of one team chain, oldest first.
func teamChainTx(tx *bolt.Tx, subject string) []Fact {
	var out []Fact
	scopeIdx.IDs(tx, Team().String(), func(n uint64) bool {
		f, err := getFact(tx, factID{n: n})
		if err == nil && f.Source.TeamSubject == subject {
			out = append(out, f)
		}
		return true
	})
	slices.SortFunc(out, func(a, b Fact) int { return a.ValidFrom.Compare(b.ValidFrom) })
	return out
}

const leftTeam = "its author is no longer a team member"

// TeamVersion is one version of a team fact chain as engine/team merged it
// (in merge order).
type TeamVersion struct {
	TeamID     string
	Author     string
	Content    string
	Tags       []string
	Confidence float64
	Reason     string
	At         time.Time
	// Invalidates: the version closes the chain without a replacement.
	Invalidates bool
}

// PutTeamChainTx writes a team fact chain into the workspace file at the
// team scope, in the caller's transaction. ids maps a version's TeamID to
// its local fact id; versions without one are created and added to ids.
// Each version is closed by the next (superseded), the last holds unless it
// invalidates; local facts of the chain whose version is no longer in it
// (its author left the team) are archived. Local usefulness counters are
// kept. Nothing is written when nothing changed.
func PutTeamChainTx(tx *bolt.Tx, subject string, versions []TeamVersion, ids map[string]string) error {
	var content []TeamVersion
	closure := map[int]TeamVersion{} // index in content → the invalidation closing it
	for _, v := range versions {
		if v.Invalidates {
			if len(content) > 0 {
				closure[len(content)-1] = v
			}
			continue
		}
		content = append(content, v)
	}
	want := make([]Fact, len(content))
	for i, v := range content {
		conf := v.Confidence
		if conf <= 0 || conf > 1 {
			conf = DefaultUserConfidence
		}
		tags, err := cleanTags(v.Tags)
		if err != nil {
			tags = nil
		}
		text, err := cleanContent(v.Content, "the fact", MaxContentChars)
		if err != nil {
			text = clip(v.Content, MaxContentChars)
		}
		f := Fact{ID: ids[v.TeamID], Content: text, Scope: Team(), Confidence: conf, Tags: tags,
			Source: Source{Type: SourceTeam, TeamSubject: subject, TeamID: v.TeamID}, Author: v.Author, ValidFrom: v.At.UTC()}
		if f.Tags == nil {
			f.Tags = []string{}
		}
		if f.ID == "" {
			if err := putFact(tx, false, &f, nil); err != nil {
				return err
			}
			ids[v.TeamID] = f.ID
		}
		want[i] = f
	}
	for i := range want {
		f := &want[i]
		f.Supersedes, f.SupersededBy, f.ValidUntil, f.Reason = "", "", time.Time{}, ""
		if i > 0 {
			f.Supersedes = want[i-1].ID
		}
		if i+1 < len(want) {
			f.SupersededBy, f.ValidUntil, f.Reason = want[i+1].ID, content[i+1].At.UTC(), clip(content[i+1].Reason, MaxReasonChars)
		} else if c, ok := closure[i]; ok {
			f.ValidUntil, f.Reason = c.At.UTC(), clip(c.Reason, MaxReasonChars)
		}
		if err := putTeamFact(tx, *f, false); err != nil {
			return err
		}
	}
	// Versions that left the chain.
	keep := map[string]bool{}
	for _, f := range want {
		keep[f.ID] = true
	}
	for _, localID := range ids {
		if keep[localID] {
			continue
		}
		id, err := parseID(localID)
		if err != nil {
			continue
		}
		f, err := getFact(tx, id)
		if err != nil || f.Archived {
			continue
		}
		f.Archived, f.ArchiveReason = true, leftTeam
		if err := putTeamFact(tx, f, true); err != nil {
			return err
		}
	}
	return nil
}

// putTeamFact updates a stored team fact with f's shared fields (local
// counters kept), writing only when something changed.
func putTeamFact(tx *bolt.Tx, f Fact, archive bool) error {
	id, err := parseID(f.ID)
	if err != nil {
		return err
	}
	old, err := getFact(tx, id)
	if err != nil {
		return err
	}
	cur := old
	cur.Content, cur.Scope, cur.Source, cur.Confidence, cur.Tags, cur.Author, cur.ValidFrom =
		f.Content, f.Scope, f.Source, f.Confidence, f.Tags, f.Author, f.ValidFrom
	cur.Supersedes, cur.SupersededBy, cur.ValidUntil, cur.Reason = f.Supersedes, f.SupersededBy, f.ValidUntil, f.Reason
	if archive {
		cur.Archived, cur.ArchiveReason = f.Archived, f.ArchiveReason
	} else if cur.Archived && cur.ArchiveReason == leftTeam {
		cur.Archived, cur.ArchiveReason = false, ""
	}
	cur.derive()
	a, _ := json.Marshal(old)
	b, _ := json.Marshal(cur)
	if string(a) == string(b) {
		return nil
	}
	return putFact(tx, false, &cur, &old)
}

// TeamFactIDsTx lists the local ids of every team-scope fact.
func TeamFactIDsTx(tx *bolt.Tx) []string {
	var out []string
	scopeIdx.IDs(tx, Team().String(), func(n uint64) bool {
		out = append(out, factID{n: n}.String())
		return true
	})
	return out
}
