package storage

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// ErrBadRecord means a stored value could not be decoded.
var ErrBadRecord = errors.New("bad record")

// codecMagic starts every versioned value, so a stray byte string is told
// apart from a record. The byte after it is the record version.
const codecMagic = 'n'

// Codec encodes values of T as versioned JSON: the bytes 'n', version, then
// the JSON document. Unmarshal always copies, so decoded values never alias
// bbolt memory.
type Codec[T any] struct {
	// Version is written with every value (1..255).
	Version uint8
	// Upgrade, if set, decodes values written with an older version.
	Upgrade func(from uint8, raw []byte) (T, error)
}

// Marshal encodes v.
func (c Codec[T]) Marshal(v T) ([]byte, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode record: %w", err)
	}
	out := make([]byte, 0, len(body)+2)
	out = append(out, codecMagic, c.version())
	return append(out, body...), nil
}

// Unmarshal decodes b.
func (c Codec[T]) Unmarshal(b []byte) (T, error) {
	var zero T
	if len(b) < 2 || b[0] != codecMagic {
		return zero, fmt.Errorf("%w: missing version header", ErrBadRecord)
	}
	ver, raw := b[1], b[2:]
	if ver != c.version() {
		if ver < c.version() && c.Upgrade != nil {
			return c.Upgrade(ver, raw)
		}
		return zero, fmt.Errorf("%w: version %d, expected %d", ErrBadRecord, ver, c.version())
	}
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		return zero, fmt.Errorf("%w: %w", ErrBadRecord, err)
	}
	return v, nil
}

// Payload returns the JSON document of b when b is a record of the codec's version, for a
// caller that reads a few fields without decoding the whole record; ok is false for
// anything else (Unmarshal then decides).
func (c Codec[T]) Payload(b []byte) (doc []byte, ok bool) {
	if len(b) < 2 || b[0] != codecMagic || b[1] != c.version() {
		return nil, false
	}
	return b[2:], true
}

func (c Codec[T]) version() uint8 {
	if c.Version == 0 {
		return 1
	}
	return c.Version
}

// Get decodes the value at key in bucket; ErrNotFound if absent.
func (c Codec[T]) Get(b *bolt.Bucket, key []byte) (T, error) {
	var zero T
	if b == nil {
		return zero, ErrNotFound
	}
	raw := b.Get(key)
	if raw == nil {
		return zero, ErrNotFound
	}
	return c.Unmarshal(raw)
}

// Put encodes v and stores it at key.
func (c Codec[T]) Put(b *bolt.Bucket, key []byte, v T) error {
	raw, err := c.Marshal(v)
	if err != nil {
		return err
	}
	return b.Put(key, raw)
}

// All decodes every value of b, in key order (an empty slice for none).
func (c Codec[T]) All(b *bolt.Bucket) ([]T, error) {
	out := []T{}
	if b == nil {
		return out, nil
	}
	err := b.ForEach(func(k, v []byte) error {
		x, err := c.Unmarshal(v)
		if err != nil {
			return fmt.Errorf("key %x: %w", k, err)
		}
		out = append(out, x)
		return nil
	})
	return out, err
}

// Children decodes the values of b whose keys start with parent's Key —
// the children ChildKey numbers (a chat session's turns, a goal run's
// turns) — in order (an empty slice for none).
func (c Codec[T]) Children(b *bolt.Bucket, parent uint64) ([]T, error) {
	out := []T{}
	if b == nil {
		return out, nil
	}
	prefix := Key(parent)
	cur := b.Cursor()
	for k, v := cur.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = cur.Next() {
		x, err := c.Unmarshal(v)
		if err != nil {
			return out, fmt.Errorf("key %x: %w", k, err)
		}
		out = append(out, x)
	}
	return out, nil
}

// ChildKey is the key of a parent's n-th child: the parent's Key and n,
// both big-endian, so that a parent's children sort together, in order.
func ChildKey(parent uint64, n int) []byte {
	return append(Key(parent), Key(uint64(n))...)
}

// Key encodes a sequence id as an 8-byte big-endian key, so bbolt's byte
// order is numeric order.
func Key(id uint64) []byte {
	k := make([]byte, 8)
	binary.BigEndian.PutUint64(k, id)
	return k
}

// ParseKey decodes a key made by Key; 0 if it is not 8 bytes.
func ParseKey(k []byte) uint64 {
	if len(k) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(k)
}

// MaxID is the largest id nova issues or accepts: 2^53, so that every id
// survives a JSON round trip through a float64 (JavaScript, jq) exactly.
const MaxID = 1 << 53

// MaxImportID is the largest id an import may carry: half of MaxID, so an
// imported record can never move a counter to where nova runs out of ids
// (a node with id 2^53 once made every later add fail). Ids nova issues
// itself count up from the counter and stay far below it.
const MaxImportID = MaxID / 2

// Sentinel errors of ids and counters.
var (
	// ErrIDRange: an id is 0 or larger than MaxID.
	ErrIDRange = errors.New("id out of range")
	// ErrCounter: a bucket's counter is exhausted or below its largest id.
	ErrCounter = errors.New("id counter problem")
)

// ValidID checks an id that comes from outside (an import, a command
// line): 1..MaxID.
func ValidID(id uint64) error {
	if id == 0 || id > MaxID {
		return fmt.Errorf("%w: %d is not between 1 and %d", ErrIDRange, id, uint64(MaxID))
	}
	return nil
}

// ValidImportID checks an id an import carries: 1..MaxImportID.
func ValidImportID(id uint64) error {
	if id == 0 || id > MaxImportID {
		return fmt.Errorf("%w: %d is not between 1 and %d, the largest id an import may carry (renumber the file's ids)", ErrIDRange, id, uint64(MaxImportID))
	}
	return nil
}

// NextID returns the bucket's next sequence number, never 0 and never a
// reuse: the counter never wraps (an exhausted counter is an error), ids
// are at most MaxID, and an id a record already holds is skipped (a
// counter repaired below an old imported id must not reissue it).
func NextID(b *bolt.Bucket) (uint64, error) {
	for range 64 {
		if b.Sequence() >= MaxID {
			return 0, fmt.Errorf("next id: %w: the counter is at %d, the largest id nova issues is %d", ErrCounter, b.Sequence(), uint64(MaxID))
		}
		id, err := b.NextSequence()
		if err != nil {
			return 0, fmt.Errorf("next id: %w", err)
		}
		if b.Get(Key(id)) == nil {
			return id, nil
		}
	}
	return 0, fmt.Errorf("next id: %w: 64 ids in a row after %d are taken", ErrCounter, b.Sequence())
}

// RaiseSequence makes sure b's counter is at least id (after a record with
// an explicit id was stored), so NextID never reissues it.
func RaiseSequence(b *bolt.Bucket, id uint64) error {
	if err := ValidImportID(id); err != nil {
		return err
	}
	if id > b.Sequence() {
		if err := b.SetSequence(id); err != nil {
			return fmt.Errorf("set sequence: %w", err)
		}
	}
	return nil
}
