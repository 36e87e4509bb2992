package team

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/nova-dev/nova/engine/secrets"
)

// Kind is what a record shares.
type Kind string

// Shared kinds.
const (
	// KindWisdomBack: the author backs a global-wisdom pattern (its first
	// backing record brings the pattern's text).
	KindWisdomBack Kind = "wisdom.back"
	// KindWisdomHarm: the author reports that a pattern did harm.
	KindWisdomHarm Kind = "wisdom.harm"
	// KindFact: a fact at the team scope; its subject is its chain's id.
	KindFact Kind = "fact"
	// KindFactCorrect: a correction in a fact's chain (never overwrites).
	KindFactCorrect Kind = "fact.correct"
	// KindRule: a version of a playbook rule an author marked shared.
	KindRule Kind = "rule"
	// KindVaultNode: a version of a vault node an author marked shared.
	KindVaultNode Kind = "vault.node"
)

// Kinds lists the shared kinds.
var Kinds = []Kind{KindWisdomBack, KindWisdomHarm, KindFact, KindFactCorrect, KindRule, KindVaultNode}

func (k Kind) valid() bool {
	for _, x := range Kinds {
		if k == x {
			return true
		}
	}
	return false
}

// Limits on records.
const (
	// MaxRecordBytes is the largest encoded record accepted (written or
	// read); larger ones are refused.
	MaxRecordBytes = 256 << 10
	// MaxClockSkew is how far ahead of the reader's clock a record's clock
	// may be; records further in the future are refused.
	MaxClockSkew = 5 * time.Minute
	// RecordVersion is the encoding version of records.
	RecordVersion = 1
	maxSubject    = 200
)

// Errors callers branch on.
var (
	// ErrInvalid: malformed input (a record that does not decode, a bad key).
	ErrInvalid = errors.New("invalid team input")
	// ErrTooLarge: a record over MaxRecordBytes.
	ErrTooLarge = errors.New("team record too large")
	// ErrBadSignature: a record's signature does not verify with its author key.
	ErrBadSignature = errors.New("team record signature does not verify")
	// ErrFutureClock: a record's clock is more than MaxClockSkew ahead.
	ErrFutureClock = errors.New("team record clock is in the future")
	// ErrNotMember: the author is not a member of the team.
	ErrNotMember = errors.New("author is not a team member")
	// ErrNotJoined: the workspace has not joined a team (no team.url).
	ErrNotJoined = errors.New("workspace has not joined a team")
	// ErrNotFound: no such shared item.
	ErrNotFound = errors.New("team item not found")
	// ErrNotAdmin: the key given is not the team's admin key.
	ErrNotAdmin = errors.New("not the team's admin key")
)

// Clock is a hybrid logical clock reading: wall milliseconds and a logical
// counter for events within one millisecond.
type Clock struct {
	Wall    int64  `json:"w"`
	Logical uint32 `json:"l"`
}

// Compare orders clocks: -1, 0 or 1.
func (c Clock) Compare(o Clock) int {
	switch {
	case c.Wall < o.Wall:
		return -1
	case c.Wall > o.Wall:
		return 1
	case c.Logical < o.Logical:
		return -1
	case c.Logical > o.Logical:
		return 1
	}
	return 0
}

// Time is the clock's wall time.
func (c Clock) Time() time.Time { return time.UnixMilli(c.Wall).UTC() }

// String is "wall.logical".
func (c Clock) String() string { return fmt.Sprintf("%d.%d", c.Wall, c.Logical) }

// Record is one shared change, signed by its author.
type Record struct {
	V       int             `json:"v"`
	Kind    Kind            `json:"kind"`
	Subject string          `json:"subject"`
	Author  string          `json:"author"`
	Clock   Clock           `json:"clock"`
	Body    json.RawMessage `json:"body"`
	Sig     string          `json:"sig,omitempty"`
}

// ID is a record's id: the hex SHA-256 of its encoding.
type ID [32]byte

// String is the hex form.
func (id ID) String() string { return hex.EncodeToString(id[:]) }

// Short is the first 12 hex digits.
func (id ID) Short() string { return id.String()[:12] }

// ParseID reads the hex form of an id.
func ParseID(s string) (ID, error) {
	var id ID
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != len(id) {
		return id, fmt.Errorf("%w: %q is not a record id", ErrInvalid, clip(s, 80))
	}
	copy(id[:], b)
	return id, nil
}

// Encode is the record's canonical encoding: compact JSON, fields in the
// struct's order, no HTML escaping.
func (r Record) Encode() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, fmt.Errorf("%w: encode record: %w", ErrInvalid, err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Hash is the id of an encoded record.
func Hash(encoded []byte) ID { return sha256.Sum256(encoded) }

func (r Record) signedBytes() ([]byte, error) {
	r.Sig = ""
	return r.Encode()
}

// Sign sets the record's author and signature.
func (r *Record) Sign(priv ed25519.PrivateKey) error {
	r.Author = FormatKey(priv.Public().(ed25519.PublicKey))
	msg, err := r.signedBytes()
	if err != nil {
		return err
	}
	r.Sig = base64.StdEncoding.EncodeToString(ed25519.Sign(priv, msg))
	return nil
}

// Verify checks the signature against the author key (ErrBadSignature).
func (r Record) Verify() error {
	pub, err := ParseKey(r.Author)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBadSignature, err)
	}
	sig, err := base64.StdEncoding.DecodeString(r.Sig)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return fmt.Errorf("%w: not an ed25519 signature", ErrBadSignature)
	}
	msg, err := r.signedBytes()
	if err != nil {
		return err
	}
	if !ed25519.Verify(pub, msg, sig) {
		return fmt.Errorf("%w: changed after it was signed, or forged (author %s)", ErrBadSignature, ShortKey(r.Author))
	}
	return nil
}

// Decode reads one encoded record: at most MaxRecordBytes (ErrTooLarge), in
// its canonical encoding, a known kind, a subject and a body (ErrInvalid).
// It checks neither the signature (Verify) nor the clock. It never panics.
func Decode(data []byte) (Record, error) {
	if len(data) > MaxRecordBytes {
		return Record{}, fmt.Errorf("%w: %d bytes (at most %d)", ErrTooLarge, len(data), MaxRecordBytes)
	}
	if !utf8.Valid(data) {
		return Record{}, fmt.Errorf("%w: record is not UTF-8", ErrInvalid)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var r Record
	if err := dec.Decode(&r); err != nil {
		return Record{}, fmt.Errorf("%w: record: %s", ErrInvalid, clip(err.Error(), 200))
	}
	if dec.More() {
		return Record{}, fmt.Errorf("%w: more than one record", ErrInvalid)
	}
	if err := r.check(); err != nil {
		return Record{}, err
	}
	again, err := r.Encode()
	if err != nil {
		return Record{}, err
	}
	if !bytes.Equal(again, data) {
		return Record{}, fmt.Errorf("%w: record is not in its canonical encoding", ErrInvalid)
	}
	return r, nil
}

func (r Record) check() error {
	switch {
	case r.V != RecordVersion:
		return fmt.Errorf("%w: record version %d (want %d)", ErrInvalid, r.V, RecordVersion)
	case !r.Kind.valid():
		return fmt.Errorf("%w: unknown kind %q", ErrInvalid, clip(string(r.Kind), 40))
	case r.Subject == "" || len(r.Subject) > maxSubject || strings.ContainsAny(r.Subject, "\x00\n"):
		return fmt.Errorf("%w: bad subject", ErrInvalid)
	case len(r.Body) == 0 || r.Body[0] != '{':
		return fmt.Errorf("%w: the body is not an object", ErrInvalid)
	case r.Clock.Wall <= 0:
		return fmt.Errorf("%w: no clock", ErrInvalid)
	}
	if _, err := ParseKey(r.Author); err != nil {
		return err
	}
	return nil
}

// CheckClock refuses a record whose clock is more than MaxClockSkew ahead
// of now (ErrFutureClock).
func (r Record) CheckClock(now time.Time) error {
	if r.Clock.Time().After(now.Add(MaxClockSkew)) {
		return fmt.Errorf("%w: %s is %s ahead", ErrFutureClock, r.Clock.Time().Format(time.RFC3339),
			r.Clock.Time().Sub(now).Round(time.Second))
	}
	return nil
}

// canonicalBody encodes v as the body of a record: every string in it
// passes through the one redaction path (engine/secrets), and the result is
// compact JSON with object keys sorted.
func canonicalBody(v any) (json.RawMessage, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%w: body: %w", ErrInvalid, err)
	}
	if len(raw) > MaxRecordBytes {
		// Refused before the redaction pass reads it all.
		return nil, fmt.Errorf("%w: a body of %d bytes (a record holds at most %d)", ErrTooLarge, len(raw), MaxRecordBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, fmt.Errorf("%w: body: %w", ErrInvalid, err)
	}
	if _, ok := tree.(map[string]any); !ok {
		return nil, fmt.Errorf("%w: the body is not an object", ErrInvalid)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(redactTree(tree)); err != nil {
		return nil, fmt.Errorf("%w: body: %w", ErrInvalid, err)
	}
	return json.RawMessage(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
}

func redactTree(v any) any {
	switch x := v.(type) {
	case string:
		return secrets.Redact(x)
	case []any:
		for i := range x {
			x[i] = redactTree(x[i])
		}
		return x
	case map[string]any:
		for k, e := range x {
			x[k] = redactTree(e)
		}
		return x
	}
	return v
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
