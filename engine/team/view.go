package team

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Merge thresholds of shared wisdom (as engine/vault's).
const (
	BackersToActivate   = 3
	HarmReportsToDemote = 3
)

// WisdomBody is the body of wisdom.back and wisdom.harm records: the
// pattern's sanitized text (every record carries it, so any one brings the
// pattern) and, for harm, the reason.
type WisdomBody struct {
	Type       string   `json:"type,omitempty"`
	Title      string   `json:"title,omitempty"`
	Content    string   `json:"content"`
	Body       string   `json:"body,omitempty"`
	Tags       []string `json:"tags,omitempty"`
	Language   string   `json:"language,omitempty"`
	Confidence float64  `json:"confidence,omitempty"`
	Reason     string   `json:"reason,omitempty"`
}

// WisdomSubject is the subject of a pattern: "w-" and 16 hex digits of the
// SHA-256 of its content, lower-cased with runs of space folded.
func WisdomSubject(content string) string {
	sum := sha256.Sum256([]byte(strings.ToLower(strings.Join(strings.Fields(content), " "))))
	return "w-" + hex.EncodeToString(sum[:8])
}

// HarmEntry is one author's harm report.
type HarmEntry struct {
	Author string `json:"author"`
	Reason string `json:"reason,omitempty"`
	Clock  Clock  `json:"clock"`
}

// WisdomView is a pattern as the team's records make it.
type WisdomView struct {
	Subject string     `json:"subject"`
	Pattern WisdomBody `json:"pattern"`
	// Backers and Harm are sets of author keys (members only), sorted.
	Backers []string    `json:"backers"`
	Harm    []HarmEntry `json:"harm"`
	Status  string      `json:"status"`
	Updated Clock       `json:"updated"`
}

// Pattern statuses of the team view.
const (
	StatusPending = "pending"
	StatusActive  = "active"
	StatusDemoted = "demoted"
)

// WisdomTx merges the records of one pattern.
func (s *Store) WisdomTx(tx *bolt.Tx, subject string) (WisdomView, error) {
	recs, err := s.RecordsOf(tx, Item{Kind: KindWisdomBack, Subject: subject})
	if err != nil {
		return WisdomView{}, err
	}
	v := WisdomView{Subject: subject, Backers: []string{}, Harm: []HarmEntry{}}
	harm := map[string]bool{}
	for _, r := range recs {
		var b WisdomBody
		if json.Unmarshal(r.Body, &b) != nil {
			continue
		}
		if v.Pattern.Content == "" {
			v.Pattern = b
			v.Pattern.Reason = ""
		}
		v.Updated = r.Clock
		switch r.Kind {
		case KindWisdomBack:
			if !slices.Contains(v.Backers, r.Author) {
				v.Backers = append(v.Backers, r.Author)
			}
		case KindWisdomHarm:
			if !harm[r.Author] {
				harm[r.Author] = true
				v.Harm = append(v.Harm, HarmEntry{Author: r.Author, Reason: b.Reason, Clock: r.Clock})
			}
		}
	}
	slices.Sort(v.Backers)
	slices.SortFunc(v.Harm, func(a, b HarmEntry) int { return strings.Compare(a.Author, b.Author) })
	switch {
	case len(v.Harm) >= HarmReportsToDemote:
		v.Status = StatusDemoted
	case len(v.Backers) >= BackersToActivate:
		v.Status = StatusActive
	default:
		v.Status = StatusPending
	}
	return v, nil
}

// FactBody is the body of fact and fact.correct records.
type FactBody struct {
	Content    string   `json:"content"`
	Tags       []string `json:"tags,omitempty"`
	Confidence float64  `json:"confidence,omitempty"`
	// Supersedes is the id of the version a correction corrects.
	Supersedes string `json:"supersedes,omitempty"`
	Reason     string `json:"reason,omitempty"`
	// Invalidate: a correction without a replacement.
	Invalidate bool `json:"invalidate,omitempty"`
}

// FactVersion is one version of a fact chain.
type FactVersion struct {
	ID           string    `json:"id"`
	Author       string    `json:"author"`
	Clock        Clock     `json:"clock"`
	At           time.Time `json:"at"`
	Content      string    `json:"content"`
	Tags         []string  `json:"tags,omitempty"`
	Confidence   float64   `json:"confidence,omitempty"`
	Reason       string    `json:"reason,omitempty"`
	Supersedes   string    `json:"supersedes,omitempty"`
	SupersededBy string    `json:"supersededBy,omitempty"`
	Invalidated  bool      `json:"invalidated,omitempty"`
}

// FactChain is a team fact and its corrections, in merge order: every
// version is kept; the last one holds (unless it invalidates the fact).
type FactChain struct {
	Subject  string        `json:"subject"`
	Versions []FactVersion `json:"versions"`
}

// Current is the version that holds (nil when the chain was invalidated or
// is empty).
func (c FactChain) Current() *FactVersion {
	if len(c.Versions) == 0 {
		return nil
	}
	v := &c.Versions[len(c.Versions)-1]
	if v.Invalidated {
		return nil
	}
	return v
}

// FactChainTx merges the records of one fact chain: versions ordered by
// clock, then author, then id; each is superseded by the next. Two members
// correcting the same version at the same moment both stay in the chain.
func (s *Store) FactChainTx(tx *bolt.Tx, subject string) (FactChain, error) {
	recs, err := s.RecordsOf(tx, Item{Kind: KindFact, Subject: subject})
	if err != nil {
		return FactChain{}, err
	}
	c := FactChain{Subject: subject, Versions: []FactVersion{}}
	for _, r := range recs {
		var b FactBody
		if json.Unmarshal(r.Body, &b) != nil {
			continue
		}
		c.Versions = append(c.Versions, FactVersion{ID: r.ID.String(), Author: r.Author, Clock: r.Clock, At: r.Clock.Time(),
			Content: b.Content, Tags: b.Tags, Confidence: b.Confidence, Reason: b.Reason, Supersedes: b.Supersedes,
			Invalidated: b.Invalidate})
	}
	for i := 0; i+1 < len(c.Versions); i++ {
		c.Versions[i].SupersededBy = c.Versions[i+1].ID
	}
	return c, nil
}

// Version is one version of a shared rule or node.
type Version struct {
	ID     string          `json:"id"`
	Author string          `json:"author"`
	Clock  Clock           `json:"clock"`
	Body   json.RawMessage `json:"body"`
}

// RuleBody is a version of a shared playbook rule.
type RuleBody struct {
	Agent   string `json:"agent"`
	Section string `json:"section,omitempty"`
	Text    string `json:"text"`
	Deleted bool   `json:"deleted,omitempty"`
}

// NodeBody is a version of a shared vault node.
type NodeBody struct {
	Type     string   `json:"type,omitempty"`
	Title    string   `json:"title,omitempty"`
	Content  string   `json:"content"`
	Body     string   `json:"body,omitempty"`
	Tags     []string `json:"tags,omitempty"`
	Language string   `json:"language,omitempty"`
	Deleted  bool     `json:"deleted,omitempty"`
}

// VersionsTx lists every version of a shared rule or node, in merge order
// (the last is current).
func (s *Store) VersionsTx(tx *bolt.Tx, it Item) ([]Version, error) {
	recs, err := s.RecordsOf(tx, it)
	if err != nil {
		return nil, err
	}
	out := make([]Version, 0, len(recs))
	for _, r := range recs {
		out = append(out, Version{ID: r.ID.String(), Author: r.Author, Clock: r.Clock, Body: r.Body})
	}
	return out, nil
}

// Views is every merged item this workspace holds.
type Views struct {
	Wisdom []WisdomView         `json:"wisdom"`
	Facts  []FactChain          `json:"facts"`
	Rules  map[string][]Version `json:"rules"`
	Nodes  map[string][]Version `json:"nodes"`
}

// Views merges every item.
func (s *Store) Views(ctx context.Context) (Views, error) {
	if err := ctx.Err(); err != nil {
		return Views{}, err
	}
	v := Views{Wisdom: []WisdomView{}, Facts: []FactChain{}, Rules: map[string][]Version{}, Nodes: map[string][]Version{}}
	err := s.db.View(func(tx *bolt.Tx) error {
		items, err := s.Items(tx)
		if err != nil {
			return err
		}
		for _, it := range items {
			switch it.Kind {
			case KindWisdomBack:
				w, err := s.WisdomTx(tx, it.Subject)
				if err != nil {
					return err
				}
				if w.Pattern.Content != "" {
					v.Wisdom = append(v.Wisdom, w)
				}
			case KindFact:
				c, err := s.FactChainTx(tx, it.Subject)
				if err != nil {
					return err
				}
				if len(c.Versions) > 0 {
					v.Facts = append(v.Facts, c)
				}
			case KindRule, KindVaultNode:
				vs, err := s.VersionsTx(tx, it)
				if err != nil {
					return err
				}
				if len(vs) == 0 {
					continue
				}
				if it.Kind == KindRule {
					v.Rules[it.Subject] = vs
				} else {
					v.Nodes[it.Subject] = vs
				}
			}
		}
		return nil
	})
	return v, err
}

// ViewDigest is the SHA-256 of the merged views' canonical JSON: two
// workspaces whose views agree have the same digest.
func (s *Store) ViewDigest(ctx context.Context) (string, error) {
	v, err := s.Views(ctx)
	if err != nil {
		return "", err
	}
	data, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

// newSubject makes a subject for a new fact chain, rule or node: prefix and
// 16 hex digits of a hash of the author, the clock and the text.
func (s *Store) newSubject(prefix, text string) string {
	c := s.hlc.Now()
	sum := sha256.Sum256([]byte(s.self + "\x00" + c.String() + "\x00" + text))
	return prefix + hex.EncodeToString(sum[:8])
}

// BackPattern records that this workspace backs a pattern (harm empty) or
// reports it did harm; the subject is WisdomSubject(p.Content).
func (s *Store) BackPattern(ctx context.Context, p WisdomBody, harm bool) (string, error) {
	var subject string
	err := s.db.Update(func(tx *bolt.Tx) error {
		var err error
		subject, err = s.BackPatternTx(tx, "", p, harm)
		return err
	})
	if err == nil {
		s.Kick()
	}
	return subject, err
}

// BackPatternTx is BackPattern in the caller's transaction (call Kick after
// it committed), under subject ("": WisdomSubject of the content).
func (s *Store) BackPatternTx(tx *bolt.Tx, subject string, p WisdomBody, harm bool) (string, error) {
	if strings.TrimSpace(p.Content) == "" {
		return "", fmt.Errorf("%w: a pattern needs content", ErrInvalid)
	}
	if subject == "" {
		subject = WisdomSubject(p.Content)
	}
	kind := KindWisdomBack
	if harm {
		kind = KindWisdomHarm
		if p.Reason == "" {
			p.Reason = "reported as harmful"
		}
	} else {
		p.Reason = ""
	}
	_, _, err := s.WriteTx(tx, kind, subject, p)
	return subject, err
}

// AddFact shares a new fact at the team scope; it returns its chain's
// subject.
func (s *Store) AddFact(ctx context.Context, f FactBody) (string, error) {
	if strings.TrimSpace(f.Content) == "" {
		return "", fmt.Errorf("%w: a fact needs content", ErrInvalid)
	}
	f.Supersedes, f.Invalidate = "", false
	subject := s.newSubject("f-", f.Content)
	_, _, err := s.Write(ctx, KindFact, subject, f)
	return subject, err
}

// CorrectFact adds a correction to a fact chain: it supersedes the version
// that holds now (a replacement), or invalidates the fact (content empty).
func (s *Store) CorrectFact(ctx context.Context, subject, content, reason string) (FactVersion, error) {
	var out FactVersion
	err := s.db.Update(func(tx *bolt.Tx) error {
		c, err := s.FactChainTx(tx, subject)
		if err != nil {
			return err
		}
		cur := c.Current()
		if cur == nil {
			return fmt.Errorf("team fact %s: %w", subject, ErrNotFound)
		}
		b := FactBody{Content: content, Tags: cur.Tags, Confidence: cur.Confidence, Supersedes: cur.ID, Reason: reason}
		if strings.TrimSpace(content) == "" {
			b.Content, b.Invalidate = cur.Content, true
		}
		rec, id, err := s.WriteTx(tx, KindFactCorrect, subject, b)
		if err != nil {
			return err
		}
		out = FactVersion{ID: id.String(), Author: rec.Author, Clock: rec.Clock, At: rec.Clock.Time(), Content: b.Content,
			Reason: reason, Supersedes: cur.ID, Invalidated: b.Invalidate}
		return nil
	})
	if err == nil {
		s.Kick()
	}
	return out, err
}

// ShareRule records a version of a playbook rule (subject "" starts a new
// one); it returns the subject.
func (s *Store) ShareRule(ctx context.Context, subject string, r RuleBody) (string, error) {
	if subject == "" {
		subject = s.newSubject("r-", r.Agent+"\x00"+r.Text)
	}
	_, _, err := s.Write(ctx, KindRule, subject, r)
	return subject, err
}

// ShareNode records a version of a vault node (subject "" starts a new
// one); it returns the subject.
func (s *Store) ShareNode(ctx context.Context, subject string, n NodeBody) (string, error) {
	if subject == "" {
		subject = s.newSubject("n-", n.Title+"\x00"+n.Content)
	}
	_, _, err := s.Write(ctx, KindVaultNode, subject, n)
	return subject, err
}
