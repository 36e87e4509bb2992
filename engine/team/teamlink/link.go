// Package teamlink ties engine/team's merged views to the workspace's own
// stores: team patterns into global wisdom (engine/vault), team fact chains
// into facts at the team scope (engine/knowledge/facts), teammates' shared
// rules into the playbooks (engine/ace) and their shared nodes into the
// taste vault; and the identity's wisdom actions, team-scope facts and the
// edits of the rules and nodes it marked shared out to the team as signed
// records.
package teamlink

import (
	"context"
	"fmt"
	"strings"
	"sync"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/ace"
	"github.com/nova-dev/nova/engine/knowledge/facts"
	"github.com/nova-dev/nova/engine/team"
	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/storage"
)

// Link namespaces (team.LinkTx).
const (
	nsWisdom = "w"
	nsFact   = "f"
)

// Linker projects team views and shares local actions.
type Linker struct {
	store     *team.Store
	mu        sync.Mutex
	wisdom    *vault.Wisdom
	playbooks *ace.Manager
	vault     *vault.Vault
}

// New links store to wisdom (nil: wisdom is not projected) and sets itself
// as the store's projector.
func New(store *team.Store, wisdom *vault.Wisdom) *Linker {
	l := &Linker{store: store, wisdom: wisdom}
	store.SetProjector(l.Project)
	return l
}

// SetWisdom links the vault's wisdom (patterns are projected into it).
func (l *Linker) SetWisdom(w *vault.Wisdom) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.wisdom = w
}

func (l *Linker) wis() *vault.Wisdom {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.wisdom
}

// Project applies the merged views of items to wisdom and facts.
func (l *Linker) Project(tx *bolt.Tx, s *team.Store, items []team.Item, all bool) error {
	for _, it := range items {
		var err error
		switch it.Kind {
		case team.KindWisdomBack:
			err = l.projectPattern(tx, s, it.Subject)
		case team.KindFact:
			err = projectFact(tx, s, it.Subject)
		case team.KindRule:
			err = l.projectRule(tx, s, it.Subject)
		case team.KindVaultNode:
			err = l.projectNode(tx, s, it.Subject)
		}
		if err != nil {
			return err
		}
	}
	if w := l.wis(); all && w != nil {
		return w.RestatusTx(tx)
	}
	return nil
}

func (l *Linker) projectPattern(tx *bolt.Tx, s *team.Store, subject string) error {
	w := l.wis()
	if w == nil {
		return nil
	}
	v, err := s.WisdomTx(tx, subject)
	if err != nil {
		return err
	}
	var id uint64
	if b := team.LinkTx(tx, nsWisdom, subject); len(b) == 8 {
		id = storage.ParseKey(b)
	}
	if v.Pattern.Content == "" && id == 0 {
		return nil // only non-members' records: nothing to show
	}
	tp := vault.TeamPattern{Subject: subject, Type: v.Pattern.Type, Title: v.Pattern.Title, Content: v.Pattern.Content,
		Body: v.Pattern.Body, Tags: v.Pattern.Tags, Language: v.Pattern.Language, Confidence: v.Pattern.Confidence,
		Backers: v.Backers}
	for _, h := range v.Harm {
		tp.Harm = append(tp.Harm, vault.TeamHarmReport{Key: h.Author, Reason: h.Reason, At: h.Clock.Time()})
	}
	nid, err := w.PutTeamPatternTx(tx, id, tp)
	if err != nil {
		return fmt.Errorf("team pattern %s: %w", subject, err)
	}
	if nid != id {
		return team.SetLinkTx(tx, nsWisdom, subject, storage.Key(nid))
	}
	return nil
}

func projectFact(tx *bolt.Tx, s *team.Store, subject string) error {
	c, err := s.FactChainTx(tx, subject)
	if err != nil {
		return err
	}
	links := team.LinksTx(tx, nsFact, subject+"\x00")
	ids := map[string]string{}
	for k, v := range links {
		ids[strings.TrimPrefix(k, subject+"\x00")] = string(v)
	}
	before := len(ids)
	vs := make([]facts.TeamVersion, 0, len(c.Versions))
	for _, v := range c.Versions {
		vs = append(vs, facts.TeamVersion{TeamID: v.ID, Author: team.ShortKey(v.Author), Content: v.Content, Tags: v.Tags,
			Confidence: v.Confidence, Reason: v.Reason, At: v.At, Invalidates: v.Invalidated})
	}
	if err := facts.PutTeamChainTx(tx, subject, vs, ids); err != nil {
		return fmt.Errorf("team fact %s: %w", subject, err)
	}
	if len(ids) == before {
		return nil
	}
	for vid, fid := range ids {
		if _, ok := links[subject+"\x00"+vid]; !ok {
			if err := team.SetLinkTx(tx, nsFact, subject+"\x00"+vid, []byte(fid)); err != nil {
				return err
			}
		}
	}
	return nil
}

// WisdomHook shares the identity's backing or harm report of a pattern
// (vault.TeamHook), in the vault's write transaction.
func (l *Linker) WisdomHook(tx *bolt.Tx, op vault.TeamOp, p vault.WisdomPattern) error {
	subject := p.TeamSubject
	if subject == "" {
		subject = team.WisdomSubject(p.Node.Content)
	}
	if team.LinkTx(tx, nsWisdom, subject) == nil {
		if err := team.SetLinkTx(tx, nsWisdom, subject, storage.Key(p.ID)); err != nil {
			return err
		}
	}
	body := team.WisdomBody{Type: string(p.Node.Type), Title: p.Node.Title, Content: p.Node.Content, Body: p.Node.Body,
		Tags: p.Node.Tags, Language: p.Node.Language, Confidence: p.Node.Confidence}
	harm := op == vault.TeamHarm
	if harm {
		me := l.wis().Me()
		for _, r := range p.HarmReports {
			if r.UserID == me {
				body.Reason = r.Reason
			}
		}
	}
	_, err := l.store.BackPatternTx(tx, subject, body, harm)
	return err
}

// AddTeamFact shares a new team fact (facts.TeamWriter).
func (l *Linker) AddTeamFact(ctx context.Context, content string, tags []string, confidence float64) (string, error) {
	return l.store.AddFact(ctx, team.FactBody{Content: content, Tags: tags, Confidence: confidence})
}

// CorrectTeamFact corrects a team fact chain (facts.TeamWriter).
func (l *Linker) CorrectTeamFact(ctx context.Context, subject, replacement, reason string) error {
	_, err := l.store.CorrectFact(ctx, subject, replacement, reason)
	return err
}

var _ facts.TeamWriter = (*Linker)(nil)
