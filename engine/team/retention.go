package team

// # Retention
//
// The team's stream is a change feed with limits: records older than
// Config.MaxAge (default DefaultMaxAge, 30 days) or beyond Config.MaxBytes
// (default DefaultMaxBytes, 1 GiB) are dropped from it, oldest first. What
// the team holds is kept apart from the feed, in a key-value bucket (the
// snapshot, NOVA_TEAM_<NAME>_SNAP, one value per key, no limits) that every
// publisher writes with the stream, compacted per kind:
//
//   - wisdom backing and harm reports: one record per author and pattern
//     (a set of authors: older records of the same author add nothing);
//   - facts and their corrections: every version (chains never lose one);
//   - shared rules and vault nodes: every version (shared rules keep
//     their versions).
//
// So the snapshot holds the same records as the workspaces, less the
// repeated backings of one author, and a workspace that reads it again
// ends with the same records (by hash) as the others.
//
// A workspace whose stored position is behind the stream's first sequence
// (it was offline longer than the stream keeps records, or joined after
// records were dropped), or that sees a gap in the sequences it is given,
// reads the whole snapshot again before it goes on with the stream
// (Syncer resync): records it already holds are duplicates by id, so
// nothing is doubled, and nothing is silently lost. Only when there is no
// snapshot (a team made by an older nova) does it say how many stream
// records it could not get back.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/storage"
)

// Defaults of the retention policy.
const (
	DefaultMaxAge   = 30 * 24 * time.Hour
	DefaultMaxBytes = int64(1 << 30)
)

func (c Config) maxAge() time.Duration {
	if c.MaxAge > 0 {
		return c.MaxAge
	}
	return DefaultMaxAge
}

func (c Config) maxBytes() int64 {
	if c.MaxBytes > 0 {
		return c.MaxBytes
	}
	return DefaultMaxBytes
}

// SnapshotBucket is the team's key-value bucket of compacted records.
func (c Config) SnapshotBucket() string { return "NOVA_TEAM_" + strings.ToUpper(c.team()) + "_SNAP" }

func short(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:8])
}

// SnapshotKey is the snapshot key of a record (compaction per kind, see
// the package's retention notes).
func SnapshotKey(rec Record, id ID) string {
	subj := short(string(rec.Kind.item()) + "\x00" + rec.Subject)
	switch rec.Kind {
	case KindWisdomBack:
		return "wb." + subj + "." + short(rec.Author)
	case KindWisdomHarm:
		return "wh." + subj + "." + short(rec.Author)
	case KindRule:
		return "r." + subj + "." + id.String()[:16]
	case KindVaultNode:
		return "n." + subj + "." + id.String()[:16]
	}
	return "f." + subj + "." + id.String()[:16]
}

// EnsureSnapshot returns the team's snapshot bucket, created when missing
// with the replication the servers offer.
func EnsureSnapshot(ctx context.Context, js jetstream.JetStream, c Config) (jetstream.KeyValue, error) {
	kv, err := js.KeyValue(ctx, c.SnapshotBucket())
	if err == nil {
		return kv, nil
	}
	if !errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil, fmt.Errorf("team snapshot bucket: %w", err)
	}
	reps := []int{c.Replicas}
	if c.Replicas <= 0 {
		reps = []int{3, 1}
	}
	for _, r := range reps {
		kv, err = js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: c.SnapshotBucket(), History: 1,
			Description: "nova team records, compacted per kind", Storage: jetstream.FileStorage, Replicas: r,
			MaxValueSize: MaxRecordBytes})
		if err == nil {
			return kv, nil
		}
		if errors.Is(err, jetstream.ErrBucketExists) {
			return js.KeyValue(ctx, c.SnapshotBucket())
		}
	}
	return nil, fmt.Errorf("create the team snapshot bucket: %w", err)
}

// snapshotMsg is the message that puts an encoded record in the snapshot.
func (c Config) snapshotMsg(data []byte) (*nats.Msg, error) {
	rec, err := Decode(data)
	if err != nil {
		return nil, err
	}
	return &nats.Msg{Subject: "$KV." + c.SnapshotBucket() + "." + SnapshotKey(rec, Hash(data)), Data: data}, nil
}

// SetRetention applies the configured retention to the team's stream (the
// hub's admin: workspaces only set it when they create the stream).
func SetRetention(ctx context.Context, js jetstream.JetStream, c Config) (jetstream.StreamConfig, error) {
	s, err := EnsureStream(ctx, js, c)
	if err != nil {
		return jetstream.StreamConfig{}, err
	}
	info, err := s.Info(ctx)
	if err != nil {
		return jetstream.StreamConfig{}, fmt.Errorf("team stream: %w", err)
	}
	cfg := info.Config
	if cfg.MaxAge == c.maxAge() && cfg.MaxBytes == c.maxBytes() {
		return cfg, nil
	}
	cfg.MaxAge, cfg.MaxBytes = c.maxAge(), c.maxBytes()
	if _, err := js.UpdateStream(ctx, cfg); err != nil {
		return jetstream.StreamConfig{}, fmt.Errorf("team stream retention: %w", err)
	}
	return cfg, nil
}

// AdvancePosition moves the stored stream position up to seq (after a
// resync from the snapshot covered what the stream no longer holds).
func (s *Store) AdvancePosition(seq uint64) error {
	return s.db.Update(func(tx *bolt.Tx) error {
		st, err := bucket(tx, storage.BucketTeamState)
		if err != nil {
			return err
		}
		if getUint(st, statePos) >= seq {
			return nil
		}
		return putUint(st, statePos, seq)
	})
}

// errNoSnapshot: the team keeps no snapshot to resync from.
var errNoSnapshot = errors.New("the team keeps no snapshot")

// resync applies every record of the team's snapshot (records held are
// duplicates), then moves the position up to upTo. It returns how many
// records were new here.
func (y *Syncer) resync(ctx context.Context, js jetstream.JetStream, upTo uint64, why string) (int, error) {
	kv, err := js.KeyValue(ctx, y.cfg.SnapshotBucket())
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return 0, errNoSnapshot
	}
	if err != nil {
		return 0, fmt.Errorf("team snapshot: %w", err)
	}
	w, err := kv.WatchAll(ctx, jetstream.IgnoreDeletes())
	if err != nil {
		return 0, fmt.Errorf("team snapshot: %w", err)
	}
	defer func() { _ = w.Stop() }()
	applied := 0
	var batch []Incoming
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		res, err := y.store.Apply(ctx, batch)
		if err != nil {
			return fmt.Errorf("apply the team snapshot: %w", err)
		}
		applied += res.Applied
		if y.OnApply != nil && (res.Applied > 0 || len(res.Refused) > 0) {
			y.OnApply(res)
		}
		batch = batch[:0]
		return nil
	}
	idle := time.NewTimer(30 * time.Second)
	defer idle.Stop()
	for done := false; !done; {
		select {
		case <-ctx.Done():
			return applied, ctx.Err()
		case <-idle.C:
			return applied, errors.New("team snapshot: no answer in 30s")
		case e, ok := <-w.Updates():
			if !ok || e == nil {
				// nil marks the end of the values held now.
				done = true
				break
			}
			batch = append(batch, Incoming{Data: e.Value()})
			if len(batch) >= applyBatch {
				if err := flush(); err != nil {
					return applied, err
				}
			}
		}
	}
	if err := flush(); err != nil {
		return applied, err
	}
	if err := y.store.AdvancePosition(upTo); err != nil {
		return applied, err
	}
	y.mu.Lock()
	y.st.Resyncs++
	y.mu.Unlock()
	y.logf("team: %s; read the team's snapshot again: %d record(s) new here", why, applied)
	return applied, nil
}

// catchUp resyncs from the snapshot when the stream no longer holds the
// records after pos (up to upTo); without a snapshot it counts them lost
// and says so.
func (y *Syncer) catchUp(ctx context.Context, js jetstream.JetStream, pos, upTo uint64) error {
	why := fmt.Sprintf("the stream no longer holds records %d–%d (retention)", pos+1, upTo)
	if pos == 0 {
		why = fmt.Sprintf("the stream starts at record %d (older ones are past retention)", upTo+1)
	}
	_, err := y.resync(ctx, js, upTo, why)
	if errors.Is(err, errNoSnapshot) {
		if err := y.store.AdvancePosition(upTo); err != nil {
			return err
		}
		y.mu.Lock()
		y.st.Lost += upTo - pos
		y.mu.Unlock()
		y.logf("team: %s and the team keeps no snapshot: those records cannot be read here", why)
		return nil
	}
	return err
}

// fillGap resyncs when the first message of a batch is not the one after
// the stored position: the records between were dropped before this
// workspace read them.
func (y *Syncer) fillGap(ctx context.Context, js jetstream.JetStream, batch []jetstream.Msg) error {
	md, err := batch[0].Metadata()
	if err != nil {
		return nil
	}
	pos, _, err := y.store.StreamMark()
	if err != nil {
		return err
	}
	if seq := md.Sequence.Stream; seq > pos+1 {
		return y.catchUp(ctx, js, pos, seq-1)
	}
	return nil
}

// stateSnapFilled holds the creation time of the snapshot bucket this
// workspace last filled with every record it holds.
var stateSnapFilled = []byte("snapFilled")

// fillSnapshot puts every record this workspace holds into the snapshot
// bucket, once per bucket (a bucket made later, or made anew by hand, is
// filled again): a team whose stream was made before there was a snapshot,
// or whose snapshot was lost, gets its records back into it from the
// workspaces, so that retention drops nothing the snapshot lacks.
func (y *Syncer) fillSnapshot(ctx context.Context, js jetstream.JetStream) error {
	s, err := js.Stream(ctx, "KV_"+y.cfg.SnapshotBucket())
	if err != nil {
		return fmt.Errorf("team snapshot: %w", err)
	}
	info := s.CachedInfo()
	if info == nil {
		return nil
	}
	created := info.Created.UTC().Format(time.RFC3339Nano)
	var filled string
	var data [][]byte
	err = y.store.db.View(func(tx *bolt.Tx) error {
		st, err := bucket(tx, storage.BucketTeamState)
		if err != nil {
			return err
		}
		if filled = string(st.Get(stateSnapFilled)); filled == created {
			return nil
		}
		recs, err := bucket(tx, storage.BucketTeamRecords)
		if err != nil {
			return err
		}
		return recs.ForEach(func(_, v []byte) error {
			data = append(data, append([]byte(nil), v...))
			return nil
		})
	})
	if err != nil || filled == created {
		return err
	}
	for start := 0; start < len(data); start += publishBatch {
		var fs []jetstream.PubAckFuture
		for _, d := range data[start:min(len(data), start+publishBatch)] {
			m, err := y.cfg.snapshotMsg(d)
			if err != nil {
				continue // a record this workspace refused: not the team's
			}
			f, err := js.PublishMsgAsync(m)
			if err != nil {
				return fmt.Errorf("fill the team snapshot: %w", err)
			}
			fs = append(fs, f)
		}
		for _, f := range fs {
			select {
			case <-f.Ok():
			case err := <-f.Err():
				return fmt.Errorf("fill the team snapshot: %w", err)
			case <-time.After(10 * time.Second):
				return errors.New("fill the team snapshot: no answer in 10s")
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	if len(data) > 0 {
		y.logf("team: put the %d record(s) held here into the team's snapshot", len(data))
	}
	return y.store.db.Update(func(tx *bolt.Tx) error {
		st, err := bucket(tx, storage.BucketTeamState)
		if err != nil {
			return err
		}
		return st.Put(stateSnapFilled, []byte(created))
	})
}
