package team

import (
	"crypto/ed25519"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func signed(t testing.TB, body any) (Record, []byte) {
	t.Helper()
	b, err := canonicalBody(body)
	require.NoError(t, err)
	r := Record{V: RecordVersion, Kind: KindFact, Subject: "f-1", Clock: Clock{Wall: time.Now().UnixMilli()}, Body: b}
	require.NoError(t, r.Sign(newKey(t)))
	data, err := r.Encode()
	require.NoError(t, err)
	return r, data
}

func TestRecordRoundTripsAndVerifies(t *testing.T) {
	t.Parallel()
	r, data := signed(t, FactBody{Content: "the API uses <json> & tabs"})
	got, err := Decode(data)
	require.NoError(t, err)
	assert.Equal(t, r, got)
	require.NoError(t, got.Verify())
	again, err := got.Encode()
	require.NoError(t, err)
	assert.Equal(t, Hash(data), Hash(again), "the id is stable across a round trip")
}

func TestForgedRecordsDoNotVerify(t *testing.T) {
	t.Parallel()
	r, _ := signed(t, FactBody{Content: "original"})
	changed := r
	changed.Body = json.RawMessage(`{"content":"forged"}`)
	assert.ErrorIs(t, changed.Verify(), ErrBadSignature)
	other := r
	other.Author = FormatKey(newKey(t).Public().(ed25519.PublicKey))
	assert.ErrorIs(t, other.Verify(), ErrBadSignature)
	noSig := r
	noSig.Sig = "bm90IGEgc2ln"
	assert.ErrorIs(t, noSig.Verify(), ErrBadSignature)
}

func TestDecodeRefusesMalformedRecords(t *testing.T) {
	t.Parallel()
	_, good := signed(t, FactBody{Content: "x"})
	cases := map[string][]byte{
		"empty":         nil,
		"not json":      []byte("hello"),
		"two documents": append(append([]byte{}, good...), good...),
		"not canonical": []byte(strings.Replace(string(good), `"v":1,`, `"v": 1,`, 1)),
		"unknown field": []byte(strings.Replace(string(good), `{"v":1,`, `{"x":1,"v":1,`, 1)),
		"bad kind":      []byte(strings.Replace(string(good), `"kind":"fact"`, `"kind":"secrets"`, 1)),
		"no subject":    []byte(strings.Replace(string(good), `"subject":"f-1"`, `"subject":""`, 1)),
		"bad author":    []byte(strings.Replace(string(good), `"author":"ed25519:`, `"author":"rsa:`, 1)),
		"not utf-8":     append([]byte{0xff}, good...),
	}
	for name, data := range cases {
		_, err := Decode(data)
		assert.ErrorIs(t, err, ErrInvalid, name)
	}
	huge := make([]byte, MaxRecordBytes+1)
	_, err := Decode(huge)
	assert.ErrorIs(t, err, ErrTooLarge)
}

func TestFutureClockIsRefused(t *testing.T) {
	t.Parallel()
	now := time.Now()
	r := Record{Clock: Clock{Wall: now.Add(MaxClockSkew + time.Minute).UnixMilli()}}
	assert.ErrorIs(t, r.CheckClock(now), ErrFutureClock)
	r.Clock.Wall = now.Add(MaxClockSkew - time.Second).UnixMilli()
	assert.NoError(t, r.CheckClock(now))
}

func TestBodiesAreRedactedBeforeSigning(t *testing.T) {
	t.Parallel()
	b, err := canonicalBody(FactBody{Content: "deploy with password=hunter2hunter2 and AKIAIOSFODNN7EXAMPLE"})
	require.NoError(t, err)
	assert.NotContains(t, string(b), "hunter2hunter2")
	assert.NotContains(t, string(b), "AKIAIOSFODNN7EXAMPLE")
}

func TestHLCNeverGoesBackwards(t *testing.T) {
	t.Parallel()
	c := &clock{t: time.UnixMilli(1000)}
	h := NewHLC(c.Now, Clock{})
	a := h.Now()
	b := h.Now()
	assert.Equal(t, 1, b.Compare(a))
	c.Set(time.UnixMilli(500)) // the wall clock stepped back
	d := h.Now()
	assert.Equal(t, 1, d.Compare(b))
	h.Observe(Clock{Wall: 5000, Logical: 3})
	e := h.Now()
	assert.Equal(t, 1, e.Compare(Clock{Wall: 5000, Logical: 3}))
}

func FuzzDecode(f *testing.F) {
	_, good := signed(f, FactBody{Content: "seed"})
	f.Add(good)
	f.Add([]byte(`{"v":1}`))
	f.Add([]byte(`{"v":1,"kind":"fact","subject":"s","author":"ed25519:AAAA","clock":{"w":1,"l":0},"body":{}}`))
	f.Add([]byte("\x00\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Decode(data)
		if err != nil {
			return
		}
		again, err := r.Encode()
		if err != nil {
			t.Fatalf("a decoded record does not encode: %v", err)
		}
		if string(again) != string(data) {
			t.Fatalf("decode accepted a non-canonical record")
		}
		_ = r.Verify()
	})
}

func FuzzParseMembership(f *testing.F) {
	_, data, err := SignMembership(Membership{Team: "t", Version: 1}, newKey(f))
	require.NoError(f, err)
	f.Add(data)
	f.Add([]byte(`{"team":"t"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = ParseMembership(data)
	})
}
