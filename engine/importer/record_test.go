package importer

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/textindex"
	"github.com/nova-dev/nova/engine/vault"
)

// fileRecordSeeds cover every field of fileRecord: empty and set, escapes, invalid UTF-8,
// sections (map order), a signature of every length class.
func fileRecordSeeds() []fileRecord {
	sig := make([]byte, 1024)
	for i := range sig {
		sig[i] = byte(i*7 + 3)
	}
	return []fileRecord{
		{},
		{User: "me", Source: "00-security/auth.md", Root: "lib", Hash: "ab12", NodeID: 42, Category: "security", Batch: 3, Sig: sig},
		{User: "", Source: "a <b> & \"c\"\t\n.md", Root: "naïve \u2028 \xff", Hash: "", NodeID: 1<<53 - 1, Category: "c\\d",
			Split: true, Sections: map[string]uint64{"zeta": 9, "alpha": 7, "<x>": 1, "": 2}, NextEdge: 99, Sig: []byte{0}, Batch: 0},
		{Source: "x", Split: true, Sections: map[string]uint64{}, Sig: []byte{}, NextEdge: 0},
		{Source: "y", Sig: []byte{1, 2}, Sections: map[string]uint64{"only": 0}},
	}
}

func TestMarshalFileRecordMatchesTheCodec(t *testing.T) {
	t.Parallel()
	for _, r := range fileRecordSeeds() {
		want, err := fileCodec.Marshal(r)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(marshalFileRecord(&r, nil)))
		back, err := fileCodec.Unmarshal(marshalFileRecord(&r, nil))
		require.NoError(t, err)
		assert.Equal(t, r.Source, back.Source)
		assert.True(t, bytes.Equal(r.Sig, back.Sig))
	}
}

// FuzzFileRecord: marshalFileRecord writes exactly the bytes fileCodec (encoding/json) writes.
func FuzzFileRecord(f *testing.F) {
	for _, r := range fileRecordSeeds() {
		var anchor string
		var sid uint64
		for a, id := range r.Sections {
			anchor, sid = a, id
		}
		f.Add(r.User, r.Source, r.Root, r.Hash, r.NodeID, r.Category, r.Split, anchor, sid, len(r.Sections) > 0, r.NextEdge, r.Sig, r.Batch)
	}
	f.Fuzz(func(t *testing.T, user, source, root, hash string, node uint64, cat string, split bool,
		anchor string, sid uint64, sections bool, next uint64, sig []byte, batch uint64) {
		r := fileRecord{User: user, Source: source, Root: root, Hash: hash, NodeID: node, Category: cat,
			Split: split, NextEdge: next, Sig: sig, Batch: batch}
		if sections {
			r.Sections = map[string]uint64{anchor: sid, anchor + "~": sid + 1, "m" + anchor: sid / 2}
		}
		want, err := fileCodec.Marshal(r)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(marshalFileRecord(&r, nil)))

		// A record being written carries its signature as hashes (sig), stored as Sig.
		hashes := make(textindex.Signature, len(sig)/8+len(sig)%3)
		for i := range hashes {
			hashes[i] = uint64(i)*0x9e3779b97f4a7c15 ^ node
		}
		r.Sig = encodeSig(hashes)
		want, err = fileCodec.Marshal(r)
		require.NoError(t, err)
		r.Sig = nil
		assert.Equal(t, string(want), string(marshalFileRecord(&r, hashes)))
	})
}

func TestAppendSigBase64MatchesEncodeSig(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 2, 3, 4, 5, 6, 7, 127, 128, 129} {
		sig := make(textindex.Signature, n)
		for i := range sig {
			sig[i] = ^uint64(i) * 0x100000001b3
		}
		assert.Equal(t, base64.StdEncoding.EncodeToString(encodeSig(sig)), string(appendSigBase64(nil, sig)), "%d hashes", n)
		r := fileRecord{Source: "a.md"}
		want, err := fileCodec.Marshal(fileRecord{Source: "a.md", Sig: encodeSig(sig)})
		require.NoError(t, err)
		assert.Equal(t, string(want), string(marshalFileRecord(&r, sig)))
		assert.Equal(t, sig[:n:n], decodeSigOrEmpty(encodeSig(sig)))
	}
}

// FuzzSigBase64: appendSigBase64 (a table-driven encoder) writes what encoding/base64 writes
// for the signature's bytes, after any prefix, for any number of hashes.
func FuzzSigBase64(f *testing.F) {
	f.Add([]byte{}, []byte("p"))
	f.Add([]byte{0xff, 0, 0x80, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24}, []byte{})
	f.Fuzz(func(t *testing.T, raw, prefix []byte) {
		sig := make(textindex.Signature, (len(raw)+7)/8)
		for i := range sig {
			var w [8]byte
			copy(w[:], raw[8*i:])
			sig[i] = binary.BigEndian.Uint64(w[:])
		}
		want := string(prefix) + base64.StdEncoding.EncodeToString(encodeSig(sig))
		assert.Equal(t, want, string(appendSigBase64(slices.Clone(prefix), sig)))
	})
}

func decodeSigOrEmpty(b []byte) textindex.Signature {
	if s := decodeSig(b); s != nil {
		return s
	}
	return textindex.Signature{}
}

// Every batch record the package's tests write is compared with batchCodec (encoding/json);
// not in benchmarks, which measure marshalBatch alone.
func init() {
	batchCheck = func(b *Batch, got []byte) {
		if f := flag.Lookup("test.bench"); f != nil && f.Value.String() != "" {
			return
		}
		want, err := batchCodec.Marshal(*b)
		if err != nil || !bytes.Equal(want, got) {
			panic(fmt.Sprintf("marshalBatch differs from encoding/json (%v):\n%s\n%s", err, want, got))
		}
	}
}

func batchSeeds() []Batch {
	recs := fileRecordSeeds()
	undone := time.Date(2026, 11, 24, 13, 0, 0, 123456789, time.FixedZone("x", 3600))
	return []Batch{
		{},
		{ID: 7, Source: "lib <x>", User: "me", Time: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), Split: true,
			BaseConfidence: 0.7, DedupThreshold: 1e-7, Added: []uint64{}, AddedEdges: []uint64{}, Updated: []vault.Node{},
			Removed: []vault.Node{}, RemovedEdges: []vault.Edge{}, Files: []FileChange{}, Pending: true},
		{ID: 1 << 53, Source: "naïve\xff", Time: time.Date(1999, 12, 31, 23, 59, 59, 0, time.FixedZone("y", -7200)),
			BaseConfidence: 1, DedupThreshold: 0.85, Added: []uint64{1, 2, 1 << 53}, AddedEdges: []uint64{9},
			Updated:      []vault.Node{{ID: 3, Type: vault.Pattern, Content: "c <b>", Body: "body", Tags: []string{"a"}, Meta: map[string]string{"k": "v"}}},
			Removed:      []vault.Node{{ID: 4, Content: "gone"}},
			RemovedEdges: []vault.Edge{{ID: 5, From: 3, To: 4, Relation: vault.Supports, Strength: 0.5}},
			Files:        []FileChange{{Key: "\x00a.md"}, {Key: "me\x00b <c>.md", Before: &recs[1]}, {Key: "x", Before: &recs[2]}},
			Counts:       BatchCounts{Files: 1, Loaded: 2, Skipped: 3, Errors: 4, New: 5, Updated: 6, Unchanged: 7, Duplicates: 8, NodesAdded: 9, NodesUpdated: 10, NodesRemoved: 11, EdgesAdded: 12, EdgesRemoved: -13},
			UndoneAt:     &undone, Indexing: true, State: BatchPartial, Present: 1, Archived: 2, Gone: 3},
	}
}

func TestMarshalBatchMatchesTheCodec(t *testing.T) {
	t.Parallel()
	for _, b := range batchSeeds() {
		want, err := batchCodec.Marshal(b)
		require.NoError(t, err)
		got, err := marshalBatch(&b)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got))
	}
	// What encoding/json rejects is its to reject.
	bad := Batch{Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}
	_, err := marshalBatch(&bad)
	require.Error(t, err)
	bad = Batch{BaseConfidence: math.NaN()}
	_, err = marshalBatch(&bad)
	require.Error(t, err)
}

// FuzzBatchRecord: marshalBatch writes exactly the bytes batchCodec (encoding/json) writes.
func FuzzBatchRecord(f *testing.F) {
	for _, b := range batchSeeds() {
		f.Add(b.ID, b.Source, b.User, b.Time.UnixNano(), b.BaseConfidence, len(b.Files) > 0, "\x00key", b.Pending, string(b.State), int64(7))
	}
	recs := fileRecordSeeds()
	f.Fuzz(func(t *testing.T, id uint64, source, user string, nanos int64, conf float64, lists bool, key string, pending bool, state string, n int64) {
		b := Batch{ID: id, Source: source, User: user, Time: time.Unix(0, nanos).UTC(), BaseConfidence: conf, DedupThreshold: conf / 3,
			Pending: pending, State: BatchState(state), Present: int(n), Gone: int(-n)}
		if lists {
			b.Added, b.AddedEdges = []uint64{id, uint64(n)}, []uint64{}
			b.Files = []FileChange{{Key: key}, {Key: key + user, Before: &recs[int(uint64(n)%uint64(len(recs)))]}}
			b.Counts.Files, b.Counts.EdgesRemoved = int(n), int(n>>3)
			b.Removed = []vault.Node{{ID: id, Content: source, Confidence: 0.5}}
		}
		want, err := batchCodec.Marshal(b)
		got, gerr := marshalBatch(&b)
		if err != nil {
			require.Error(t, gerr)
			return
		}
		require.NoError(t, gerr)
		assert.Equal(t, string(want), string(got))
	})
}
