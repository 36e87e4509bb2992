package ace

// Team rules (engine/team). A teammate's rule marked shared arrives as
// versions of one subject; PutTeamRuleTx merges the version that holds into
// the agent's playbook as a SourceTeam rule whose id comes from the subject,
// so every workspace holding the same records ends with the same rule
// whatever order they arrived in. A rule edited here keeps the local text:
// a newer version is noted (TeamRef.Newer), never applied over the edit. A
// team rule the user removed is remembered (Playbook.TeamDropped) and not
// brought back.

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/storage"
)

// TeamRef ties a rule to a teammate's shared rule.
type TeamRef struct {
	// Subject is the shared rule's subject in the team's records.
	Subject string `json:"subject"`
	// Author is the teammate's short key ("k-" and 8 hex digits).
	Author string `json:"author"`
	// Version is the id of the team record whose text the rule holds.
	Version string `json:"version"`
	// Hash is TextHash of the text as applied: a rule whose content hashes
	// differently was edited here.
	Hash string `json:"hash"`
	// Newer is the id of a newer version left unapplied because the rule
	// was edited here.
	Newer string `json:"newer,omitempty"`
}

// TeamRule is the version of a teammate's shared rule that holds.
type TeamRule struct {
	Subject string
	Author  string
	Version string
	Kind    string
	Content string
	Deleted bool
	At      time.Time
	// Force applies the version over a local edit (the user took the
	// teammate's version).
	Force bool
}

// TeamRuleID is the local id of a teammate's shared rule: "t" and 10 hex
// digits of the SHA-256 of its subject.
func TeamRuleID(subject string) string {
	sum := sha256.Sum256([]byte(subject))
	return "t" + hex.EncodeToString(sum[:5])
}

// TextHash is the hash of a rule's text as a playbook stores it.
func TextHash(content string) string {
	sum := sha256.Sum256([]byte(cleanText(content)))
	return hex.EncodeToString(sum[:8])
}

// TeamRuleResult says what PutTeamRuleTx did.
type TeamRuleResult string

// PutTeamRuleTx results.
const (
	TeamRuleUnchanged TeamRuleResult = "unchanged"
	TeamRuleAdded     TeamRuleResult = "added"
	TeamRuleUpdated   TeamRuleResult = "updated"
	TeamRuleRemoved   TeamRuleResult = "removed"
	// TeamRuleKept: the rule was edited here; the newer version is noted.
	TeamRuleKept TeamRuleResult = "kept local edit"
	// TeamRuleDropped: the user removed the rule; it stays removed.
	TeamRuleDropped TeamRuleResult = "dropped here"
)

// PutTeamRuleTx merges the version of a teammate's shared rule that holds
// into agent's playbook, in the caller's write transaction (the team's
// apply). Changes are recorded in the playbook's history (origin "team");
// call NotifyTeam after the commit. The rule hook is not called: a
// teammate's rule is not published again from here.
func (m *Manager) PutTeamRuleTx(tx *bolt.Tx, agent string, tr TeamRule) (TeamRuleResult, error) {
	agent = canonAgent(agent)
	if err := validAgent(agent); err != nil {
		return TeamRuleUnchanged, err
	}
	content := cleanText(tr.Content)
	if content == "" && !tr.Deleted {
		return TeamRuleUnchanged, invalidf("team rule %s has no text", tr.Subject)
	}
	id := TeamRuleID(tr.Subject)
	res := TeamRuleUnchanged
	_, err := m.modifyTx(tx, agent, func(tx *bolt.Tx, p *Playbook) (bool, error) {
		var ch Change
		i := p.index(id)
		switch {
		case i < 0 && (tr.Deleted || slices.Contains(p.TeamDropped, tr.Subject)):
			if !tr.Deleted {
				res = TeamRuleDropped
			}
			return false, nil
		case i < 0:
			r := Rule{ID: id, Content: content, Kind: ParseKind(tr.Kind), Source: SourceTeam, Confidence: DefaultConfidence,
				Tags: []string{}, CreatedAt: tr.At, UpdatedAt: tr.At,
				Team: &TeamRef{Subject: tr.Subject, Author: tr.Author, Version: tr.Version, Hash: TextHash(content)}}
			p.Rules = insertTeamRule(p.Rules, r)
			after := r.clone()
			ch, res = Change{Op: OpAdd, RuleID: id, After: &after, Reason: "shared by " + tr.Author}, TeamRuleAdded
		default:
			r := &p.Rules[i]
			if r.Team == nil || (r.Team.Version == tr.Version && !tr.Force) {
				return false, nil
			}
			before := r.clone()
			if TextHash(r.Content) != r.Team.Hash && !tr.Force {
				if r.Team.Newer == tr.Version {
					res = TeamRuleKept
					return false, nil
				}
				r.Team.Newer, res = tr.Version, TeamRuleKept
				return true, nil
			}
			if tr.Deleted {
				p.Rules = slices.Delete(p.Rules, i, i+1)
				ch, res = Change{Op: OpRemove, RuleID: id, Before: &before, Reason: "unshared by " + tr.Author}, TeamRuleRemoved
				break
			}
			r.Content, r.Kind, r.UpdatedAt = content, ParseKind(tr.Kind), tr.At
			r.Team.Version, r.Team.Hash, r.Team.Newer = tr.Version, TextHash(content), ""
			after := r.clone()
			ch, res = Change{Op: OpUpdate, RuleID: id, Before: &before, After: &after, Reason: "new version by " + tr.Author}, TeamRuleUpdated
		}
		p.Version++
		ver := Version{Agent: p.Agent, Version: p.Version, Origin: "team", Changes: []Change{ch}, At: m.now()}
		return true, versionCodec.Put(tx.Bucket(storage.BucketPlaybookHistory), historyKey(p.Agent, p.Version), ver)
	})
	if err != nil {
		return TeamRuleUnchanged, fmt.Errorf("team rule %s: %w", tr.Subject, err)
	}
	return res, nil
}

// insertTeamRule keeps team rules in id order after the others, so that the
// order does not depend on the order records arrived in.
func insertTeamRule(rules []Rule, r Rule) []Rule {
	i := len(rules)
	for j := range rules {
		if rules[j].Team != nil && strings.Compare(rules[j].ID, r.ID) > 0 {
			i = j
			break
		}
	}
	return slices.Insert(rules, i, r)
}

// NotifyTeam tells OnChange that a team apply changed agent's playbook
// (after the commit).
func (m *Manager) NotifyTeam(agent string) { m.changed("playbook", canonAgent(agent)) }

// RuleHook sees the changes of an agent's rules in the transaction that
// makes them (a user's edit, the curator's update, a removal): engine/team
// publishes new versions of the rules an author marked shared.
type RuleHook func(tx *bolt.Tx, agent string, changes []Change) error

// SetRuleHook sets (nil: clears) the rule hook.
func (m *Manager) SetRuleHook(h RuleHook) {
	if h == nil {
		m.ruleHook.Store(nil)
		return
	}
	m.ruleHook.Store(&h)
}

func (m *Manager) ruleHookTx(tx *bolt.Tx, agent string, changes []Change) error {
	h := m.ruleHook.Load()
	if h == nil {
		return nil
	}
	if err := (*h)(tx, agent, changes); err != nil {
		return fmt.Errorf("share with the team: %w", err)
	}
	return nil
}

// RuleTx reads one rule of agent's playbook in the caller's transaction.
func (m *Manager) RuleTx(tx *bolt.Tx, agent, ruleID string) (Rule, bool) {
	agent = canonAgent(agent)
	if validAgent(agent) != nil {
		return Rule{}, false
	}
	p := m.loadShared(tx.Bucket(storage.BucketPlaybooks), agent)
	r, ok := p.Rule(ruleID)
	return r.clone(), ok
}

// CanonAgent is an agent's name as playbooks store it.
func CanonAgent(agent string) string { return canonAgent(agent) }
