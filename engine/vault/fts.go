package vault

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/textindex"
	"github.com/nova-dev/nova/storage"
)

// The full-text index lives in bbolt (buckets vault_terms and vault_postings, see
// engine/textindex and storage/doc.go) and every write transaction that changes a node's
// text keeps it current: no process ever rebuilds it, whichever process wrote last, and a
// search reads the records of its few terms. Only a database written before the index
// existed (or by a nova whose analyzer differs) lacks it: the first write transaction builds
// it from the nodes (see ensureDerived), and a read-only handle meanwhile searches an
// in-memory copy built once (see memIndex).

// indexOptions are the options of the vault's full-text index; an index written with other
// options is rebuilt.
func indexOptions() textindex.Options { return textindex.Options{} }

// ftsEngine is the vault's index engine, built on first use (not at init: every nova
// process would pay for it).
var ftsEngine = sync.OnceValue(func() *textindex.Engine { return textindex.NewEngine(indexOptions()) })

// boltStore is the full-text index's store in a transaction.
type boltStore struct {
	terms, postings *bolt.Bucket
}

func ftsStore(tx *bolt.Tx) (boltStore, error) {
	s := boltStore{terms: tx.Bucket(storage.BucketVaultTerms), postings: tx.Bucket(storage.BucketVaultPostings)}
	if s.terms == nil || s.postings == nil {
		return boltStore{}, fmt.Errorf("full-text index buckets missing: %w", storage.ErrCorrupt)
	}
	return s, nil
}

func (s boltStore) Term(k []byte) []byte     { return s.terms.Get(k) }
func (s boltStore) Postings(k []byte) []byte { return s.postings.Get(k) }

func (s boltStore) SeekTerms(from []byte, fn func(k, v []byte) bool) {
	c := s.terms.Cursor()
	for k, v := c.Seek(from); k != nil && fn(k, v); k, v = c.Next() {
	}
}

func (s boltStore) SeekPostings(from []byte, fn func(k, v []byte) bool) {
	c := s.postings.Cursor()
	for k, v := c.Seek(from); k != nil && fn(k, v); k, v = c.Next() {
	}
}

func (s boltStore) PutTerm(k, v []byte) error     { return s.terms.Put(k, v) }
func (s boltStore) DeleteTerm(k []byte) error     { return s.terms.Delete(k) }
func (s boltStore) PutPostings(k, v []byte) error { return s.postings.Put(k, v) }
func (s boltStore) DeletePostings(k []byte) error { return s.postings.Delete(k) }

// docFields is the indexed text of a node. A node without a title has its summary line
// (the first line of its content) as its title, so that a short node is not outranked by
// nodes that match one query word in their title.
func docFields(n *Node) []textindex.Field {
	title := n.Title
	if strings.TrimSpace(title) == "" {
		title = summaryLine(n.Content)
	}
	return []textindex.Field{
		textindex.Title(title), textindex.Summary(n.Content), textindex.Tags(n.Tags...), textindex.Body(n.Body),
	}
}

// summaryLine is the first non-blank line of s.
func summaryLine(s string) string {
	for line := range strings.Lines(s) {
		if l := strings.TrimSpace(line); l != "" {
			return l
		}
	}
	return ""
}

// ensureDerived builds what a write transaction keeps current when the database lacks it
// (written before it existed, or by a nova with another analyzer): the full-text index
// and the counters. It runs at the start of every write transaction; the check is two
// reads.
func ensureDerived(tx *bolt.Tx) error {
	st, err := ftsStore(tx)
	if err != nil {
		return err
	}
	if _, err := ftsEngine().Stats(st); err != nil {
		if !errors.Is(err, textindex.ErrNoIndex) {
			slog.Warn("vault: rebuilding the full-text index", "reason", err)
		}
		if err := rebuildIndex(tx, st); err != nil {
			return err
		}
	}
	return ensureCounters(tx)
}

// rebuildIndex empties the index buckets and indexes every node again.
func rebuildIndex(tx *bolt.Tx, st boltStore) error {
	for _, name := range [][]byte{storage.BucketVaultTerms, storage.BucketVaultPostings} {
		if err := tx.DeleteBucket(name); err != nil {
			return fmt.Errorf("rebuild full-text index: %w", err)
		}
		if _, err := tx.CreateBucket(name); err != nil {
			return fmt.Errorf("rebuild full-text index: %w", err)
		}
	}
	st, err := ftsStore(tx)
	if err != nil {
		return err
	}
	appendMostly(st.terms, st.postings)
	eng := ftsEngine()
	if err := eng.Init(st); err != nil {
		return fmt.Errorf("rebuild full-text index: %w", err)
	}
	b, err := nodesBatch(tx)
	if err != nil {
		return err
	}
	if err := eng.Apply(st, b); err != nil {
		return fmt.Errorf("rebuild full-text index: %w", err)
	}
	return nil
}

// nodesBatch reads every node with its body into a full-text batch. Undecodable records
// are left out (they are not searchable either way).
func nodesBatch(tx *bolt.Tx) (*textindex.Batch, error) {
	nodes, _, bodies, err := buckets(tx)
	if err != nil {
		return nil, err
	}
	var b textindex.Batch
	c := nodes.Cursor()
	for k, val := c.First(); k != nil; k, val = c.Next() {
		ln, err := liteCodec.Unmarshal(val)
		if err != nil {
			continue
		}
		n := Node{Title: ln.Title, Content: ln.Content, Tags: ln.Tags}
		if ln.HasBody {
			n.Body = decodeBody(bodies.Get(k))
		}
		b.Put(storage.ParseKey(k), nil, docFields(&n))
	}
	return &b, nil
}

// liteNode is the part of a stored node the index needs; decoding into it skips
// timestamps and the rest.
type liteNode struct {
	Type         NodeType `json:"type"`
	Title        string   `json:"title"`
	Content      string   `json:"content"`
	Confidence   float64  `json:"confidence"`
	HelpfulCount int      `json:"helpfulCount"`
	Tags         []string `json:"tags"`
	HasBody      bool     `json:"hasBody"`
}

var liteCodec = storage.Codec[liteNode]{Version: 1}

// memIndex is the in-memory copy of the index a read-only handle searches when the
// database has no current index (see the comment at the top of this file). A read-only
// handle shares the file only with other readers, so the copy stays current for its life.
type memIndex struct {
	once sync.Once
	st   *textindex.MemStore
	err  error
}

func (m *memIndex) get(v *Vault) (*textindex.MemStore, error) {
	m.once.Do(func() {
		slog.Warn("vault: this database has no current full-text index; searching a copy built in memory " +
			"(any nova command that writes, e.g. `nova vault reinforce`, stores it for good)")
		st := &textindex.MemStore{}
		m.err = v.db.View(func(tx *bolt.Tx) error {
			b, err := nodesBatch(tx)
			if err != nil {
				return err
			}
			eng := ftsEngine()
			if err := eng.Init(st); err != nil {
				return err
			}
			return eng.Apply(st, b)
		})
		st.Freeze()
		m.st = st
	})
	return m.st, m.err
}

// searchStore runs fn with the store to search in a read transaction: the index in bbolt,
// or on a read-only handle without a current one, the in-memory copy.
func (v *Vault) searchStore(ctx context.Context, fn func(tx *bolt.Tx, st textindex.Store) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return v.db.View(func(tx *bolt.Tx) error {
		st, err := ftsStore(tx)
		if err != nil {
			return err
		}
		if _, err := ftsEngine().Stats(st); err != nil {
			if !errors.Is(err, textindex.ErrNoIndex) && !errors.Is(err, textindex.ErrMismatch) {
				return fmt.Errorf("full-text index: %w", err)
			}
			if k, _ := tx.Bucket(storage.BucketVaultNodes).Cursor().First(); k == nil {
				return fn(tx, emptyIndex()) // nothing written yet: nothing to build
			}
			mem, merr := v.mem.get(v)
			if merr != nil {
				return fmt.Errorf("build full-text index: %w", merr)
			}
			return fn(tx, mem)
		}
		return fn(tx, st)
	})
}

// emptyIndex is the index of an empty vault.
var emptyIndex = sync.OnceValue(func() *textindex.MemStore {
	st := &textindex.MemStore{}
	_ = ftsEngine().Init(st)
	st.Freeze()
	return st
})

// RebuildIndex rebuilds the full-text index from the nodes, in one write transaction: the
// remedy when a search reports a damaged index record (ErrIndexCorrupt).
func (v *Vault) RebuildIndex(ctx context.Context) error {
	return v.update(ctx, "reindex", func(tx *bolt.Tx, _ *writeSet) error {
		st, err := ftsStore(tx)
		if err != nil {
			return err
		}
		return rebuildIndex(tx, st)
	})
}

// ErrIndexCorrupt means a record of the full-text index is damaged; Vault.RebuildIndex
// rebuilds it from the nodes (which it never touches).
var ErrIndexCorrupt = textindex.ErrCorrupt

// appendMostly sets the fill percent of buckets whose keys mostly grow (ids from a
// sequence, or a bulk load in key order): bbolt's default (half-full pages on every split)
// suits random inserts and leaves such buckets about twice their compacted size.
func appendMostly(bs ...*bolt.Bucket) {
	for _, b := range bs {
		if b != nil {
			b.FillPercent = 0.95
		}
	}
}
