package team

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/storage"
)

// Item names one shared thing: a kind and a subject (a pattern, a fact
// chain, a rule, a node).
type Item struct {
	Kind    Kind   `json:"kind"`
	Subject string `json:"subject"`
}

// Projector applies merged views to the workspace's own stores (facts at the
// team scope, wisdom patterns, ...) inside the transaction that changed
// them. all is true when every item must be projected again (the membership
// changed).
type Projector func(tx *bolt.Tx, s *Store, items []Item, all bool) error

// Options configure a Store.
type Options struct {
	DB *storage.DB
	// Key signs this workspace's records (the workspace's wisdom key).
	Key ed25519.PrivateKey
	Now func() time.Time
	// Project is optional.
	Project Projector
}

// Store is a workspace's share of the team: its records, outbox and sync
// state, in the workspace's bbolt file (storage migration 9).
type Store struct {
	db      *storage.DB
	key     ed25519.PrivateKey
	self    string
	hlc     *HLC
	now     func() time.Time
	project Projector

	kick chan struct{}
}

// State keys (team_state).
var (
	stateHLC      = []byte("hlc")
	statePos      = []byte("pos")
	stateStream   = []byte("stream")
	stateLastSync = []byte("lastSync")
	stateAdmin    = []byte("admin")
	refusedPrefix = "refused."
	membersDocKey = []byte("doc")
)

// Refusal reasons (counted in team_state).
const (
	ReasonMalformed    = "malformed"
	ReasonTooLarge     = "too large"
	ReasonBadSignature = "bad signature"
	ReasonFutureClock  = "future clock"
	ReasonNotMember    = "not a member"
)

const maxRefusedLog = 200

// Open returns the store of db.
func Open(o Options) (*Store, error) {
	if o.DB == nil || len(o.Key) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("%w: team store needs a database and a signing key", ErrInvalid)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	s := &Store{db: o.DB, key: o.Key, self: FormatKey(o.Key.Public().(ed25519.PublicKey)), now: o.Now,
		project: o.Project, kick: make(chan struct{}, 1)}
	var last Clock
	err := o.DB.View(func(tx *bolt.Tx) error {
		b, err := bucket(tx, storage.BucketTeamState)
		if err != nil {
			return err
		}
		if v := b.Get(stateHLC); v != nil {
			_ = json.Unmarshal(v, &last)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.hlc = NewHLC(o.Now, last)
	return s, nil
}

// SetProjector sets the projector (before syncing starts).
func (s *Store) SetProjector(p Projector) { s.project = p }

// Self is this workspace's author key.
func (s *Store) Self() string { return s.self }

// DB is the workspace database.
func (s *Store) DB() *storage.DB { return s.db }

// Kicked is signalled after a local write entered the outbox.
func (s *Store) Kicked() <-chan struct{} { return s.kick }

func (s *Store) signal() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

func bucket(tx *bolt.Tx, name []byte) (*bolt.Bucket, error) {
	b := tx.Bucket(name)
	if b == nil {
		return nil, fmt.Errorf("bucket %s missing: %w", name, storage.ErrCorrupt)
	}
	return b, nil
}

// Write records a local change of a shared kind: the record is signed,
// stored, projected and put in the outbox in one transaction.
func (s *Store) Write(ctx context.Context, kind Kind, subject string, body any) (Record, ID, error) {
	if err := ctx.Err(); err != nil {
		return Record{}, ID{}, err
	}
	var rec Record
	var id ID
	err := s.db.Update(func(tx *bolt.Tx) error {
		var err error
		rec, id, err = s.WriteTx(tx, kind, subject, body)
		return err
	})
	if err != nil {
		return Record{}, ID{}, err
	}
	s.signal()
	return rec, id, nil
}

// WriteTx is Write inside the caller's write transaction (a store that
// changed its own data in tx, e.g. the vault endorsing a pattern); the
// publisher is woken when tx commits.
func (s *Store) WriteTx(tx *bolt.Tx, kind Kind, subject string, body any) (Record, ID, error) {
	if !kind.valid() {
		return Record{}, ID{}, fmt.Errorf("%w: unknown kind %q", ErrInvalid, kind)
	}
	b, err := canonicalBody(body)
	if err != nil {
		return Record{}, ID{}, err
	}
	rec := Record{V: RecordVersion, Kind: kind, Subject: subject, Clock: s.hlc.Now(), Body: b}
	if err := rec.Sign(s.key); err != nil {
		return Record{}, ID{}, err
	}
	if err := rec.check(); err != nil {
		return Record{}, ID{}, err
	}
	data, err := rec.Encode()
	if err != nil {
		return Record{}, ID{}, err
	}
	if len(data) > MaxRecordBytes {
		return Record{}, ID{}, fmt.Errorf("%w: %d bytes (at most %d)", ErrTooLarge, len(data), MaxRecordBytes)
	}
	id := Hash(data)
	if _, err := putRecord(tx, id, rec, data); err != nil {
		return Record{}, ID{}, err
	}
	out, err := bucket(tx, storage.BucketTeamOutbox)
	if err != nil {
		return Record{}, ID{}, err
	}
	seq, err := out.NextSequence()
	if err != nil {
		return Record{}, ID{}, err
	}
	if err := out.Put(storage.Key(seq), id[:]); err != nil {
		return Record{}, ID{}, err
	}
	if err := s.saveClock(tx); err != nil {
		return Record{}, ID{}, err
	}
	tx.OnCommit(s.signal)
	if s.project != nil {
		if err := s.project(tx, s, []Item{{Kind: rec.Kind.item(), Subject: rec.Subject}}, false); err != nil {
			return Record{}, ID{}, fmt.Errorf("project %s %s: %w", rec.Kind, rec.Subject, err)
		}
	}
	return rec, id, nil
}

// Kick wakes the publisher (after a WriteTx committed).
func (s *Store) Kick() { s.signal() }

// item maps kinds that share a subject to one: a fact's corrections belong
// to its chain, a pattern's harm reports to its backing.
func (k Kind) item() Kind {
	switch k {
	case KindFactCorrect:
		return KindFact
	case KindWisdomHarm:
		return KindWisdomBack
	}
	return k
}

func (s *Store) saveClock(tx *bolt.Tx) error {
	b, err := bucket(tx, storage.BucketTeamState)
	if err != nil {
		return err
	}
	v, _ := json.Marshal(s.hlc.Last())
	return b.Put(stateHLC, v)
}

func subjectKey(kind Kind, subject string, id ID) []byte {
	k := make([]byte, 0, len(kind)+len(subject)+2+len(id))
	k = append(k, kind...)
	k = append(k, 0)
	k = append(k, subject...)
	k = append(k, 0)
	return append(k, id[:]...)
}

// putRecord stores a record once; false when it was there.
func putRecord(tx *bolt.Tx, id ID, rec Record, data []byte) (bool, error) {
	recs, err := bucket(tx, storage.BucketTeamRecords)
	if err != nil {
		return false, err
	}
	if recs.Get(id[:]) != nil {
		return false, nil
	}
	if err := recs.Put(id[:], data); err != nil {
		return false, err
	}
	subs, err := bucket(tx, storage.BucketTeamSubjects)
	if err != nil {
		return false, err
	}
	return true, subs.Put(subjectKey(rec.Kind.item(), rec.Subject, id), nil)
}

// Incoming is one message from the stream.
type Incoming struct {
	Data []byte
	// Seq is its stream sequence (0: not from the stream).
	Seq uint64
}

// ApplyResult says what Apply did.
type ApplyResult struct {
	Applied   int            `json:"applied"`
	Duplicate int            `json:"duplicate"`
	Refused   map[string]int `json:"refused,omitempty"`
	Items     []Item         `json:"items,omitempty"`
	// Records are the records applied (for the activity feed).
	Records []Record `json:"-"`
}

// Apply stores a batch of the team's records and the stream position they
// reach in one transaction: records are decoded, their signature and clock
// checked (refused and counted otherwise), stored once by id, and the items
// they change projected.
func (s *Store) Apply(ctx context.Context, batch []Incoming) (ApplyResult, error) {
	if err := ctx.Err(); err != nil {
		return ApplyResult{}, err
	}
	checked := checkBatch(batch, s.now())
	var res ApplyResult
	err := s.db.Update(func(tx *bolt.Tx) error {
		var err error
		res, err = s.applyTx(tx, batch, checked)
		return err
	})
	return res, err
}

// checked is a message decoded and checked outside the transaction.
type checked struct {
	rec    Record
	reason string
}

// checkBatch decodes and verifies a batch, the signatures (most of the
// cost) on every core.
func checkBatch(batch []Incoming, now time.Time) []checked {
	out := make([]checked, len(batch))
	workers := min(runtime.GOMAXPROCS(0), max(1, len(batch)/64))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(batch); i += workers {
				rec, err := Decode(batch[i].Data)
				reason := ""
				switch {
				case errors.Is(err, ErrTooLarge):
					reason = ReasonTooLarge
				case err != nil:
					reason = ReasonMalformed
				case rec.Verify() != nil:
					reason = ReasonBadSignature
				case rec.CheckClock(now) != nil:
					reason = ReasonFutureClock
				}
				out[i] = checked{rec: rec, reason: reason}
			}
		}()
	}
	wg.Wait()
	return out
}

func (s *Store) applyTx(tx *bolt.Tx, batch []Incoming, pre []checked) (ApplyResult, error) {
	res := ApplyResult{Refused: map[string]int{}}
	state, err := bucket(tx, storage.BucketTeamState)
	if err != nil {
		return res, err
	}
	members := membersTx(tx)
	pos := getUint(state, statePos)
	seen := map[Item]bool{}
	now := s.now()
	for i, in := range batch {
		if in.Seq > pos {
			pos = in.Seq
		}
		rec, reason := pre[i].rec, pre[i].reason
		if reason != "" {
			res.Refused[reason]++
			if err := refuseTx(tx, reason, rec, in.Data, now); err != nil {
				return res, err
			}
			continue
		}
		id := Hash(in.Data)
		fresh, err := putRecord(tx, id, rec, in.Data)
		if err != nil {
			return res, err
		}
		if !fresh {
			res.Duplicate++
			continue
		}
		s.hlc.Observe(rec.Clock)
		if rec.Author != s.self && !members[rec.Author] {
			// Kept (it counts if the admin adds the key), never in a view.
			res.Refused[ReasonNotMember]++
			if err := refuseTx(tx, ReasonNotMember, rec, in.Data, now); err != nil {
				return res, err
			}
			continue
		}
		res.Applied++
		res.Records = append(res.Records, rec)
		it := Item{Kind: rec.Kind.item(), Subject: rec.Subject}
		if !seen[it] {
			seen[it] = true
			res.Items = append(res.Items, it)
		}
	}
	if err := putUint(state, statePos, pos); err != nil {
		return res, err
	}
	if err := state.Put(stateLastSync, []byte(now.UTC().Format(time.RFC3339Nano))); err != nil {
		return res, err
	}
	if err := s.saveClock(tx); err != nil {
		return res, err
	}
	if s.project != nil && len(res.Items) > 0 {
		if err := s.project(tx, s, res.Items, false); err != nil {
			return res, fmt.Errorf("project team records: %w", err)
		}
	}
	return res, nil
}

// RefusedRecord is one entry of the refusal log.
type RefusedRecord struct {
	Reason string    `json:"reason"`
	Kind   Kind      `json:"kind,omitempty"`
	Author string    `json:"author,omitempty"`
	ID     string    `json:"id"`
	Bytes  int       `json:"bytes"`
	At     time.Time `json:"at"`
}

func refuseTx(tx *bolt.Tx, reason string, rec Record, data []byte, now time.Time) error {
	state, err := bucket(tx, storage.BucketTeamState)
	if err != nil {
		return err
	}
	k := []byte(refusedPrefix + reason)
	if err := putUint(state, k, getUint(state, k)+1); err != nil {
		return err
	}
	log, err := bucket(tx, storage.BucketTeamRefused)
	if err != nil {
		return err
	}
	seq, err := log.NextSequence()
	if err != nil {
		return err
	}
	sum := sha256.Sum256(data)
	v, _ := json.Marshal(RefusedRecord{Reason: reason, Kind: Kind(clip(string(rec.Kind), 40)), Author: clip(rec.Author, 60),
		ID: ID(sum).String(), Bytes: len(data), At: now.UTC()})
	if err := log.Put(storage.Key(seq), v); err != nil {
		return err
	}
	if seq > maxRefusedLog {
		return log.Delete(storage.Key(seq - maxRefusedLog))
	}
	return nil
}

func getUint(b *bolt.Bucket, k []byte) uint64 {
	v := b.Get(k)
	if len(v) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(v)
}

func putUint(b *bolt.Bucket, k []byte, n uint64) error {
	return b.Put(k, binary.BigEndian.AppendUint64(nil, n))
}

// OutboxEntry is one record waiting for the hub's acknowledgement.
type OutboxEntry struct {
	Key  uint64
	ID   ID
	Data []byte
	Kind Kind
}

// Outbox returns up to n entries, oldest first.
func (s *Store) Outbox(n int) ([]OutboxEntry, error) {
	var out []OutboxEntry
	err := s.db.View(func(tx *bolt.Tx) error {
		ob, err := bucket(tx, storage.BucketTeamOutbox)
		if err != nil {
			return err
		}
		recs, err := bucket(tx, storage.BucketTeamRecords)
		if err != nil {
			return err
		}
		c := ob.Cursor()
		for k, v := c.First(); k != nil && len(out) < n; k, v = c.Next() {
			var id ID
			copy(id[:], v)
			data := recs.Get(v)
			if data == nil {
				continue
			}
			e := OutboxEntry{Key: storage.ParseKey(k), ID: id, Data: slices.Clone(data)}
			if r, err := Decode(data); err == nil {
				e.Kind = r.Kind
			}
			out = append(out, e)
		}
		return nil
	})
	return out, err
}

// Acked removes entries the hub acknowledged.
func (s *Store) Acked(keys []uint64) error {
	if len(keys) == 0 {
		return nil
	}
	return s.db.Update(func(tx *bolt.Tx) error {
		ob, err := bucket(tx, storage.BucketTeamOutbox)
		if err != nil {
			return err
		}
		for _, k := range keys {
			if err := ob.Delete(storage.Key(k)); err != nil {
				return err
			}
		}
		return nil
	})
}

// StreamMark returns the stored stream position and the creation time of
// the stream it belongs to.
func (s *Store) StreamMark() (pos uint64, created string, err error) {
	err = s.db.View(func(tx *bolt.Tx) error {
		st, err := bucket(tx, storage.BucketTeamState)
		if err != nil {
			return err
		}
		pos, created = getUint(st, statePos), string(st.Get(stateStream))
		return nil
	})
	return pos, created, err
}

// ResetStream records a stream seen for the first time (or made anew after
// it was deleted): the position starts again at 0 and, when requeue is
// true, every record this workspace holds enters the outbox again, so that
// the new stream gets the team's records back. Returns how many records
// were queued.
func (s *Store) ResetStream(created string, requeue bool) (int, error) {
	n := 0
	err := s.db.Update(func(tx *bolt.Tx) error {
		n = 0
		st, err := bucket(tx, storage.BucketTeamState)
		if err != nil {
			return err
		}
		if err := putUint(st, statePos, 0); err != nil {
			return err
		}
		if err := st.Put(stateStream, []byte(created)); err != nil {
			return err
		}
		if !requeue {
			return nil
		}
		ob, err := bucket(tx, storage.BucketTeamOutbox)
		if err != nil {
			return err
		}
		queued := map[string]bool{}
		_ = ob.ForEach(func(_, v []byte) error {
			queued[string(v)] = true
			return nil
		})
		recs, err := bucket(tx, storage.BucketTeamRecords)
		if err != nil {
			return err
		}
		return recs.ForEach(func(k, _ []byte) error {
			if queued[string(k)] {
				return nil
			}
			seq, err := ob.NextSequence()
			if err != nil {
				return err
			}
			n++
			return ob.Put(storage.Key(seq), slices.Clone(k))
		})
	})
	if n > 0 {
		s.signal()
	}
	return n, err
}

// RecordsOf returns the records of one item, in merge order (clock, author,
// id), those of authors who are not members (other than this workspace)
// left out.
func (s *Store) RecordsOf(tx *bolt.Tx, it Item) ([]Stored, error) {
	subs, err := bucket(tx, storage.BucketTeamSubjects)
	if err != nil {
		return nil, err
	}
	recs, err := bucket(tx, storage.BucketTeamRecords)
	if err != nil {
		return nil, err
	}
	members := membersTx(tx)
	prefix := subjectKey(it.Kind, it.Subject, ID{})[:len(it.Kind)+len(it.Subject)+2]
	var out []Stored
	c := subs.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		idb := k[len(prefix):]
		data := recs.Get(idb)
		if data == nil {
			continue
		}
		rec, err := Decode(data)
		if err != nil {
			continue
		}
		if rec.Author != s.self && !members[rec.Author] {
			continue
		}
		var id ID
		copy(id[:], idb)
		out = append(out, Stored{Record: rec, ID: id})
	}
	sortStored(out)
	return out, nil
}

// Stored is a record with its id.
type Stored struct {
	Record
	ID ID
}

func sortStored(rs []Stored) {
	sort.Slice(rs, func(i, j int) bool {
		a, b := rs[i], rs[j]
		if c := a.Clock.Compare(b.Clock); c != 0 {
			return c < 0
		}
		if a.Author != b.Author {
			return a.Author < b.Author
		}
		return bytes.Compare(a.ID[:], b.ID[:]) < 0
	})
}

// Items lists every item this workspace holds records of.
func (s *Store) Items(tx *bolt.Tx) ([]Item, error) {
	subs, err := bucket(tx, storage.BucketTeamSubjects)
	if err != nil {
		return nil, err
	}
	var out []Item
	var last Item
	err = subs.ForEach(func(k, _ []byte) error {
		if len(k) < len(ID{})+2 {
			return nil
		}
		head := k[:len(k)-len(ID{})-1]
		kind, subject, ok := bytes.Cut(head, []byte{0})
		if !ok {
			return nil
		}
		it := Item{Kind: Kind(kind), Subject: string(subject)}
		if it != last {
			out = append(out, it)
			last = it
		}
		return nil
	})
	return out, err
}

// Digest is the SHA-256 of the ids of every record held (in id order) and
// how many there are: two workspaces holding the same records have the same
// digest.
func (s *Store) Digest(ctx context.Context) (string, int, error) {
	if err := ctx.Err(); err != nil {
		return "", 0, err
	}
	h := sha256.New()
	n := 0
	err := s.db.View(func(tx *bolt.Tx) error {
		recs, err := bucket(tx, storage.BucketTeamRecords)
		if err != nil {
			return err
		}
		return recs.ForEach(func(k, _ []byte) error {
			n++
			h.Write(k)
			return nil
		})
	})
	return fmt.Sprintf("%x", h.Sum(nil)), n, err
}
