package importer

import (
	"context"
	"errors"
	"fmt"

	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/storage"
)

// UndoResult counts what an undo changed.
type UndoResult struct {
	Batch         uint64 `json:"batch"`
	Source        string `json:"source"`
	NodesRemoved  int    `json:"nodesRemoved"`
	EdgesRemoved  int    `json:"edgesRemoved"`
	NodesRestored int    `json:"nodesRestored"`
	EdgesRestored int    `json:"edgesRestored"`
	// ArchivedRemoved counts nodes the batch added that the tier cap had
	// archived: they are removed from the archive.
	ArchivedRemoved int `json:"archivedRemoved"`
	// Missing counts nodes or edges the batch added that were already gone.
	Missing int `json:"missing"`
}

// Undo reverts batch id in one transaction: the nodes and edges it added are removed, the
// nodes it replaced or removed get their previous value back (same ids), and the file records
// are restored, so importing the same files again behaves as before the batch. A batch whose
// nodes a later, still active batch changed gives ErrUndoBlocked; undo the later one first.
func (im *Importer) Undo(ctx context.Context, id uint64) (UndoResult, error) {
	if im.db.ReadOnly() {
		return UndoResult{}, fmt.Errorf("undo: %w", storage.ErrReadOnly)
	}
	out := UndoResult{Batch: id}
	err := im.v.WithImportTx(ctx, func(t *vault.ImportTx) error {
		out = UndoResult{Batch: id}
		tx := t.Bolt()
		bt, err := getBatch(tx, id)
		if err != nil {
			return err
		}
		out.Source = bt.Source
		if bt.UndoneAt != nil {
			return fmt.Errorf("batch %d: %w (%s)", id, ErrAlreadyUndone, bt.UndoneAt.Format("2006-01-02 15:04"))
		}
		if err := blockingBatch(t, &bt); err != nil {
			return err
		}
		if bt.Pending {
			dropUnindexed(t, &bt)
		}
		if err := undoTx(ctx, t, &bt, &out); err != nil {
			return err
		}
		now := im.now()
		bt.UndoneAt = &now
		bt.Pending = false
		return putBatch(tx.Bucket(storage.BucketImports), &bt)
	})
	if err != nil {
		return UndoResult{}, err
	}
	if im.cfg.OnCommit != nil {
		im.cfg.OnCommit(Commit{Batch: id, Undo: true, Source: out.Source, Nodes: out.NodesRemoved + out.NodesRestored})
	}
	return out, nil
}

// undoTx removes what bt added and restores what it changed, in t, counting into out.
func undoTx(ctx context.Context, t *vault.ImportTx, bt *Batch, out *UndoResult) error {
	tx := t.Bolt()
	for _, eid := range bt.AddedEdges {
		if _, err := t.Edge(eid); err != nil {
			out.Missing++
			continue
		}
		if err := t.Unlink(eid); err != nil {
			return err
		}
		out.EdgesRemoved++
	}
	for _, nid := range bt.Added {
		if !t.Has(nid) {
			// Archived by the tier cap: the undo removes it from the
			// archive too, so that nothing of the batch comes back.
			dropped, err := t.DropArchived(nid)
			if err != nil {
				return err
			}
			if dropped {
				out.ArchivedRemoved++
			} else {
				out.Missing++
			}
			continue
		}
		out.EdgesRemoved += len(t.Edges(nid))
		if err := t.Remove(nid); err != nil {
			return err
		}
		out.NodesRemoved++
	}
	for _, list := range [][]vault.Node{bt.Updated, bt.Removed} {
		for _, n := range list {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := t.Restore(n); err != nil {
				return err
			}
			out.NodesRestored++
		}
	}
	for _, e := range bt.RemovedEdges {
		if err := t.RestoreEdge(e); err != nil {
			if errors.Is(err, vault.ErrNotFound) {
				out.Missing++
				continue
			}
			return err
		}
		out.EdgesRestored++
	}
	files := tx.Bucket(storage.BucketImportFiles)
	for _, fc := range bt.Files {
		if fc.Before == nil {
			if err := files.Delete([]byte(fc.Key)); err != nil {
				return err
			}
			continue
		}
		if err := putFile(files, []byte(fc.Key), fc.Before, nil); err != nil {
			return err
		}
	}
	return nil
}

// rollbackTx undoes batch id, which a chunked import left pending, and deletes its record:
// the import never finished, so nothing of it stays, not even an undone batch.
func (im *Importer) rollbackTx(ctx context.Context, t *vault.ImportTx, id uint64) error {
	bt, err := getBatch(t.Bolt(), id)
	if err != nil {
		return err
	}
	dropUnindexed(t, &bt)
	var out UndoResult
	if err := undoTx(ctx, t, &bt, &out); err != nil {
		return err
	}
	return t.Bolt().Bucket(storage.BucketImports).Delete(storage.Key(id))
}

// dropUnindexed prepares t to undo a batch a chunked import left pending: its text never
// reached the full-text index, or only part of it did (then the index is built again from
// the nodes at the end of t).
func dropUnindexed(t *vault.ImportTx, bt *Batch) {
	t.DropText()
	if bt.Indexing {
		t.RebuildTextIndex()
	}
}

// blockingBatch returns ErrUndoBlocked when a later batch that is still active touched a node
// of bt: replaced or removed it, or added or removed an edge at it (undoing bt first would
// pull nodes from under that batch's record).
func blockingBatch(t *vault.ImportTx, bt *Batch) error {
	mine := bt.touches()
	c := t.Bolt().Bucket(storage.BucketImports).Cursor()
	for k, v := c.Seek(storage.Key(bt.ID + 1)); k != nil; k, v = c.Next() {
		later, err := batchCodec.Unmarshal(v)
		if err != nil || later.UndoneAt != nil {
			continue
		}
		touched := later.touches()
		for _, e := range later.RemovedEdges {
			touched[e.From], touched[e.To] = true, true
		}
		for _, eid := range later.AddedEdges {
			if e, err := t.Edge(eid); err == nil {
				touched[e.From], touched[e.To] = true, true
			}
		}
		for nid := range touched {
			if mine[nid] {
				id := storage.ParseKey(k)
				return fmt.Errorf("batch %d: %w: batch %d changed node %d or its links; undo batch %d first",
					bt.ID, ErrUndoBlocked, id, nid, id)
			}
		}
	}
	return nil
}
