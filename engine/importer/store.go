package importer

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/textindex"
	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/storage"
)

// fileRecord is the value of bucket import_files: what the last import of one source file
// (under one user) wrote.
type fileRecord struct {
	User   string `json:"user"`
	Source string `json:"source"`
	// Root labels the library the file was last imported from.
	Root string `json:"root"`
	// Hash is the hex SHA-256 of the file.
	Hash     string `json:"hash"`
	NodeID   uint64 `json:"nodeId"`
	Category string `json:"category"`
	Split    bool   `json:"split"`
	// Sections maps a section anchor to its node (split mode).
	Sections map[string]uint64 `json:"sections,omitempty"`
	// NextEdge is the category `supports` edge this importer drew from NodeID to the next file
	// of the category, 0 when none.
	NextEdge uint64 `json:"nextEdge,omitempty"`
	// Sig is the MinHash signature of the file, 8 bytes per hash, big-endian.
	Sig   []byte `json:"sig,omitempty"`
	Batch uint64 `json:"batch"`
}

func (r *fileRecord) clone() *fileRecord {
	c := *r
	if r.Sections != nil {
		c.Sections = make(map[string]uint64, len(r.Sections))
		for k, v := range r.Sections {
			c.Sections[k] = v
		}
	}
	c.Sig = slices.Clone(r.Sig)
	return &c
}

// Batch is the value of bucket imports: one committed import and how to undo it.
type Batch struct {
	ID     uint64    `json:"id"`
	Source string    `json:"source"`
	User   string    `json:"user"`
	Time   time.Time `json:"time"`
	Split  bool      `json:"split"`

	BaseConfidence float64 `json:"baseConfidence"`
	DedupThreshold float64 `json:"dedupThreshold"`

	// Added and AddedEdges are the nodes and edges this batch created.
	Added      []uint64 `json:"added"`
	AddedEdges []uint64 `json:"addedEdges"`
	// Updated holds the previous value (with body) of every node the batch replaced.
	Updated []vault.Node `json:"updated"`
	// Removed and RemovedEdges hold what the batch deleted (sections that disappeared, stale
	// category edges), with bodies and ids, to restore on undo.
	Removed      []vault.Node `json:"removed"`
	RemovedEdges []vault.Edge `json:"removedEdges"`
	// Files holds the file records as they were before the batch (nil: there was none).
	Files []FileChange `json:"files"`

	Counts BatchCounts `json:"counts"`
	// UndoneAt is set once the batch has been undone.
	UndoneAt *time.Time `json:"undoneAt,omitempty"`
	// Pending is set while a chunked import is still writing the batch (see Importer.Apply):
	// a batch read with Pending set was interrupted, its record lists what is committed.
	Pending bool `json:"pending,omitempty"`
	// Indexing is set once the pending import began writing the full-text index: undoing it
	// then drops the index, which the next write rebuilds.
	Indexing bool `json:"indexing,omitempty"`

	// State, Present, Archived and Gone are computed when a batch is read
	// (Batches, Batch), never stored: where the nodes it added are now.
	State BatchState `json:"state,omitempty"`
	// Present counts its nodes in the vault; Archived those the tier cap moved
	// to the archive (`nova vault archive restore`); Gone those the user
	// forgot or that are missing otherwise.
	Present  int `json:"present"`
	Archived int `json:"archived"`
	Gone     int `json:"gone"`
}

// BatchState says what is left of a batch.
type BatchState string

// Batch states.
const (
	// BatchActive: every node the batch added is in the vault (or it added none).
	BatchActive BatchState = "active"
	// BatchPartial: some of its nodes were archived by the tier cap or forgotten.
	BatchPartial BatchState = "partial"
	// BatchEmptied: none of the nodes it added is in the vault any more.
	BatchEmptied BatchState = "emptied"
	// BatchUndone: the batch was undone.
	BatchUndone BatchState = "undone"
	// BatchInterrupted: the import stopped between two of its transactions (the process
	// died); `nova import undo` removes what it wrote, and so does the next import.
	BatchInterrupted BatchState = "interrupted"
)

// settle computes State, Present, Archived and Gone in tx.
func (b *Batch) settle(tx *bolt.Tx) {
	b.Present, b.Archived, b.Gone = 0, 0, 0
	if b.UndoneAt != nil {
		b.State = BatchUndone
		return
	}
	nodes := tx.Bucket(storage.BucketVaultNodes)
	arch := tx.Bucket(storage.BucketVaultArchive)
	defer func() {
		if b.Pending {
			b.State = BatchInterrupted
		}
	}()
	for _, id := range b.Added {
		switch {
		case nodes != nil && nodes.Get(storage.Key(id)) != nil:
			b.Present++
		case arch != nil && arch.Get(storage.Key(id)) != nil:
			b.Archived++
		default:
			b.Gone++
		}
	}
	switch {
	case b.Archived+b.Gone == 0:
		b.State = BatchActive
	case b.Present == 0:
		b.State = BatchEmptied
	default:
		b.State = BatchPartial
	}
}

// FileChange is one import_files record before a batch changed it.
type FileChange struct {
	Key    string      `json:"key"`
	Before *fileRecord `json:"before,omitempty"`
}

// BatchCounts are the counts of a batch (see Result).
type BatchCounts struct {
	Files        int `json:"files"`
	Loaded       int `json:"loaded"`
	Skipped      int `json:"skipped"`
	Errors       int `json:"errors"`
	New          int `json:"new"`
	Updated      int `json:"updated"`
	Unchanged    int `json:"unchanged"`
	Duplicates   int `json:"duplicates"`
	NodesAdded   int `json:"nodesAdded"`
	NodesUpdated int `json:"nodesUpdated"`
	NodesRemoved int `json:"nodesRemoved"`
	EdgesAdded   int `json:"edgesAdded"`
	EdgesRemoved int `json:"edgesRemoved"`
}

// touches lists every node id the batch added, replaced or removed.
func (b *Batch) touches() map[uint64]bool {
	m := make(map[uint64]bool, len(b.Added)+len(b.Updated)+len(b.Removed))
	for _, id := range b.Added {
		m[id] = true
	}
	for _, n := range b.Updated {
		m[n.ID] = true
	}
	for _, n := range b.Removed {
		m[n.ID] = true
	}
	return m
}

var (
	fileCodec  = storage.Codec[fileRecord]{Version: 1}
	batchCodec = storage.Codec[Batch]{Version: 1}
	listCodec  = storage.Codec[[]string]{Version: 1}
)

// fileKey is the import_files key of a source file imported under user.
func fileKey(user, source string) []byte {
	k := make([]byte, 0, len(user)+1+len(source))
	k = append(k, user...)
	k = append(k, 0)
	return append(k, source...)
}

// marshalFileRecord returns fileCodec's encoding of r: the codec header, then exactly the
// bytes json.Marshal writes for r (FuzzFileRecord checks it), without reflection. Why
// hand-written: a record is mostly its 1 KB signature, which json.Marshal writes as base64
// through a buffer that grows, then the codec copies again (36 MB of allocation per import
// of 10,000 files, for 16 MB of records); the stored bytes do not change.
//
// sig, when r.Sig is empty, is the signature to store as Sig: a record being written
// carries its file's signature as the hashes the scan computed, encoded straight into the
// record (no 1 KB copy per file held until the record is written).
func marshalFileRecord(r *fileRecord, sig textindex.Signature) []byte {
	b := make([]byte, 0, fileRecordSize(r, sig))
	b = append(b, 'n', fileCodec.Version)
	return appendFileRecord(b, r, sig)
}

// appendFileRecord writes r's JSON document as json.Marshal does (sig: see
// marshalFileRecord).
func appendFileRecord(b []byte, r *fileRecord, sig textindex.Signature) []byte {
	b = append(b, `{"user":`...)
	b = storage.AppendJSONString(b, r.User)
	b = append(b, `,"source":`...)
	b = storage.AppendJSONString(b, r.Source)
	b = append(b, `,"root":`...)
	b = storage.AppendJSONString(b, r.Root)
	b = append(b, `,"hash":`...)
	b = storage.AppendJSONString(b, r.Hash)
	b = append(b, `,"nodeId":`...)
	b = strconv.AppendUint(b, r.NodeID, 10)
	b = append(b, `,"category":`...)
	b = storage.AppendJSONString(b, r.Category)
	b = append(b, `,"split":`...)
	b = strconv.AppendBool(b, r.Split)
	if len(r.Sections) > 0 {
		b = append(b, `,"sections":{`...)
		anchors := make([]string, 0, len(r.Sections))
		for a := range r.Sections {
			anchors = append(anchors, a)
		}
		slices.Sort(anchors) // encoding/json sorts map keys
		for i, a := range anchors {
			if i > 0 {
				b = append(b, ',')
			}
			b = storage.AppendJSONString(b, a)
			b = append(b, ':')
			b = strconv.AppendUint(b, r.Sections[a], 10)
		}
		b = append(b, '}')
	}
	if r.NextEdge != 0 {
		b = append(b, `,"nextEdge":`...)
		b = strconv.AppendUint(b, r.NextEdge, 10)
	}
	switch {
	case len(r.Sig) > 0:
		b = append(b, `,"sig":"`...)
		b = base64.StdEncoding.AppendEncode(b, r.Sig)
		b = append(b, '"')
	case len(sig) > 0:
		b = append(b, `,"sig":"`...)
		b = appendSigBase64(b, sig)
		b = append(b, '"')
	}
	b = append(b, `,"batch":`...)
	b = strconv.AppendUint(b, r.Batch, 10)
	return append(b, '}')
}

// fileRecordSize is the record's size when no string needs escapes (an upper bound of
// the numbers' digits).
func fileRecordSize(r *fileRecord, sig textindex.Signature) int {
	size := 2 + 120 + 5*20 + len(r.User) + len(r.Source) + len(r.Root) + len(r.Hash) + len(r.Category) +
		base64.StdEncoding.EncodedLen(len(r.Sig)+8*len(sig))
	for a := range r.Sections {
		size += len(a) + 4 + 20
	}
	return size
}

// putFile stores r at key in bucket import_files (sig: see marshalFileRecord).
func putFile(b *bolt.Bucket, key []byte, r *fileRecord, sig textindex.Signature) error {
	return b.Put(key, marshalFileRecord(r, sig))
}

// marshalBatch returns batchCodec's encoding of b: exactly the bytes json.Marshal writes
// after the codec header (every test write compares them, see batchCheck; FuzzBatchRecord),
// with the long lists (added ids, file changes) written without reflection. Why
// hand-written: a chunked import rewrites its pending record with every transaction (about
// 17 times for 10,000 files, up to 800 KB each: 10,000 file keys), which json.Marshal and the
// codec's copy made 9 MB of allocation and most of the record's CPU. The nodes and edges
// the batch replaced or removed (rare, with bodies) still go through encoding/json, and so
// does a record it rejects (a time outside years 0–9999, a NaN).
func marshalBatch(b *Batch) ([]byte, error) {
	out, err := appendBatch(make([]byte, 0, batchSize(b)), b)
	if err != nil {
		return batchCodec.Marshal(*b)
	}
	if batchCheck != nil {
		batchCheck(b, out)
	}
	return out, nil
}

// batchCheck, set by the package's tests, compares every marshalBatch with batchCodec.
var batchCheck func(b *Batch, got []byte)

var errNoFastPath = errors.New("record needs encoding/json")

// batchSize is about the record's size (its lists' share exactly when no key needs escapes).
func batchSize(b *Batch) int {
	size := 600 + len(b.Source) + len(b.User) + 17*(len(b.Added)+len(b.AddedEdges))
	for i := range b.Files {
		size += len(b.Files[i].Key) + 16 // the 0x00 after the user is 6 bytes, \u0000
		if b.Files[i].Before != nil {
			size += fileRecordSize(b.Files[i].Before, nil)
		}
	}
	return size
}

func appendBatch(out []byte, b *Batch) ([]byte, error) {
	var err error
	var ok bool
	out = append(out, 'n', batchCodec.Version)
	out = append(out, `{"id":`...)
	out = strconv.AppendUint(out, b.ID, 10)
	out = append(out, `,"source":`...)
	out = storage.AppendJSONString(out, b.Source)
	out = append(out, `,"user":`...)
	out = storage.AppendJSONString(out, b.User)
	out = append(out, `,"time":"`...)
	if out, err = b.Time.AppendText(out); err != nil {
		return nil, err
	}
	out = append(out, `","split":`...)
	out = strconv.AppendBool(out, b.Split)
	out = append(out, `,"baseConfidence":`...)
	if out, ok = storage.AppendJSONFloat(out, b.BaseConfidence); !ok {
		return nil, errNoFastPath
	}
	out = append(out, `,"dedupThreshold":`...)
	if out, ok = storage.AppendJSONFloat(out, b.DedupThreshold); !ok {
		return nil, errNoFastPath
	}
	out = append(out, `,"added":`...)
	out = appendIDs(out, b.Added)
	out = append(out, `,"addedEdges":`...)
	out = appendIDs(out, b.AddedEdges)
	for _, l := range []struct {
		name  string
		v     any
		n     int
		isNil bool
	}{
		{`,"updated":`, b.Updated, len(b.Updated), b.Updated == nil},
		{`,"removed":`, b.Removed, len(b.Removed), b.Removed == nil},
		{`,"removedEdges":`, b.RemovedEdges, len(b.RemovedEdges), b.RemovedEdges == nil},
	} {
		out = append(out, l.name...)
		switch {
		case l.isNil:
			out = append(out, "null"...)
		case l.n == 0:
			out = append(out, "[]"...)
		default:
			raw, err := json.Marshal(l.v)
			if err != nil {
				return nil, err
			}
			out = append(out, raw...)
		}
	}
	out = append(out, `,"files":`...)
	if b.Files == nil {
		out = append(out, "null"...)
	} else {
		out = append(out, '[')
		for i := range b.Files {
			if i > 0 {
				out = append(out, ',')
			}
			out = append(out, `{"key":`...)
			out = storage.AppendJSONString(out, b.Files[i].Key)
			if r := b.Files[i].Before; r != nil {
				out = append(out, `,"before":`...)
				out = appendFileRecord(out, r, nil)
			}
			out = append(out, '}')
		}
		out = append(out, ']')
	}
	c := &b.Counts
	out = append(out, `,"counts":{"files":`...)
	for i, f := range []struct {
		name string
		n    int
	}{
		{"", c.Files}, {`,"loaded":`, c.Loaded}, {`,"skipped":`, c.Skipped}, {`,"errors":`, c.Errors},
		{`,"new":`, c.New}, {`,"updated":`, c.Updated}, {`,"unchanged":`, c.Unchanged},
		{`,"duplicates":`, c.Duplicates}, {`,"nodesAdded":`, c.NodesAdded}, {`,"nodesUpdated":`, c.NodesUpdated},
		{`,"nodesRemoved":`, c.NodesRemoved}, {`,"edgesAdded":`, c.EdgesAdded}, {`,"edgesRemoved":`, c.EdgesRemoved},
	} {
		if i > 0 {
			out = append(out, f.name...)
		}
		out = strconv.AppendInt(out, int64(f.n), 10)
	}
	out = append(out, '}')
	if b.UndoneAt != nil {
		out = append(out, `,"undoneAt":"`...)
		if out, err = b.UndoneAt.AppendText(out); err != nil {
			return nil, err
		}
		out = append(out, '"')
	}
	if b.Pending {
		out = append(out, `,"pending":true`...)
	}
	if b.Indexing {
		out = append(out, `,"indexing":true`...)
	}
	if b.State != "" {
		out = append(out, `,"state":`...)
		out = storage.AppendJSONString(out, string(b.State))
	}
	out = append(out, `,"present":`...)
	out = strconv.AppendInt(out, int64(b.Present), 10)
	out = append(out, `,"archived":`...)
	out = strconv.AppendInt(out, int64(b.Archived), 10)
	out = append(out, `,"gone":`...)
	out = strconv.AppendInt(out, int64(b.Gone), 10)
	return append(out, '}'), nil
}

// appendIDs writes ids as a JSON array (null when nil, as encoding/json does).
func appendIDs(out []byte, ids []uint64) []byte {
	if ids == nil {
		return append(out, "null"...)
	}
	out = append(out, '[')
	for i, id := range ids {
		if i > 0 {
			out = append(out, ',')
		}
		out = strconv.AppendUint(out, id, 10)
	}
	return append(out, ']')
}

// putBatch stores b in bucket imports.
func putBatch(bk *bolt.Bucket, b *Batch) error {
	raw, err := marshalBatch(b)
	if err != nil {
		return err
	}
	return bk.Put(storage.Key(b.ID), raw)
}

func getFile(tx *bolt.Tx, key []byte) (*fileRecord, error) {
	r, err := fileCodec.Get(tx.Bucket(storage.BucketImportFiles), key)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("import record %q: %w", bytes.ReplaceAll(key, []byte{0}, []byte{'/'}), err)
	}
	return &r, nil
}

// fileHead is a fileRecord without its signature, which a category chain does not need
// (decoding 10,000 signatures was most of re-threading a large import's chains).
type fileHead struct {
	User     string `json:"user"`
	Source   string `json:"source"`
	NodeID   uint64 `json:"nodeId"`
	Category string `json:"category"`
	NextEdge uint64 `json:"nextEdge,omitempty"`
}

var headCodec = storage.Codec[fileHead]{Version: fileCodec.Version}

// userFileHeads lists the records of one user, in source order, with only the fields of
// fileHead set.
func userFileHeads(tx *bolt.Tx, user string) []*fileRecord {
	var out []*fileRecord
	p := fileKey(user, "")
	c := tx.Bucket(storage.BucketImportFiles).Cursor()
	for k, v := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, v = c.Next() {
		h, err := headCodec.Unmarshal(v)
		if err != nil {
			continue
		}
		out = append(out, &fileRecord{User: h.User, Source: h.Source, NodeID: h.NodeID, Category: h.Category, NextEdge: h.NextEdge})
	}
	return out
}

// appendSigBase64 writes the base64 (standard, padded) of encodeSig(sig). Hand-written
// because it runs for every file record (10,000 signatures of 1 KB in a 10,000-file import):
// three hashes (24 bytes) make 32 characters, written two at a time from a table of every
// 12-bit value's pair (half the lookups of encoding/base64 and no call per piece); what is
// left after the last three goes through encoding/base64, padded. FuzzSigBase64 compares it
// with encoding/base64.
func appendSigBase64(b []byte, sig textindex.Signature) []byte {
	full := len(sig) / 3
	start := len(b)
	b = slices.Grow(b, 32*full+(8*(len(sig)-3*full)+2)/3*4)[:start+32*full]
	out := b[start:]
	for i := 0; i < 3*full; i += 3 {
		x, y, z := sig[i], sig[i+1], sig[i+2]
		// The 192 bits as eight 24-bit groups, each two 12-bit halves.
		groups := [8]uint64{
			x >> 40, x >> 16, x<<8 | y>>56, y >> 32,
			y >> 8, y<<16 | z>>48, z >> 24, z,
		}
		o := out[32*(i/3) : 32*(i/3)+32]
		for k, g := range groups {
			p, q := b64Pairs[g>>12&0xfff], b64Pairs[g&0xfff]
			o[4*k], o[4*k+1], o[4*k+2], o[4*k+3] = p[0], p[1], q[0], q[1]
		}
	}
	if i := 3 * full; i < len(sig) {
		var buf [16]byte
		n := 0
		for ; i < len(sig); i++ {
			binary.BigEndian.PutUint64(buf[n:], sig[i])
			n += 8
		}
		b = base64.StdEncoding.AppendEncode(b, buf[:n])
	}
	return b
}

// b64Pairs holds the two standard base64 characters of every 12-bit value.
var b64Pairs = func() (t [4096][2]byte) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	for v := range t {
		t[v] = [2]byte{alphabet[v>>6], alphabet[v&63]}
	}
	return t
}()

func encodeSig(sig textindex.Signature) []byte {
	b := make([]byte, 8*len(sig))
	for i, v := range sig {
		binary.BigEndian.PutUint64(b[8*i:], v)
	}
	return b
}

func decodeSig(b []byte) textindex.Signature {
	if len(b) == 0 || len(b)%8 != 0 {
		return nil
	}
	sig := make(textindex.Signature, len(b)/8)
	for i := range sig {
		sig[i] = binary.BigEndian.Uint64(b[8*i:])
	}
	return sig
}

// Batches lists every batch, newest first.
func (im *Importer) Batches(ctx context.Context) ([]Batch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := []Batch{}
	err := im.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketImports)
		if b == nil {
			return nil
		}
		c := b.Cursor()
		for k, v := c.Last(); k != nil; k, v = c.Prev() {
			bt, err := batchCodec.Unmarshal(v)
			if err != nil {
				return fmt.Errorf("import batch %d: %w", storage.ParseKey(k), err)
			}
			bt.ID = storage.ParseKey(k)
			bt.settle(tx)
			out = append(out, bt)
		}
		return nil
	})
	return out, err
}

// Batch returns one batch.
func (im *Importer) Batch(ctx context.Context, id uint64) (Batch, error) {
	if err := ctx.Err(); err != nil {
		return Batch{}, err
	}
	var bt Batch
	err := im.db.View(func(tx *bolt.Tx) error {
		var err error
		bt, err = getBatch(tx, id)
		if err == nil {
			bt.settle(tx)
		}
		return err
	})
	return bt, err
}

func getBatch(tx *bolt.Tx, id uint64) (Batch, error) {
	bt, err := batchCodec.Get(tx.Bucket(storage.BucketImports), storage.Key(id))
	if errors.Is(err, storage.ErrNotFound) {
		return Batch{}, fmt.Errorf("batch %d: %w", id, ErrBatchNotFound)
	}
	if err != nil {
		return Batch{}, fmt.Errorf("batch %d: %w", id, err)
	}
	bt.ID = id
	return bt, nil
}

// pendingBatches lists the batches whose import did not finish (Batch.Pending), oldest first.
// Only the newest batches can be pending: it looks back from the last one.
func pendingBatches(tx *bolt.Tx) []uint64 {
	b := tx.Bucket(storage.BucketImports)
	if b == nil {
		return nil
	}
	var ids []uint64
	c := b.Cursor()
	for k, v := c.Last(); k != nil; k, v = c.Prev() {
		bt, err := batchCodec.Unmarshal(v)
		if err != nil || !bt.Pending {
			break
		}
		ids = append(ids, storage.ParseKey(k))
	}
	slices.Reverse(ids)
	return ids
}

// recentKey holds the recent import sources in bucket settings.
var recentKey = []byte("import.recentSources")

// maxRecent bounds the recent sources list.
const maxRecent = 8

// RecentSources lists the directories imported from most recently, newest first.
func (im *Importer) RecentSources(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := []string{}
	err := im.db.View(func(tx *bolt.Tx) error {
		l, err := listCodec.Get(tx.Bucket(storage.BucketSettings), recentKey)
		if errors.Is(err, storage.ErrNotFound) {
			return nil
		}
		if err != nil {
			return nil // a damaged list is just forgotten
		}
		out = l
		return nil
	})
	return out, err
}

// RememberSource puts dir first in the recent sources list.
func (im *Importer) RememberSource(ctx context.Context, dir string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if dir == "" {
		return nil
	}
	return im.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketSettings)
		if b == nil {
			return fmt.Errorf("settings bucket missing: %w", storage.ErrCorrupt)
		}
		l, _ := listCodec.Get(b, recentKey)
		l = slices.DeleteFunc(l, func(s string) bool { return s == dir })
		l = append([]string{dir}, l...)
		if len(l) > maxRecent {
			l = l[:maxRecent]
		}
		return listCodec.Put(b, recentKey, l)
	})
}
