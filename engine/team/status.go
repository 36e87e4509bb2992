package team

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/storage"
)

// LocalStatus is what the workspace's database says of its team share.
type LocalStatus struct {
	Self          string          `json:"self"`
	Admin         string          `json:"admin,omitempty"`
	Members       []string        `json:"members"`
	MembersAt     time.Time       `json:"membersAt,omitzero"`
	Records       int             `json:"records"`
	Outbox        int             `json:"outbox"`
	Position      uint64          `json:"position"`
	LastSync      time.Time       `json:"lastSync,omitzero"`
	Refused       map[string]int  `json:"refused"`
	RefusedTotal  int             `json:"refusedTotal"`
	RecentRefused []RefusedRecord `json:"recentRefused"`
	Clock         Clock           `json:"clock"`
}

// LocalStatus reads the team state from the database.
func (s *Store) LocalStatus(ctx context.Context) (LocalStatus, error) {
	if err := ctx.Err(); err != nil {
		return LocalStatus{}, err
	}
	st := LocalStatus{Self: s.self, Refused: map[string]int{}, RecentRefused: []RefusedRecord{}, Clock: s.hlc.Last()}
	err := s.db.View(func(tx *bolt.Tx) error {
		state, err := bucket(tx, storage.BucketTeamState)
		if err != nil {
			return err
		}
		st.Admin = string(state.Get(stateAdmin))
		st.Position = getUint(state, statePos)
		if v := state.Get(stateLastSync); v != nil {
			st.LastSync, _ = time.Parse(time.RFC3339Nano, string(v))
		}
		c := state.Cursor()
		p := []byte(refusedPrefix)
		for k, _ := c.Seek(p); k != nil && strings.HasPrefix(string(k), refusedPrefix); k, _ = c.Next() {
			n := int(getUint(state, k))
			st.Refused[strings.TrimPrefix(string(k), refusedPrefix)] = n
			st.RefusedTotal += n
		}
		st.Members = MembersTx(tx)
		if mb := tx.Bucket(storage.BucketTeamMembers); mb != nil {
			if v := mb.Get(membersDocKey); v != nil {
				if m, err := ParseMembership(v); err == nil {
					st.MembersAt = m.At
				}
			}
		}
		st.Records = tx.Bucket(storage.BucketTeamRecords).Stats().KeyN
		st.Outbox = tx.Bucket(storage.BucketTeamOutbox).Stats().KeyN
		rl, err := bucket(tx, storage.BucketTeamRefused)
		if err != nil {
			return err
		}
		rc := rl.Cursor()
		for k, v := rc.Last(); k != nil && len(st.RecentRefused) < 20; k, v = rc.Prev() {
			var r RefusedRecord
			if json.Unmarshal(v, &r) == nil {
				st.RecentRefused = append(st.RecentRefused, r)
			}
		}
		return nil
	})
	return st, err
}
