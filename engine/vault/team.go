package vault

// Team wisdom (engine/team). When the workspace has joined a team, the
// identity's promotions, endorsements and harm reports are also shared as
// signed team records (TeamHook, called inside the write transaction, so the
// record enters the team outbox atomically with the local change), and the
// team's merged view of each pattern comes back through PutTeamPatternTx.
// Team members' keys count towards activation as trusted keys do
// (trustTx); the backers of a team pattern are named by their key
// ("k-" and 8 hex digits) and their key recorded in BackerKeys.

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/storage"
)

// TeamOp is what the identity did to a pattern.
type TeamOp string

// Team operations.
const (
	TeamBack TeamOp = "back"
	TeamHarm TeamOp = "harm"
)

// TeamHook shares the identity's action on pattern id (read it in tx).
type TeamHook func(tx *bolt.Tx, op TeamOp, p WisdomPattern) error

// SetTeamHook sets (nil: clears) the team hook.
func (w *Wisdom) SetTeamHook(h TeamHook) {
	if h == nil {
		w.v.teamHook.Store(nil)
		return
	}
	w.v.teamHook.Store(&h)
}

func (w *Wisdom) teamTx(tx *bolt.Tx, op TeamOp, id uint64) error {
	h := w.v.teamHook.Load()
	if h == nil {
		return nil
	}
	p, err := getPattern(tx, id)
	if err != nil {
		return err
	}
	if err := (*h)(tx, op, p); err != nil {
		return fmt.Errorf("share with the team: %w", err)
	}
	return nil
}

// modifyShared is modify followed by the team hook in the same transaction.
func (w *Wisdom) modifyShared(ctx context.Context, op string, top TeamOp, id uint64, fn func(p *WisdomPattern) error) (WisdomPattern, error) {
	var out WisdomPattern
	err := w.write(ctx, op, func(tx *bolt.Tx) error {
		p, err := getPattern(tx, id)
		if err != nil {
			return err
		}
		if _, err := w.putModified(tx, id, p, fn); err != nil {
			return err
		}
		if err := w.teamTx(tx, top, id); err != nil {
			return err
		}
		out, err = getPattern(tx, id)
		return err
	})
	if err != nil {
		return WisdomPattern{}, err
	}
	out.Score = WisdomScore(out, w.v.now())
	return out, nil
}

// TeamBackerName is how a team backer is named: "k-" and 8 hex digits of
// the SHA-256 of its key (engine/team's ShortKey).
func TeamBackerName(key string) string {
	sum := sha256.Sum256([]byte(key))
	return "k-" + hex.EncodeToString(sum[:4])
}

// TeamHarmReport is one member's harm report in a team pattern.
type TeamHarmReport struct {
	Key    string
	Reason string
	At     time.Time
}

// TeamPattern is a pattern as the team's records merged it.
type TeamPattern struct {
	Subject    string
	Type       string
	Title      string
	Content    string
	Body       string
	Tags       []string
	Language   string
	Confidence float64
	// Backers are member keys.
	Backers []string
	Harm    []TeamHarmReport
}

// PutTeamPatternTx writes the team's view of a pattern into wisdom, in the
// caller's transaction: into pattern id when it is not 0 (a local pattern
// already linked to the subject), else into a new pending pattern. Local
// backers and reports stay; team backers and reports are replaced by the
// view's. It returns the pattern id.
func (w *Wisdom) PutTeamPatternTx(tx *bolt.Tx, id uint64, tp TeamPattern) (uint64, error) {
	patterns, err := wisdomBucket(tx, wbPatterns, true)
	if err != nil {
		return 0, err
	}
	now := w.v.now()
	var p WisdomPattern
	if id != 0 {
		if p, err = getPattern(tx, id); err != nil {
			id = 0
		}
	}
	if id == 0 {
		n := Node{Type: NodeType(tp.Type), Title: tp.Title, Content: tp.Content, Body: tp.Body, Tags: tp.Tags,
			Language: tp.Language, Confidence: tp.Confidence}
		if n.Type == "" {
			n.Type = "Pattern"
		}
		if err := n.normalize("", true); err != nil {
			return 0, fmt.Errorf("team pattern %s: %w", tp.Subject, err)
		}
		clean := Sanitize(n, w.v.opts.ProjectTerms...)
		if id, err = storage.NextID(patterns); err != nil {
			return 0, err
		}
		clean.ID, clean.CreatedAt, clean.UpdatedAt = id, now, now
		p = WisdomPattern{ID: id, Node: clean, SourceNodeIDs: []uint64{}, Backers: []string{}, HarmReports: []HarmReport{},
			CreatedAt: now, UpdatedAt: now}
	}
	p.TeamSubject = tp.Subject
	backers := slices.DeleteFunc(slices.Clone(p.Backers), func(b string) bool { return strings.HasPrefix(b, "k-") })
	keys := map[string]string{}
	for b, k := range p.BackerKeys {
		if !strings.HasPrefix(b, "k-") {
			keys[b] = k
		}
	}
	// This workspace backs or reports as its identity (me) and signs as its
	// key: one backer, shown once.
	self := ""
	if priv, err := signingKeyTx(tx); err == nil && priv != nil {
		self = FormatKey(priv.Public().(ed25519.PublicKey))
	}
	me := w.Me()
	for _, k := range tp.Backers {
		if k == self && slices.Contains(backers, me) {
			continue
		}
		name := TeamBackerName(k)
		backers = append(backers, name)
		keys[name] = k
	}
	harm := slices.DeleteFunc(slices.Clone(p.HarmReports), func(r HarmReport) bool { return strings.HasPrefix(r.UserID, "k-") })
	for _, r := range tp.Harm {
		if r.Key == self && slices.ContainsFunc(harm, func(h HarmReport) bool { return h.UserID == me }) {
			continue
		}
		harm = append(harm, HarmReport{UserID: TeamBackerName(r.Key), Reason: oneLine(cleanText(r.Reason), 500), At: r.At})
	}
	changed := !slices.Equal(backers, p.Backers) || len(harm) != len(p.HarmReports)
	p.Backers, p.HarmReports = backers, harm
	if len(keys) > 0 {
		p.BackerKeys = keys
	} else {
		p.BackerKeys = nil
	}
	if changed {
		p.UpdatedAt = now
	}
	p.Status = statusOf(&p, w.Me(), trustTx(tx))
	if err := patternCodec.Put(patterns, storage.Key(id), p); err != nil {
		return 0, err
	}
	return id, nil
}

// RestatusTx computes every pattern's status again (the team's members
// changed).
func (w *Wisdom) RestatusTx(tx *bolt.Tx) error { return w.restatusTx(tx) }

// SigningKeyTx returns the workspace's ed25519 key, made on first use in a
// writable transaction (nil in a read-only one before it exists). Team
// records are signed with it.
func SigningKeyTx(tx *bolt.Tx) (ed25519.PrivateKey, error) { return signingKeyTx(tx) }
