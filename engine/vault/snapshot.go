package vault

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"log/slog"
	"math"
	"slices"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/textindex"
	"github.com/nova-dev/nova/storage"
)

// snapshotKey holds the persisted full-text index in vault_idx. Like revKey it
// has no 0x00 byte, so no storage.Index entry can collide with it.
//
// Value layout:
//
//	"NVVS", version byte, revision (8 bytes big-endian), skipped (uvarint),
//	meta length (uvarint), meta, CRC-32C of the meta (4 bytes little-endian),
//	then a textindex snapshot (textindex.Index.WriteTo; it has its own checksum).
//
// meta is the ranking data of every indexed node (docMeta), by ascending id:
// a string table (types and tags), then per node the id delta, type, confidence
// bits, helpful count and tags.
//
// The snapshot is used only when its revision equals the vault's "~rev": every
// write bumps the counter, so any write since the snapshot makes it stale and
// the next open rebuilds the index from the nodes (and saves a new snapshot at
// Close of a writable handle).
var snapshotKey = []byte("~textindex")

const (
	snapshotMagic   = "NVVS"
	snapshotVersion = 1
	// maxSnapshotSize stays well inside bbolt's value limit (2 GB).
	maxSnapshotSize = 1 << 30
)

var (
	errBadSnapshot = errors.New("vault index snapshot is corrupt")
	crcTable       = crc32.MakeTable(crc32.Castagnoli)
)

// indexOptions are the options of the vault's full-text index; a snapshot
// written with other options is refused by textindex.Load.
func indexOptions() textindex.Options { return textindex.Options{} }

// encodeSnapshot serialises the index state stamped with rev. The caller holds
// s.mu (read), so nothing changes meanwhile.
func encodeSnapshot(rev uint64, skipped int, meta map[uint64]docMeta, ix *textindex.Index) []byte {
	ids := make([]uint64, 0, len(meta))
	for id := range meta {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	strs := map[string]uint64{}
	var table []string
	str := func(s string) uint64 {
		i, ok := strs[s]
		if !ok {
			i = uint64(len(table))
			strs[s] = i
			table = append(table, s)
		}
		return i
	}
	var recs []byte
	prev := uint64(0)
	for _, id := range ids {
		m := meta[id]
		recs = binary.AppendUvarint(recs, id-prev)
		prev = id
		recs = binary.AppendUvarint(recs, str(string(m.typ)))
		recs = binary.LittleEndian.AppendUint64(recs, math.Float64bits(m.conf))
		recs = binary.AppendVarint(recs, int64(m.helpful))
		recs = binary.AppendUvarint(recs, uint64(len(m.tags)))
		for _, t := range m.tags {
			recs = binary.AppendUvarint(recs, str(t))
		}
	}
	var mb []byte
	mb = binary.AppendUvarint(mb, uint64(len(table)))
	for _, s := range table {
		mb = binary.AppendUvarint(mb, uint64(len(s)))
		mb = append(mb, s...)
	}
	mb = binary.AppendUvarint(mb, uint64(len(ids)))
	mb = append(mb, recs...)

	out := make([]byte, 0, len(mb)+64)
	out = append(out, snapshotMagic...)
	out = append(out, snapshotVersion)
	out = binary.BigEndian.AppendUint64(out, rev)
	out = binary.AppendUvarint(out, uint64(max(skipped, 0)))
	out = binary.AppendUvarint(out, uint64(len(mb)))
	out = append(out, mb...)
	out = binary.LittleEndian.AppendUint32(out, crc32.Checksum(mb, crcTable))
	return ix.AppendSnapshot(out)
}

// snapshotRev returns the revision a snapshot is stamped with.
func snapshotRev(data []byte) (uint64, bool) {
	if len(data) < len(snapshotMagic)+9 || string(data[:len(snapshotMagic)]) != snapshotMagic ||
		data[len(snapshotMagic)] != snapshotVersion {
		return 0, false
	}
	return binary.BigEndian.Uint64(data[len(snapshotMagic)+1:]), true
}

// decodeSnapshot decodes a snapshot. It does not keep data (which may be
// bbolt memory).
func decodeSnapshot(data []byte) (*textindex.Index, map[uint64]docMeta, int, error) {
	if _, ok := snapshotRev(data); !ok {
		return nil, nil, 0, fmt.Errorf("%w: bad header", errBadSnapshot)
	}
	p := len(snapshotMagic) + 9
	uv := func() (uint64, bool) {
		x, n := binary.Uvarint(data[p:])
		if n <= 0 {
			return 0, false
		}
		p += n
		return x, true
	}
	skipped, ok1 := uv()
	mlen, ok2 := uv()
	if !ok1 || !ok2 || mlen > uint64(len(data)-p) || uint64(len(data)-p)-mlen < 4 || skipped > math.MaxInt32 {
		return nil, nil, 0, fmt.Errorf("%w: bad meta length", errBadSnapshot)
	}
	mb := data[p : p+int(mlen)]
	p += int(mlen)
	if crc32.Checksum(mb, crcTable) != binary.LittleEndian.Uint32(data[p:]) {
		return nil, nil, 0, fmt.Errorf("%w: meta checksum mismatch", errBadSnapshot)
	}
	p += 4
	meta, err := decodeMeta(mb)
	if err != nil {
		return nil, nil, 0, err
	}
	ix, err := textindex.Load(data[p:], indexOptions())
	if err != nil {
		return nil, nil, 0, err
	}
	if ix.Len() != len(meta) {
		return nil, nil, 0, fmt.Errorf("%w: %d documents but %d meta records", errBadSnapshot, ix.Len(), len(meta))
	}
	return ix, meta, int(skipped), nil
}

func decodeMeta(b []byte) (map[uint64]docMeta, error) {
	p := 0
	bad := func(what string) error { return fmt.Errorf("%w: meta %s at byte %d", errBadSnapshot, what, p) }
	uv := func() (uint64, bool) {
		x, n := binary.Uvarint(b[p:])
		if n <= 0 {
			return 0, false
		}
		p += n
		return x, true
	}
	nStr, ok := uv()
	if !ok || nStr > uint64(len(b)) {
		return nil, bad("string count")
	}
	table := make([]string, nStr)
	for i := range table {
		n, ok := uv()
		if !ok || n > uint64(len(b)-p) {
			return nil, bad("string")
		}
		table[i] = string(b[p : p+int(n)])
		p += int(n)
	}
	nRec, ok := uv()
	if !ok || nRec > uint64(len(b)-p)/11 {
		return nil, bad("record count")
	}
	meta := make(map[uint64]docMeta, nRec)
	id := uint64(0)
	for range nRec {
		d, ok := uv()
		if !ok || (d == 0 && len(meta) > 0) {
			return nil, bad("id")
		}
		id += d
		typ, ok := uv()
		if !ok || typ >= nStr || len(b)-p < 8 {
			return nil, bad("type")
		}
		conf := math.Float64frombits(binary.LittleEndian.Uint64(b[p:]))
		p += 8
		helpful, n := binary.Varint(b[p:])
		if n <= 0 {
			return nil, bad("helpful count")
		}
		p += n
		nt, ok := uv()
		if !ok || nt > uint64(len(b)-p) {
			return nil, bad("tag count")
		}
		tags := make([]string, nt)
		for i := range tags {
			t, ok := uv()
			if !ok || t >= nStr {
				return nil, bad("tag")
			}
			tags[i] = table[t]
		}
		meta[id] = docMeta{typ: NodeType(table[typ]), conf: conf, helpful: int(helpful), tags: tags}
	}
	if p != len(b) {
		return nil, bad("trailing bytes")
	}
	return meta, nil
}

// loadSnapshot reads the index from the snapshot when one is stamped with the
// current revision. found is false when there is none or it is stale; err
// says why a present, current snapshot could not be used.
func (v *Vault) loadSnapshot() (ix *textindex.Index, meta map[uint64]docMeta, skipped int, rev uint64, found bool, err error) {
	verr := v.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketVaultIndex)
		if b == nil {
			return nil
		}
		rev = storage.ParseKey(b.Get(revKey))
		data := b.Get(snapshotKey)
		if data == nil {
			return nil
		}
		if srev, ok := snapshotRev(data); ok && srev != rev {
			return nil // stale
		}
		found = true
		ix, meta, skipped, err = decodeSnapshot(data)
		return nil
	})
	if verr != nil {
		return nil, nil, 0, 0, false, verr
	}
	return ix, meta, skipped, rev, found, err
}

// saveSnapshot stores the index when it is built and newer than the stored
// snapshot. It never runs on a read-only handle; a failure is logged, never
// returned: the snapshot only saves time.
func (s *searchState) saveSnapshot() {
	if s.v.db.ReadOnly() {
		return
	}
	s.mu.RLock()
	if s.status != stReady || s.rev == 0 || s.rev == s.savedRev {
		s.mu.RUnlock()
		return
	}
	rev := s.rev
	data := encodeSnapshot(rev, s.info.Skipped, s.meta, s.ix)
	s.mu.RUnlock()
	if len(data) > maxSnapshotSize {
		slog.Warn("vault: full-text index too large to save; it will be rebuilt at next open", "bytes", len(data))
		return
	}
	saved := false
	err := s.v.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketVaultIndex)
		if b == nil || storage.ParseKey(b.Get(revKey)) != rev {
			return nil // written meanwhile: the snapshot would be stale at once
		}
		saved = true
		return b.Put(snapshotKey, data)
	})
	if err != nil {
		slog.Warn("vault: could not save the full-text index snapshot", "err", err)
		return
	}
	if saved {
		s.mu.Lock()
		s.savedRev = max(s.savedRev, rev)
		s.mu.Unlock()
	}
}

// SaveIndexSnapshot stores the full-text index in the database, stamped with
// the vault's revision, when the index is built and the stored snapshot is
// older; the next open then loads it instead of rebuilding. Close calls it.
// It does nothing on a read-only handle.
func (v *Vault) SaveIndexSnapshot() { v.search.saveSnapshot() }

// logSnapshotFallback notes why a current snapshot was not used.
func logSnapshotFallback(err error) {
	slog.Warn("vault: full-text index snapshot unusable, rebuilding from the nodes", "err", err)
}
