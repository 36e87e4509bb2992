package storage

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/nova-dev/nova/internal/safefile"
)

// Open-time verification, and why most opens skip the expensive part.
//
// Every Open checks the file before bbolt maps it (rawpages.go): bbolt
// trusts its pages, and a damaged one faults, panics or sends its cursor
// round a loop until the process is killed. Faults and panics are turned
// into errors at every access (guarded), but a loop is not: only a walk of
// every page before bbolt reads any of them prevents it. That walk costs
// about 0.6 ms per MB: 60–110 ms for a 100k-node vault, on every command.
//
// Most opens find the file exactly as the last nova left it. So a writable
// handle records, when it closes cleanly, a fingerprint of the file it
// leaves behind in a sidecar (nova.db.fingerprint): device and inode, size,
// modification and change times, and the newest meta page's transaction
// id and checksum. The next Open compares the file with it:
//
//   - it matches: the file is the one a nova wrote and trusted (it verified
//     it at open, then wrote it only through bbolt), so only the cheap
//     checks run: the meta pages, the length (a cut file) and the freelist;
//   - it does not match, or there is no sidecar: something else changed the
//     file (a crash before the sidecar was written, a copy or restore, a
//     damaged disk, a hand edit); every page is verified, as before.
//
// Any write by anything updates the modification time, but file systems
// stamp it from a clock that ticks every few milliseconds, so a write right
// after nova's last one could leave it unchanged. Before recording, nova
// therefore moves the file's modification time one nanosecond back, to a
// value that no later write can produce (writes stamp the current time,
// which is at least the time of nova's own last write). The change time
// (which no program can set) catches a later `touch` or `cp -p`. Where the
// file system cannot store that nanosecond, or on systems without inode
// numbers and change times, no sidecar is written and every open verifies.
//
// What it does not catch: damage below the file system that changes no
// metadata (bit rot on the disk). Such damage is still met by the guards
// (a fault or a bbolt panic becomes ErrCorrupt and stops all writes); only
// a loop in the tree would not be, and `nova db check` always verifies
// every page.
//
// A read-only handle never writes the sidecar; a handle that met a damaged
// page removes it, so the next open verifies everything and says what is
// wrong.

// fingerprintSuffix names the sidecar beside the database file.
const fingerprintSuffix = ".fingerprint"

// fingerprint identifies one state of a database file.
type fingerprint struct {
	V        int    `json:"v"`
	Dev      uint64 `json:"dev"`
	Ino      uint64 `json:"ino"`
	Size     int64  `json:"size"`
	Mtime    int64  `json:"mtimeNs"`
	Ctime    int64  `json:"ctimeNs"`
	TxID     uint64 `json:"txid"`
	MetaSum  uint64 `json:"metaSum"`
	PageSize int    `json:"pageSize"`
}

const fingerprintVersion = 1

// fingerprintOf describes f, whose newest valid meta page says txid,
// metaSum and pageSize. ok is false where the system gives no inode and
// change time.
func fingerprintOf(f *os.File, txid, metaSum uint64, pageSize int) (fingerprint, bool) {
	st, err := f.Stat()
	if err != nil {
		return fingerprint{}, false
	}
	dev, ino, ctime, ok := statIdentity(st)
	if !ok {
		return fingerprint{}, false
	}
	return fingerprint{
		V: fingerprintVersion, Dev: dev, Ino: ino, Size: st.Size(),
		Mtime: st.ModTime().UnixNano(), Ctime: ctime,
		TxID: txid, MetaSum: metaSum, PageSize: pageSize,
	}, true
}

// currentFingerprint reads path's meta pages and describes the file.
func currentFingerprint(path string) (fingerprint, bool) {
	r, err := openRawMeta(path)
	if err != nil {
		return fingerprint{}, false
	}
	defer func() { _ = r.f.Close() }()
	return fingerprintOf(r.f, r.txid, r.metaSum, r.pageSize)
}

func sidecarPath(path string) string { return path + fingerprintSuffix }

// readSidecar returns the fingerprint recorded beside path, if any. A
// sidecar that is not a small regular file of the known shape counts as
// none (the file is then verified in full).
func readSidecar(path string) (fingerprint, bool) {
	data, err := safefile.ReadFile(sidecarPath(path), 4096)
	if err != nil {
		return fingerprint{}, false
	}
	var fp fingerprint
	if err := json.Unmarshal(data, &fp); err != nil || fp.V != fingerprintVersion {
		return fingerprint{}, false
	}
	return fp, true
}

// removeSidecar drops the sidecar; when that fails, a stale sidecar only
// costs a mismatch (the next open verifies everything).
func removeSidecar(path string) { _ = os.Remove(sidecarPath(path)) }

// leaveFingerprint records the state of the file this writable handle
// leaves behind. It runs before bbolt closes, while the exclusive lock is
// still held, so no other nova writes the file in between. Unchanged since
// open (the sidecar already says so): nothing to do.
func (db *DB) leaveFingerprint() {
	if db.readOnly || db.noFingerprint {
		return
	}
	if db.damaged.Load() {
		removeSidecar(db.path)
		return
	}
	fp, ok := currentFingerprint(db.path)
	if !ok {
		removeSidecar(db.path)
		return
	}
	if db.sidecar != nil && *db.sidecar == fp {
		return
	}
	if err := writeFingerprint(db.path, fp); err != nil {
		removeSidecar(db.path)
	}
}

// writeFingerprint moves the file's modification time one nanosecond back
// (see the top of this file), describes the file again and writes the
// sidecar atomically.
func writeFingerprint(path string, fp fingerprint) error {
	mtime := time.Unix(0, fp.Mtime).Add(-time.Nanosecond)
	if err := os.Chtimes(path, time.Time{}, mtime); err != nil {
		return err
	}
	now, ok := currentFingerprint(path)
	if !ok || now.Mtime != mtime.UnixNano() || now.TxID != fp.TxID || now.Size != fp.Size {
		return errors.New("the file system did not keep the modification time")
	}
	data, err := json.Marshal(now)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".nova-fingerprint-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), sidecarPath(path))
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", sidecarPath(path), err)
	}
	return nil
}
