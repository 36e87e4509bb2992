package chat

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/storage"
)

var (
	sessionCodec = storage.Codec[Session]{Version: 1}
	turnCodec    = storage.Codec[Turn]{Version: 1}
)

// Store persists sessions (chat_sessions, key = id) and their turns
// (chat_turns, key = session id + turn number, both big-endian).
type Store struct {
	db  *storage.DB
	now func() time.Time
}

// NewStore wraps the database.
func NewStore(db *storage.DB, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{db: db, now: now}
}

func turnKey(session uint64, n int) []byte { return storage.ChildKey(session, n) }

func notFound(id uint64) error { return fmt.Errorf("%w: %d", ErrNotFound, id) }

// Create stores a new session.
func (s *Store) Create(ctx context.Context, title string) (Session, error) {
	if err := ctx.Err(); err != nil {
		return Session{}, err
	}
	var out Session
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketChatSessions)
		id, err := storage.NextID(b)
		if err != nil {
			return err
		}
		out = Session{ID: id, Title: title, CreatedAt: s.now(), UpdatedAt: s.now()}
		return sessionCodec.Put(b, storage.Key(id), out)
	})
	return out, err
}

// Get returns a session.
func (s *Store) Get(ctx context.Context, id uint64) (Session, error) {
	if err := ctx.Err(); err != nil {
		return Session{}, err
	}
	var out Session
	err := s.db.View(func(tx *bolt.Tx) error {
		var err error
		out, err = getSession(tx, id)
		return err
	})
	return out, err
}

func getSession(tx *bolt.Tx, id uint64) (Session, error) {
	v, err := sessionCodec.Get(tx.Bucket(storage.BucketChatSessions), storage.Key(id))
	if errors.Is(err, storage.ErrNotFound) {
		return Session{}, notFound(id)
	}
	return v, err
}

// List returns every session, most recently updated first.
func (s *Store) List(ctx context.Context) ([]Session, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []Session
	err := s.db.View(func(tx *bolt.Tx) error {
		var err error
		out, err = sessionCodec.All(tx.Bucket(storage.BucketChatSessions))
		return err
	})
	slices.SortStableFunc(out, func(a, b Session) int {
		if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
			return c
		}
		return int(b.ID) - int(a.ID)
	})
	return out, err
}

// UpdateSession changes a session in one transaction.
func (s *Store) UpdateSession(ctx context.Context, id uint64, fn func(*Session)) (Session, error) {
	if err := ctx.Err(); err != nil {
		return Session{}, err
	}
	var out Session
	err := s.db.Update(func(tx *bolt.Tx) error {
		v, err := getSession(tx, id)
		if err != nil {
			return err
		}
		fn(&v)
		v.UpdatedAt = s.now()
		out = v
		return sessionCodec.Put(tx.Bucket(storage.BucketChatSessions), storage.Key(id), v)
	})
	return out, err
}

// NewTurn appends a turn to a session: it takes the next turn number and a
// run key from the sessions bucket's sequence, in one transaction, so two
// windows sending at once get two turns in order.
func (s *Store) NewTurn(ctx context.Context, t Turn) (Turn, error) {
	if err := ctx.Err(); err != nil {
		return Turn{}, err
	}
	err := s.db.Update(func(tx *bolt.Tx) error {
		sb := tx.Bucket(storage.BucketChatSessions)
		sess, err := getSession(tx, t.Session)
		if err != nil {
			return err
		}
		key, err := tx.Bucket(storage.BucketChatTurns).NextSequence()
		if err != nil {
			return fmt.Errorf("turn key: %w", err)
		}
		sess.Turns++
		sess.UpdatedAt = s.now()
		if sess.Title == "" {
			sess.Title = titleOf(t.Request)
		}
		t.N, t.RunKey = sess.Turns, key
		if t.StartedAt.IsZero() {
			t.StartedAt = s.now()
		}
		if err := sessionCodec.Put(sb, storage.Key(sess.ID), sess); err != nil {
			return err
		}
		return turnCodec.Put(tx.Bucket(storage.BucketChatTurns), turnKey(t.Session, t.N), t)
	})
	return t, err
}

// PutTurn stores a turn's new state.
func (s *Store) PutTurn(ctx context.Context, t Turn) error {
	return s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketChatTurns)
		if b.Get(turnKey(t.Session, t.N)) == nil {
			return fmt.Errorf("%w: session %d turn %d", ErrNotFound, t.Session, t.N)
		}
		return turnCodec.Put(b, turnKey(t.Session, t.N), t)
	})
}

// Turn returns one turn.
func (s *Store) Turn(ctx context.Context, session uint64, n int) (Turn, error) {
	if err := ctx.Err(); err != nil {
		return Turn{}, err
	}
	var out Turn
	err := s.db.View(func(tx *bolt.Tx) error {
		v, err := turnCodec.Get(tx.Bucket(storage.BucketChatTurns), turnKey(session, n))
		if errors.Is(err, storage.ErrNotFound) {
			return fmt.Errorf("%w: session %d turn %d", ErrNotFound, session, n)
		}
		out = v
		return err
	})
	return out, err
}

// Turns returns a session's turns, oldest first.
func (s *Store) Turns(ctx context.Context, session uint64) ([]Turn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := []Turn{}
	err := s.db.View(func(tx *bolt.Tx) error {
		if _, err := getSession(tx, session); err != nil {
			return err
		}
		var err error
		if out, err = turnCodec.Children(tx.Bucket(storage.BucketChatTurns), session); err != nil {
			return fmt.Errorf("chat session %d turns: %w", session, err)
		}
		return nil
	})
	return out, err
}

// titleOf makes a session title from its first request.
func titleOf(req string) string {
	line := req
	if i := bytes.IndexByte([]byte(line), '\n'); i >= 0 {
		line = line[:i]
	}
	r := []rune(line)
	if len(r) > 60 {
		return string(r[:59]) + "…"
	}
	return line
}
