package board

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/storage"
)

var (
	boardCodec    = storage.Codec[Board]{Version: 1}
	artifactCodec = storage.Codec[Artifact]{Version: 1}
	handoffCodec  = storage.Codec[Handoff]{Version: 1}
)

// Options configures a Store.
type Options struct {
	// Now is the clock of stored times (nil = time.Now).
	Now func() time.Time
	// Notify is called after a write to a board commits, with the board's
	// key and what changed ("decision", "blocker", "resolved", "goal",
	// "artifact", "handoff", "summary").
	Notify func(key Key, what string)
	// Compress shortens a history summary that outgrew SummaryTokens (the
	// small model tier, in production); nil, or an error, drops the oldest
	// lines instead.
	Compress func(ctx context.Context, summary string, maxTokens int) (string, error)
}

// Store keeps boards, artifacts and handoffs in bbolt.
type Store struct {
	db  *storage.DB
	opt Options
}

// NewStore wraps the database.
func NewStore(db *storage.DB, o Options) *Store {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Notify == nil {
		o.Notify = func(Key, string) {}
	}
	return &Store{db: db, opt: o}
}

// Get returns a board; a board nobody wrote yet is empty, not an error.
func (s *Store) Get(ctx context.Context, key Key) (Board, error) {
	if err := ctx.Err(); err != nil {
		return Board{}, err
	}
	if !key.Valid() {
		return Board{}, fmt.Errorf("%w: board %s", ErrInvalid, key)
	}
	var b Board
	err := s.db.View(func(tx *bolt.Tx) error {
		var err error
		b, err = getTx(tx, key)
		return err
	})
	return b, err
}

func getTx(tx *bolt.Tx, key Key) (Board, error) {
	v := tx.Bucket(storage.BucketBoards).Get(key.bytes())
	if v == nil {
		return normalize(Board{Key: key.String()}), nil
	}
	b, err := boardCodec.Unmarshal(v)
	if err != nil {
		return Board{}, fmt.Errorf("board %s: %w", key, err)
	}
	b.Key = key.String()
	return normalize(b), nil
}

// normalize gives nil lists their empty value (JSON [] rather than null).
func normalize(b Board) Board {
	if b.Decisions == nil {
		b.Decisions = []Decision{}
	}
	if b.Blockers == nil {
		b.Blockers = []Blocker{}
	}
	if b.Resolved == nil {
		b.Resolved = []Blocker{}
	}
	if b.Artifacts == nil {
		b.Artifacts = []ArtifactRef{}
	}
	return b
}

// update changes a board in one transaction, then notifies.
func (s *Store) update(ctx context.Context, key Key, what string, fn func(tx *bolt.Tx, b *Board) error) (Board, error) {
	if err := ctx.Err(); err != nil {
		return Board{}, err
	}
	if !key.Valid() {
		return Board{}, fmt.Errorf("%w: board %s", ErrInvalid, key)
	}
	var out Board
	err := s.db.Update(func(tx *bolt.Tx) error {
		b, err := getTx(tx, key)
		if err != nil {
			return err
		}
		if err := fn(tx, &b); err != nil {
			return err
		}
		now := s.opt.Now()
		if b.CreatedAt.IsZero() {
			b.CreatedAt = now
		}
		b.UpdatedAt = now
		out = b
		return boardCodec.Put(tx.Bucket(storage.BucketBoards), key.bytes(), b)
	})
	if err != nil {
		return Board{}, err
	}
	s.opt.Notify(key, what)
	return out, nil
}

// SetGoal sets the current goal.
func (s *Store) SetGoal(ctx context.Context, key Key, goal, by string) (Board, error) {
	g := oneLine(goal, MaxTextChars)
	if g == "" {
		return Board{}, fmt.Errorf("%w: the goal is empty", ErrInvalid)
	}
	return s.update(ctx, key, "goal", func(_ *bolt.Tx, b *Board) error {
		b.Goal, b.GoalBy = g, oneLine(by, 40)
		return nil
	})
}

// AddDecision records a key decision; past MaxDecisions the oldest falls
// off. The same decision twice is recorded once.
func (s *Store) AddDecision(ctx context.Context, key Key, text, by, task string) (Board, error) {
	t := oneLine(text, MaxTextChars)
	if t == "" {
		return Board{}, fmt.Errorf("%w: the decision is empty", ErrInvalid)
	}
	return s.update(ctx, key, "decision", func(_ *bolt.Tx, b *Board) error {
		if slices.ContainsFunc(b.Decisions, func(d Decision) bool { return strings.EqualFold(d.Text, t) }) {
			return nil
		}
		b.Decisions = append(b.Decisions, Decision{Text: t, By: oneLine(by, 40), Task: oneLine(task, 60), At: s.opt.Now()})
		if len(b.Decisions) > MaxDecisions {
			b.Decisions = slices.Clone(b.Decisions[len(b.Decisions)-MaxDecisions:])
		}
		b.DecisionCount++
		return nil
	})
}

// AddBlocker opens a blocker; with MaxBlockers open it is refused (ErrFull)
// until one is resolved. The same open blocker twice is recorded once.
func (s *Store) AddBlocker(ctx context.Context, key Key, text, by, task string) (Blocker, error) {
	t := oneLine(text, MaxTextChars)
	if t == "" {
		return Blocker{}, fmt.Errorf("%w: the blocker is empty", ErrInvalid)
	}
	var out Blocker
	_, err := s.update(ctx, key, "blocker", func(_ *bolt.Tx, b *Board) error {
		if i := slices.IndexFunc(b.Blockers, func(x Blocker) bool { return strings.EqualFold(x.Text, t) }); i >= 0 {
			out = b.Blockers[i]
			return nil
		}
		if len(b.Blockers) >= MaxBlockers {
			ids := make([]string, len(b.Blockers))
			for i, x := range b.Blockers {
				ids[i] = x.ID
			}
			return fmt.Errorf("%w: %d blockers are open (%s); resolve one before adding another", ErrFull, len(b.Blockers), strings.Join(ids, ", "))
		}
		b.NextBlocker++
		out = Blocker{ID: "b" + strconv.Itoa(b.NextBlocker), Text: t, By: oneLine(by, 40), Task: oneLine(task, 60), At: s.opt.Now()}
		b.Blockers = append(b.Blockers, out)
		return nil
	})
	return out, err
}

// ResolveBlocker closes an open blocker with an optional note.
func (s *Store) ResolveBlocker(ctx context.Context, key Key, id, by, note string) (Blocker, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	var out Blocker
	_, err := s.update(ctx, key, "resolved", func(_ *bolt.Tx, b *Board) error {
		i := slices.IndexFunc(b.Blockers, func(x Blocker) bool { return x.ID == id })
		if i < 0 {
			open := make([]string, len(b.Blockers))
			for j, x := range b.Blockers {
				open[j] = x.ID
			}
			if len(open) == 0 {
				return fmt.Errorf("%w: blocker %q (no blocker is open)", ErrNotFound, id)
			}
			return fmt.Errorf("%w: blocker %q (open: %s)", ErrNotFound, id, strings.Join(open, ", "))
		}
		out = b.Blockers[i]
		out.ResolvedBy, out.ResolvedAt, out.Resolution = oneLine(by, 40), s.opt.Now(), oneLine(note, MaxTextChars)
		b.Blockers = slices.Delete(slices.Clone(b.Blockers), i, i+1)
		b.Resolved = append(b.Resolved, out)
		if len(b.Resolved) > MaxResolved {
			b.Resolved = slices.Clone(b.Resolved[len(b.Resolved)-MaxResolved:])
		}
		return nil
	})
	return out, err
}

// AddArtifact registers an artifact on a board: the full content goes to
// board_artifacts, the reference (with a preview and its size) onto the
// board. The returned reference carries the new id.
func (s *Store) AddArtifact(ctx context.Context, key Key, a Artifact) (ArtifactRef, error) {
	_, err := s.update(ctx, key, "artifact", func(tx *bolt.Tx, b *Board) error {
		var err error
		a, err = s.addArtifactTx(tx, key, b, a)
		return err
	})
	return a.ArtifactRef, err
}

// addArtifactTx stores an artifact and puts its reference on b.
func (s *Store) addArtifactTx(tx *bolt.Tx, key Key, b *Board, a Artifact) (Artifact, error) {
	a.Content = cleanText(a.Content)
	a.Name = oneLine(a.Name, 200)
	a.By, a.Task = oneLine(a.By, 40), oneLine(a.Task, 60)
	if a.Type == "" {
		a.Type = TypeNote
	}
	a.Preview = preview(a.Content)
	a.Tokens = EstimateTokens(a.Content)
	a.Board = key.String()
	a.CreatedAt = s.opt.Now()
	ab := tx.Bucket(storage.BucketBoardArtifacts)
	id, err := storage.NextID(ab)
	if err != nil {
		return a, err
	}
	a.ID = id
	if err := artifactCodec.Put(ab, storage.Key(id), a); err != nil {
		return a, err
	}
	b.Artifacts = append(b.Artifacts, a.ArtifactRef)
	if len(b.Artifacts) > MaxRefs {
		b.Artifacts = slices.Clone(b.Artifacts[len(b.Artifacts)-MaxRefs:])
	}
	b.ArtifactCount++
	return a, nil
}

// Artifact loads one artifact with its full content.
func (s *Store) Artifact(ctx context.Context, id uint64) (Artifact, error) {
	if err := ctx.Err(); err != nil {
		return Artifact{}, err
	}
	var a Artifact
	err := s.db.View(func(tx *bolt.Tx) error {
		var err error
		a, err = artifactCodec.Get(tx.Bucket(storage.BucketBoardArtifacts), storage.Key(id))
		if errors.Is(err, storage.ErrNotFound) {
			return fmt.Errorf("%w: artifact %s", ErrNotFound, ArtifactRefID(id))
		}
		return err
	})
	return a, err
}

// Artifacts loads several artifacts; ids that do not exist are errors.
func (s *Store) Artifacts(ctx context.Context, ids []uint64) ([]Artifact, error) {
	out := make([]Artifact, 0, len(ids))
	for _, id := range ids {
		a, err := s.Artifact(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// AddHandoff stores a task's handoff and counts it on the board.
func (s *Store) AddHandoff(ctx context.Context, key Key, h Handoff) (Handoff, error) {
	_, err := s.update(ctx, key, "handoff", func(tx *bolt.Tx, b *Board) error {
		var err error
		h, err = s.addHandoffTx(tx, key, b, h)
		return err
	})
	return h, err
}

func (s *Store) addHandoffTx(tx *bolt.Tx, key Key, b *Board, h Handoff) (Handoff, error) {
	h = h.clean()
	h.Board = key.String()
	h.CreatedAt = s.opt.Now()
	hb := tx.Bucket(storage.BucketBoardHandoffs)
	id, err := storage.NextID(hb)
	if err != nil {
		return h, err
	}
	h.ID = id
	b.Handoffs++
	return h, handoffCodec.Put(hb, append(key.bytes(), storage.Key(id)...), h)
}

// Handoffs lists a board's handoffs, oldest first.
func (s *Store) Handoffs(ctx context.Context, key Key) ([]Handoff, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := []Handoff{}
	prefix := key.bytes()
	err := s.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(storage.BucketBoardHandoffs).Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			h, err := handoffCodec.Unmarshal(v)
			if err != nil {
				return fmt.Errorf("handoff %x: %w", k, err)
			}
			out = append(out, h)
		}
		return nil
	})
	return out, err
}

// AppendHistory adds a line to the board's history summary. A summary that
// outgrows SummaryTokens is compressed (Options.Compress: the small tier),
// or, when that is off or fails, loses its oldest lines.
func (s *Store) AppendHistory(ctx context.Context, key Key, line string) (Board, error) {
	next, base, err := s.nextSummary(ctx, key, line)
	if err != nil || next == base {
		return s.Get(ctx, key)
	}
	return s.update(ctx, key, "summary", func(_ *bolt.Tx, b *Board) error {
		b.Summary = mergeSummary(b.Summary, base, next, line)
		return nil
	})
}

// nextSummary computes the summary with line added (compressing it when it
// outgrows its budget) from the board as it is now; base is the summary it
// started from. The model call happens outside any transaction.
func (s *Store) nextSummary(ctx context.Context, key Key, line string) (next, base string, err error) {
	line = oneLine(line, 400)
	cur, err := s.Get(ctx, key)
	if err != nil {
		return "", "", err
	}
	if line == "" {
		return cur.Summary, cur.Summary, nil
	}
	next = strings.TrimSpace(cur.Summary + "\n" + line)
	if EstimateTokens(next) > SummaryTokens && s.opt.Compress != nil && ctx.Err() == nil {
		if short, err := s.opt.Compress(ctx, next, SummaryTokens*3/4); err == nil {
			if short = strings.TrimSpace(cleanText(short)); short != "" && EstimateTokens(short) <= SummaryTokens {
				next = short
			}
		}
	}
	return dropOldest(next, SummaryTokens), cur.Summary, nil
}

// mergeSummary keeps next unless another writer changed the summary since
// base was read; then the line goes onto theirs (nothing is lost).
func mergeSummary(stored, base, next, line string) string {
	if stored == base {
		return next
	}
	return dropOldest(strings.TrimSpace(stored+"\n"+oneLine(line, 400)), SummaryTokens)
}

// dropOldest drops whole leading lines until s fits in max tokens (a last
// line longer than that is clipped).
func dropOldest(s string, maxTokens int) string {
	for EstimateTokens(s) > maxTokens {
		_, rest, ok := strings.Cut(s, "\n")
		if !ok {
			return clip(s, maxTokens*4)
		}
		s = rest
	}
	return s
}

// Changes are several board updates made together (a lead's decision).
type Changes struct {
	// Goal sets the current goal; Decision adds a key decision; Resolve
	// closes open blockers (ids that are not open are left out) with Note.
	Goal     string
	Decision string
	Resolve  []string
	Note     string
}

// Apply makes several changes by one author in one transaction; empty
// fields change nothing.
func (s *Store) Apply(ctx context.Context, key Key, by string, c Changes) (Board, error) {
	goal, decision := oneLine(c.Goal, MaxTextChars), oneLine(c.Decision, MaxTextChars)
	if goal == "" && decision == "" && len(c.Resolve) == 0 {
		return s.Get(ctx, key)
	}
	by = oneLine(by, 40)
	return s.update(ctx, key, "decision", func(_ *bolt.Tx, b *Board) error {
		if goal != "" {
			b.Goal, b.GoalBy = goal, by
		}
		if decision != "" && !slices.ContainsFunc(b.Decisions, func(d Decision) bool { return strings.EqualFold(d.Text, decision) }) {
			b.Decisions = append(b.Decisions, Decision{Text: decision, By: by, At: s.opt.Now()})
			if len(b.Decisions) > MaxDecisions {
				b.Decisions = slices.Clone(b.Decisions[len(b.Decisions)-MaxDecisions:])
			}
			b.DecisionCount++
		}
		for _, id := range c.Resolve {
			id = strings.ToLower(strings.TrimSpace(id))
			i := slices.IndexFunc(b.Blockers, func(x Blocker) bool { return x.ID == id })
			if i < 0 {
				continue
			}
			x := b.Blockers[i]
			x.ResolvedBy, x.ResolvedAt, x.Resolution = by, s.opt.Now(), oneLine(c.Note, MaxTextChars)
			b.Blockers = slices.Delete(slices.Clone(b.Blockers), i, i+1)
			b.Resolved = append(b.Resolved, x)
			if len(b.Resolved) > MaxResolved {
				b.Resolved = slices.Clone(b.Resolved[len(b.Resolved)-MaxResolved:])
			}
		}
		return nil
	})
}
