package blueprint

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/storage"
)

// Blueprint is a stored blueprint (bucket blueprints, key = name).
type Blueprint struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Spec is the current version's spec.
	Spec Spec `json:"spec"`
	// Version is the current version number (1, 2, …).
	Version int `json:"version"`
	// Versions summarises every version, oldest first.
	Versions  []Version `json:"versions"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// Version is one version of a blueprint.
type Version struct {
	Version   int       `json:"version"`
	CreatedAt time.Time `json:"createdAt"`
	// Changes says what changed ("initial version" for the first).
	Changes string `json:"changes"`
	Hash    string `json:"hash"`
}

// VersionRecord is a version with its full spec (bucket
// blueprint_versions).
type VersionRecord struct {
	Version
	Spec Spec `json:"spec"`
}

// Use is one build made from a blueprint (bucket blueprint_uses).
type Use struct {
	Blueprint  string         `json:"blueprint"`
	Version    int            `json:"version"`
	BuildID    uint64         `json:"buildId"`
	Parameters map[string]any `json:"parameters"`
	// Status is "running" until the build finishes, then "done" or
	// "failed" (a failed build resumed to done becomes "done").
	Status     string        `json:"status"`
	Tokens     int           `json:"tokens"`
	Duration   time.Duration `json:"duration"`
	CreatedAt  time.Time     `json:"createdAt"`
	FinishedAt time.Time     `json:"finishedAt,omitzero"`
}

// Use statuses.
const (
	UseRunning = "running"
	UseDone    = "done"
	UseFailed  = "failed"
)

// Evidence is what the builds made from a blueprint say about it.
type Evidence struct {
	// Builds counts builds made from it; Finished those done or failed.
	Builds    int `json:"builds"`
	Finished  int `json:"finished"`
	Succeeded int `json:"succeeded"`
	// SuccessRate is Succeeded/Finished (nil before any build finished).
	SuccessRate *float64 `json:"successRate"`
	// AvgDuration and AvgTokens average the finished builds.
	AvgDuration time.Duration `json:"avgDuration"`
	AvgTokens   int           `json:"avgTokens"`
}

// Status is a blueprint's usage.
type Status struct {
	UsageCount int       `json:"usageCount"`
	LastUsed   time.Time `json:"lastUsed,omitzero"`
	Versions   int       `json:"versions"`
}

// Summary is a blueprint with its evidence and status (list, show).
type Summary struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Version     int      `json:"version"`
	Parameters  int      `json:"parameters"`
	Status      Status   `json:"status"`
	Evidence    Evidence `json:"evidence"`
}

// Details is everything `blueprint show` needs.
type Details struct {
	Blueprint
	Status   Status   `json:"status"`
	Evidence Evidence `json:"evidence"`
	Uses     []Use    `json:"uses"`
}

// AddResult says what Add did.
type AddResult struct {
	Blueprint Blueprint `json:"blueprint"`
	// Created: the name was new. Changed: a new version was added.
	Created bool `json:"created"`
	Changed bool `json:"changed"`
}

// Store keeps blueprints in bbolt.
type Store struct {
	db  *storage.DB
	now func() time.Time
}

// NewStore returns a store over db.
func NewStore(db *storage.DB) *Store {
	return &Store{db: db, now: func() time.Time { return time.Now().UTC() }}
}

var (
	bpCodec  = storage.Codec[Blueprint]{Version: 1}
	verCodec = storage.Codec[VersionRecord]{Version: 1}
	useCodec = storage.Codec[Use]{Version: 1}
)

func nameKey(name string, n uint64) []byte {
	return append(append([]byte(name), 0), storage.Key(n)...)
}

func bucket(tx *bolt.Tx, name []byte) (*bolt.Bucket, error) {
	b := tx.Bucket(name)
	if b == nil {
		return nil, fmt.Errorf("bucket %s missing (run a nova command that writes to migrate the database)", name)
	}
	return b, nil
}

// Add stores a spec (the caller validated it). A new name becomes version
// 1; an unchanged spec adds no version; a changed one adds version n+1
// with note as its change note (a description of the difference when note
// is empty).
func (s *Store) Add(ctx context.Context, spec Spec, note string) (AddResult, error) {
	if err := ctx.Err(); err != nil {
		return AddResult{}, err
	}
	if errs := Validate(spec); len(errs) > 0 {
		return AddResult{}, fmt.Errorf("blueprint %s: %w: %s", spec.Name, ErrInvalid, errs[0].Error())
	}
	var res AddResult
	now := s.now()
	hash := spec.Hash()
	err := s.db.Update(func(tx *bolt.Tx) error {
		bps, err := bucket(tx, storage.BucketBlueprints)
		if err != nil {
			return err
		}
		vers, err := bucket(tx, storage.BucketBlueprintVersions)
		if err != nil {
			return err
		}
		cur, err := bpCodec.Get(bps, []byte(spec.Name))
		switch {
		case errors.Is(err, storage.ErrNotFound):
			res.Created = true
			cur = Blueprint{Name: spec.Name, CreatedAt: now}
		case err != nil:
			return err
		}
		if !res.Created && cur.Spec.Hash() == hash {
			res.Blueprint = cur
			return nil
		}
		res.Changed = true
		v := Version{Version: cur.Version + 1, CreatedAt: now, Hash: hash, Changes: strings.TrimSpace(note)}
		if v.Changes == "" {
			if res.Created {
				v.Changes = "initial version"
			} else {
				v.Changes = cmp.Or(Diff(cur.Spec, spec), "spec changed")
			}
		}
		cur.Spec, cur.Description, cur.Version, cur.UpdatedAt = spec, spec.Description, v.Version, now
		cur.Versions = append(cur.Versions, v)
		if err := verCodec.Put(vers, nameKey(spec.Name, uint64(v.Version)), VersionRecord{Version: v, Spec: spec}); err != nil {
			return err
		}
		res.Blueprint = cur
		return bpCodec.Put(bps, []byte(spec.Name), cur)
	})
	if err != nil {
		return AddResult{}, fmt.Errorf("store blueprint %s: %w", spec.Name, err)
	}
	return res, nil
}

// Get returns a blueprint, or an error wrapping ErrNotFound.
func (s *Store) Get(ctx context.Context, name string) (Blueprint, error) {
	if err := ctx.Err(); err != nil {
		return Blueprint{}, err
	}
	var bp Blueprint
	err := s.db.View(func(tx *bolt.Tx) error {
		var err error
		bp, err = bpCodec.Get(tx.Bucket(storage.BucketBlueprints), []byte(name))
		return err
	})
	if errors.Is(err, storage.ErrNotFound) {
		return Blueprint{}, s.notFound(ctx, name)
	}
	if err != nil {
		return Blueprint{}, fmt.Errorf("read blueprint %s: %w", name, err)
	}
	return bp, nil
}

func (s *Store) notFound(ctx context.Context, name string) error {
	list, _ := s.List(ctx)
	var names []string
	for _, b := range list {
		names = append(names, b.Name)
	}
	if len(names) == 0 {
		return fmt.Errorf("%w: %q (none stored yet; add one with `nova blueprint add FILE`)", ErrNotFound, name)
	}
	return fmt.Errorf("%w: %q (stored: %s)", ErrNotFound, name, strings.Join(names, ", "))
}

// Version returns one version's spec.
func (s *Store) Version(ctx context.Context, name string, version int) (VersionRecord, error) {
	if err := ctx.Err(); err != nil {
		return VersionRecord{}, err
	}
	var v VersionRecord
	err := s.db.View(func(tx *bolt.Tx) error {
		var err error
		v, err = verCodec.Get(tx.Bucket(storage.BucketBlueprintVersions), nameKey(name, uint64(version)))
		return err
	})
	if errors.Is(err, storage.ErrNotFound) {
		return VersionRecord{}, fmt.Errorf("%w: %s has no version %d", ErrNotFound, name, version)
	}
	return v, err
}

// History returns every version of a blueprint with its spec, oldest first.
func (s *Store) History(ctx context.Context, name string) ([]VersionRecord, error) {
	if _, err := s.Get(ctx, name); err != nil {
		return nil, err
	}
	out := []VersionRecord{}
	err := s.db.View(func(tx *bolt.Tx) error {
		return scan(tx.Bucket(storage.BucketBlueprintVersions), name, func(v []byte) error {
			r, err := verCodec.Unmarshal(v)
			if err == nil {
				out = append(out, r)
			}
			return err
		})
	})
	return out, err
}

func scan(b *bolt.Bucket, name string, fn func(v []byte) error) error {
	if b == nil {
		return nil
	}
	prefix := append([]byte(name), 0)
	c := b.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		if err := fn(v); err != nil {
			return err
		}
	}
	return nil
}

// List returns every blueprint with its status and evidence, by name.
func (s *Store) List(ctx context.Context) ([]Summary, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := []Summary{}
	err := s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketBlueprints)
		if b == nil {
			return nil
		}
		return b.ForEach(func(_, v []byte) error {
			bp, err := bpCodec.Unmarshal(v)
			if err != nil {
				return err
			}
			uses, err := usesOf(tx, bp.Name)
			if err != nil {
				return err
			}
			st, ev := summarise(bp, uses)
			out = append(out, Summary{Name: bp.Name, Description: bp.Description, Version: bp.Version,
				Parameters: len(bp.Spec.Parameters), Status: st, Evidence: ev})
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list blueprints: %w", err)
	}
	return out, nil
}

// Show returns a blueprint with its status, evidence and uses (newest
// first).
func (s *Store) Show(ctx context.Context, name string) (Details, error) {
	bp, err := s.Get(ctx, name)
	if err != nil {
		return Details{}, err
	}
	var uses []Use
	err = s.db.View(func(tx *bolt.Tx) error {
		var err error
		uses, err = usesOf(tx, name)
		return err
	})
	if err != nil {
		return Details{}, fmt.Errorf("read uses of %s: %w", name, err)
	}
	st, ev := summarise(bp, uses)
	slices.Reverse(uses)
	return Details{Blueprint: bp, Status: st, Evidence: ev, Uses: uses}, nil
}

func usesOf(tx *bolt.Tx, name string) ([]Use, error) {
	out := []Use{}
	err := scan(tx.Bucket(storage.BucketBlueprintUses), name, func(v []byte) error {
		u, err := useCodec.Unmarshal(v)
		if err == nil {
			out = append(out, u)
		}
		return err
	})
	return out, err
}

func summarise(bp Blueprint, uses []Use) (Status, Evidence) {
	st := Status{UsageCount: len(uses), Versions: len(bp.Versions)}
	ev := Evidence{Builds: len(uses)}
	var dur time.Duration
	tokens := 0
	for _, u := range uses {
		if u.CreatedAt.After(st.LastUsed) {
			st.LastUsed = u.CreatedAt
		}
		if u.Status != UseDone && u.Status != UseFailed {
			continue
		}
		ev.Finished++
		if u.Status == UseDone {
			ev.Succeeded++
		}
		dur += u.Duration
		tokens += u.Tokens
	}
	if ev.Finished > 0 {
		rate := float64(ev.Succeeded) / float64(ev.Finished)
		ev.SuccessRate = &rate
		ev.AvgDuration = dur / time.Duration(ev.Finished)
		ev.AvgTokens = tokens / ev.Finished
	}
	return st, ev
}

// RecordUse stores (or updates) the use of a blueprint by a build: a
// build made from a blueprint is recorded when it is created (running)
// and again when it finishes. Recording the same build twice replaces the
// record, so a failed build resumed to done counts once, as done. The
// blueprint must exist (a PRD whose provenance names a deleted blueprint
// is not counted: ErrNotFound).
func (s *Store) RecordUse(ctx context.Context, u Use) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if u.Blueprint == "" || u.BuildID == 0 {
		return errors.New("record blueprint use: blueprint name and build id are required")
	}
	err := s.db.Update(func(tx *bolt.Tx) error {
		bps, err := bucket(tx, storage.BucketBlueprints)
		if err != nil {
			return err
		}
		if bps.Get([]byte(u.Blueprint)) == nil {
			return fmt.Errorf("%w: %q", ErrNotFound, u.Blueprint)
		}
		b, err := bucket(tx, storage.BucketBlueprintUses)
		if err != nil {
			return err
		}
		key := nameKey(u.Blueprint, u.BuildID)
		if old, err := useCodec.Get(b, key); err == nil {
			if u.CreatedAt.IsZero() || old.CreatedAt.Before(u.CreatedAt) {
				u.CreatedAt = old.CreatedAt
			}
			if u.Parameters == nil {
				u.Parameters = old.Parameters
			}
		}
		if u.CreatedAt.IsZero() {
			u.CreatedAt = s.now()
		}
		return useCodec.Put(b, key, u)
	})
	if err != nil {
		return fmt.Errorf("record use of blueprint %s by build %d: %w", u.Blueprint, u.BuildID, err)
	}
	return nil
}
