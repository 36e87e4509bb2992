package importer

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
		assert.Equal(t, string(want), string(marshalFileRecord(&r)))
		back, err := fileCodec.Unmarshal(marshalFileRecord(&r))
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
		assert.Equal(t, string(want), string(marshalFileRecord(&r)))
	})
}
