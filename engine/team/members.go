package team

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/storage"
)

// Membership is the team's membership list, signed by the admin key. It
// lives in the team's key-value bucket; each workspace keeps the newest one
// it verified.
type Membership struct {
	Team    string    `json:"team"`
	Admin   string    `json:"admin"`
	Version uint64    `json:"version"`
	Members []string  `json:"members"`
	At      time.Time `json:"at"`
	Sig     string    `json:"sig,omitempty"`
}

const maxMembershipBytes = 1 << 20

func (m Membership) signedBytes() ([]byte, error) {
	m.Sig = ""
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// SignMembership normalises m (members sorted, distinct) and signs it with
// the admin key.
func SignMembership(m Membership, admin ed25519.PrivateKey) (Membership, []byte, error) {
	m.Admin = FormatKey(admin.Public().(ed25519.PublicKey))
	ms := make([]string, 0, len(m.Members))
	for _, k := range m.Members {
		nk, err := NormalizeKey(k)
		if err != nil {
			return Membership{}, nil, err
		}
		ms = append(ms, nk)
	}
	slices.Sort(ms)
	m.Members = slices.Compact(ms)
	m.At = m.At.UTC().Truncate(time.Millisecond)
	msg, err := m.signedBytes()
	if err != nil {
		return Membership{}, nil, err
	}
	m.Sig = base64.StdEncoding.EncodeToString(ed25519.Sign(admin, msg))
	data, err := json.Marshal(m)
	return m, data, err
}

// ParseMembership reads and verifies a signed membership list.
func ParseMembership(data []byte) (Membership, error) {
	if len(data) > maxMembershipBytes {
		return Membership{}, fmt.Errorf("%w: membership list of %d bytes", ErrTooLarge, len(data))
	}
	var m Membership
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return Membership{}, fmt.Errorf("%w: membership list: %s", ErrInvalid, clip(err.Error(), 200))
	}
	pub, err := ParseKey(m.Admin)
	if err != nil {
		return Membership{}, err
	}
	for _, k := range m.Members {
		if _, err := ParseKey(k); err != nil {
			return Membership{}, err
		}
	}
	sig, err := base64.StdEncoding.DecodeString(m.Sig)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return Membership{}, fmt.Errorf("%w: membership list is not signed", ErrBadSignature)
	}
	msg, err := m.signedBytes()
	if err != nil {
		return Membership{}, err
	}
	if !ed25519.Verify(pub, msg, sig) {
		return Membership{}, fmt.Errorf("%w: membership list", ErrBadSignature)
	}
	return m, nil
}

func membersTx(tx *bolt.Tx) map[string]bool {
	out := map[string]bool{}
	b := tx.Bucket(storage.BucketTeamMembers)
	if b == nil {
		return out
	}
	_ = b.ForEach(func(k, _ []byte) error {
		if !bytes.Equal(k, membersDocKey) {
			out[string(k)] = true
		}
		return nil
	})
	return out
}

// MembersTx lists the member keys this workspace knows, sorted.
func MembersTx(tx *bolt.Tx) []string {
	m := membersTx(tx)
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// IsMemberTx reports whether key is a member (this workspace's own key
// always counts for itself).
func (s *Store) IsMemberTx(tx *bolt.Tx, key string) bool {
	return key == s.self || membersTx(tx)[key]
}

// Membership returns the membership list this workspace holds (zero when
// none yet) and the pinned admin key.
func (s *Store) Membership(ctx context.Context) (Membership, string, error) {
	if err := ctx.Err(); err != nil {
		return Membership{}, "", err
	}
	var m Membership
	var admin string
	err := s.db.View(func(tx *bolt.Tx) error {
		st, err := bucket(tx, storage.BucketTeamState)
		if err != nil {
			return err
		}
		admin = string(st.Get(stateAdmin))
		b, err := bucket(tx, storage.BucketTeamMembers)
		if err != nil {
			return err
		}
		if v := b.Get(membersDocKey); v != nil {
			m, _ = ParseMembership(v)
		}
		return nil
	})
	return m, admin, err
}

// PinAdmin records the team's admin key (join): only membership lists it
// signed are accepted.
func (s *Store) PinAdmin(ctx context.Context, admin string) error {
	key, err := NormalizeKey(admin)
	if err != nil {
		return err
	}
	return s.db.Update(func(tx *bolt.Tx) error {
		st, err := bucket(tx, storage.BucketTeamState)
		if err != nil {
			return err
		}
		return st.Put(stateAdmin, []byte(key))
	})
}

// SetMembership verifies and stores a membership list: signed by the
// pinned admin key (the first list seen pins its key when none is pinned),
// not older than the one held (a replayed list is ignored: false). Every
// item is projected again, since who counts changed.
func (s *Store) SetMembership(ctx context.Context, data []byte) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	m, err := ParseMembership(data)
	if err != nil {
		return false, err
	}
	changed := false
	err = s.db.Update(func(tx *bolt.Tx) error {
		changed = false
		st, err := bucket(tx, storage.BucketTeamState)
		if err != nil {
			return err
		}
		switch admin := string(st.Get(stateAdmin)); {
		case admin == "":
			if err := st.Put(stateAdmin, []byte(m.Admin)); err != nil {
				return err
			}
		case admin != m.Admin:
			return fmt.Errorf("%w: the membership list is signed by %s, the team's admin is %s", ErrNotAdmin, ShortKey(m.Admin), ShortKey(admin))
		}
		b, err := bucket(tx, storage.BucketTeamMembers)
		if err != nil {
			return err
		}
		if old := b.Get(membersDocKey); old != nil {
			if om, err := ParseMembership(old); err == nil && om.Version >= m.Version {
				return nil
			}
		}
		var keys [][]byte
		_ = b.ForEach(func(k, _ []byte) error {
			keys = append(keys, slices.Clone(k))
			return nil
		})
		for _, k := range keys {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		if err := b.Put(membersDocKey, data); err != nil {
			return err
		}
		for _, k := range m.Members {
			if err := b.Put([]byte(k), []byte("1")); err != nil {
				return err
			}
		}
		changed = true
		if s.project == nil {
			return nil
		}
		items, err := s.Items(tx)
		if err != nil {
			return err
		}
		return s.project(tx, s, items, true)
	})
	return changed, err
}
