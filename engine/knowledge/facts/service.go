package facts

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/secrets"
	"github.com/nova-dev/nova/engine/textindex"
	"github.com/nova-dev/nova/storage"
)

// Usefulness thresholds (the seed's FAQ rules).
const (
	// ArchiveMinUses uses with a help rate below ArchiveHelpRate archive a fact.
	ArchiveMinUses  = 3
	ArchiveHelpRate = 0.20
	// UnusedFor archives a fact nobody used for this long.
	UnusedFor = 90 * 24 * time.Hour
	// DefaultUserLockTimeout bounds waiting for the user-level file.
	DefaultUserLockTimeout = 300 * time.Millisecond
	// userRetry is how long a failing user file is left alone by searches.
	userRetry = 5 * time.Second
)

// Default confidences by source.
const (
	DefaultUserConfidence  = 0.9
	DefaultAgentConfidence = 0.7
)

// Options configures a Service.
type Options struct {
	// DB is the workspace database (buckets facts and facts_idx).
	DB *storage.DB
	// UserPath is the user-level file ("" = user scope unavailable); see
	// UserPath().
	UserPath string
	// UserLockTimeout bounds waiting for the user-level file (default 300 ms).
	UserLockTimeout time.Duration
	// Root is the workspace root: facts naming its files track them.
	Root string
	// Author is recorded on new facts (the workspace identity).
	Author string
	// Now is the clock (tests).
	Now func() time.Time
}

// Service stores, searches and corrects facts in the workspace file and
// the user-level file.
type Service struct {
	db   *storage.DB
	user *userFile
	root string
	auth string
	now  func() time.Time
	// team shares team-scope facts (SetTeam; nil: no team joined).
	team atomic.Pointer[teamHolder]

	mu  sync.RWMutex
	mem memState
	// wmu orders this process's writes: a write's commit and its apply to
	// the snapshot happen under it, so the snapshot's revision never falls
	// behind the file's while nothing else wrote (see write).
	wmu sync.Mutex
}

// memState is the in-memory snapshot of both files that searches use.
type memState struct {
	ready     bool
	wsRev     uint64
	userStamp stamp
	userErr   error     // the last user-file problem, shown as a warning
	userTried time.Time // when a failing user file was last tried
	facts     map[uint64]Fact
	ix        *textindex.Index
	// rebuilds counts whole re-reads of the workspace file (tests: writes
	// of this process must not cause them).
	rebuilds int
}

// userBit marks user-file facts in the in-memory ids.
const userBit = 1 << 63

func memKey(id factID) uint64 {
	if id.user {
		return id.n | userBit
	}
	return id.n
}

// New returns a service.
func New(o Options) *Service {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.UserLockTimeout <= 0 {
		o.UserLockTimeout = DefaultUserLockTimeout
	}
	return &Service{db: o.DB, user: &userFile{path: o.UserPath, timeout: o.UserLockTimeout}, root: o.Root,
		auth: o.Author, now: o.Now}
}

// UserPath is the user-level file's path ("" when unavailable).
func (s *Service) UserPath() string { return s.user.path }

// NewFact is what Add needs.
type NewFact struct {
	Content string `json:"content"`
	// Scope defaults to workspace.
	Scope  Scope  `json:"scope"`
	Source Source `json:"source"`
	// Confidence defaults by source (user 0.9, agent 0.7); nil = default.
	Confidence *float64 `json:"confidence,omitempty"`
	Tags       []string `json:"tags"`
	// Category defaults to knowledge (troubleshooting when Problem is
	// set); Problem makes the fact a problem → solution entry whose
	// Content is the solution.
	Category Category `json:"category,omitempty"`
	Problem  string   `json:"problem,omitempty"`
}

// Add records a fact. Bad input wraps ErrInvalid; a user-scope fact when
// the user-level file cannot be used wraps ErrUserUnavailable.
func (s *Service) Add(ctx context.Context, in NewFact) (Fact, error) {
	if err := ctx.Err(); err != nil {
		return Fact{}, err
	}
	f, err := s.prepare(in)
	if err != nil {
		return Fact{}, err
	}
	if f.Scope.Level == LevelTeam {
		return s.addTeam(ctx, f)
	}
	err = s.write(ctx, f.Scope.Level == LevelUser, func(tx *bolt.Tx) ([]Fact, error) {
		if err := putFact(tx, f.Scope.Level == LevelUser, &f, nil); err != nil {
			return nil, err
		}
		return []Fact{f}, nil
	})
	if err != nil {
		return Fact{}, fmt.Errorf("add fact: %w", err)
	}
	return f, nil
}

// prepare validates a new fact and fills its defaults.
func (s *Service) prepare(in NewFact) (Fact, error) {
	content, err := cleanContent(in.Content, "the fact", MaxContentChars)
	if err != nil {
		return Fact{}, err
	}
	scope := in.Scope
	if scope.IsZero() {
		scope = Workspace()
	}
	if _, err := ParseScope(scope.String()); err != nil {
		return Fact{}, err
	}
	src := in.Source
	if src.Type == "" {
		src.Type = SourceUser
	}
	switch src.Type {
	case SourceUser, SourceAgent, SourceBuild, SourcePromoted:
	default:
		return Fact{}, fmt.Errorf("%w: source %q (want user, agent, build or promoted)", ErrInvalid, src.Type)
	}
	conf := DefaultUserConfidence
	if src.Type == SourceAgent || src.Type == SourceBuild {
		conf = DefaultAgentConfidence
	}
	if in.Confidence != nil {
		conf = *in.Confidence
	}
	if err := checkConfidence(conf); err != nil {
		return Fact{}, err
	}
	tags, err := cleanTags(in.Tags)
	if err != nil {
		return Fact{}, err
	}
	cat := in.Category
	if cat == "" && strings.TrimSpace(in.Problem) != "" {
		cat = CategoryTroubleshooting
	}
	if cat, err = ParseCategory(string(cat)); err != nil {
		return Fact{}, err
	}
	problem := ""
	if strings.TrimSpace(in.Problem) != "" {
		if problem, err = cleanContent(in.Problem, "the problem", MaxContentChars); err != nil {
			return Fact{}, err
		}
	}
	if cat == CategoryKnowledge {
		cat = "" // the default is not stored
	}
	now := s.now().UTC()
	f := Fact{Content: content, Scope: scope, Source: src, Confidence: conf, Tags: tags, Author: s.auth,
		ValidFrom: now, Category: cat, Problem: problem}
	if scope.Level != LevelUser {
		f.Files = fileRefs(s.root, content)
	}
	return f, nil
}

// write runs fn in a read-write transaction of the workspace file (or the
// user file) and applies the facts it changed to the in-memory snapshot.
func (s *Service) write(ctx context.Context, user bool, fn func(tx *bolt.Tx) ([]Fact, error)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	// Without this lock two racing writes could commit in one order and
	// reach the snapshot in the other: the later commit's apply was skipped
	// (its before did not match yet) and the earlier one moved the
	// snapshot's revision to a value the file had already left, so every
	// later write of the process skipped its apply too, until a search
	// re-read the whole file and rebuilt the index (issue 26, finding 6).
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if !user {
		var before, after uint64
		var changed []Fact
		err := s.db.Update(func(tx *bolt.Tx) error {
			before = readRev(tx)
			var err error
			if changed, err = fn(tx); err != nil {
				return err
			}
			after = readRev(tx)
			return nil
		})
		if err != nil {
			return err
		}
		s.mu.Lock()
		if s.mem.ready && s.mem.wsRev == before {
			s.applyLocked(changed)
			s.mem.wsRev = after
		}
		s.mu.Unlock()
		return nil
	}
	var changed []Fact
	var before stamp
	err := s.user.do(false, func(db *storage.DB) error {
		before = s.user.stamp()
		return db.Update(func(tx *bolt.Tx) error {
			var err error
			changed, err = fn(tx)
			return err
		})
	})
	if err != nil {
		return err
	}
	after := s.user.stamp()
	s.mu.Lock()
	if s.mem.ready && s.mem.userErr == nil && s.mem.userStamp == before {
		s.applyLocked(changed)
		s.mem.userStamp = after
	}
	s.mu.Unlock()
	return nil
}

// applyLocked puts changed facts into the snapshot and the index.
func (s *Service) applyLocked(changed []Fact) {
	for _, f := range changed {
		id, err := parseID(f.ID)
		if err != nil {
			continue
		}
		k := memKey(id)
		s.mem.facts[k] = f
		s.mem.ix.Upsert(k, factFields(f)...)
	}
}

func factFields(f Fact) []textindex.Field {
	if f.Problem != "" {
		return []textindex.Field{textindex.Summary(f.Problem + "\n" + f.Content), textindex.Tags(f.Tags...)}
	}
	return []textindex.Field{textindex.Summary(f.Content), textindex.Tags(f.Tags...)}
}

// Get returns one fact.
func (s *Service) Get(ctx context.Context, id string) (Fact, error) {
	fid, err := parseID(id)
	if err != nil {
		return Fact{}, err
	}
	var f Fact
	err = s.read(ctx, fid.user, func(tx *bolt.Tx) error {
		var err error
		f, err = getFact(tx, fid)
		return err
	})
	if errors.Is(err, errNoUserFile) {
		return Fact{}, fmt.Errorf("%w: %s", ErrNotFound, fid)
	}
	return f, err
}

// read runs fn in a read transaction of the workspace or the user file.
func (s *Service) read(ctx context.Context, user bool, fn func(tx *bolt.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !user {
		return s.db.View(fn)
	}
	return s.user.do(true, func(db *storage.DB) error { return db.View(fn) })
}

// Correction is the result of Correct and Promote: the closed fact and its
// replacement (nil when there is none).
type Correction struct {
	Old Fact  `json:"old"`
	New *Fact `json:"new,omitempty"`
}

// Correct closes a fact (validUntil = now, with the reason) and, with a
// replacement text, records the replacement linked to it (supersedes /
// supersededBy) at the same scope. Nothing is deleted. by says who
// corrects (an agent may not correct user-level facts).
func (s *Service) Correct(ctx context.Context, id, reason, replacement string, by Source) (Correction, error) {
	fid, err := parseID(id)
	if err != nil {
		return Correction{}, err
	}
	reason, err = cleanContent(reason, "the reason", MaxReasonChars)
	if err != nil {
		return Correction{}, err
	}
	var repl string
	if strings.TrimSpace(replacement) != "" {
		if repl, err = cleanContent(replacement, "the replacement", MaxContentChars); err != nil {
			return Correction{}, err
		}
	}
	if by.Type == "" {
		by.Type = SourceUser
	}
	if fid.user && by.Type == SourceAgent {
		return Correction{}, fmt.Errorf("%w: %s is a user-level fact; only the user can correct it (nova facts correct %s)", ErrNotAllowed, fid, fid)
	}
	if !fid.user {
		if old, err := s.Get(ctx, fid.String()); err == nil && old.Scope.Level == LevelTeam {
			return s.correctTeam(ctx, old, reason, repl)
		}
	}
	var out Correction
	err = s.write(ctx, fid.user, func(tx *bolt.Tx) ([]Fact, error) {
		old, err := getFact(tx, fid)
		if err != nil {
			return nil, err
		}
		if !old.Valid() {
			return nil, alreadyClosed(old)
		}
		prev := old
		now := s.now().UTC()
		old.ValidUntil, old.Reason = now, reason
		changed := []Fact{}
		if repl != "" {
			nf := Fact{Content: repl, Scope: old.Scope, Source: by, Confidence: old.Confidence, Tags: old.Tags,
				Author: s.auth, ValidFrom: now, Supersedes: old.ID}
			if nf.Scope.Level != LevelUser {
				nf.Files = fileRefs(s.root, repl)
			}
			if err := putFact(tx, fid.user, &nf, nil); err != nil {
				return nil, err
			}
			old.SupersededBy = nf.ID
			out.New = &nf
			changed = append(changed, nf)
		}
		if err := putFact(tx, fid.user, &old, &prev); err != nil {
			return nil, err
		}
		out.Old = old
		return append(changed, old), nil
	})
	if err != nil {
		return Correction{}, fmt.Errorf("correct %s: %w", fid, err)
	}
	return out, nil
}

func alreadyClosed(f Fact) error {
	msg := fmt.Sprintf("%s was invalidated on %s", f.ID, f.ValidUntil.Format("2006-01-02"))
	if f.Reason != "" {
		msg += " (" + clip(f.Reason, 80) + ")"
	}
	if f.SupersededBy != "" {
		msg += "; its replacement is " + f.SupersededBy
	}
	return fmt.Errorf("%w: %s", ErrAlreadyInvalidated, msg)
}

// Promote copies a valid fact to a broader scope (a build's lesson to the
// workspace, a workspace fact to the user) and closes the original with a
// link to the copy. The copy's source is "promoted".
func (s *Service) Promote(ctx context.Context, id string, to Scope) (Correction, error) {
	fid, err := parseID(id)
	if err != nil {
		return Correction{}, err
	}
	if to.IsZero() {
		to = Workspace()
	}
	if _, err := ParseScope(to.String()); err != nil {
		return Correction{}, err
	}
	old, err := s.Get(ctx, fid.String())
	if err != nil {
		return Correction{}, err
	}
	if !old.Valid() {
		return Correction{}, alreadyClosed(old)
	}
	if !to.Broader(old.Scope) {
		return Correction{}, fmt.Errorf("%w: %s is at %s; promote it to a broader scope (%s is not)", ErrInvalid, old.ID, old.Scope, to)
	}
	if to.Level == LevelTeam {
		return s.promoteToTeam(ctx, old)
	}
	toUser := to.Level == LevelUser
	// Redacted again: a fact stored before facts were redacted on write
	// must not reach the user level (every workspace) with its secret.
	nf := Fact{Content: secrets.Redact(old.Content), Scope: to, Source: Source{Type: SourcePromoted, FromFactID: old.ID},
		Confidence: old.Confidence, Tags: old.Tags, Author: s.auth, ValidFrom: s.now().UTC(), Supersedes: old.ID}
	if !toUser {
		nf.Files = old.Files
	}
	if toUser == fid.user {
		return s.promoteSameFile(ctx, fid, nf)
	}
	// The copy goes to the other file first: if closing the original then
	// fails, the fact exists twice rather than not at all.
	if err := s.write(ctx, toUser, func(tx *bolt.Tx) ([]Fact, error) {
		if err := putFact(tx, toUser, &nf, nil); err != nil {
			return nil, err
		}
		return []Fact{nf}, nil
	}); err != nil {
		return Correction{}, fmt.Errorf("promote %s: %w", fid, err)
	}
	var out Correction
	err = s.write(ctx, fid.user, func(tx *bolt.Tx) ([]Fact, error) {
		cur, err := getFact(tx, fid)
		if err != nil {
			return nil, err
		}
		prev := cur
		cur.ValidUntil, cur.Reason, cur.SupersededBy = nf.ValidFrom, "promoted to "+to.String(), nf.ID
		if err := putFact(tx, fid.user, &cur, &prev); err != nil {
			return nil, err
		}
		out = Correction{Old: cur, New: &nf}
		return []Fact{cur}, nil
	})
	if err != nil {
		return Correction{}, fmt.Errorf("promote %s: %s was copied to %s but the original was not closed: %w", fid, nf.ID, to, err)
	}
	return out, nil
}

func (s *Service) promoteSameFile(ctx context.Context, fid factID, nf Fact) (Correction, error) {
	var out Correction
	err := s.write(ctx, fid.user, func(tx *bolt.Tx) ([]Fact, error) {
		cur, err := getFact(tx, fid)
		if err != nil {
			return nil, err
		}
		if !cur.Valid() {
			return nil, alreadyClosed(cur)
		}
		if err := putFact(tx, fid.user, &nf, nil); err != nil {
			return nil, err
		}
		prev := cur
		cur.ValidUntil, cur.Reason, cur.SupersededBy = nf.ValidFrom, "promoted to "+nf.Scope.String(), nf.ID
		if err := putFact(tx, fid.user, &cur, &prev); err != nil {
			return nil, err
		}
		out = Correction{Old: cur, New: &nf}
		return []Fact{nf, cur}, nil
	})
	if err != nil {
		return Correction{}, fmt.Errorf("promote %s: %w", fid, err)
	}
	return out, nil
}

// DefaultHistoryLimit is how many entries of a chain History and
// HistoryPage return when no limit is given: the newest ones.
const DefaultHistoryLimit = 200

// maxChainWalk bounds a walk along a chain (a cycle or a damaged link stops
// it earlier).
const maxChainWalk = 100_000

// HistoryOptions pages a correction chain from its newest end.
type HistoryOptions struct {
	// Limit is the most entries (0: DefaultHistoryLimit).
	Limit int `json:"limit,omitempty"`
	// Before, a fact id of the chain, returns the entries older than it.
	Before string `json:"before,omitempty"`
}

// HistoryPage is one page of a correction chain.
type HistoryPage struct {
	// Facts are the page's entries, oldest first.
	Facts []Fact `json:"facts"`
	// Older says the chain has entries older than Facts[0]; Before is the
	// value of HistoryOptions.Before (`--before`) that shows them.
	Older  bool   `json:"older"`
	Before string `json:"before,omitempty"`
}

// History returns the newest DefaultHistoryLimit entries of the chain of
// corrections a fact belongs to, oldest first (what it replaced, then what
// replaced it). HistoryPage says whether older entries exist and pages.
func (s *Service) History(ctx context.Context, id string) ([]Fact, error) {
	p, err := s.HistoryPage(ctx, id, HistoryOptions{})
	return p.Facts, err
}

// HistoryPage returns up to o.Limit entries of the chain id belongs to,
// the newest ones (or the newest older than o.Before), oldest first, and
// whether older entries exist.
func (s *Service) HistoryPage(ctx context.Context, id string, o HistoryOptions) (HistoryPage, error) {
	if o.Limit < 0 {
		return HistoryPage{}, fmt.Errorf("%w: history limit %d is negative", ErrInvalid, o.Limit)
	}
	limit := o.Limit
	if limit == 0 {
		limit = DefaultHistoryLimit
	}
	before := ""
	if strings.TrimSpace(o.Before) != "" {
		bid, err := parseID(o.Before)
		if err != nil {
			return HistoryPage{}, err
		}
		before = bid.String()
	}
	start, err := s.Get(ctx, id)
	if err != nil {
		return HistoryPage{}, err
	}
	// The newest end of the chain.
	newest := start
	seen := map[string]bool{start.ID: true}
	for steps := 0; newest.SupersededBy != "" && !seen[newest.SupersededBy] && steps < maxChainWalk; steps++ {
		next, err := s.Get(ctx, newest.SupersededBy)
		if err != nil {
			break // the chain leads into an unreadable file: show what we have
		}
		seen[next.ID] = true
		newest = next
	}
	// Back from it: skip to before, then take limit entries.
	var page HistoryPage
	collecting := before == ""
	back := map[string]bool{}
	cur := newest
	for steps := 0; ; steps++ {
		back[cur.ID] = true
		if collecting {
			if len(page.Facts) == limit {
				page.Older, page.Before = true, page.Facts[len(page.Facts)-1].ID
				break
			}
			page.Facts = append(page.Facts, cur)
		} else if cur.ID == before {
			collecting = true
		}
		if cur.Supersedes == "" || back[cur.Supersedes] || steps >= maxChainWalk {
			break
		}
		if err := ctx.Err(); err != nil {
			return HistoryPage{}, err
		}
		prev, err := s.Get(ctx, cur.Supersedes)
		if err != nil {
			break
		}
		cur = prev
	}
	if !collecting {
		return HistoryPage{}, fmt.Errorf("%w: %s is not in the correction chain of %s", ErrInvalid, before, start.ID)
	}
	slices.Reverse(page.Facts)
	if page.Facts == nil {
		page.Facts = []Fact{}
	}
	return page, nil
}

// Reaffirm says a fact still holds: it is restored from the archive, its
// review flag cleared, the files it names re-hashed and its use time reset.
func (s *Service) Reaffirm(ctx context.Context, id string) (Fact, error) {
	fid, err := parseID(id)
	if err != nil {
		return Fact{}, err
	}
	var out Fact
	err = s.write(ctx, fid.user, func(tx *bolt.Tx) ([]Fact, error) {
		f, err := getFact(tx, fid)
		if err != nil {
			return nil, err
		}
		if !f.Valid() {
			return nil, alreadyClosed(f)
		}
		prev := f
		f.Archived, f.ArchivedAt, f.ArchiveReason, f.Review = false, time.Time{}, "", ""
		f.LastUsedAt = s.now().UTC()
		if !fid.user {
			f.Files = fileRefs(s.root, f.Content)
		}
		if err := putFact(tx, fid.user, &f, &prev); err != nil {
			return nil, err
		}
		out = f
		return []Fact{f}, nil
	})
	if err != nil {
		return Fact{}, fmt.Errorf("reaffirm %s: %w", fid, err)
	}
	return out, nil
}

// MarkRetrieved counts facts handed to an agent (unknown ids are ignored;
// the user-level file is best effort).
func (s *Service) MarkRetrieved(ctx context.Context, ids []string) error {
	now := s.now().UTC()
	_, err := s.update(ctx, ids, func(f *Fact) bool {
		f.Retrievals++
		f.LastUsedAt = now
		return true
	})
	return err
}

// Mark is the user's word on whether a fact helped (`nova facts helpful|
// unhelpful ID`): counted as one use, as a task's outcome is, so an entry
// that keeps not helping is archived.
func (s *Service) Mark(ctx context.Context, id string, helped bool) (Fact, error) {
	if _, err := s.Get(ctx, id); err != nil {
		return Fact{}, err
	}
	if _, err := s.RecordOutcome(ctx, []string{id}, helped); err != nil {
		return Fact{}, err
	}
	return s.Get(ctx, id)
}

// RecordOutcome credits facts a task used: helpful when it passed,
// not helpful when its work failed. A fact used at least ArchiveMinUses
// times that helped less than ArchiveHelpRate of them is archived; the
// archived ids are returned.
func (s *Service) RecordOutcome(ctx context.Context, ids []string, helped bool) ([]string, error) {
	now := s.now().UTC()
	return s.update(ctx, ids, func(f *Fact) bool {
		if helped {
			f.Helpful++
		} else {
			f.NotHelpful++
		}
		f.LastUsedAt = now
		if !f.Archived {
			if why := archiveReason(*f, now); why != "" {
				f.Archived, f.ArchivedAt, f.ArchiveReason = true, now, why
			}
		}
		return true
	})
}

// update applies mut to the valid facts among ids, file by file, and
// returns the ids newly archived.
func (s *Service) update(ctx context.Context, ids []string, mut func(f *Fact) bool) ([]string, error) {
	var ws, us []factID
	seen := map[factID]bool{}
	for _, raw := range ids {
		id, err := parseID(raw)
		if err != nil || seen[id] {
			continue
		}
		seen[id] = true
		if id.user {
			us = append(us, id)
		} else {
			ws = append(ws, id)
		}
	}
	var archived []string
	apply := func(user bool, list []factID) error {
		if len(list) == 0 {
			return nil
		}
		return s.write(ctx, user, func(tx *bolt.Tx) ([]Fact, error) {
			var changed []Fact
			for _, id := range list {
				f, err := getFact(tx, id)
				if err != nil || !f.Valid() {
					continue
				}
				prev, was := f, f.Archived
				if !mut(&f) {
					continue
				}
				if err := putFact(tx, user, &f, &prev); err != nil {
					return nil, err
				}
				if f.Archived && !was {
					archived = append(archived, f.ID)
				}
				changed = append(changed, f)
			}
			return changed, nil
		})
	}
	if err := apply(false, ws); err != nil {
		return archived, err
	}
	if err := apply(true, us); err != nil && !errors.Is(err, ErrUserUnavailable) {
		return archived, err
	}
	return archived, nil
}

// archiveReason says why a valid fact should be archived ("" = keep).
func archiveReason(f Fact, now time.Time) string {
	if rate, uses := f.HelpRate(); uses >= ArchiveMinUses && rate < ArchiveHelpRate {
		return fmt.Sprintf("unhelpful: helped %d of %d tasks that used it", f.Helpful, uses)
	}
	last := f.LastUsedAt
	if last.IsZero() {
		last = f.ValidFrom
	}
	if now.Sub(last) >= UnusedFor {
		return "unused for 90 days"
	}
	return ""
}

// SweepReport is what a sweep changed.
type SweepReport struct {
	Archived []string `json:"archived"`
	Flagged  []string `json:"flagged"`
	Warnings []string `json:"warnings,omitempty"`
}

// Sweep applies the usefulness rules to every valid fact: unhelpful or
// unused ones are archived; ones naming a workspace file that changed are
// flagged for review. It deletes nothing.
func (s *Service) Sweep(ctx context.Context) (SweepReport, error) {
	rep := SweepReport{Archived: []string{}, Flagged: []string{}}
	now := s.now().UTC()
	sweep := func(user bool) error {
		return s.write(ctx, user, func(tx *bolt.Tx) ([]Fact, error) {
			all, _ := allFacts(tx, user)
			var changed []Fact
			for _, f := range all {
				if !f.Valid() {
					continue
				}
				prev, dirty := f, false
				if !f.Archived {
					if why := archiveReason(f, now); why != "" {
						f.Archived, f.ArchivedAt, f.ArchiveReason, dirty = true, now, why, true
						rep.Archived = append(rep.Archived, f.ID)
					}
				}
				if !user && f.Review == "" && len(f.Files) > 0 {
					if why, ok := changedFile(s.root, f.Files); ok {
						f.Review, dirty = why, true
						rep.Flagged = append(rep.Flagged, f.ID)
					}
				}
				if dirty {
					if err := putFact(tx, user, &f, &prev); err != nil {
						return nil, err
					}
					changed = append(changed, f)
				}
			}
			return changed, nil
		})
	}
	if s.db.ReadOnly() {
		return rep, storage.ErrReadOnly
	}
	if err := sweep(false); err != nil {
		return rep, fmt.Errorf("sweep facts: %w", err)
	}
	if s.user.path != "" && s.user.stamp().ok {
		if err := sweep(true); err != nil {
			rep.Warnings = append(rep.Warnings, err.Error())
		}
	}
	return rep, nil
}

// ListOptions selects facts for List.
type ListOptions struct {
	// Scope keeps the facts of exactly that scope (zero: every scope).
	Scope Scope `json:"scope,omitzero"`
	// IncludeInvalidated also lists superseded, invalidated and archived
	// facts.
	IncludeInvalidated bool `json:"includeInvalidated,omitempty"`
	// Limit caps the list (0: no cap).
	Limit int `json:"limit,omitempty"`
}

// ListResult is a listing plus warnings (the user-level file unavailable).
type ListResult struct {
	Facts    []Fact   `json:"facts"`
	Warnings []string `json:"warnings,omitempty"`
}

// List returns facts by scope (broadest first) then newest first.
func (s *Service) List(ctx context.Context, o ListOptions) (ListResult, error) {
	warn, err := s.ensure(ctx)
	if err != nil {
		return ListResult{}, err
	}
	s.mu.RLock()
	out := make([]Fact, 0, len(s.mem.facts))
	for _, f := range s.mem.facts {
		if !o.Scope.IsZero() && f.Scope != o.Scope {
			continue
		}
		if !o.IncludeInvalidated && f.Status != StatusValid {
			continue
		}
		out = append(out, f)
	}
	s.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Scope.Level != b.Scope.Level {
			return a.Scope.Level < b.Scope.Level
		}
		if a.Scope.Name != b.Scope.Name {
			return a.Scope.Name < b.Scope.Name
		}
		if !a.ValidFrom.Equal(b.ValidFrom) {
			return a.ValidFrom.After(b.ValidFrom)
		}
		return a.ID > b.ID
	})
	if o.Limit > 0 && len(out) > o.Limit {
		out = out[:o.Limit]
	}
	return ListResult{Facts: out, Warnings: warn}, nil
}
