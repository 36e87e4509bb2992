package vault

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/secrets"
	"github.com/nova-dev/nova/engine/textindex"
	"github.com/nova-dev/nova/storage"
)

// Global-wisdom rules.
const (
	// MinWisdomConfidence is the confidence a node needs to be promoted.
	MinWisdomConfidence = 0.85
	// WisdomDedupThreshold is the word-token Jaccard similarity at which a
	// promotion backs an existing pattern instead of adding one.
	WisdomDedupThreshold = 0.7
	// PromotionsPerWeek is how many promotions one user may make in any
	// seven days (anti-gaming).
	PromotionsPerWeek = 5
	// BackersToActivate is how many distinct users must back a pattern
	// before it is active (injected into prompts).
	BackersToActivate = 3
	// HarmReportsToDemote is how many distinct reporters demote a pattern.
	HarmReportsToDemote = 3

	promotionWindow = 7 * 24 * time.Hour
	recencyFull     = 30 * 24 * time.Hour
	recencyZero     = 180 * 24 * time.Hour
	helpfulFull     = 10 // helpful count + successes at which helpfulness is 1
	diversityFull   = 5  // backers at which diversity is 1
)

// WisdomStatus is the lifecycle state of a pattern.
type WisdomStatus string

// Pattern states.
const (
	// WisdomPending: fewer than BackersToActivate users back it.
	WisdomPending WisdomStatus = "pending"
	// WisdomActive: backed enough, not demoted; injected into prompts.
	WisdomActive WisdomStatus = "active"
	// WisdomDemoted: reported harmful by HarmReportsToDemote users.
	WisdomDemoted WisdomStatus = "demoted"
)

// HarmReport is one user's report that a pattern did harm.
type HarmReport struct {
	UserID string    `json:"userId"`
	Reason string    `json:"reason,omitempty"`
	At     time.Time `json:"at"`
}

// WisdomPattern is a sanitized node shared as global wisdom.
type WisdomPattern struct {
	ID uint64 `json:"id"`
	// Node is the sanitized copy (Node.ID is the pattern id, IsGlobal set).
	Node          Node         `json:"node"`
	SourceNodeIDs []uint64     `json:"sourceNodeIds"`
	Status        WisdomStatus `json:"status"`
	Backers       []string     `json:"backers"`
	// BackerKeys maps a backer that arrived in a signed bundle to the key
	// that signed it: only backers whose key is trusted (and the workspace
	// identity) count towards activation (signing.go).
	BackerKeys  map[string]string `json:"backerKeys,omitempty"`
	HarmReports []HarmReport      `json:"harmReports"`
	// Successes counts successful tasks it was injected into.
	Successes int `json:"successes"`
	// Score is computed when read (see WisdomScore).
	Score     float64   `json:"score"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	// TeamSubject links the pattern to the team's records of it (engine/team;
	// "" when it was never shared).
	TeamSubject string `json:"teamSubject,omitempty"`
}

// WisdomScore is helpful×0.6 + diversity×0.3 + recency×0.1, clamped to 0–1:
// helpful = (helpfulCount + successes)/10, diversity = backers/5 (each capped
// at 1), recency = 1 up to 30 days since the last update, then linear to 0
// at 180 days.
func WisdomScore(p WisdomPattern, now time.Time) float64 {
	helpful := min(1, float64(max(0, p.Node.HelpfulCount+p.Successes))/helpfulFull)
	diversity := min(1, float64(len(p.Backers))/diversityFull)
	return round6(clamp01(helpful*0.6 + diversity*0.3 + Recency(now.Sub(p.UpdatedAt))*0.1))
}

// Recency is 1 for ages up to 30 days, then falls linearly to 0 at 180 days.
func Recency(age time.Duration) float64 {
	switch {
	case age <= recencyFull:
		return 1
	case age >= recencyZero:
		return 0
	}
	return 1 - float64(age-recencyFull)/float64(recencyZero-recencyFull)
}

// Wisdom is the global-wisdom pipeline: promotion of high-confidence nodes
// (sanitized, deduplicated, rate-limited), backing by distinct users, harm
// reports, and the best active patterns per tier. It is persisted in the
// wisdom bucket of the same database.
//
// Anti-gaming: every local action (promote, endorse, report) is made as the
// workspace identity (Options.Identity: config userId, or git's user.email
// when userId is the default "local"), recorded under its pseudonymous author
// id ([AuthorID]); no call takes a user from its caller. Other users' backing
// and harm reports only arrive through wisdom bundles they exported
// ([Wisdom.ExportBundle], [Wisdom.ImportBundle]), one author per bundle.
type Wisdom struct{ v *Vault }

// authorSalt salts author ids. It is fixed, not per workspace, so that one
// person exporting from several workspaces is one author, never several.
const authorSalt = "nova.wisdom.author/1\x00"

// AuthorID is the pseudonymous id under which an identity backs and reports
// wisdom and signs its bundles: "u-" and 16 hex digits of a salted SHA-256 of
// the identity (trimmed, lower case). The identity itself (an e-mail) never
// leaves the machine.
func AuthorID(identity string) string {
	sum := sha256.Sum256([]byte(authorSalt + strings.ToLower(strings.TrimSpace(identity))))
	return "u-" + hex.EncodeToString(sum[:8])
}

// Me is the author id of the workspace identity: the backer, reporter and
// bundle author of this workspace.
func (w *Wisdom) Me() string { return AuthorID(w.v.identity()) }

// Nested buckets of the wisdom bucket, created by storage migration 2 (see
// storage/doc.go for their keys).
var (
	wbPatterns   = storage.WisdomPatterns   // pattern id → WisdomPattern
	wbSources    = storage.WisdomSources    // vault node id → pattern id
	wbPromotions = storage.WisdomPromotions // user 0x00 time(unix ns) node id → pattern id
	wbOptIn      = storage.WisdomOptIn      // user → "1" or "0"
	wbBundles    = storage.WisdomBundles    // bundle id → BundleImport
)

var patternCodec = storage.Codec[WisdomPattern]{Version: 1}

// wisdomBucket returns a nested bucket of wisdom. The buckets are created by
// a migration, never here: a missing one means a damaged database. The
// create argument is kept for the call sites' intent (write paths pass true)
// and changes nothing.
func wisdomBucket(tx *bolt.Tx, name []byte, _ bool) (*bolt.Bucket, error) {
	root := tx.Bucket(storage.BucketWisdom)
	if root == nil {
		return nil, fmt.Errorf("wisdom bucket missing: %w", storage.ErrCorrupt)
	}
	b := root.Bucket(name)
	if b == nil {
		return nil, fmt.Errorf("wisdom/%s bucket missing: %w", name, storage.ErrCorrupt)
	}
	return b, nil
}

func (w *Wisdom) write(ctx context.Context, op string, fn func(tx *bolt.Tx) error) error {
	return w.v.update(ctx, "wisdom."+op, func(tx *bolt.Tx, _ *writeSet) error { return fn(tx) })
}

// SetOptIn records whether the workspace identity shares its
// high-confidence nodes (overrides the config's vault.optInGlobal).
func (w *Wisdom) SetOptIn(ctx context.Context, on bool) error {
	return w.write(ctx, "optin", func(tx *bolt.Tx) error {
		b, err := wisdomBucket(tx, wbOptIn, true)
		if err != nil {
			return err
		}
		val := []byte("0")
		if on {
			val = []byte("1")
		}
		return b.Put([]byte(w.Me()), val)
	})
}

// OptedIn reports whether the workspace identity shares with global wisdom:
// its recorded choice, else the config's vault.optInGlobal.
func (w *Wisdom) OptedIn(ctx context.Context) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	var on bool
	err := w.v.db.View(func(tx *bolt.Tx) error {
		on = w.optedInTx(tx)
		return nil
	})
	return on, err
}

func (w *Wisdom) optedInTx(tx *bolt.Tx) bool {
	if b, _ := wisdomBucket(tx, wbOptIn, false); b != nil {
		if v := b.Get([]byte(w.Me())); v != nil {
			return string(v) == "1"
		}
	}
	return w.v.opts.OptInGlobal
}

// PromoteResult says what a promotion did.
type PromoteResult struct {
	Pattern WisdomPattern `json:"pattern"`
	// Merged is true when the node backed an existing similar pattern.
	Merged bool `json:"merged"`
	// Already is true when the node had been promoted before (nothing changed).
	Already bool `json:"already"`
}

// Promote shares a vault node with global wisdom as the workspace identity.
// The node needs confidence ≥ 0.85 and the identity must have opted in
// (ErrNotEligible); an identity may promote 5 nodes a week (ErrRateLimited).
// The node is sanitized into a new pattern (the original is untouched); a
// pattern similar to an existing one (Jaccard ≥ 0.7) backs that one instead.
// A pattern is pending until 3 distinct authors back it.
func (w *Wisdom) Promote(ctx context.Context, nodeID uint64) (PromoteResult, error) {
	var res PromoteResult
	err := w.write(ctx, "promote", func(tx *bolt.Tx) error {
		var err error
		res, err = w.promoteTx(tx, nodeID)
		return err
	})
	if err != nil {
		return PromoteResult{}, err
	}
	res.Pattern.Score = WisdomScore(res.Pattern, w.v.now())
	return res, nil
}

func (w *Wisdom) promoteTx(tx *bolt.Tx, nodeID uint64) (PromoteResult, error) {
	n, err := getNode(tx, nodeID)
	if err != nil {
		return PromoteResult{}, err
	}
	if n.HasBody {
		n.Body = getBody(tx, nodeID)
	}
	if n.Confidence < MinWisdomConfidence {
		return PromoteResult{}, fmt.Errorf("node %d: %w: confidence %.2f is below %.2f", nodeID, ErrNotEligible, n.Confidence, MinWisdomConfidence)
	}
	if !w.optedInTx(tx) {
		return PromoteResult{}, fmt.Errorf("node %d: %w: you have not opted in to global wisdom (vault.optInGlobal, or `nova wisdom optin on`)", nodeID, ErrNotEligible)
	}
	me := w.Me()
	patterns, err := wisdomBucket(tx, wbPatterns, true)
	if err != nil {
		return PromoteResult{}, err
	}
	sources, err := wisdomBucket(tx, wbSources, true)
	if err != nil {
		return PromoteResult{}, err
	}
	if pid := sources.Get(storage.Key(nodeID)); pid != nil {
		p, err := getPattern(tx, storage.ParseKey(pid))
		if err == nil {
			return PromoteResult{Pattern: p, Already: true}, nil
		}
	}
	now := w.v.now()
	promos, err := wisdomBucket(tx, wbPromotions, true)
	if err != nil {
		return PromoteResult{}, err
	}
	if k := promotionsSince(promos, me, now.Add(-promotionWindow)); k >= PromotionsPerWeek {
		return PromoteResult{}, fmt.Errorf("%w: %d promotions in the last 7 days (at most %d)", ErrRateLimited, k, PromotionsPerWeek)
	}
	clean := Sanitize(n, w.v.opts.ProjectTerms...)
	var res PromoteResult
	best, bestSim := uint64(0), 0.0
	words := textindex.WordTokens(clean.Content)
	c := patterns.Cursor()
	for k, val := c.First(); k != nil; k, val = c.Next() {
		p, err := patternCodec.Unmarshal(val)
		if err != nil {
			continue
		}
		if sim := textindex.JaccardSets(words, textindex.WordTokens(p.Node.Content)); sim >= WisdomDedupThreshold && sim > bestSim {
			best, bestSim = storage.ParseKey(k), sim
		}
	}
	if best != 0 {
		p, err := getPattern(tx, best)
		if err != nil {
			return PromoteResult{}, err
		}
		if !slices.Contains(p.Backers, me) {
			p.Backers = append(p.Backers, me)
		}
		if !slices.Contains(p.SourceNodeIDs, nodeID) {
			p.SourceNodeIDs = append(p.SourceNodeIDs, nodeID)
		}
		p.Node.HelpfulCount += n.HelpfulCount
		p.Node.Confidence = max(p.Node.Confidence, n.Confidence)
		p.UpdatedAt = now
		res = PromoteResult{Pattern: p, Merged: true}
	} else {
		id, err := storage.NextID(patterns)
		if err != nil {
			return PromoteResult{}, err
		}
		clean.ID = id
		clean.CreatedAt, clean.UpdatedAt = now, now
		res = PromoteResult{Pattern: WisdomPattern{
			ID: id, Node: clean, SourceNodeIDs: []uint64{nodeID}, Backers: []string{me},
			HarmReports: []HarmReport{}, CreatedAt: now, UpdatedAt: now,
		}}
	}
	p := &res.Pattern
	p.Status = statusOf(p, me, trustTx(tx))
	if err := patternCodec.Put(patterns, storage.Key(p.ID), *p); err != nil {
		return PromoteResult{}, fmt.Errorf("store wisdom pattern %d: %w", p.ID, err)
	}
	if err := sources.Put(storage.Key(nodeID), storage.Key(p.ID)); err != nil {
		return PromoteResult{}, err
	}
	if err := promos.Put(append(promotionKey(me, now), storage.Key(nodeID)...), storage.Key(p.ID)); err != nil {
		return PromoteResult{}, err
	}
	if err := w.teamTx(tx, TeamBack, p.ID); err != nil {
		return PromoteResult{}, err
	}
	if res.Pattern, err = getPattern(tx, p.ID); err != nil {
		return PromoteResult{}, err
	}
	return res, nil
}

// statusOf is a pattern's status: demoted by HarmReportsToDemote distinct
// reporters, active once BackersToActivate backers that count back it (the
// workspace identity, and authors whose backing came signed by a trusted
// key: trustedBackers), else pending.
func statusOf(p *WisdomPattern, me string, ts trustSet) WisdomStatus {
	reporters := map[string]bool{}
	for _, r := range p.HarmReports {
		reporters[r.UserID] = true
	}
	switch {
	case p.Status == WisdomDemoted || len(reporters) >= HarmReportsToDemote:
		return WisdomDemoted
	case trustedBackers(p, me, ts) >= BackersToActivate:
		return WisdomActive
	}
	return WisdomPending
}

// promotionKey is the prefix of a promotion-log key: user 0x00 time; the
// full key adds the node id, so promotions at the same instant stay apart.
func promotionKey(user string, at time.Time) []byte {
	k := append([]byte(user), 0)
	return append(k, storage.Key(uint64(max(at.UnixNano(), 0)))...)
}

func promotionsSince(b *bolt.Bucket, user string, since time.Time) int {
	p := append([]byte(user), 0)
	start := promotionKey(user, since)
	n := 0
	c := b.Cursor()
	for k, _ := c.Seek(start); k != nil && bytes.HasPrefix(k, p); k, _ = c.Next() {
		if len(k) == len(p)+16 {
			n++
		}
	}
	return n
}

func getPattern(tx *bolt.Tx, id uint64) (WisdomPattern, error) {
	b, err := wisdomBucket(tx, wbPatterns, false)
	if err != nil {
		return WisdomPattern{}, err
	}
	p, err := patternCodec.Get(b, storage.Key(id))
	if errors.Is(err, storage.ErrNotFound) {
		return WisdomPattern{}, fmt.Errorf("wisdom pattern %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return WisdomPattern{}, fmt.Errorf("wisdom pattern %d: %w", id, err)
	}
	p.ID = id
	return p, nil
}

func (w *Wisdom) modify(ctx context.Context, op string, id uint64, fn func(p *WisdomPattern) error) (WisdomPattern, error) {
	var out WisdomPattern
	err := w.write(ctx, op, func(tx *bolt.Tx) error {
		p, err := getPattern(tx, id)
		if err != nil {
			return err
		}
		out, err = w.putModified(tx, id, p, fn)
		return err
	})
	if err != nil {
		return WisdomPattern{}, err
	}
	out.Score = WisdomScore(out, w.v.now())
	return out, nil
}

// putModified applies fn to p (pattern id, read in tx) and stores it.
func (w *Wisdom) putModified(tx *bolt.Tx, id uint64, p WisdomPattern, fn func(p *WisdomPattern) error) (WisdomPattern, error) {
	if err := fn(&p); err != nil {
		return WisdomPattern{}, err
	}
	p.Status = statusOf(&p, w.Me(), trustTx(tx))
	b, err := wisdomBucket(tx, wbPatterns, true)
	if err != nil {
		return WisdomPattern{}, err
	}
	return p, patternCodec.Put(b, storage.Key(id), p)
}

// Endorse records that the workspace identity backs a pattern (an author
// counts once). Other users' backing arrives through ImportBundle.
func (w *Wisdom) Endorse(ctx context.Context, id uint64) (WisdomPattern, error) {
	me := w.Me()
	return w.modifyShared(ctx, "endorse", TeamBack, id, func(p *WisdomPattern) error {
		if !slices.Contains(p.Backers, me) {
			p.Backers = append(p.Backers, me)
			p.UpdatedAt = w.v.now()
		}
		return nil
	})
}

// ReportHarm records the workspace identity's report that a pattern did
// harm. Reports from three distinct authors (the others arrive through
// ImportBundle) demote it for good; a repeated report counts once.
func (w *Wisdom) ReportHarm(ctx context.Context, id uint64, reason string) (WisdomPattern, error) {
	me := w.Me()
	return w.modifyShared(ctx, "report", TeamHarm, id, func(p *WisdomPattern) error {
		addHarm(p, me, reason, w.v.now())
		return nil
	})
}

func addHarm(p *WisdomPattern, author, reason string, now time.Time) bool {
	for _, r := range p.HarmReports {
		if r.UserID == author {
			return false
		}
	}
	p.HarmReports = append(p.HarmReports, HarmReport{UserID: author, Reason: oneLine(secrets.Redact(cleanText(reason)), 500), At: now})
	return true
}

// RecordSuccess counts a successful task the pattern was injected into.
func (w *Wisdom) RecordSuccess(ctx context.Context, id uint64) error {
	_, err := w.modify(ctx, "success", id, w.success)
	return err
}

func (w *Wisdom) success(p *WisdomPattern) error {
	p.Successes++
	p.Node.GlobalSuccessCount++
	p.UpdatedAt = w.v.now()
	return nil
}

// recordSuccessTx is RecordSuccess inside the caller's write transaction.
// A pattern that cannot be read is left alone and reported in readErr
// (ErrNotFound for one deleted since); err is a failed write.
func (w *Wisdom) recordSuccessTx(tx *bolt.Tx, id uint64) (readErr, err error) {
	p, readErr := getPattern(tx, id)
	if readErr != nil {
		return readErr, nil
	}
	_, err = w.putModified(tx, id, p, w.success)
	return nil, err
}

// Get returns one pattern.
func (w *Wisdom) Get(ctx context.Context, id uint64) (WisdomPattern, error) {
	if err := ctx.Err(); err != nil {
		return WisdomPattern{}, err
	}
	var p WisdomPattern
	err := w.v.db.View(func(tx *bolt.Tx) error {
		var err error
		p, err = getPattern(tx, id)
		return err
	})
	p.Score = WisdomScore(p, w.v.now())
	p.Node = w.resanitize(p.Node)
	return p, err
}

// resanitize scrubs a stored pattern again on the way out: patterns
// promoted by an older nova were stored with less thorough rules (the
// language field unscrubbed, lowercased tags). Sanitize is idempotent.
func (w *Wisdom) resanitize(n Node) Node {
	clean := Sanitize(n, w.v.opts.ProjectTerms...)
	clean.ID, clean.CreatedAt, clean.UpdatedAt = n.ID, n.CreatedAt, n.UpdatedAt
	clean.Confidence, clean.HelpfulCount, clean.GlobalSuccessCount = n.Confidence, n.HelpfulCount, n.GlobalSuccessCount
	return clean
}

// List returns the patterns with the given status ("" = all), best score
// first (ties by id).
func (w *Wisdom) List(ctx context.Context, status WisdomStatus) ([]WisdomPattern, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	switch status {
	case "", WisdomPending, WisdomActive, WisdomDemoted:
	default:
		return nil, invalidf("unknown wisdom status %q (want pending, active or demoted)", status)
	}
	out := []WisdomPattern{}
	now := w.v.now()
	err := w.v.db.View(func(tx *bolt.Tx) error {
		b, err := wisdomBucket(tx, wbPatterns, false)
		if err != nil || b == nil {
			return err
		}
		c := b.Cursor()
		for k, val := c.First(); k != nil; k, val = c.Next() {
			p, err := patternCodec.Unmarshal(val)
			if err != nil || (status != "" && p.Status != status) {
				continue
			}
			p.ID = storage.ParseKey(k)
			p.Score = WisdomScore(p, now)
			p.Node = w.resanitize(p.Node)
			out = append(out, p)
		}
		return nil
	})
	slices.SortFunc(out, func(a, b WisdomPattern) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmpU64(a.ID, b.ID))
	})
	return out, err
}

// ForTier returns the best active patterns for a tier: 12 for premium, 4
// otherwise.
func (w *Wisdom) ForTier(ctx context.Context, tier string) ([]WisdomPattern, error) {
	ps, err := w.List(ctx, WisdomActive)
	if err != nil {
		return nil, err
	}
	if n := TierLimits(tier).GlobalInjections; len(ps) > n {
		ps = ps[:n]
	}
	return ps, nil
}

// ForPremium returns the 12 best active patterns.
func (w *Wisdom) ForPremium(ctx context.Context) ([]WisdomPattern, error) {
	return w.ForTier(ctx, TierPremium)
}

// ForFree returns the 4 best active patterns.
func (w *Wisdom) ForFree(ctx context.Context) ([]WisdomPattern, error) {
	return w.ForTier(ctx, TierFree)
}

// Candidates lists the vault nodes Collect would promote: the workspace's
// own nodes (its user) with confidence ≥ 0.85, not promoted yet, when the
// identity has opted in; highest confidence first.
func (w *Wisdom) Candidates(ctx context.Context) ([]Node, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := []Node{}
	err := w.v.db.View(func(tx *bolt.Tx) error {
		if !w.optedInTx(tx) {
			return nil
		}
		sources, _ := wisdomBucket(tx, wbSources, false)
		confRange(tx, MinWisdomConfidence, true, func(id uint64, _ float64) bool {
			if sources != nil && sources.Get(storage.Key(id)) != nil {
				return true
			}
			n, err := getNode(tx, id)
			if err == nil && n.UserID == w.v.opts.UserID {
				out = append(out, n)
			}
			return true
		})
		return nil
	})
	return out, err
}

// CollectSkip is a candidate Collect did not promote.
type CollectSkip struct {
	NodeID uint64 `json:"nodeId"`
	Reason string `json:"reason"`
}

// CollectReport says what Collect did.
type CollectReport struct {
	Created []uint64      `json:"created"` // new pattern ids
	Merged  []uint64      `json:"merged"`  // existing pattern ids backed
	Skipped []CollectSkip `json:"skipped"`
}

// Collect promotes every candidate (see Candidates) in one transaction;
// those over a user's weekly limit are skipped with the reason.
func (w *Wisdom) Collect(ctx context.Context) (CollectReport, error) {
	rep := CollectReport{Created: []uint64{}, Merged: []uint64{}, Skipped: []CollectSkip{}}
	cands, err := w.Candidates(ctx)
	if err != nil || len(cands) == 0 {
		return rep, err
	}
	err = w.write(ctx, "collect", func(tx *bolt.Tx) error {
		rep = CollectReport{Created: []uint64{}, Merged: []uint64{}, Skipped: []CollectSkip{}}
		for _, n := range cands {
			res, err := w.promoteTx(tx, n.ID)
			switch {
			case errors.Is(err, ErrRateLimited), errors.Is(err, ErrNotEligible), errors.Is(err, ErrNotFound):
				rep.Skipped = append(rep.Skipped, CollectSkip{NodeID: n.ID, Reason: err.Error()})
			case err != nil:
				return err
			case res.Already:
			case res.Merged:
				rep.Merged = append(rep.Merged, res.Pattern.ID)
			default:
				rep.Created = append(rep.Created, res.Pattern.ID)
			}
		}
		return nil
	})
	return rep, err
}

// WisdomStats summarises global wisdom.
type WisdomStats struct {
	Patterns    int     `json:"patterns"`
	Active      int     `json:"active"`
	Pending     int     `json:"pending"`
	Demoted     int     `json:"demoted"`
	Backers     int     `json:"backers"` // distinct authors
	HarmReports int     `json:"harmReports"`
	Successes   int     `json:"successes"`
	AvgScore    float64 `json:"avgScore"`
	OptedIn     bool    `json:"optedIn"` // the workspace identity
	// Me is the workspace identity's author id.
	Me string `json:"me"`
}

// Stats counts patterns by status, distinct backers and reports.
func (w *Wisdom) Stats(ctx context.Context) (WisdomStats, error) {
	ps, err := w.List(ctx, "")
	if err != nil {
		return WisdomStats{}, err
	}
	st := WisdomStats{Patterns: len(ps)}
	users := map[string]bool{}
	sum := 0.0
	for _, p := range ps {
		switch p.Status {
		case WisdomActive:
			st.Active++
		case WisdomDemoted:
			st.Demoted++
		default:
			st.Pending++
		}
		for _, b := range p.Backers {
			users[b] = true
		}
		st.HarmReports += len(p.HarmReports)
		st.Successes += p.Successes
		sum += p.Score
	}
	st.Backers = len(users)
	if len(ps) > 0 {
		st.AvgScore = round6(sum / float64(len(ps)))
	}
	st.Me = w.Me()
	st.OptedIn, err = w.OptedIn(ctx)
	return st, err
}

// ParseWisdomStatus accepts a status name in any case.
func ParseWisdomStatus(s string) (WisdomStatus, error) {
	st := WisdomStatus(strings.ToLower(strings.TrimSpace(s)))
	switch st {
	case "", WisdomPending, WisdomActive, WisdomDemoted:
		return st, nil
	}
	return "", invalidf("unknown wisdom status %q (want pending, active or demoted)", s)
}
