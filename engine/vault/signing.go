package vault

// Signed wisdom. A workspace has an ed25519 key pair, made on first use and
// kept in the database (wisdom/keys: the private key never leaves it).
// ExportBundle signs each bundle with it; ImportBundle checks the signature
// of a signed bundle (a bad one refuses the bundle). An author's backing
// counts towards activation only when the bundle that brought it was signed
// by a key this workspace trusts (`nova wisdom trust KEY`); the workspace's
// own backing always counts. An unsigned bundle, or one signed by a key no
// one trusts, is still imported, for reading: its backers are listed but
// never activate a pattern. Author ids are only names; keys are identities.

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/storage"
)

// KeyPrefix starts the text form of a public key: "ed25519:" and the
// standard base64 of its 32 bytes.
const KeyPrefix = "ed25519:"

var selfKey = []byte("self")

// TrustedKey is a public key whose signed bundles count towards activation.
type TrustedKey struct {
	Key       string    `json:"key"`
	Note      string    `json:"note,omitempty"`
	TrustedAt time.Time `json:"trustedAt"`
	// Self marks the workspace's own key (always trusted; never stored in
	// wisdom/trusted).
	Self bool `json:"self,omitempty"`
}

var trustedCodec = storage.Codec[TrustedKey]{Version: 1}

// FormatKey is the text form of a public key.
func FormatKey(pub ed25519.PublicKey) string {
	return KeyPrefix + base64.StdEncoding.EncodeToString(pub)
}

// ParseKey reads the text form of a public key ("ed25519:" + base64, the
// prefix optional). Bad input is an error wrapping ErrInvalid.
func ParseKey(s string) (ed25519.PublicKey, error) {
	s = strings.TrimSpace(s)
	raw := strings.TrimPrefix(s, KeyPrefix)
	b, err := base64.StdEncoding.DecodeString(raw)
	if err != nil || len(b) != ed25519.PublicKeySize {
		return nil, invalidf("%q is not a public key (want %s and the base64 of 32 bytes, as `nova wisdom key` prints it)", clipKey(s), KeyPrefix)
	}
	return ed25519.PublicKey(b), nil
}

func clipKey(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

// signingKeyTx returns the workspace's private key, making it on first use
// when the transaction is writable (a read-only one returns nil).
func signingKeyTx(tx *bolt.Tx) (ed25519.PrivateKey, error) {
	b, err := wisdomBucket(tx, storage.WisdomKeys, false)
	if err != nil {
		return nil, err
	}
	if seed := b.Get(selfKey); len(seed) == ed25519.SeedSize {
		return ed25519.NewKeyFromSeed(seed), nil
	}
	if !tx.Writable() {
		return nil, nil
	}
	seed := make([]byte, ed25519.SeedSize)
	if _, err := rand.Read(seed); err != nil {
		return nil, fmt.Errorf("make the workspace key: %w", err)
	}
	if err := b.Put(selfKey, seed); err != nil {
		return nil, fmt.Errorf("store the workspace key: %w", err)
	}
	return ed25519.NewKeyFromSeed(seed), nil
}

// PublicKey returns the text form of the workspace's public key (made on
// first use): what other users pass to `nova wisdom trust`.
func (w *Wisdom) PublicKey(ctx context.Context) (string, error) {
	var key string
	err := w.v.db.View(func(tx *bolt.Tx) error {
		priv, err := signingKeyTx(tx)
		if priv != nil {
			key = FormatKey(priv.Public().(ed25519.PublicKey))
		}
		return err
	})
	if err != nil || key != "" {
		return key, err
	}
	err = w.write(ctx, "key", func(tx *bolt.Tx) error {
		priv, err := signingKeyTx(tx)
		if err != nil {
			return err
		}
		key = FormatKey(priv.Public().(ed25519.PublicKey))
		return nil
	})
	return key, err
}

// Trust records key as trusted: authors whose bundles it signed count
// towards activation, those imported before included (every pattern's
// status is computed again).
func (w *Wisdom) Trust(ctx context.Context, key, note string) (TrustedKey, error) {
	pub, err := ParseKey(key)
	if err != nil {
		return TrustedKey{}, err
	}
	tk := TrustedKey{Key: FormatKey(pub), Note: oneLine(cleanText(note), 200), TrustedAt: w.v.now()}
	err = w.write(ctx, "trust", func(tx *bolt.Tx) error {
		b, err := wisdomBucket(tx, storage.WisdomTrusted, true)
		if err != nil {
			return err
		}
		if err := trustedCodec.Put(b, []byte(tk.Key), tk); err != nil {
			return err
		}
		return w.restatusTx(tx)
	})
	return tk, err
}

// Untrust removes key from the trusted keys (ErrNotFound when it was not
// trusted); patterns it helped activate go back to pending.
func (w *Wisdom) Untrust(ctx context.Context, key string) error {
	pub, err := ParseKey(key)
	if err != nil {
		return err
	}
	k := []byte(FormatKey(pub))
	return w.write(ctx, "untrust", func(tx *bolt.Tx) error {
		b, err := wisdomBucket(tx, storage.WisdomTrusted, true)
		if err != nil {
			return err
		}
		if b.Get(k) == nil {
			return fmt.Errorf("key %s is not trusted: %w", k, ErrNotFound)
		}
		if err := b.Delete(k); err != nil {
			return err
		}
		return w.restatusTx(tx)
	})
}

// TrustedKeys lists the workspace's own key (when it has one) and the keys
// it trusts.
func (w *Wisdom) TrustedKeys(ctx context.Context) ([]TrustedKey, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := []TrustedKey{}
	err := w.v.db.View(func(tx *bolt.Tx) error {
		if priv, err := signingKeyTx(tx); err == nil && priv != nil {
			out = append(out, TrustedKey{Key: FormatKey(priv.Public().(ed25519.PublicKey)), Self: true, Note: "this workspace"})
		}
		b, err := wisdomBucket(tx, storage.WisdomTrusted, false)
		if err != nil {
			return err
		}
		return b.ForEach(func(_, v []byte) error {
			if tk, err := trustedCodec.Unmarshal(v); err == nil {
				out = append(out, tk)
			}
			return nil
		})
	})
	return out, err
}

// trustTx is what a status computation needs: the keys that count.
type trustSet struct {
	self    string
	trusted map[string]bool
}

func (s trustSet) counts(key string) bool { return key != "" && (key == s.self || s.trusted[key]) }

func trustTx(tx *bolt.Tx) trustSet {
	s := trustSet{trusted: map[string]bool{}}
	if priv, err := signingKeyTx(tx); err == nil && priv != nil {
		s.self = FormatKey(priv.Public().(ed25519.PublicKey))
	}
	if b, err := wisdomBucket(tx, storage.WisdomTrusted, false); err == nil {
		_ = b.ForEach(func(k, _ []byte) error {
			s.trusted[string(k)] = true
			return nil
		})
	}
	// The team's members (engine/team keeps the list the admin signed) are
	// trusted as well.
	if b := tx.Bucket(storage.BucketTeamMembers); b != nil {
		_ = b.ForEach(func(k, _ []byte) error {
			if strings.HasPrefix(string(k), KeyPrefix) {
				s.trusted[string(k)] = true
			}
			return nil
		})
	}
	return s
}

// trustedBackers counts the distinct keys behind the backing of p that
// counts towards activation: the workspace's own (its identity's promotions
// and endorsements) and each trusted key that signed a bundle backing it.
// Keys, not author ids, are counted: one key signing bundles under three
// made-up author ids is one backer.
func trustedBackers(p *WisdomPattern, me string, ts trustSet) int {
	keys := map[string]bool{}
	for _, a := range p.Backers {
		switch k := p.BackerKeys[a]; {
		case a == me:
			keys["self"] = true
		case ts.counts(k):
			if k == ts.self {
				k = "self"
			}
			keys[k] = true
		}
	}
	return len(keys)
}

// restatusTx computes every pattern's status again (after the trusted keys
// changed).
func (w *Wisdom) restatusTx(tx *bolt.Tx) error {
	patterns, err := wisdomBucket(tx, wbPatterns, true)
	if err != nil {
		return err
	}
	ts, me := trustTx(tx), w.Me()
	type upd struct {
		k []byte
		p WisdomPattern
	}
	var ups []upd
	c := patterns.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		p, err := patternCodec.Unmarshal(v)
		if err != nil {
			continue
		}
		if st := statusOf(&p, me, ts); st != p.Status {
			p.Status = st
			ups = append(ups, upd{k: slices.Clone(k), p: p})
		}
	}
	for _, u := range ups {
		if err := patternCodec.Put(patterns, u.k, u.p); err != nil {
			return err
		}
	}
	return nil
}

// signedBytes is what a bundle's signature covers: the bundle as compact
// JSON with its signature left empty.
func signedBytes(b Bundle) ([]byte, error) {
	b.Signature = ""
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(b); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// SignBundle sets b's key and signature (ExportBundle signs with the
// workspace key).
func SignBundle(b *Bundle, priv ed25519.PrivateKey) error {
	b.Key = FormatKey(priv.Public().(ed25519.PublicKey))
	msg, err := signedBytes(*b)
	if err != nil {
		return err
	}
	b.Signature = base64.StdEncoding.EncodeToString(ed25519.Sign(priv, msg))
	return nil
}

// ErrBadSignature: a bundle's signature does not verify with its key.
var ErrBadSignature = errors.New("signature does not verify")

// verifyBundle checks the signature of a bundle as it was decoded (before
// its text is normalised). An unsigned bundle (no key, no signature) is
// valid and unsigned; half a signature, a malformed key or a signature that
// does not verify is an error wrapping ErrInvalid and ErrBadSignature.
func verifyBundle(b Bundle) (signed bool, err error) {
	if b.Key == "" && b.Signature == "" {
		return false, nil
	}
	if b.Key == "" || b.Signature == "" {
		return false, fmt.Errorf("%w: wisdom bundle: %w (it has a key or a signature, not both)", ErrInvalid, ErrBadSignature)
	}
	pub, err := ParseKey(b.Key)
	if err != nil {
		return false, fmt.Errorf("wisdom bundle: %w", err)
	}
	sig, err := base64.StdEncoding.DecodeString(b.Signature)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return false, fmt.Errorf("%w: wisdom bundle: %w (not an ed25519 signature)", ErrInvalid, ErrBadSignature)
	}
	msg, err := signedBytes(b)
	if err != nil {
		return false, fmt.Errorf("%w: wisdom bundle: %w", ErrInvalid, err)
	}
	if !ed25519.Verify(pub, msg, sig) {
		return false, fmt.Errorf("%w: wisdom bundle: %w: the bundle was changed after it was signed, or forged", ErrInvalid, ErrBadSignature)
	}
	return true, nil
}
