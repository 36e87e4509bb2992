package team

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/storage"
)

// Marks: a playbook rule or a vault node its author marked shared
// (storage migration 13, team_shared). Marking publishes the item's first
// version; from then on every edit of it is published as a new version in
// the edit's own transaction (PublishMarkedTx, called by the stores'
// hooks), until the author unmarks it.

// Mark is one item marked shared.
type Mark struct {
	Kind    Kind   `json:"kind"`
	Subject string `json:"subject"`
	// Hash is BodyHash of the version last published.
	Hash   string `json:"hash"`
	Agent  string `json:"agent,omitempty"`
	RuleID string `json:"ruleId,omitempty"`
	NodeID uint64 `json:"nodeId,omitempty"`
}

func (m Mark) key() []byte {
	if m.Kind == KindRule {
		return RuleMarkKey(m.Agent, m.RuleID)
	}
	return NodeMarkKey(m.NodeID)
}

// RuleMarkKey is the key of a rule's mark.
func RuleMarkKey(agent, ruleID string) []byte {
	return []byte("rule\x00" + strings.ToLower(agent) + "\x00" + ruleID)
}

// NodeMarkKey is the key of a vault node's mark.
func NodeMarkKey(id uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte("node\x00"), id)
}

// BodyHash is the hash of a record body as published (its JSON).
func BodyHash(body any) string {
	raw, _ := json.Marshal(body)
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:8])
}

// MarkTx returns the mark stored under key.
func MarkTx(tx *bolt.Tx, key []byte) (Mark, bool) {
	b := tx.Bucket(storage.BucketTeamShared)
	if b == nil {
		return Mark{}, false
	}
	v := b.Get(key)
	if v == nil {
		return Mark{}, false
	}
	var m Mark
	if json.Unmarshal(v, &m) != nil || m.Subject == "" {
		return Mark{}, false
	}
	return m, true
}

func putMark(tx *bolt.Tx, m Mark) error {
	b, err := bucket(tx, storage.BucketTeamShared)
	if err != nil {
		return err
	}
	v, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return b.Put(m.key(), v)
}

// MarkTx marks an item shared and publishes body as its version (a new
// version only when body differs from the last one published), in the
// caller's write transaction; call Kick after the commit.
func (s *Store) MarkTx(tx *bolt.Tx, m Mark, body any) (Mark, error) {
	if !slices.Contains([]Kind{KindRule, KindVaultNode}, m.Kind) || m.Subject == "" {
		return Mark{}, fmt.Errorf("%w: only rules and vault nodes are marked shared", ErrInvalid)
	}
	if old, ok := MarkTx(tx, m.key()); ok {
		m.Subject, m.Hash = old.Subject, old.Hash
	}
	return m, s.publish(tx, m, body)
}

func (s *Store) publish(tx *bolt.Tx, m Mark, body any) error {
	h := BodyHash(body)
	if h == m.Hash {
		return putMark(tx, m)
	}
	if _, _, err := s.WriteTx(tx, m.Kind, m.Subject, body); err != nil {
		return err
	}
	m.Hash = h
	return putMark(tx, m)
}

// PublishMarkedTx publishes body as a new version of the item marked under
// key when it is marked and body differs from the version last published
// (in the edit's transaction); a deleted body also removes the mark. It
// reports whether the item is marked.
func (s *Store) PublishMarkedTx(tx *bolt.Tx, key []byte, body any, deleted bool) (bool, error) {
	m, ok := MarkTx(tx, key)
	if !ok {
		return false, nil
	}
	if err := s.publish(tx, m, body); err != nil {
		return true, err
	}
	if deleted {
		return true, tx.Bucket(storage.BucketTeamShared).Delete(key)
	}
	return true, nil
}

// Unmark stops publishing the item marked under key (what was published
// stays with the team); false when it was not marked.
func (s *Store) Unmark(ctx context.Context, key []byte) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	found := false
	err := s.db.Update(func(tx *bolt.Tx) error {
		b, err := bucket(tx, storage.BucketTeamShared)
		if err != nil {
			return err
		}
		if b.Get(key) == nil {
			return nil
		}
		found = true
		return b.Delete(key)
	})
	return found, err
}

// Marks lists the items marked shared, by key.
func (s *Store) Marks(ctx context.Context) ([]Mark, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := []Mark{}
	err := s.db.View(func(tx *bolt.Tx) error {
		b, err := bucket(tx, storage.BucketTeamShared)
		if err != nil {
			return err
		}
		return b.ForEach(func(_, v []byte) error {
			var m Mark
			if json.Unmarshal(v, &m) == nil && m.Subject != "" {
				out = append(out, m)
			}
			return nil
		})
	})
	return out, err
}
