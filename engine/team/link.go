package team

import (
	"bytes"
	"slices"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/storage"
)

// Links tie shared items to the workspace's own copies of them (a pattern
// subject to a wisdom pattern id, a fact version to a local fact id). They
// live in team_state under "link" 0x00 namespace 0x00 key.

func linkKey(ns, key string) []byte {
	return []byte("link\x00" + ns + "\x00" + key)
}

// LinkTx returns the value linked to key in namespace ns (nil: none).
func LinkTx(tx *bolt.Tx, ns, key string) []byte {
	b := tx.Bucket(storage.BucketTeamState)
	if b == nil {
		return nil
	}
	return slices.Clone(b.Get(linkKey(ns, key)))
}

// SetLinkTx links key to val in namespace ns.
func SetLinkTx(tx *bolt.Tx, ns, key string, val []byte) error {
	b, err := bucket(tx, storage.BucketTeamState)
	if err != nil {
		return err
	}
	return b.Put(linkKey(ns, key), val)
}

// LinksTx returns every link of namespace ns whose key starts with prefix,
// by key (the prefix included).
func LinksTx(tx *bolt.Tx, ns, prefix string) map[string][]byte {
	out := map[string][]byte{}
	b := tx.Bucket(storage.BucketTeamState)
	if b == nil {
		return out
	}
	head := linkKey(ns, "")
	p := linkKey(ns, prefix)
	c := b.Cursor()
	for k, v := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, v = c.Next() {
		out[string(k[len(head):])] = slices.Clone(v)
	}
	return out
}

// DeleteLinkTx removes the link of key in namespace ns.
func DeleteLinkTx(tx *bolt.Tx, ns, key string) error {
	b, err := bucket(tx, storage.BucketTeamState)
	if err != nil {
		return err
	}
	return b.Delete(linkKey(ns, key))
}
