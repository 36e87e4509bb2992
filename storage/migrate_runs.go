package storage

import (
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"
)

// runIndexEntry is a record of BucketRunIndex as migration 9 writes it: the
// JSON document engine/run's Record reads (codec version 1). The two are
// kept in step by engine/run's upgrade test.
type runIndexEntry struct {
	Kind    string        `json:"kind"`
	ID      uint64        `json:"id"`
	Status  string        `json:"status"`
	Title   string        `json:"title"`
	Reason  string        `json:"reason,omitempty"`
	Created time.Time     `json:"created"`
	Updated time.Time     `json:"updated"`
	Parent  runIndexOwner `json:"parent,omitzero"`
}

type runIndexOwner struct {
	Kind string `json:"kind"`
	ID   uint64 `json:"id"`
}

// runIndexCodec encodes the index records (engine/run uses version 1 too).
var runIndexCodec = Codec[runIndexEntry]{Version: 1}

// RunIndexTitleMax bounds a run's title in the index (bytes, cut at a rune).
const RunIndexTitleMax = 200

// ClipRunTitle cuts a title to RunIndexTitleMax bytes at a rune boundary.
func ClipRunTitle(s string) string {
	if len(s) <= RunIndexTitleMax {
		return s
	}
	s = s[:RunIndexTitleMax]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// oldRun is what migration 9 reads of the builds, goal runs and workflow
// runs of schemas 1–8: the fields every kind stored, under their names.
type oldRun struct {
	ID        uint64    `json:"id"`
	Name      string    `json:"name"`     // builds, workflow runs
	Goal      string    `json:"goal"`     // goal runs
	Workflow  string    `json:"workflow"` // workflow runs
	Status    string    `json:"status"`
	Reason    string    `json:"reason"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	GoalRunID uint64    `json:"goalRunId"` // a goal run's build
	Steps     []struct {
		BuildID uint64 `json:"buildId"`
	} `json:"steps"` // a workflow run's steps
}

// migrateRunIndex creates run_index and its kind buckets, and indexes every
// build, goal run and workflow run already stored: a goal run's build and a
// workflow step's build get their run as parent. A goal run's "completed"
// is "done", its "stopped" (a limit) "failed"; every other word is the same
// in the one status machine. A record that does not decode is left out (the
// index is derived: its engine writes it again when the run changes).
func migrateRunIndex(tx *bolt.Tx) error {
	idx, err := tx.CreateBucketIfNotExists(BucketRunIndex)
	if err != nil {
		return fmt.Errorf("create bucket %s: %w", BucketRunIndex, err)
	}
	for _, k := range RunIndexKinds {
		if _, err := idx.CreateBucketIfNotExists(k); err != nil {
			return fmt.Errorf("create bucket %s/%s: %w", BucketRunIndex, k, err)
		}
	}
	parents := map[uint64]runIndexOwner{} // build id → its run
	var entries []runIndexEntry
	read := func(bucket []byte, kind string, fn func(o oldRun, e *runIndexEntry)) error {
		b := tx.Bucket(bucket)
		if b == nil {
			return nil
		}
		return b.ForEach(func(_, v []byte) error {
			if len(v) < 2 || v[0] != codecMagic || v[1] != 1 {
				return nil
			}
			var o oldRun
			if json.Unmarshal(v[2:], &o) != nil || o.ID == 0 {
				return nil
			}
			e := runIndexEntry{Kind: kind, ID: o.ID, Status: o.Status, Reason: o.Reason, Created: o.CreatedAt, Updated: o.UpdatedAt}
			fn(o, &e)
			e.Title = ClipRunTitle(e.Title)
			entries = append(entries, e)
			return nil
		})
	}
	if err := read(BucketGoalRuns, "goal", func(o oldRun, e *runIndexEntry) {
		e.Title = o.Goal
		switch o.Status {
		case "completed":
			e.Status = "done"
		case "stopped":
			e.Status = "failed"
		}
	}); err != nil {
		return err
	}
	if err := read(BucketWorkflowRuns, "workflow", func(o oldRun, e *runIndexEntry) {
		e.Title = o.Name
		if e.Title == "" {
			e.Title = o.Workflow
		}
		for _, s := range o.Steps {
			if s.BuildID != 0 {
				parents[s.BuildID] = runIndexOwner{Kind: "workflow", ID: o.ID}
			}
		}
	}); err != nil {
		return err
	}
	if err := read(BucketBuilds, "build", func(o oldRun, e *runIndexEntry) {
		e.Title = o.Name
		if o.GoalRunID != 0 {
			e.Parent = runIndexOwner{Kind: "goal", ID: o.GoalRunID}
		}
	}); err != nil {
		return err
	}
	for _, e := range entries {
		if p, ok := parents[e.ID]; ok && e.Kind == "build" && e.Parent.ID == 0 {
			e.Parent = p
		}
		if err := runIndexCodec.Put(idx.Bucket([]byte(e.Kind)), Key(e.ID), e); err != nil {
			return fmt.Errorf("index %s %d: %w", e.Kind, e.ID, err)
		}
	}
	return nil
}
