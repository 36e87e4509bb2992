package teamlink

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/ace"
	"github.com/nova-dev/nova/engine/team"
	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/storage"
)

// Link namespaces of rules and nodes: "r" subject → agent, "n" subject →
// 8-byte node id.
const (
	nsRule = "r"
	nsNode = "n"
)

// SetPlaybooks links the playbooks: teammates' shared rules are merged into
// them, and edits of the rules marked shared are published.
func (l *Linker) SetPlaybooks(m *ace.Manager) {
	l.mu.Lock()
	l.playbooks = m
	l.mu.Unlock()
	if m != nil {
		m.SetRuleHook(l.RuleHook)
	}
}

// SetVault links the vault: teammates' shared nodes are merged into it, and
// edits of the nodes marked shared are published.
func (l *Linker) SetVault(v *vault.Vault) {
	l.mu.Lock()
	l.vault = v
	l.mu.Unlock()
	if v != nil {
		v.SetNodeHook(l.NodeHook)
	}
}

func (l *Linker) pbs() *ace.Manager {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.playbooks
}

func (l *Linker) vlt() *vault.Vault {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.vault
}

// holding is the version of a shared rule or node that holds: the newest
// (in merge order) of the author of its first version. Other members'
// records under the same subject are kept in the team's view but never
// change the item. ok is false when no member's version is left.
func holding(vs []team.Version) (team.Version, bool) {
	if len(vs) == 0 {
		return team.Version{}, false
	}
	owner := vs[0].Author
	cur := vs[0]
	for _, v := range vs[1:] {
		if v.Author == owner {
			cur = v
		}
	}
	return cur, true
}

func (l *Linker) projectRule(tx *bolt.Tx, s *team.Store, subject string) error {
	pb := l.pbs()
	if pb == nil {
		return nil
	}
	vs, err := s.VersionsTx(tx, team.Item{Kind: team.KindRule, Subject: subject})
	if err != nil {
		return err
	}
	agent := string(team.LinkTx(tx, nsRule, subject))
	cur, ok := holding(vs)
	if ok && cur.Author == s.Self() {
		return nil // this workspace's own rule: the playbook is its source
	}
	tr := ace.TeamRule{Subject: subject, Deleted: true}
	if ok {
		var b team.RuleBody
		if json.Unmarshal(cur.Body, &b) != nil {
			return nil
		}
		tr = ace.TeamRule{Subject: subject, Author: team.ShortKey(cur.Author), Version: cur.ID, Kind: b.Section,
			Content: b.Text, Deleted: b.Deleted, At: cur.Clock.Time()}
		if agent == "" {
			agent = ace.CanonAgent(b.Agent)
		}
	}
	if agent == "" {
		return nil
	}
	res, err := pb.PutTeamRuleTx(tx, agent, tr)
	if errors.Is(err, ace.ErrInvalid) {
		// A version the playbook cannot hold (no text, a bad agent name)
		// is left out: it must not stop the team's other records.
		return nil
	}
	if err != nil {
		return err
	}
	if team.LinkTx(tx, nsRule, subject) == nil && res != ace.TeamRuleUnchanged {
		if err := team.SetLinkTx(tx, nsRule, subject, []byte(agent)); err != nil {
			return err
		}
	}
	if res != ace.TeamRuleUnchanged {
		tx.OnCommit(func() { pb.NotifyTeam(agent) })
	}
	return nil
}

func (l *Linker) projectNode(tx *bolt.Tx, s *team.Store, subject string) error {
	v := l.vlt()
	if v == nil {
		return nil
	}
	vs, err := s.VersionsTx(tx, team.Item{Kind: team.KindVaultNode, Subject: subject})
	if err != nil {
		return err
	}
	var id uint64
	if b := team.LinkTx(tx, nsNode, subject); len(b) == 8 {
		id = storage.ParseKey(b)
	}
	cur, ok := holding(vs)
	if ok && cur.Author == s.Self() {
		return nil
	}
	tn := vault.TeamNode{Subject: subject, Deleted: true}
	if ok {
		var b team.NodeBody
		if json.Unmarshal(cur.Body, &b) != nil {
			return nil
		}
		tn = vault.TeamNode{Subject: subject, Author: team.ShortKey(cur.Author), Version: cur.ID, Type: b.Type,
			Title: b.Title, Content: b.Content, Body: b.Body, Tags: b.Tags, Language: b.Language, Deleted: b.Deleted,
			At: cur.Clock.Time()}
	}
	nid, res, err := v.PutTeamNodeTx(tx, id, tn)
	if errors.Is(err, vault.ErrInvalid) {
		return nil // as for rules: a node the vault cannot hold is left out
	}
	if err != nil {
		return err
	}
	if res == vault.TeamNodeRemoved {
		// Removed by its author (or with them from the team), not by the
		// user here: a later version may bring it back.
		return team.DeleteLinkTx(tx, nsNode, subject)
	}
	if nid != 0 && nid != id {
		return team.SetLinkTx(tx, nsNode, subject, storage.Key(nid))
	}
	return nil
}

// RuleSubject is the subject of this workspace's shared rule.
func RuleSubject(self, agent, ruleID string) string {
	return fmt.Sprintf("r-%s-%s-%s", strings.TrimPrefix(team.ShortKey(self), "k-"), strings.ToLower(agent), ruleID)
}

// NodeSubject is the subject of this workspace's shared node.
func NodeSubject(self string, id uint64) string {
	return fmt.Sprintf("n-%s-%d", strings.TrimPrefix(team.ShortKey(self), "k-"), id)
}

func ruleBody(agent string, r ace.Rule) team.RuleBody {
	return team.RuleBody{Agent: ace.CanonAgent(agent), Section: string(r.Kind), Text: r.Content}
}

func nodeBody(n vault.Node) team.NodeBody {
	return team.NodeBody{Type: string(n.Type), Title: n.Title, Content: n.Content, Body: n.Body, Tags: n.Tags, Language: n.Language}
}

// ShareRule marks agent's rule shared and publishes its text (a new version
// when it changed since it was last published); from then on its edits are
// published as they are made.
func (l *Linker) ShareRule(ctx context.Context, agent, ruleID string) (team.Mark, error) {
	pb := l.pbs()
	if pb == nil {
		return team.Mark{}, fmt.Errorf("%w: playbooks are not linked to the team", team.ErrInvalid)
	}
	if err := ctx.Err(); err != nil {
		return team.Mark{}, err
	}
	var m team.Mark
	err := l.store.DB().Update(func(tx *bolt.Tx) error {
		r, ok := pb.RuleTx(tx, agent, ruleID)
		if !ok {
			return fmt.Errorf("playbook %s has no rule %q: %w", ace.CanonAgent(agent), ruleID, team.ErrNotFound)
		}
		var err error
		m, err = l.store.MarkTx(tx, team.Mark{Kind: team.KindRule, Subject: RuleSubject(l.store.Self(), agent, ruleID),
			Agent: ace.CanonAgent(agent), RuleID: ruleID}, ruleBody(agent, r))
		return err
	})
	if err == nil {
		l.store.Kick()
	}
	return m, err
}

// ShareNode marks vault node id shared and publishes it (see ShareRule).
func (l *Linker) ShareNode(ctx context.Context, id uint64) (team.Mark, error) {
	v := l.vlt()
	if v == nil {
		return team.Mark{}, fmt.Errorf("%w: the vault is not linked to the team", team.ErrInvalid)
	}
	n, err := v.Get(ctx, id)
	if err != nil {
		return team.Mark{}, err
	}
	var m team.Mark
	err = l.store.DB().Update(func(tx *bolt.Tx) error {
		var err error
		m, err = l.store.MarkTx(tx, team.Mark{Kind: team.KindVaultNode, Subject: NodeSubject(l.store.Self(), id), NodeID: id}, nodeBody(n))
		return err
	})
	if err == nil {
		l.store.Kick()
	}
	return m, err
}

// RuleHook publishes the edits of rules marked shared (ace.RuleHook).
func (l *Linker) RuleHook(tx *bolt.Tx, agent string, changes []ace.Change) error {
	for _, c := range changes {
		key := team.RuleMarkKey(agent, c.RuleID)
		var err error
		switch {
		case c.After != nil:
			_, err = l.store.PublishMarkedTx(tx, key, ruleBody(agent, *c.After), false)
		case c.Before != nil:
			b := ruleBody(agent, *c.Before)
			b.Deleted = true
			_, err = l.store.PublishMarkedTx(tx, key, b, true)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// NodeHook publishes the edits of nodes marked shared (vault.NodeHook).
func (l *Linker) NodeHook(tx *bolt.Tx, n vault.Node, removed bool) error {
	b := nodeBody(n)
	b.Deleted = removed
	_, err := l.store.PublishMarkedTx(tx, team.NodeMarkKey(n.ID), b, removed)
	return err
}

// TakeRule applies the teammate's current version of a team rule over the
// local edit that kept it out (TeamRef.Newer). It reports whether the rule
// changed.
func (l *Linker) TakeRule(ctx context.Context, agent, ruleID string) (bool, error) {
	pb := l.pbs()
	if pb == nil {
		return false, fmt.Errorf("%w: playbooks are not linked to the team", team.ErrInvalid)
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	changed := false
	err := l.store.DB().Update(func(tx *bolt.Tx) error {
		r, ok := pb.RuleTx(tx, agent, ruleID)
		if !ok || r.Team == nil {
			return fmt.Errorf("playbook %s has no teammate's rule %q: %w", ace.CanonAgent(agent), ruleID, team.ErrNotFound)
		}
		vs, err := l.store.VersionsTx(tx, team.Item{Kind: team.KindRule, Subject: r.Team.Subject})
		if err != nil {
			return err
		}
		cur, ok := holding(vs)
		if !ok {
			return fmt.Errorf("team rule %s: %w", r.Team.Subject, team.ErrNotFound)
		}
		var b team.RuleBody
		if err := json.Unmarshal(cur.Body, &b); err != nil {
			return fmt.Errorf("%w: team rule %s: %w", team.ErrInvalid, r.Team.Subject, err)
		}
		res, err := pb.PutTeamRuleTx(tx, agent, ace.TeamRule{Subject: r.Team.Subject, Author: team.ShortKey(cur.Author),
			Version: cur.ID, Kind: b.Section, Content: b.Text, Deleted: b.Deleted, At: cur.Clock.Time(), Force: true})
		changed = res != ace.TeamRuleUnchanged
		return err
	})
	if err == nil && changed {
		pb.NotifyTeam(agent)
	}
	return changed, err
}

// TakeNode applies the teammate's current version of a team node over the
// local edit that kept it out (vault.MetaTeamNewer).
func (l *Linker) TakeNode(ctx context.Context, id uint64) (bool, error) {
	v := l.vlt()
	if v == nil {
		return false, fmt.Errorf("%w: the vault is not linked to the team", team.ErrInvalid)
	}
	n, err := v.Get(ctx, id)
	if err != nil {
		return false, err
	}
	subject := n.Meta[vault.MetaTeamSubject]
	if n.TeamAuthor() == "" || subject == "" {
		return false, fmt.Errorf("node %d is not a teammate's: %w", id, team.ErrNotFound)
	}
	changed := false
	err = l.store.DB().Update(func(tx *bolt.Tx) error {
		vs, err := l.store.VersionsTx(tx, team.Item{Kind: team.KindVaultNode, Subject: subject})
		if err != nil {
			return err
		}
		cur, ok := holding(vs)
		if !ok {
			return fmt.Errorf("team node %s: %w", subject, team.ErrNotFound)
		}
		var b team.NodeBody
		if err := json.Unmarshal(cur.Body, &b); err != nil {
			return fmt.Errorf("%w: team node %s: %w", team.ErrInvalid, subject, err)
		}
		_, res, err := v.PutTeamNodeTx(tx, id, vault.TeamNode{Subject: subject, Author: team.ShortKey(cur.Author), Version: cur.ID,
			Type: b.Type, Title: b.Title, Content: b.Content, Body: b.Body, Tags: b.Tags, Language: b.Language,
			Deleted: b.Deleted, At: cur.Clock.Time(), Force: true})
		changed = res != vault.TeamNodeUnchanged
		return err
	})
	return changed, err
}
