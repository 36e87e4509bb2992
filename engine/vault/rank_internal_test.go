package vault

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/storage"
)

// rankByJSON is what rankOf must agree with: encoding/json over the document.
func rankByJSON(doc []byte) (rankNode, error) {
	var r rankNode
	err := json.Unmarshal(doc, &r)
	return r, err
}

// checkScanRank asserts scanRank's contract on one document: when it answers, encoding/json
// accepts the document and decodes the same values.
func checkScanRank(t *testing.T, doc []byte) bool {
	t.Helper()
	got, ok := scanRank(doc)
	if !ok {
		return false
	}
	want, err := rankByJSON(doc)
	if err != nil {
		t.Fatalf("scanRank accepted %q, encoding/json refuses it: %v", doc, err)
	}
	if got.Confidence != want.Confidence || got.HelpfulCount != want.HelpfulCount {
		t.Fatalf("scanRank(%q) = %+v, encoding/json decodes %+v", doc, got, want)
	}
	if got.typOK {
		var n Node
		if err := json.Unmarshal(doc, &n); err == nil && n.Type != got.typ {
			t.Fatalf("scanRank(%q) read type %q, encoding/json decodes %q", doc, got.typ, n.Type)
		}
	}
	return true
}

// The type is read when it is plain, and left unknown otherwise (the caller then reads the
// whole record).
func TestScanRankType(t *testing.T) {
	t.Parallel()
	for doc, want := range map[string]NodeType{
		`{"type":"Pattern","confidence":0.5}`:                 Pattern,
		`{"type":"Mistake","type":"Pattern"}`:                 Pattern,
		`{"Type":"Mistake","type":"Decision"}`:                Decision,
		`{"type":"Pattern","TYPE":"Mistake"}`:                 "",
		`{"type":"Pat\u0074ern"}`:                             "",
		`{"type":null}`:                                       "",
		`{"type":5,"confidence":0.1}`:                         "",
		"{\"type\":\"P\xc3\xa4ttern\"}":                       "",
		`{"confidence":0.2,"type":"Preference","tags":["x"]}`: Preference,
	} {
		r, ok := scanRank([]byte(doc))
		require.True(t, ok, doc)
		assert.Equal(t, want != "", r.typOK, doc)
		assert.Equal(t, want, r.typ, doc)
		checkScanRank(t, []byte(doc))
	}
}

// Every record the vault writes takes the fast path, with encoding/json's values.
func TestScanRankStoredRecords(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 1, 12, 0, 0, 123, time.UTC)
	nodes := []Node{
		{ID: 1, Type: Pattern, Content: "plain", Confidence: 0.5, HelpfulCount: 3, UserID: "local", Tags: []string{}, Source: "manual", CreatedAt: at, UpdatedAt: at},
		{ID: 2, Type: Mistake, Title: `quotes " and \ back`, Content: "line\nbreak\ttab \u2028 \x01 ünï", Body: "has body", Confidence: 1,
			HelpfulCount: 0, UserID: "u", IsGlobal: true, GlobalSuccessCount: 7, Language: "go", Tags: []string{"a", "b"},
			Source: "build:3", CreatedAt: at, UpdatedAt: at, Meta: map[string]string{"confidence": "9", "k": `{"helpfulCount":4}`}},
		{ID: 3, Type: Decision, Content: "zero", Confidence: 0, HelpfulCount: 123456789, Tags: nil},
		{ID: 4, Type: Preference, Content: "tiny", Confidence: 1e-7, HelpfulCount: -2},
	}
	for _, n := range nodes {
		raw, err := nodeCodec.Marshal(n)
		require.NoError(t, err)
		doc, ok := nodeCodec.Payload(raw)
		require.True(t, ok)
		assert.True(t, checkScanRank(t, doc), "record of node %d left the fast path: %s", n.ID, doc)
		got, ok := scanRank(doc)
		require.True(t, ok)
		assert.Equal(t, rankNode{Confidence: n.Confidence, HelpfulCount: n.HelpfulCount, typ: n.Type, typOK: true}, got)
	}
}

// What scanRank is not sure of goes to encoding/json, which decides; what is malformed is
// an error either way (the hit is skipped), never a guess.
func TestScanRankMalformed(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{
		``, `{`, `}`, `[]`, `null`, `{"confidence":}`, `{"confidence":0.5,}`, `{"confidence":0.5 "x":1}`,
		`{"confidence":01}`, `{"confidence":-}`, `{"confidence":1.}`, `{"confidence":1e}`, `{"confidence":.5}`,
		`{"confidence":"0.5"}`, `{"confidence":null}`, `{"helpfulCount":1.5}`, `{"helpfulCount":1e2}`,
		`{"helpfulCount":99999999999999999999}`, `{"confidence":1e999}`, `{"Confidence":0.9}`, `{"CONFIDENCE":0.9,"confidence":0.1}`,
		`{"confid\u0065nce":0.9}`, `{"x":"unterminated}`, `{"x":"bad \q escape"}`, `{"x":"\u12g4"}`, "{\"x\":\"raw\x01control\"}",
		`{"x":tru}`, `{"x":[1,2,]}`, `{"x":{"a":1,}}`, `{"x":1} trailing`, `{"confidence":0.5,"confidence":0.7}`,
		`  {"helpfulCount":2, "confidence":0.25}  `, `{"x":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`,
	} {
		if _, err := rankByJSON([]byte(doc)); err != nil {
			_, ok := scanRank([]byte(doc))
			assert.False(t, ok, "scanRank accepted %q, which encoding/json refuses: %v", doc, err)
		}
		checkScanRank(t, []byte(doc))
	}
	// The duplicate keeps the last value, as encoding/json does.
	got, ok := scanRank([]byte(`{"confidence":0.5,"confidence":0.7,"helpfulCount":1,"helpfulCount":4}`))
	require.True(t, ok)
	assert.Equal(t, rankNode{Confidence: 0.7, HelpfulCount: 4}, got)
	// A key that differs only in case is encoding/json's to match.
	_, ok = scanRank([]byte(`{"Confidence":0.9}`))
	assert.False(t, ok)
}

// rankOf reads records from the bucket, through the fast path or the codec, and reports
// a missing or undecodable record as the codec does.
func TestRankOf(t *testing.T) {
	t.Parallel()
	db, err := bolt.Open(filepath.Join(t.TempDir(), "rank.db"), 0o600, &bolt.Options{Timeout: time.Second})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket([]byte("nodes"))
		if err != nil {
			return err
		}
		if err := nodeCodec.Put(b, storage.Key(1), Node{ID: 1, Type: Pattern, Content: "a", Confidence: 0.42, HelpfulCount: 5}); err != nil {
			return err
		}
		if err := b.Put(storage.Key(2), append([]byte{'n', 1}, `{"Confidence":0.3,"helpfulCount":2}`...)); err != nil {
			return err
		}
		if err := b.Put(storage.Key(3), append([]byte{'n', 1}, `{"confidence":0.3,`...)); err != nil {
			return err
		}
		return b.Put(storage.Key(4), []byte("garbage"))
	}))
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("nodes"))
		r, err := rankOf(b, storage.Key(1))
		require.NoError(t, err)
		assert.Equal(t, rankNode{Confidence: 0.42, HelpfulCount: 5, typ: Pattern, typOK: true}, r)
		r, err = rankOf(b, storage.Key(2)) // encoding/json's case-insensitive match
		require.NoError(t, err)
		assert.Equal(t, rankNode{Confidence: 0.3, HelpfulCount: 2}, r)
		_, err = rankOf(b, storage.Key(3))
		assert.ErrorIs(t, err, storage.ErrBadRecord)
		_, err = rankOf(b, storage.Key(4))
		assert.ErrorIs(t, err, storage.ErrBadRecord)
		_, err = rankOf(b, storage.Key(9))
		assert.ErrorIs(t, err, storage.ErrNotFound)
		_, err = rankOf(nil, storage.Key(1))
		assert.ErrorIs(t, err, storage.ErrNotFound)
		return nil
	}))
}

// FuzzScanRank: whatever scanRank answers for, encoding/json accepts with the same values.
func FuzzScanRank(f *testing.F) {
	f.Add([]byte(`{"id":1,"type":"Pattern","content":"a \"q\" \u00e9","confidence":0.5,"helpfulCount":3,"tags":["x"],"meta":{"a":"b"}}`))
	f.Add([]byte(`{"confidence":-0,"helpfulCount":-0}`))
	f.Add([]byte(`{"confidence":1E+2,"helpfulCount":0,"x":[true,false,null,{"y":[]}]}`))
	f.Add([]byte(`{"conf\u0069dence":1}`))
	f.Add([]byte("{\"x\":\"\xff\xfe\"}"))
	f.Fuzz(func(t *testing.T, doc []byte) {
		checkScanRank(t, doc)
	})
}
