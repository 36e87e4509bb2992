package vault

// The tier cap: one rule, one function (reserve), used by every write that
// adds nodes. See the package comment, section "Tier caps".

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/storage"
)

// ErrOverCap marks a write refused because it would take the vault over its
// tier's node cap (errors.Is). The error is a *CapError.
var ErrOverCap = errors.New("over the tier's vault node cap")

// CapError is a write refused by the tier cap: nothing was written.
type CapError struct {
	// Tier and Cap are the tier and its node cap.
	Tier string `json:"tier"`
	Cap  int    `json:"cap"`
	// Count is how many nodes the vault holds; Adding how many the write
	// adds; Would = Count + Adding, the count it would reach.
	Count  int `json:"count"`
	Adding int `json:"adding"`
	Would  int `json:"would"`
}

func (e *CapError) Error() string {
	return fmt.Sprintf("the %s tier keeps at most %s vault nodes; this would bring the vault to %s (it holds %s, the write adds %s), so nothing was written. "+
		"Forget or undo nodes first, or switch tier with `tier: premium` in .nova/config.yaml or NOVA_TIER=premium",
		e.Tier, thousands(e.Cap), thousands(e.Would), thousands(e.Count), thousands(e.Adding))
}

// Is makes errors.Is(err, ErrOverCap) hold.
func (e *CapError) Is(target error) bool { return target == ErrOverCap }

// thousands formats n with a comma every three digits (10,040).
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := ""
	if n < 0 {
		neg, s = "-", s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return neg + s
}

// Origin says who asks for a write that adds nodes; it decides what the tier
// cap does when the vault is full.
type Origin int

const (
	// ByUser: the user asked (vault add/import, pattern import, archive
	// restore). Over the cap the write is refused with a *CapError before
	// anything is written.
	ByUser Origin = iota
	// ByLearning: nova learned it (build lessons, rehearsal preferences, user
	// approvals, playbook promotion). Over the cap the least confident node
	// below the incoming one is moved to the archive; when there is none the
	// learned node is not stored.
	ByLearning
)

// CheckCap is the tier-cap rule: a vault of tier holding count nodes may take
// adding more when the tier has no cap or count+adding stays within it. It
// returns nil or a *CapError.
func CheckCap(tier string, count, adding int) error {
	limit := TierLimits(tier).MaxNodes
	if limit <= 0 || adding <= 0 || count+adding <= limit {
		return nil
	}
	if tier == "" {
		tier = TierFree
	}
	return &CapError{Tier: tier, Cap: limit, Count: count, Adding: adding, Would: count + adding}
}

// Capacity is the vault's state against its tier's cap.
type Capacity struct {
	Tier  string `json:"tier"`
	Cap   int    `json:"cap"` // 0 = no cap
	Nodes int    `json:"nodes"`
	// Free is how many nodes fit before the cap (-1 = no cap).
	Free int `json:"free"`
	// Archived counts the nodes in the archive (not counted by the cap).
	Archived int `json:"archived"`
}

// Capacity reports the node count against the tier's cap.
func (v *Vault) Capacity(ctx context.Context) (Capacity, error) {
	if err := ctx.Err(); err != nil {
		return Capacity{}, err
	}
	c := Capacity{Tier: v.opts.Tier, Cap: v.Limits().MaxNodes, Free: -1}
	err := v.db.View(func(tx *bolt.Tx) error {
		c.Nodes = nodeCount(tx)
		if b := tx.Bucket(storage.BucketVaultArchive); b != nil {
			c.Archived = b.Stats().KeyN
		}
		return nil
	})
	if c.Cap > 0 {
		c.Free = max(0, c.Cap-c.Nodes)
	}
	return c, err
}

// CheckAdd reports whether a user write adding n nodes would pass the tier
// cap now (nil) or be refused (*CapError). Dry runs use it to say what the
// real write would say.
func (v *Vault) CheckAdd(ctx context.Context, n int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return v.db.View(func(tx *bolt.Tx) error { return CheckCap(v.opts.Tier, nodeCount(tx), n) })
}

// reservation is what reserve decided for a write.
type reservation struct {
	// admitted: the write may add its nodes.
	admitted bool
	// archived are the nodes moved to the archive to make room.
	archived []uint64
}

// reserve is THE tier-cap function: every write that adds nodes calls it in
// its transaction before writing them. A user write of adding nodes is
// admitted when it fits and refused with a *CapError otherwise. A learning
// write (adding is 1, its confidence conf) is admitted when it fits; when the
// vault is full it moves the least confident node whose confidence is below
// conf (the oldest first among equals; never a node written earlier in the
// same transaction) to the archive, with its edges, and is admitted; when no
// node is less confident it is not admitted and nothing is archived. A
// learning write archives at most one node: a vault already over its cap
// (after a tier change) does not shrink, it just does not grow.
func (v *Vault) reserve(tx *bolt.Tx, ws *writeSet, origin Origin, adding int, conf float64) (reservation, error) {
	count := nodeCount(tx)
	err := CheckCap(v.opts.Tier, count, adding)
	if err == nil {
		return reservation{admitted: true}, nil
	}
	if origin == ByUser {
		return reservation{}, err
	}
	victim, ok := leastConfidentBelow(tx, conf, ws)
	if !ok {
		return reservation{}, nil
	}
	if err := archiveNodeTx(tx, ws, victim, fmt.Sprintf("made room for a learned node of confidence %.2f (the %s tier keeps %d nodes)",
		conf, v.opts.Tier, v.Limits().MaxNodes), v.now()); err != nil {
		return reservation{}, err
	}
	return reservation{admitted: true, archived: []uint64{victim}}, nil
}

// leastConfidentBelow returns the least confident node whose confidence is
// strictly below conf, skipping nodes written in this transaction.
func leastConfidentBelow(tx *bolt.Tx, conf float64, ws *writeSet) (uint64, bool) {
	b := tx.Bucket(storage.BucketVaultIndex)
	p := []byte(ixConf.Name + "\x00")
	c := b.Cursor()
	for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, _ = c.Next() {
		if len(k) != len(p)+8+1+8 {
			continue
		}
		if parseConfValue(k[len(p):len(p)+8]) >= conf {
			return 0, false // sorted ascending: nothing further is below
		}
		id := storage.ParseKey(k[len(k)-8:])
		if _, written := ws.nodes[id]; written {
			continue
		}
		return id, true
	}
	return 0, false
}

// ArchivedNode is a node the tier cap moved out of the vault, with the edges
// it had. Restore puts it back with the same ids.
type ArchivedNode struct {
	// Node is the node as it was, with its body.
	Node Node `json:"node"`
	// Edges touched the node when it was archived.
	Edges      []Edge    `json:"edges"`
	ArchivedAt time.Time `json:"archivedAt"`
	Reason     string    `json:"reason"`
}

var archiveCodec = storage.Codec[ArchivedNode]{Version: 1}

// archiveNodeTx moves a node with its body and edges into vault_archive and
// removes it from the vault (index entries and edges included).
func archiveNodeTx(tx *bolt.Tx, ws *writeSet, id uint64, reason string, now time.Time) error {
	n, err := getNode(tx, id)
	if err != nil {
		return err
	}
	if n.HasBody {
		n.Body = getBody(tx, id)
	}
	rec := ArchivedNode{Node: n, Edges: []Edge{}, ArchivedAt: now, Reason: reason}
	for _, eid := range edgeIDsOf(tx, id, true, true) {
		if e, err := getEdge(tx, eid); err == nil {
			rec.Edges = append(rec.Edges, e)
		}
	}
	ab := tx.Bucket(storage.BucketVaultArchive)
	if ab == nil {
		return fmt.Errorf("vault_archive bucket missing: %w", storage.ErrCorrupt)
	}
	if err := archiveCodec.Put(ab, storage.Key(id), rec); err != nil {
		return fmt.Errorf("archive node %d: %w", id, err)
	}
	if err := removeNodeTx(tx, ws, id); err != nil {
		return err
	}
	ws.archived = append(ws.archived, id)
	return nil
}

// Archived lists the archived nodes, most recently archived first.
func (v *Vault) Archived(ctx context.Context) ([]ArchivedNode, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := []ArchivedNode{}
	err := v.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketVaultArchive)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, raw []byte) error {
			a, err := archiveCodec.Unmarshal(raw)
			if err != nil {
				return fmt.Errorf("archived node %d: %w", storage.ParseKey(k), err)
			}
			a.Node.ID = storage.ParseKey(k)
			out = append(out, a)
			return nil
		})
	})
	slices.SortStableFunc(out, func(a, b ArchivedNode) int {
		if c := b.ArchivedAt.Compare(a.ArchivedAt); c != 0 {
			return c
		}
		return cmpU64(a.Node.ID, b.Node.ID)
	})
	return out, err
}

// ArchivedNodeByID returns one archived node.
func (v *Vault) ArchivedNodeByID(ctx context.Context, id uint64) (ArchivedNode, error) {
	if err := ctx.Err(); err != nil {
		return ArchivedNode{}, err
	}
	var a ArchivedNode
	err := v.db.View(func(tx *bolt.Tx) error {
		var err error
		a, err = getArchived(tx, id)
		return err
	})
	return a, err
}

func getArchived(tx *bolt.Tx, id uint64) (ArchivedNode, error) {
	b := tx.Bucket(storage.BucketVaultArchive)
	if b == nil {
		return ArchivedNode{}, fmt.Errorf("vault_archive bucket missing: %w", storage.ErrCorrupt)
	}
	a, err := archiveCodec.Get(b, storage.Key(id))
	if errors.Is(err, storage.ErrNotFound) {
		return ArchivedNode{}, fmt.Errorf("archived node %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return ArchivedNode{}, fmt.Errorf("archived node %d: %w", id, err)
	}
	a.Node.ID = id
	return a, nil
}

// IsArchived reports whether node id is in the archive.
func (r *ReadTx) IsArchived(id uint64) bool {
	b := r.tx.Bucket(storage.BucketVaultArchive)
	return b != nil && id != 0 && b.Get(storage.Key(id)) != nil
}

// RestoreResult says what Restore did.
type RestoreResult struct {
	Node Node `json:"node"`
	// Edges counts the edges restored; Deferred those whose other end is
	// archived too (they come back with it); Dropped those whose other end
	// is gone.
	Edges    int `json:"edges"`
	Deferred int `json:"deferred"`
	Dropped  int `json:"dropped"`
}

// Restore brings an archived node back into the vault with the same id, and
// the edges it had whose other end exists. It is a user write: over the tier
// cap it is refused with a *CapError (nothing changes).
func (v *Vault) Restore(ctx context.Context, id uint64) (RestoreResult, error) {
	var res RestoreResult
	err := v.update(ctx, "restore", func(tx *bolt.Tx, ws *writeSet) error {
		res = RestoreResult{}
		a, err := getArchived(tx, id)
		if err != nil {
			return err
		}
		if _, err := v.reserve(tx, ws, ByUser, 1, a.Node.Confidence); err != nil {
			return err
		}
		n := a.Node
		n.ID = id
		if hasNode(tx, id) {
			return fmt.Errorf("restore node %d: a node with this id exists: %w", id, ErrInvalid)
		}
		if err := putNodeTx(tx, &n, nil); err != nil {
			return err
		}
		ws.putNode(&n, true)
		ab := tx.Bucket(storage.BucketVaultArchive)
		for _, e := range a.Edges {
			other := e.From
			if other == id {
				other = e.To
			}
			switch {
			case hasNode(tx, other):
				if _, err := getEdge(tx, e.ID); err == nil {
					continue // already back
				}
				if err := putEdgeTx(tx, &e); err != nil {
					return err
				}
				ws.edges = append(ws.edges, e.ID)
				res.Edges++
			case ab.Get(storage.Key(other)) != nil:
				// The other end is archived too: hand the edge over to its
				// record so that restoring it brings the edge back.
				oa, err := getArchived(tx, other)
				if err != nil {
					return err
				}
				if !slices.ContainsFunc(oa.Edges, func(x Edge) bool { return x.ID == e.ID }) {
					oa.Edges = append(oa.Edges, e)
				}
				if err := archiveCodec.Put(ab, storage.Key(other), oa); err != nil {
					return err
				}
				res.Deferred++
			default:
				res.Dropped++
			}
		}
		if err := ab.Delete(storage.Key(id)); err != nil {
			return err
		}
		res.Node = n.clone()
		return nil
	})
	return res, err
}

// Tombstone records a node the user forgot, so that an import of the same
// source under the same user does not bring it back.
type Tombstone struct {
	NodeID uint64 `json:"nodeId"`
	User   string `json:"user"`
	Source string `json:"source"`
	Title  string `json:"title,omitempty"`
	// ContentHash is the imported file's hash when the node carried one.
	ContentHash string    `json:"contentHash,omitempty"`
	ForgottenAt time.Time `json:"forgottenAt"`
}

var tombstoneCodec = storage.Codec[Tombstone]{Version: 1}

// MetaContentHash is the node Meta key importers store a file's hash under.
const MetaContentHash = "contentHash"

// TombstoneKey is the vault_tombstones key of a source imported under user
// (the import_files key layout: user 0x00 source).
func TombstoneKey(user, source string) []byte {
	k := make([]byte, 0, len(user)+1+len(source))
	k = append(k, user...)
	k = append(k, 0)
	return append(k, source...)
}

// putTombstoneTx records that the user forgot n (nodes without a source of
// their own, "manual", need none: nothing re-imports them).
func putTombstoneTx(tx *bolt.Tx, n Node, now time.Time) error {
	if n.Source == "" || n.Source == SourceManual {
		return nil
	}
	b := tx.Bucket(storage.BucketVaultTombstones)
	if b == nil {
		return fmt.Errorf("vault_tombstones bucket missing: %w", storage.ErrCorrupt)
	}
	t := Tombstone{NodeID: n.ID, User: n.UserID, Source: n.Source, Title: n.Title,
		ContentHash: n.Meta[MetaContentHash], ForgottenAt: now}
	return tombstoneCodec.Put(b, TombstoneKey(n.UserID, n.Source), t)
}

// Forgotten returns the tombstone of source under user, if the user forgot
// the node imported from it.
func (r *ReadTx) Forgotten(user, source string) (Tombstone, bool) {
	b := r.tx.Bucket(storage.BucketVaultTombstones)
	if b == nil {
		return Tombstone{}, false
	}
	t, err := tombstoneCodec.Get(b, TombstoneKey(user, source))
	if err != nil {
		return Tombstone{}, false
	}
	return t, true
}

// Tombstones lists what the user forgot, by user and source.
func (v *Vault) Tombstones(ctx context.Context) ([]Tombstone, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := []Tombstone{}
	err := v.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketVaultTombstones)
		if b == nil {
			return nil
		}
		return b.ForEach(func(_, raw []byte) error {
			if t, err := tombstoneCodec.Unmarshal(raw); err == nil {
				out = append(out, t)
			}
			return nil
		})
	})
	return out, err
}

// CheckAdd reports, inside a read view, whether a user write adding n nodes
// would pass the tier cap (nil) or be refused (*CapError).
func (r *ReadTx) CheckAdd(n int) error { return CheckCap(r.v.opts.Tier, nodeCount(r.tx), n) }

// DropArchived deletes node id from the archive (an import undo removing
// what its batch added, archived or not); it reports whether it was there.
func (t *ImportTx) DropArchived(id uint64) (bool, error) {
	b := t.tx.Bucket(storage.BucketVaultArchive)
	if b == nil || b.Get(storage.Key(id)) == nil {
		return false, nil
	}
	return true, b.Delete(storage.Key(id))
}
