package vault

import (
	"context"
	"fmt"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/secrets"
	"github.com/nova-dev/nova/storage"
)

// prepare validates a new node and stamps it. Secrets in its text are
// redacted first (secrets.Redact): what an agent read or a user pasted is
// never stored verbatim by Add, AddBatch, Learn or Update.
func (v *Vault) prepare(n Node) (Node, error) {
	c := n.clone()
	redactNode(&c)
	return v.prepareOwned(c)
}

// redactNode redacts the text fields of n; a tag that carries a secret is
// dropped (a tag with a placeholder in it finds nothing).
func redactNode(n *Node) {
	n.Title = secrets.Redact(n.Title)
	n.Content = secrets.Redact(n.Content)
	n.Body = secrets.Redact(n.Body)
	if len(n.Tags) == 0 {
		return
	}
	tags := n.Tags[:0:0]
	for _, t := range n.Tags {
		if secrets.Redact(t) == t {
			tags = append(tags, t)
		}
	}
	n.Tags = tags
}

// prepareOwned is prepare for a node whose tags and meta are the caller's to give (no copy).
func (v *Vault) prepareOwned(n Node) (Node, error) {
	n.ID = 0
	if err := n.normalize(v.opts.UserID, true); err != nil {
		return Node{}, err
	}
	now := v.now()
	n.CreatedAt, n.UpdatedAt = now, now
	return n, nil
}

// Add stores a new node and returns it with its id. Empty content, an
// unknown type or a confidence outside 0–1 is refused with ErrInvalid. A zero
// confidence means DefaultConfidence; an empty source means "manual". Add is
// a user write: over the tier's node cap it is refused with a *CapError
// (ErrOverCap). It does not look for duplicates or conflicts: Learn does.
func (v *Vault) Add(ctx context.Context, n Node) (Node, error) {
	n, err := v.prepare(n)
	if err != nil {
		return Node{}, err
	}
	err = v.update(ctx, "add", func(tx *bolt.Tx, ws *writeSet) error {
		if _, err := v.reserve(tx, ws, ByUser, 1, n.Confidence); err != nil {
			return err
		}
		n.ID = 0
		if err := putNodeTx(tx, &n, nil); err != nil {
			return err
		}
		ws.putNode(&n, true)
		return nil
	})
	if err != nil {
		return Node{}, err
	}
	return n.clone(), nil
}

// AddBatch stores many nodes in one transaction: all or none. A node that
// fails validation fails the batch with its position in the error; a batch
// that would take the vault over its tier's cap is refused (*CapError)
// before anything is written.
func (v *Vault) AddBatch(ctx context.Context, nodes []Node) ([]Node, error) {
	out := make([]Node, len(nodes))
	for i, n := range nodes {
		p, err := v.prepare(n)
		if err != nil {
			return nil, fmt.Errorf("node %d of %d: %w", i+1, len(nodes), err)
		}
		out[i] = p
	}
	if len(out) == 0 {
		return out, nil
	}
	err := v.update(ctx, "add", func(tx *bolt.Tx, ws *writeSet) error {
		if _, err := v.reserve(tx, ws, ByUser, len(out), 0); err != nil {
			return err
		}
		batch := &ixBatch{}
		for i := range out {
			if i%1024 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			out[i].ID = 0
			if err := putNodeTx(tx, &out[i], nil, batch); err != nil {
				return err
			}
			ws.putNode(&out[i], true)
		}
		return batch.flush(tx)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Get returns a node with its body.
func (v *Vault) Get(ctx context.Context, id uint64) (Node, error) {
	if err := ctx.Err(); err != nil {
		return Node{}, err
	}
	var n Node
	err := v.db.View(func(tx *bolt.Tx) error {
		var err error
		n, err = getNode(tx, id)
		if err != nil {
			return err
		}
		if n.HasBody {
			n.Body = getBody(tx, id)
		}
		return nil
	})
	return n, err
}

// GetMany returns the nodes that exist among ids, in the order of ids,
// with bodies when withBody is set. Missing ids are skipped.
func (v *Vault) GetMany(ctx context.Context, ids []uint64, withBody bool) ([]Node, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]Node, 0, len(ids))
	err := v.db.View(func(tx *bolt.Tx) error {
		for _, id := range ids {
			n, err := getNode(tx, id)
			if err != nil {
				continue
			}
			if withBody && n.HasBody {
				n.Body = getBody(tx, id)
			}
			out = append(out, n)
		}
		return nil
	})
	return out, err
}

// Update changes only the fields set in p and bumps UpdatedAt. The result is
// validated like a new node (ErrInvalid); a missing node is ErrNotFound.
func (v *Vault) Update(ctx context.Context, id uint64, p Patch) (Node, error) {
	if p.Confidence != nil {
		if err := checkConfidence(*p.Confidence, "confidence"); err != nil {
			return Node{}, err
		}
	}
	if p.Type != nil && !p.Type.Valid() {
		t, err := ParseNodeType(string(*p.Type))
		if err != nil {
			return Node{}, err
		}
		p.Type = &t
	}
	var out Node
	err := v.update(ctx, "update", func(tx *bolt.Tx, ws *writeSet) error {
		n, err := v.modifyTx(tx, ws, id, func(n *Node) error {
			n.applyPatch(p)
			return nil
		}, p.Title != nil || p.Content != nil || p.Body != nil || p.Tags != nil)
		out = n
		if err != nil {
			return err
		}
		return v.nodeHookTx(tx, n, false)
	})
	return out, err
}

// modifyTx loads a node with its body, lets fn change it, validates and
// stores it.
func (v *Vault) modifyTx(tx *bolt.Tx, ws *writeSet, id uint64, fn func(n *Node) error, textChanged bool) (Node, error) {
	old, err := getNode(tx, id)
	if err != nil {
		return Node{}, err
	}
	if old.HasBody {
		old.Body = getBody(tx, id)
	}
	n := old.clone()
	if err := fn(&n); err != nil {
		return Node{}, err
	}
	if textChanged {
		redactNode(&n)
	}
	if err := n.normalize(v.opts.UserID, false); err != nil {
		return Node{}, err
	}
	n.ID = id
	n.CreatedAt = old.CreatedAt
	n.UpdatedAt = v.now()
	if err := putNodeTx(tx, &n, &old); err != nil {
		return Node{}, err
	}
	ws.putNode(&n, textChanged)
	return n.clone(), nil
}

// Remove deletes a node and every edge touching it: the user forgetting it.
// A node that came from somewhere (an imported file, a build) leaves a
// tombstone (user + source), so an import of the same source does not bring
// it back (see ReadTx.Forgotten).
func (v *Vault) Remove(ctx context.Context, id uint64) error {
	return v.update(ctx, "remove", func(tx *bolt.Tx, ws *writeSet) error {
		n, err := getNode(tx, id)
		if err != nil {
			return err
		}
		if err := putTombstoneTx(tx, n, v.now()); err != nil {
			return err
		}
		if err := v.nodeHookTx(tx, n, true); err != nil {
			return err
		}
		return removeNodeTx(tx, ws, id)
	})
}

// Reinforce raises a node's confidence by ReinforceStep, capped at 1.
func (v *Vault) Reinforce(ctx context.Context, id uint64) (Node, error) {
	return v.adjust(ctx, "reinforce", id, func(n *Node) {
		n.Confidence = round6(min(1, n.Confidence+ReinforceStep))
	})
}

// Demote lowers a node's confidence by DemoteStep, floored at 0.
func (v *Vault) Demote(ctx context.Context, id uint64) (Node, error) {
	return v.adjust(ctx, "demote", id, func(n *Node) {
		n.Confidence = round6(max(0, n.Confidence-DemoteStep))
	})
}

// IncrementHelpful counts one more time the node helped.
func (v *Vault) IncrementHelpful(ctx context.Context, id uint64) (Node, error) {
	return v.adjust(ctx, "helpful", id, func(n *Node) { n.HelpfulCount++ })
}

func (v *Vault) adjust(ctx context.Context, op string, id uint64, fn func(n *Node)) (Node, error) {
	var out Node
	err := v.update(ctx, op, func(tx *bolt.Tx, ws *writeSet) error {
		n, err := v.modifyTx(tx, ws, id, func(n *Node) error { fn(n); return nil }, false)
		out = n
		return err
	})
	return out, err
}

// Link adds a directed edge from → to. Both nodes must exist (ErrNotFound);
// a node cannot link to itself, and strength must be within 0–1 (0 means
// DefaultStrength). Linking an existing from/to/relation triple again
// updates its strength instead of adding a duplicate.
func (v *Vault) Link(ctx context.Context, from, to uint64, rel Relation, strength float64) (Edge, error) {
	if !rel.Valid() {
		r, err := ParseRelation(string(rel))
		if err != nil {
			return Edge{}, err
		}
		rel = r
	}
	if err := checkConfidence(strength, "strength"); err != nil {
		return Edge{}, err
	}
	if strength == 0 {
		strength = DefaultStrength
	}
	if from == to {
		return Edge{}, invalidf("node %d cannot link to itself", from)
	}
	var out Edge
	err := v.update(ctx, "link", func(tx *bolt.Tx, ws *writeSet) error {
		e, err := linkTx(tx, ws, from, to, rel, strength, v.now())
		out = e
		return err
	})
	return out, err
}

func linkTx(tx *bolt.Tx, ws *writeSet, from, to uint64, rel Relation, strength float64, now time.Time) (Edge, error) {
	for _, id := range []uint64{from, to} {
		if !hasNode(tx, id) {
			return Edge{}, fmt.Errorf("link %d → %d: node %d: %w", from, to, id, ErrNotFound)
		}
	}
	if eid := findEdge(tx, from, to, rel); eid != 0 {
		e, err := getEdge(tx, eid)
		if err != nil {
			return Edge{}, err
		}
		e.Strength = strength
		if err := edgeCodec.Put(tx.Bucket(storage.BucketVaultEdges), storage.Key(eid), e); err != nil {
			return Edge{}, fmt.Errorf("store edge %d: %w", eid, err)
		}
		ws.edges = append(ws.edges, eid)
		return e, nil
	}
	e := Edge{From: from, To: to, Relation: rel, Strength: strength, CreatedAt: now}
	if err := putEdgeTx(tx, &e); err != nil {
		return Edge{}, err
	}
	ws.edges = append(ws.edges, e.ID)
	return e, nil
}

// Unlink removes an edge.
func (v *Vault) Unlink(ctx context.Context, edgeID uint64) error {
	return v.update(ctx, "unlink", func(tx *bolt.Tx, ws *writeSet) error {
		return removeEdgeTx(tx, ws, edgeID)
	})
}

// Edge returns one edge.
func (v *Vault) Edge(ctx context.Context, id uint64) (Edge, error) {
	if err := ctx.Err(); err != nil {
		return Edge{}, err
	}
	var e Edge
	err := v.db.View(func(tx *bolt.Tx) error {
		var err error
		e, err = getEdge(tx, id)
		return err
	})
	return e, err
}

// Edges returns the edges touching a node (both directions), ordered by id.
func (v *Vault) Edges(ctx context.Context, id uint64) ([]Edge, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []Edge
	err := v.db.View(func(tx *bolt.Tx) error {
		if !hasNode(tx, id) {
			return fmt.Errorf("node %d: %w", id, ErrNotFound)
		}
		for _, eid := range edgeIDsOf(tx, id, true, true) {
			if e, err := getEdge(tx, eid); err == nil {
				out = append(out, e)
			}
		}
		return nil
	})
	slices.SortFunc(out, func(a, b Edge) int { return cmpU64(a.ID, b.ID) })
	return out, err
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
