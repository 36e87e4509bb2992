package importer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/nova-dev/nova/engine/patterns"
	"github.com/nova-dev/nova/engine/textindex"
	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/storage"
)

// errNoChange rolls back an import that would write nothing.
var errNoChange = errors.New("nothing to import")

// Import scans src and previews (opts.DryRun) or applies the import.
func (im *Importer) Import(ctx context.Context, src Source, opts Options) (Result, error) {
	if _, err := im.resolve(opts); err != nil {
		return Result{}, err
	}
	p, err := im.scan(ctx, src, opts, opts.Split)
	if err != nil {
		return Result{}, err
	}
	p.consume = !opts.DryRun
	if opts.DryRun {
		return im.Preview(ctx, p, opts)
	}
	return im.Apply(ctx, p, opts)
}

// Preview reports what Apply would do with p and opts, writing nothing. When the import would
// take the vault over its tier's node cap, the report comes back with Result.OverCap set and
// that *vault.CapError as the error: the same refusal Apply would give.
func (im *Importer) Preview(ctx context.Context, p *Plan, opts Options) (Result, error) {
	o, err := im.resolveFor(p, opts)
	if err != nil {
		return Result{}, err
	}
	start := time.Now()
	if err := im.ensureEmbed(ctx, p, o); err != nil {
		return Result{}, err
	}
	res := im.newResult(p, o, true)
	err = im.v.WithReadTx(ctx, func(r *vault.ReadTx) error {
		ds, err := im.decide(ctx, r, p, o)
		if err != nil {
			return err
		}
		x := im.newExec(p, o, &res, &dryWriter{v: im.v, r: r, nextID: dryIDBase})
		if err := x.run(ctx, ds); err != nil {
			return err
		}
		if err := r.CheckAdd(res.NodesAdded - res.NodesRemoved); err != nil {
			var ce *vault.CapError
			if !errors.As(err, &ce) {
				return err
			}
			res.OverCap = ce
		}
		return nil
	})
	if err != nil {
		return Result{}, err
	}
	res.finish(start)
	if res.OverCap != nil {
		// The real import would be refused with this error: the dry run
		// reports it the same way, beside its report.
		return res, res.OverCap
	}
	return res, nil
}

// Apply imports p with opts (opts.DryRun makes it a Preview). When nothing would change,
// nothing is written and Result.Batch is 0. An import that would take the vault over its
// tier's node cap is refused with a *vault.CapError before anything is written.
//
// An import that writes at most Config.ChunkFiles files is one write transaction, as it
// always was: cancelling ctx rolls it back. A larger one is written in transactions of
// ChunkFiles files (so its memory does not grow with the library), under the vault's write
// lock; the batch record goes with the first of them, marked pending, and every transaction
// adds to it what it wrote, so the record can always undo exactly what is in the vault. The
// last transaction threads the category chains and completes the record. When a later
// transaction fails or ctx is cancelled, the transactions already committed are undone
// before Apply returns; when the process dies in between, the pending batch reads as
// "interrupted": `nova import undo` removes it, and the next Apply does so first.
func (im *Importer) Apply(ctx context.Context, p *Plan, opts Options) (Result, error) {
	if opts.DryRun {
		return im.Preview(ctx, p, opts)
	}
	o, err := im.resolveFor(p, opts)
	if err != nil {
		return Result{}, err
	}
	if im.db.ReadOnly() {
		return Result{}, fmt.Errorf("import: %w", storage.ErrReadOnly)
	}
	start := time.Now()
	if err := im.ensureEmbed(ctx, p, o); err != nil {
		return Result{}, err
	}
	var res Result
	err = im.v.WithImportSteps(ctx, func(s *vault.ImportSteps) error {
		recovered, err := im.recoverInterrupted(ctx, s)
		if err != nil {
			return err
		}
		var ds []decision
		err = im.v.WithReadTx(ctx, func(r *vault.ReadTx) error {
			var err error
			ds, err = im.decide(ctx, r, p, o)
			return err
		})
		if err != nil {
			return err
		}
		res = im.newResult(p, o, false)
		res.Warnings = append(res.Warnings, recovered...)
		x := im.newExec(p, o, &res, nil)
		// reserve refuses, before the first write, an import that would take the vault
		// over its tier's cap.
		reserve := func(t *vault.ImportTx) error {
			if im.v.Limits().MaxNodes == 0 {
				return nil
			}
			// The tier has a cap: count exactly what the import adds with a dry pass
			// (bounded: a capped vault holds few nodes).
			dry := im.newResult(p, o, true)
			qo := o
			qo.Progress = nil
			if err := im.newExec(p, qo, &dry, &dryWriter{v: im.v, r: &t.ReadTx, nextID: dryIDBase}).run(ctx, ds); err != nil {
				return err
			}
			return t.Reserve(dry.NodesAdded - dry.NodesRemoved)
		}
		bounds := chunkBounds(ds, im.chunkFiles())
		if bounds == nil { // one transaction
			return s.Once(func(t *vault.ImportTx) error {
				if err := reserve(t); err != nil {
					return err
				}
				x.w = &txWriter{t: t}
				if err := x.run(ctx, ds); err != nil {
					return err
				}
				if !res.Changed() {
					return errNoChange
				}
				o.progress(PhaseCommit, 0, 1)
				return nil
			})
		}
		bounds = append([]int{0}, bounds...)
		if !im.cfg.threadAtEnd {
			x.planEarly(ds)
		}
		for c := range bounds {
			first, last := c == 0, c == len(bounds)-1
			from, to := bounds[c], len(ds)
			if !last {
				to = bounds[c+1]
			}
			err := s.Step(func(t *vault.ImportTx) error {
				x.w = &txWriter{t: t}
				if first {
					if err := reserve(t); err != nil {
						return err
					}
					if err := x.begin(); err != nil {
						return err
					}
				}
				if err := x.write(ctx, ds, from, to); err != nil {
					return err
				}
				if !last {
					if err := x.threadReady(to); err != nil {
						return err
					}
					return x.checkpoint()
				}
				return x.threadStep()
			})
			if err != nil && first {
				return err // nothing was written
			}
			if err := im.afterChunk(s, x, err); err != nil {
				return err
			}
		}
		// The category chains and the file records, a group of categories per
		// transaction (so no transaction holds every file record); the last group
		// completes the record.
		for len(x.groups) > 0 {
			err := s.Step(func(t *vault.ImportTx) error {
				x.w = &txWriter{t: t}
				return x.threadStep()
			})
			if err := im.afterChunk(s, x, err); err != nil {
				return err
			}
		}
		// The full-text index, range of terms by range of terms; the last range completes
		// the batch record in its transaction.
		o.progress(PhaseCommit, 0, 1)
		for done := false; !done; {
			var err error
			done, err = s.IndexStep(im.indexBudget(), func(t *vault.ImportTx, done bool) error {
				if !x.stored {
					return nil // nothing changed: no record
				}
				x.w = &txWriter{t: t}
				switch {
				case done:
					x.batch.Pending, x.batch.Indexing = false, false
				case !x.batch.Indexing:
					x.batch.Indexing = true
				default:
					return nil
				}
				return x.w.putBatch(&x.batch)
			})
			if err := im.afterChunk(s, x, err); err != nil {
				return err
			}
		}
		if !res.Changed() {
			res.Batch = 0
		}
		return nil
	})
	switch {
	case errors.Is(err, errNoChange):
		res.Batch = 0
	case err != nil:
		return Result{}, err
	case res.Batch == 0:
	default:
		o.progress(PhaseCommit, 1, 1)
		if im.cfg.OnCommit != nil {
			im.cfg.OnCommit(Commit{Batch: res.Batch, Source: res.Source, Nodes: res.NodesAdded + res.NodesUpdated + res.NodesRemoved})
		}
	}
	res.finish(start)
	return res, nil
}

// DefaultIndexBudget bounds the postings one transaction of a chunked import's full-text
// phase writes (about 1,500 files' worth).
const DefaultIndexBudget = 300_000

func (im *Importer) indexBudget() int {
	if im.cfg.indexBudget > 0 {
		return im.cfg.indexBudget
	}
	return DefaultIndexBudget
}

// afterChunk follows a transaction of a chunked import: err from it (or from the test hook)
// abandons the import, rolled back unless the hook simulates a crash.
func (im *Importer) afterChunk(s *vault.ImportSteps, x *exec, err error) error {
	if err == nil && im.cfg.chunkHook != nil {
		err = im.cfg.chunkHook(x.chunks)
	}
	x.chunks++
	if errors.Is(err, errSimulatedCrash) {
		return err // as if the process died here: nothing is rolled back
	}
	if err != nil {
		return im.abandon(s, x.batch.ID, err)
	}
	im.db.ReleaseMapped()
	return nil
}

// DefaultChunkFiles is the number of files an import writes per transaction when it writes
// more than that (Config.ChunkFiles).
const DefaultChunkFiles = 1000

func (im *Importer) chunkFiles() int {
	if im.cfg.ChunkFiles > 0 {
		return im.cfg.ChunkFiles
	}
	return DefaultChunkFiles
}

// chunkBounds splits the decisions into chunks of at most size files that write (new or
// updated): the start index of every chunk after the first (which starts at 0), nil when
// the files that write fit in one chunk.
func chunkBounds(ds []decision, size int) []int {
	var bounds []int
	n := 0
	for i, d := range ds {
		if d.action != ActionNew && d.action != ActionUpdated {
			continue
		}
		if n > 0 && n%size == 0 {
			bounds = append(bounds, i)
		}
		n++
	}
	return bounds
}

// errSimulatedCrash, returned by a test's chunk hook, stops a chunked import between two
// transactions without rolling it back, as a killed process would.
var errSimulatedCrash = errors.New("simulated crash")

// abandon rolls back the committed transactions of a chunked import that failed (cause),
// in one transaction that runs even when ctx is cancelled. When that fails too, the batch
// stays pending: the next import, or `nova import undo`, removes it.
func (im *Importer) abandon(s *vault.ImportSteps, id uint64, cause error) error {
	err := s.Unindexed(func(t *vault.ImportTx) error {
		return im.rollbackTx(context.Background(), t, id)
	})
	if err != nil {
		return errors.Join(cause, fmt.Errorf("roll back the unfinished import batch %d: %w (the next import, or `nova import undo %d`, removes it)", id, err, id))
	}
	return cause
}

// recoverInterrupted rolls back the batches an import left pending when its process died
// between two of its transactions, one transaction each, before anything else is written.
// It returns a warning per batch.
func (im *Importer) recoverInterrupted(ctx context.Context, s *vault.ImportSteps) ([]string, error) {
	var pending []Batch
	err := im.v.WithReadTx(ctx, func(r *vault.ReadTx) error {
		for _, id := range pendingBatches(r.Bolt()) {
			bt, err := getBatch(r.Bolt(), id)
			if err != nil {
				return err
			}
			pending = append(pending, bt)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var warnings []string
	for _, bt := range pending {
		if err := s.Unindexed(func(t *vault.ImportTx) error { return im.rollbackTx(ctx, t, bt.ID) }); err != nil {
			return nil, fmt.Errorf("roll back the interrupted import batch %d: %w", bt.ID, err)
		}
		warnings = append(warnings, fmt.Sprintf("import batch %d from %s was interrupted; its %d nodes were removed before this import", bt.ID, bt.Source, len(bt.Added)))
	}
	return warnings, nil
}

func (im *Importer) newResult(p *Plan, o Options, dry bool) Result {
	res := Result{
		DryRun: dry, Source: p.Label, User: o.User, Split: o.Split,
		BaseConfidence: o.BaseConfidence, DedupThreshold: o.DedupThreshold,
	}
	p.mu.Lock()
	if p.embedWarn != "" && !o.NoDedup {
		res.Warnings = append(res.Warnings, p.embedWarn)
	}
	p.mu.Unlock()
	return res
}

// decision is what happens to one parsed file.
type decision struct {
	action Action
	skip   SkipKind
	reason string
	// rec is the file's record, if it has one (possibly stale: its node is gone).
	rec   *fileRecord
	dupOf string
	dupID uint64
	sim   float64
}

// effectiveSplit says whether a file gets section nodes.
func effectiveSplit(o Options, d *patterns.Doc) bool { return o.Split && len(d.Sections) > 0 }

// decide classifies every doc: excluded, unchanged, updated, duplicate or new.
func (im *Importer) decide(ctx context.Context, r *vault.ReadTx, p *Plan, o Options) ([]decision, error) {
	docs := p.Scan.Docs
	ds := make([]decision, len(docs))
	excluded := make(map[string]bool, len(o.Exclude))
	for _, e := range o.Exclude {
		excluded[e] = true
	}
	tx := r.Bolt()
	var candidates []int
	for i := range docs {
		d := &docs[i]
		if excluded[d.SourceFile] {
			ds[i] = decision{action: ActionSkipped, skip: skipExcluded, reason: reasonExcluded}
			continue
		}
		rec, err := getFile(tx, fileKey(o.User, d.SourceFile))
		if err != nil {
			return nil, err
		}
		ds[i].rec = rec
		if tomb, ok := r.Forgotten(o.User, d.SourceFile); ok && (rec == nil || !r.Has(rec.NodeID)) {
			ds[i] = decision{action: ActionSkipped, skip: skipForgotten, rec: rec,
				reason: fmt.Sprintf("forgotten: you removed its node %d on %s, so it is not imported again", tomb.NodeID, tomb.ForgottenAt.Format("2006-01-02"))}
			continue
		}
		if rec != nil && !r.Has(rec.NodeID) && r.IsArchived(rec.NodeID) {
			ds[i] = decision{action: ActionSkipped, skip: skipArchived, rec: rec,
				reason: fmt.Sprintf("archived: its node %d was moved to the archive by the tier cap; `nova vault archive restore %d` brings it back", rec.NodeID, rec.NodeID)}
			continue
		}
		if rec == nil || !r.Has(rec.NodeID) {
			ds[i].action = ActionNew
			candidates = append(candidates, i)
			continue
		}
		if rec.Hash == d.ContentHash && rec.Split == effectiveSplit(o, d) && sectionsExist(r, rec) {
			ds[i].action, ds[i].skip = ActionSkipped, skipUnchanged
			ds[i].reason = fmt.Sprintf("unchanged since batch %d", rec.Batch)
			continue
		}
		ds[i].action = ActionUpdated
	}
	if o.NoDedup || len(candidates) == 0 {
		return ds, nil
	}

	dd := newDedup(o.DedupThreshold)
	stored := map[uint64][]byte{}
	c := tx.Bucket(storage.BucketImportFiles).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if rec, err := fileCodec.Unmarshal(v); err == nil && len(rec.Sig) > 0 {
			stored[rec.NodeID] = rec.Sig
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Files of the batch that keep their node are compared with their new text.
	keep := 0
	for i := range docs {
		if ds[i].action == ActionUpdated || ds[i].skip == skipUnchanged {
			keep++
		}
	}
	// Room for the vault's imported nodes and the kept files (the others grow the maps); the
	// new files are not added to the LSH (batchNear).
	dd.lsh.Reserve(len(stored) + keep)
	dd.loadVault(r, stored)
	for i := range docs {
		if ds[i].action == ActionUpdated || ds[i].skip == skipUnchanged {
			_ = dd.lsh.AddShared(ds[i].rec.NodeID, p.sigs[i]) // signatures are never changed
		}
	}
	hasNode := func(i int) bool {
		a := ds[i].action
		return a == ActionNew || a == ActionUpdated || ds[i].skip == skipUnchanged
	}
	var cancelled error
	dd.batchNear(p.sigs, candidates, func(k int, m textindex.Match, ok bool) bool {
		i := candidates[k]
		if cancelled = cmp.Or(cancelled, ctx.Err()); cancelled != nil {
			return false
		}
		if ok {
			ds[i].action, ds[i].sim = ActionDuplicate, round3(m.Similarity)
			if m.ID&batchBit != 0 {
				ds[i].dupOf = docs[m.ID&^batchBit].SourceFile
			} else {
				ds[i].dupID, ds[i].dupOf = m.ID, nodeLabel(r, m.ID)
			}
			ds[i].reason = fmt.Sprintf("near-duplicate of %s (similarity %.2f)", ds[i].dupOf, ds[i].sim)
			return false
		}
		if em, ok := embedOf(p, i); ok {
			switch {
			case em.Doc >= 0 && em.Doc < i && hasNode(em.Doc):
				ds[i].action, ds[i].dupOf = ActionDuplicate, docs[em.Doc].SourceFile
			case em.Node > 0 && r.Has(em.Node):
				ds[i].action, ds[i].dupID, ds[i].dupOf = ActionDuplicate, em.Node, nodeLabel(r, em.Node)
			}
			if ds[i].action == ActionDuplicate {
				ds[i].sim = round3(em.Cosine)
				ds[i].reason = fmt.Sprintf("same meaning as %s (embedding similarity %.2f)", ds[i].dupOf, ds[i].sim)
				return false
			}
		}
		return true
	})
	if cancelled != nil {
		return nil, cancelled
	}
	return ds, nil
}

func sectionsExist(r *vault.ReadTx, rec *fileRecord) bool {
	for _, id := range rec.Sections {
		if !r.Has(id) {
			return false
		}
	}
	return true
}

func nodeLabel(r *vault.ReadTx, id uint64) string {
	n, err := r.Get(id, false)
	if err != nil || n.Source == "" || n.Source == vault.SourceManual {
		return fmt.Sprintf("node %d", id)
	}
	return fmt.Sprintf("node %d (%s)", id, n.Source)
}

func round3(x float64) float64 { return float64(int(x*1000+0.5)) / 1000 }

// writer is what the executor writes through: the vault's import transaction, or a dry
// writer that only counts.
type writer interface {
	read() *vault.ReadTx
	has(id uint64) bool
	add(n vault.Node) (id uint64, err error)
	replace(n vault.Node) (vault.Node, error)
	remove(id uint64) error
	link(from, to uint64, rel vault.Relation) (id uint64, created bool, err error)
	unlink(id uint64) error
	edge(id uint64) (vault.Edge, bool)
	edgesOf(id uint64) []vault.Edge
	nextBatchID() (uint64, error)
	putFile(key []byte, rec *fileRecord, sig textindex.Signature) error
	putBatch(b *Batch) error
	deleteBatch(id uint64) error
	dry() bool
}

// exec applies decisions through a writer and fills the result and the batch record.
type exec struct {
	im    *Importer
	p     *Plan
	o     Options
	w     writer
	res   *Result
	batch Batch
	// files holds what the batch does to each file record it changes (by key); pending
	// lists, by category, those changed and not written yet (see setPending).
	files     map[string]*fileState
	pending   map[string][]*fileState
	cats      map[string]bool
	addedEdge map[uint64]bool
	reports   [][]NodeReport // by doc index: the file's report, then its sections
	// stored says a (pending) batch record was written by a checkpoint.
	stored bool
	// chunks counts the transactions of a chunked import, for Config.chunkHook.
	chunks int
	// heads is rethread's view of the user's stored file records, by category (read once,
	// in the transaction that threads first; a category's go once it is threaded); groups
	// are the categories still to thread, by transaction, in a chunked import (threadStep).
	heads  map[string][]fileHeadKey
	groups [][]string
	// early, when set, threads the category chains chunk by chunk (planEarly): order lists
	// every category the import may touch, sorted, next is the first of them not threaded
	// yet, and last[c] is the index of the last decision that may touch c.
	early bool
	order []string
	next  int
	last  map[string]int
}

func (im *Importer) newExec(p *Plan, o Options, res *Result, w writer) *exec {
	return &exec{
		im: im, p: p, o: o, w: w, res: res,
		files: map[string]*fileState{}, pending: map[string][]*fileState{},
		cats: map[string]bool{}, addedEdge: map[uint64]bool{}, reports: make([][]NodeReport, len(p.Scan.Docs)),
	}
}

// fileState is what a batch does to one file record (exec.files): one entry for the
// record's previous value, its pending value and whether it is noted in the batch record,
// looked up once per step (the record's key is a long string, hashed for every lookup).
type fileState struct {
	key string
	// orig is the record before the batch (nil: none; hasOrig: set).
	orig    *fileRecord
	hasOrig bool
	// rec is the record changed and not written yet (nil: none), sig its signature when the
	// batch computed one (stored as its Sig, see marshalFileRecord).
	rec *fileRecord
	sig textindex.Signature
	// filed says the key is in batch.Files.
	filed bool
}

// fileHeadKey is a stored record's head and its key.
type fileHeadKey struct {
	key string
	r   *fileRecord
}

// state returns the file state of key, made on first use.
func (x *exec) state(key string) *fileState {
	st := x.files[key]
	if st == nil {
		st = &fileState{key: key}
		x.files[key] = st
	}
	return st
}

// setPending makes rec (whose category is final) the pending record of st.
func (x *exec) setPending(st *fileState, rec *fileRecord, sig textindex.Signature) {
	if st.rec == nil {
		x.pending[rec.Category] = append(x.pending[rec.Category], st)
	}
	st.rec, st.sig = rec, sig
}

// run does the whole import through one writer: begin, write every doc, finish.
func (x *exec) run(ctx context.Context, ds []decision) error {
	if err := x.begin(); err != nil {
		return err
	}
	if err := x.write(ctx, ds, 0, len(ds)); err != nil {
		return err
	}
	return x.finish()
}

// begin numbers the batch and starts its record.
func (x *exec) begin() error {
	id, err := x.w.nextBatchID()
	if err != nil {
		return err
	}
	x.batch = Batch{
		ID: id, Source: x.p.Label, User: x.o.User, Time: x.im.now(), Split: x.o.Split,
		BaseConfidence: x.o.BaseConfidence, DedupThreshold: x.o.DedupThreshold,
		Added: []uint64{}, AddedEdges: []uint64{}, Updated: []vault.Node{}, Removed: []vault.Node{},
		RemovedEdges: []vault.Edge{}, Files: []FileChange{},
	}
	x.res.Batch = id
	x.o.progress(PhaseWrite, 0, len(x.p.Scan.Docs))
	return nil
}

// write applies the decisions of docs [from, to).
func (x *exec) write(ctx context.Context, ds []decision, from, to int) error {
	docs := x.p.Scan.Docs
	for i := from; i < to; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		d := ds[i]
		rep := x.report(i, d)
		var err error
		switch d.action {
		case ActionNew:
			err = x.addFile(i, d, &rep)
		case ActionUpdated:
			err = x.updateFile(i, d, &rep)
		}
		if err != nil {
			return err
		}
		x.reports[i] = append([]NodeReport{rep}, x.reports[i]...)
		x.o.progress(PhaseWrite, i+1, len(docs))
		if x.p.consume && !x.w.dry() {
			// Written: the reports and records have what is left to do (collect needs
			// the path only).
			docs[i] = patterns.Doc{SourceFile: docs[i].SourceFile}
			x.p.sigs[i] = nil
			for r := range x.reports[i] {
				x.reports[i][r].detach()
			}
		}
	}
	return nil
}

// putPending writes the file records changed since the last call and notes their previous
// value in the batch record (once per key).
func (x *exec) putPending() error {
	cats := make([]string, 0, len(x.pending))
	for c := range x.pending {
		cats = append(cats, c)
	}
	return x.putPendingOf(cats)
}

// putPendingOf is putPending for the pending records of the categories cats (the others
// stay pending), in key order.
func (x *exec) putPendingOf(cats []string) error {
	var sts []*fileState
	for _, c := range cats {
		sts = append(sts, x.pending[c]...)
		delete(x.pending, c)
	}
	slices.SortFunc(sts, func(a, b *fileState) int { return strings.Compare(a.key, b.key) })
	for _, st := range sts {
		rec := st.rec
		rec.Batch = x.batch.ID
		if err := x.w.putFile([]byte(st.key), rec, st.sig); err != nil {
			return err
		}
		if !st.filed {
			st.filed = true
			x.batch.Files = append(x.batch.Files, FileChange{Key: st.key, Before: st.orig})
		}
		st.rec, st.sig = nil, nil
	}
	return nil
}

// checkpoint ends one transaction of a chunked import: the batch record, marked pending, so
// that an undo removes exactly what is committed. The file records wait for the last chunk
// (finish): the category chains change most of them again there, and until they are
// written an undo has nothing to restore of them.
func (x *exec) checkpoint() error {
	x.batch.Pending = true
	x.stored = true
	return x.w.putBatch(&x.batch)
}

// planEarly lets a chunked import thread each category chain, and write the file records of
// the category, in the transaction that writes the category's last file (threadReady),
// rather than holding every record (and its 1 KB signature) for transactions of their own
// after the last chunk. Categories are threaded in their sorted order, each once, as in one
// transaction, so the chain edges get the same ids; a category waits for every category
// before it. Not when the writes themselves add or remove edges (section nodes: split mode,
// or an updated file that had sections): their edge ids and the batch record's edge lists
// would then interleave with the chains' differently than in one transaction.
func (x *exec) planEarly(ds []decision) {
	if x.o.Split {
		return
	}
	docs := x.p.Scan.Docs
	last := map[string]int{}
	for i, d := range ds {
		if d.action != ActionNew && d.action != ActionUpdated {
			continue
		}
		if d.rec != nil {
			if len(d.rec.Sections) > 0 {
				return
			}
			last[d.rec.Category] = i
		}
		last[docs[i].Category] = i
	}
	x.early, x.last = true, last
	x.order = make([]string, 0, len(last))
	for c := range last {
		x.order = append(x.order, c)
	}
	sort.Strings(x.order)
}

// threadReady ends a chunk of an import that threads early (planEarly), whose decisions
// before to are written: it threads the next categories in order that no later decision
// touches, and writes their file records, noted in the pending batch record of the same
// transaction (checkpoint).
func (x *exec) threadReady(to int) error {
	if !x.early {
		return nil
	}
	var cats []string
	for ; x.next < len(x.order) && x.last[x.order[x.next]] < to; x.next++ {
		if c := x.order[x.next]; x.cats[c] {
			cats = append(cats, c)
		}
	}
	if len(cats) == 0 {
		return nil
	}
	return x.threadCats(cats)
}

// threadCats threads the chains of cats (in order) and writes their pending file records;
// the categories are done: later calls neither thread nor read them again.
func (x *exec) threadCats(cats []string) error {
	if err := x.rethreadCats(cats); err != nil {
		return err
	}
	for _, c := range cats {
		delete(x.cats, c)
		delete(x.heads, c) // threaded: not read again
	}
	return x.putPendingOf(cats)
}

// threadBudget bounds the file records one transaction of a chunked import's threading
// phase writes (threadStep): about two chunks' worth (Config.threadBudget in tests).
func (im *Importer) threadBudget() int {
	if im.cfg.threadBudget > 0 {
		return im.cfg.threadBudget
	}
	return 2 * DefaultChunkFiles
}

// threadStep ends the last write transaction of a chunked import, and each transaction
// after it: it threads the chains of the next group of touched categories and writes
// their file records (noting them in the batch record, still pending, in the same
// transaction, so an undo restores exactly what is committed), or, for the last group,
// finishes the batch. The chains are threaded in the same order, with the same edge ids, as
// in one transaction; groups only bound how many records one transaction writes.
func (x *exec) threadStep() error {
	if x.groups == nil {
		x.groups = x.threadGroups(x.im.threadBudget())
	}
	if len(x.groups) <= 1 {
		x.groups = nil
		return x.finish() // threads what is left
	}
	g := x.groups[0]
	x.groups = x.groups[1:]
	if err := x.threadCats(g); err != nil {
		return err
	}
	return x.checkpoint()
}

// threadGroups splits the touched categories, in order, into groups of about budget
// pending file records each (at least one group).
func (x *exec) threadGroups(budget int) [][]string {
	per := map[string]int{}
	for c, sts := range x.pending {
		per[c] = len(sts)
	}
	cats := x.sortedCats()
	groups := [][]string{}
	var g []string
	n := 0
	for _, c := range cats {
		if len(g) > 0 && n+per[c] > budget {
			groups = append(groups, g)
			g, n = nil, 0
		}
		g = append(g, c)
		n += per[c]
	}
	return append(groups, g)
}

func (x *exec) sortedCats() []string {
	cats := make([]string, 0, len(x.cats))
	for c := range x.cats {
		cats = append(cats, c)
	}
	sort.Strings(cats)
	return cats
}

// finish threads the category chains, collects the reports and completes the batch record.
// When nothing changed, nothing more is written (and a pending record of a chunked import
// that wrote nothing is removed).
func (x *exec) finish() error {
	if err := x.rethread(); err != nil {
		return err
	}
	x.collect()
	if !x.res.Changed() {
		if x.stored {
			x.stored = false
			return x.w.deleteBatch(x.batch.ID)
		}
		return nil
	}
	if err := x.putPending(); err != nil {
		return err
	}
	// Chunks noted their files in path order, then the chains touched older records.
	slices.SortStableFunc(x.batch.Files, func(a, b FileChange) int { return strings.Compare(a.Key, b.Key) })
	x.batch.Counts = BatchCounts{
		Files: x.res.Files, Loaded: x.res.Loaded, Skipped: x.res.Skipped, Errors: x.res.Errors,
		New: x.res.New, Updated: x.res.Updated, Unchanged: x.res.Unchanged, Duplicates: x.res.Duplicates,
		NodesAdded: x.res.NodesAdded, NodesUpdated: x.res.NodesUpdated, NodesRemoved: x.res.NodesRemoved,
		EdgesAdded: x.res.EdgesAdded, EdgesRemoved: x.res.EdgesRemoved,
	}
	x.stored = true // still pending when the full-text phase follows (Apply clears it)
	return x.w.putBatch(&x.batch)
}

// report is the file's report before anything is written.
func (x *exec) report(i int, d decision) NodeReport {
	doc := &x.p.Scan.Docs[i]
	dr := doc.Draft(x.o.draftOptions())
	rep := NodeReport{
		Title: dr.Title, Category: dr.Category, Type: dr.Type, Priority: dr.Priority,
		Reusability: dr.Reusability, CodeExamples: dr.CodeExampleCount, SourceFile: dr.Source,
		Action: d.action, Reason: d.reason, Confidence: dr.Confidence, Language: dr.Language,
		Tags: dr.Tags, Summary: dr.Content, DuplicateOf: d.dupOf, Similarity: d.sim, Warnings: slices.Clone(doc.Warnings),
		Skip: d.skip,
	}
	if effectiveSplit(x.o, doc) {
		rep.Sections = len(doc.Sections)
	}
	if d.rec != nil && (d.action == ActionUpdated || d.skip == skipUnchanged) {
		rep.ID = d.rec.NodeID
	}
	return rep
}

// fatal tells errors that abort the transaction from per-node validation failures.
func fatal(err error) bool { return err != nil && !errors.Is(err, vault.ErrInvalid) }

func (x *exec) addFile(i int, d decision, rep *NodeReport) error {
	doc := &x.p.Scan.Docs[i]
	id, err := x.w.add(x.node(doc.Draft(x.o.draftOptions())))
	if err != nil {
		if fatal(err) {
			return err
		}
		rep.Action, rep.Reason = ActionError, "invalid node: "+err.Error()
		return nil
	}
	x.res.NodesAdded++
	x.batch.Added = append(x.batch.Added, id)
	if !x.w.dry() {
		rep.ID = id
	}
	rec := &fileRecord{
		User: x.o.User, Source: doc.SourceFile, Root: x.p.Label, Hash: doc.ContentHash,
		NodeID: id, Category: doc.Category,
	}
	st := x.state(string(fileKey(x.o.User, doc.SourceFile)))
	st.orig, st.hasOrig = d.rec, true
	if d.rec != nil {
		// A stale record (its node was deleted): its category chain needs re-threading too.
		x.cats[d.rec.Category] = true
	}
	x.setPending(st, rec, x.p.sigs[i])
	x.cats[doc.Category] = true
	if effectiveSplit(x.o, doc) {
		rec.Split = true
		rec.Sections = map[string]uint64{}
		for _, sd := range doc.SectionDrafts(x.o.draftOptions()) {
			srep, err := x.addSection(id, sd, rec)
			if err != nil {
				return err
			}
			x.reports[i] = append(x.reports[i], srep)
		}
	}
	return nil
}

// sectionReport describes a section draft.
func (x *exec) sectionReport(sd patterns.NodeDraft, action Action) NodeReport {
	return NodeReport{
		Title: sd.Title, Category: sd.Category, Type: sd.Type, Priority: sd.Priority,
		Reusability: sd.Reusability, CodeExamples: sd.CodeExampleCount, SourceFile: sd.Source,
		Action: action, Confidence: sd.Confidence, Language: sd.Language, Tags: sd.Tags,
		Summary: sd.Content, ParentSource: sd.ParentSource,
	}
}

func (x *exec) addSection(parent uint64, sd patterns.NodeDraft, rec *fileRecord) (NodeReport, error) {
	if tomb, ok := x.w.read().Forgotten(x.o.User, sd.Source); ok {
		srep := x.sectionReport(sd, ActionSkipped)
		srep.Reason = fmt.Sprintf("forgotten: you removed its node %d, so it is not imported again", tomb.NodeID)
		return srep, nil
	}
	srep := x.sectionReport(sd, ActionNew)
	sid, err := x.w.add(x.node(sd))
	if err != nil {
		if fatal(err) {
			return srep, err
		}
		srep.Action, srep.Reason = ActionError, "invalid node: "+err.Error()
		return srep, nil
	}
	x.res.NodesAdded++
	x.batch.Added = append(x.batch.Added, sid)
	if !x.w.dry() {
		srep.ID = sid
	}
	rec.Sections[sd.Anchor] = sid
	return srep, x.ensureLink(sid, parent, vault.Refines)
}

func (x *exec) ensureLink(from, to uint64, rel vault.Relation) error {
	id, created, err := x.w.link(from, to, rel)
	if err != nil {
		return err
	}
	if created {
		x.res.EdgesAdded++
		x.batch.AddedEdges = append(x.batch.AddedEdges, id)
		x.addedEdge[id] = true
	}
	return nil
}

// replaceNode replaces node id with n, keeping what the vault learned about it.
func (x *exec) replaceNode(id uint64, n vault.Node) (bool, error) {
	before, err := x.w.read().Get(id, true)
	if err != nil {
		return false, err
	}
	n.ID = id
	n.HelpfulCount = before.HelpfulCount
	n.GlobalSuccessCount = before.GlobalSuccessCount
	if _, err := x.w.replace(n); err != nil {
		if fatal(err) {
			return false, err
		}
		return false, nil
	}
	x.res.NodesUpdated++
	x.batch.Updated = append(x.batch.Updated, before)
	return true, nil
}

func (x *exec) updateFile(i int, d decision, rep *NodeReport) error {
	doc := &x.p.Scan.Docs[i]
	n := x.node(doc.Draft(x.o.draftOptions()))
	if err := x.im.v.CheckNode(n); err != nil {
		rep.Action, rep.Reason = ActionError, "invalid node: "+err.Error()
		return nil
	}
	ok, err := x.replaceNode(d.rec.NodeID, n)
	if err != nil {
		return err
	}
	if !ok {
		rep.Action, rep.Reason = ActionError, "invalid node"
		return nil
	}
	st := x.state(string(fileKey(x.o.User, doc.SourceFile)))
	st.orig, st.hasOrig = d.rec, true
	rec := d.rec.clone()
	x.cats[d.rec.Category] = true
	x.cats[doc.Category] = true
	rec.Root, rec.Hash, rec.Category = x.p.Label, doc.ContentHash, doc.Category
	rec.Sig = nil
	x.setPending(st, rec, x.p.sigs[i])
	rec.Split = effectiveSplit(x.o, doc)

	old := rec.Sections
	rec.Sections = nil
	if rec.Split {
		rec.Sections = map[string]uint64{}
		for _, sd := range doc.SectionDrafts(x.o.draftOptions()) {
			sid, had := old[sd.Anchor]
			if had && x.w.has(sid) {
				srep := x.sectionReport(sd, ActionUpdated)
				srep.ID = sid
				ok, err := x.replaceNode(sid, x.node(sd))
				if err != nil {
					return err
				}
				if !ok {
					srep.Action, srep.Reason = ActionError, "invalid node"
				}
				rec.Sections[sd.Anchor] = sid
				if err := x.ensureLink(sid, rec.NodeID, vault.Refines); err != nil {
					return err
				}
				x.reports[i] = append(x.reports[i], srep)
				continue
			}
			srep, err := x.addSection(rec.NodeID, sd, rec)
			if err != nil {
				return err
			}
			x.reports[i] = append(x.reports[i], srep)
		}
	}
	anchors := make([]string, 0, len(old))
	for a := range old {
		anchors = append(anchors, a)
	}
	sort.Strings(anchors)
	for _, a := range anchors {
		if _, kept := rec.Sections[a]; kept {
			continue
		}
		if err := x.removeNode(old[a]); err != nil {
			return err
		}
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("section #%s is gone: its node %d is removed", a, old[a]))
	}
	return nil
}

// removeNode deletes a node the batch no longer wants, keeping it and its edges for undo.
func (x *exec) removeNode(id uint64) error {
	if !x.w.has(id) {
		return nil
	}
	before, err := x.w.read().Get(id, true)
	if err != nil {
		return err
	}
	for _, e := range x.w.edgesOf(id) {
		if x.addedEdge[e.ID] {
			x.dropAddedEdge(e.ID)
			continue
		}
		x.batch.RemovedEdges = append(x.batch.RemovedEdges, e)
		x.res.EdgesRemoved++
	}
	if err := x.w.remove(id); err != nil {
		return err
	}
	x.batch.Removed = append(x.batch.Removed, before)
	x.res.NodesRemoved++
	return nil
}

func (x *exec) dropAddedEdge(id uint64) {
	delete(x.addedEdge, id)
	x.batch.AddedEdges = slices.DeleteFunc(x.batch.AddedEdges, func(e uint64) bool { return e == id })
	x.res.EdgesAdded--
}

// mutable returns the pending copy of a record, making one on first change. r may be a
// record's head (userFileHeads): the copy is made from the whole stored record.
func (x *exec) mutable(key string, r *fileRecord) (*fileRecord, error) {
	st := x.files[key]
	if st != nil && st.rec != nil {
		return st.rec, nil
	}
	full, err := getFile(x.w.read().Bolt(), []byte(key))
	if err != nil {
		return nil, err
	}
	if full == nil { // the head was read in this transaction: it cannot be gone
		return nil, fmt.Errorf("import record %s: %w", r.Source, storage.ErrCorrupt)
	}
	if st == nil {
		st = x.state(key)
	}
	if !st.hasOrig {
		st.orig, st.hasOrig = full, true
	}
	c := full.clone()
	x.setPending(st, c, nil)
	return c, nil
}

// rethread makes the `supports` chain of every touched category link each file node to the
// next one (path order): stale chain edges are removed, missing ones added.
func (x *exec) rethread() error {
	if len(x.cats) == 0 {
		return nil
	}
	return x.rethreadCats(x.sortedCats())
}

// rethreadCats is rethread for the categories cats, in that order. The stored records are
// read once per import: a later call (the next group of a chunked import, or the next chunk
// when it threads early) threads other categories, whose records the earlier calls did not
// change; the records pending since the last call are added.
func (x *exec) rethreadCats(cats []string) error {
	var err error
	if x.heads == nil {
		x.heads = map[string][]fileHeadKey{}
		for _, r := range userFileHeads(x.w.read().Bolt(), x.o.User) {
			x.heads[r.Category] = append(x.heads[r.Category], fileHeadKey{string(fileKey(r.User, r.Source)), r})
		}
	}
	// The chains of cats: the pending records of each category, and the stored records the
	// batch has not changed (a changed one is pending, or was written with a category
	// threaded before: then it is in no chain threaded now).
	chains := make([][]fileHeadKey, len(cats))
	for c, cat := range cats {
		for _, st := range x.pending[cat] {
			if x.w.has(st.rec.NodeID) {
				chains[c] = append(chains[c], fileHeadKey{st.key, st.rec})
			}
		}
		for _, h := range x.heads[cat] {
			if x.files[h.key] == nil && x.w.has(h.r.NodeID) {
				chains[c] = append(chains[c], h)
			}
		}
	}
	for c := range cats {
		chain := chains[c]
		slices.SortFunc(chain, func(a, b fileHeadKey) int { return strings.Compare(a.r.Source, b.r.Source) })
		for i, l := range chain {
			r := l.r
			var want uint64
			if i+1 < len(chain) {
				want = chain[i+1].r.NodeID
			}
			if r.NextEdge != 0 {
				e, ok := x.w.edge(r.NextEdge)
				if ok && e.From == r.NodeID && e.To == want {
					continue
				}
				if ok {
					if x.addedEdge[e.ID] {
						x.dropAddedEdge(e.ID)
					} else {
						x.batch.RemovedEdges = append(x.batch.RemovedEdges, e)
						x.res.EdgesRemoved++
					}
					if err := x.w.unlink(e.ID); err != nil {
						return err
					}
				}
				if r, err = x.mutable(l.key, r); err != nil {
					return err
				}
				r.NextEdge = 0
			}
			if want == 0 {
				continue
			}
			id, created, err := x.w.link(r.NodeID, want, vault.Supports)
			if err != nil {
				return err
			}
			if created {
				x.res.EdgesAdded++
				x.batch.AddedEdges = append(x.batch.AddedEdges, id)
				x.addedEdge[id] = true
				if r, err = x.mutable(l.key, r); err != nil {
					return err
				}
				r.NextEdge = id
			}
		}
	}
	return nil
}

// collect puts every report in path order (files, then their sections) and counts.
func (x *exec) collect() {
	type row struct {
		path string
		reps []NodeReport
	}
	rows := make([]row, 0, len(x.p.Scan.Docs)+len(x.p.Scan.Skipped)+len(x.p.Scan.Errors))
	for i, d := range x.p.Scan.Docs {
		rows = append(rows, row{d.SourceFile, x.reports[i]})
	}
	for _, s := range x.p.Scan.Skipped {
		rows = append(rows, row{s.Path, []NodeReport{{
			Title: path.Base(s.Path), SourceFile: s.Path, Action: ActionSkipped, Reason: reasonMeta, Skip: skipMeta,
		}}})
	}
	for _, e := range x.p.Scan.Errors {
		reason := e.Reason
		if e.Line > 0 && !startsWithLine(reason) {
			reason = fmt.Sprintf("line %d: %s", e.Line, reason)
		}
		rows = append(rows, row{e.Path, []NodeReport{{
			Title: path.Base(e.Path), SourceFile: e.Path, Action: ActionError, Reason: reason,
		}}})
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].path < rows[j].path })
	n := 0
	for _, r := range rows {
		n += len(r.reps)
	}
	x.res.Nodes = slices.Grow(x.res.Nodes[:0], n)
	for _, r := range rows {
		x.res.Nodes = append(x.res.Nodes, r.reps...)
	}
	x.res.count()
}

func startsWithLine(s string) bool { return len(s) > 5 && s[:5] == "line " }

// dryIDBase numbers the nodes and edges a dry run pretends to create.
const dryIDBase = uint64(1) << 62

// dryWriter counts instead of writing.
type dryWriter struct {
	v        *vault.Vault
	r        *vault.ReadTx
	nextID   uint64
	added    map[uint64]bool
	removed  map[uint64]bool
	edges    map[uint64]vault.Edge
	unlinked map[uint64]bool
}

func (w *dryWriter) init() {
	if w.added == nil {
		w.added, w.removed = map[uint64]bool{}, map[uint64]bool{}
		w.edges, w.unlinked = map[uint64]vault.Edge{}, map[uint64]bool{}
	}
}

func (w *dryWriter) read() *vault.ReadTx { return w.r }
func (w *dryWriter) dry() bool           { return true }

func (w *dryWriter) has(id uint64) bool {
	w.init()
	return w.added[id] || (!w.removed[id] && w.r.Has(id))
}

func (w *dryWriter) add(n vault.Node) (uint64, error) {
	w.init()
	if err := w.v.CheckNode(n); err != nil {
		return 0, err
	}
	w.nextID++
	w.added[w.nextID] = true
	return w.nextID, nil
}

func (w *dryWriter) replace(n vault.Node) (vault.Node, error) {
	return n, w.v.CheckNode(n)
}

func (w *dryWriter) remove(id uint64) error {
	w.init()
	w.removed[id] = true
	delete(w.added, id)
	return nil
}

func (w *dryWriter) link(from, to uint64, rel vault.Relation) (uint64, bool, error) {
	w.init()
	if e, ok := w.r.FindEdge(from, to, rel); ok && !w.unlinked[e.ID] {
		return e.ID, false, nil
	}
	for id, e := range w.edges {
		if e.From == from && e.To == to && e.Relation == rel {
			return id, false, nil
		}
	}
	w.nextID++
	w.edges[w.nextID] = vault.Edge{ID: w.nextID, From: from, To: to, Relation: rel}
	return w.nextID, true, nil
}

func (w *dryWriter) unlink(id uint64) error {
	w.init()
	w.unlinked[id] = true
	delete(w.edges, id)
	return nil
}

func (w *dryWriter) edge(id uint64) (vault.Edge, bool) {
	w.init()
	if e, ok := w.edges[id]; ok {
		return e, true
	}
	if w.unlinked[id] {
		return vault.Edge{}, false
	}
	e, err := w.r.Edge(id)
	if err != nil || w.removed[e.From] || w.removed[e.To] {
		return vault.Edge{}, false
	}
	return e, true
}

func (w *dryWriter) edgesOf(id uint64) []vault.Edge {
	var out []vault.Edge
	for _, e := range w.r.Edges(id) {
		if !w.unlinked[e.ID] {
			out = append(out, e)
		}
	}
	return out
}

func (w *dryWriter) nextBatchID() (uint64, error)                           { return 0, nil }
func (w *dryWriter) putFile([]byte, *fileRecord, textindex.Signature) error { return nil }
func (w *dryWriter) putBatch(*Batch) error                                  { return nil }
func (w *dryWriter) deleteBatch(uint64) error                               { return nil }

// txWriter writes through the vault's import transaction.
type txWriter struct{ t *vault.ImportTx }

func (w *txWriter) read() *vault.ReadTx                      { return &w.t.ReadTx }
func (w *txWriter) dry() bool                                { return false }
func (w *txWriter) has(id uint64) bool                       { return w.t.Has(id) }
func (w *txWriter) add(n vault.Node) (uint64, error)         { return w.t.AddID(n) }
func (w *txWriter) replace(n vault.Node) (vault.Node, error) { return w.t.Replace(n) }
func (w *txWriter) remove(id uint64) error                   { return w.t.Remove(id) }
func (w *txWriter) unlink(id uint64) error                   { return w.t.Unlink(id) }

func (w *txWriter) link(from, to uint64, rel vault.Relation) (uint64, bool, error) {
	e, created, err := w.t.Link(from, to, rel, 0)
	return e.ID, created, err
}

func (w *txWriter) edge(id uint64) (vault.Edge, bool) {
	e, err := w.t.Edge(id)
	return e, err == nil
}

func (w *txWriter) edgesOf(id uint64) []vault.Edge { return w.t.Edges(id) }

func (w *txWriter) nextBatchID() (uint64, error) {
	b := w.t.Bolt().Bucket(storage.BucketImports)
	if b == nil {
		return 0, fmt.Errorf("imports bucket missing: %w", storage.ErrCorrupt)
	}
	return storage.NextID(b)
}

func (w *txWriter) putFile(key []byte, rec *fileRecord, sig textindex.Signature) error {
	b := w.t.Bolt().Bucket(storage.BucketImportFiles)
	if b == nil {
		return fmt.Errorf("import_files bucket missing: %w", storage.ErrCorrupt)
	}
	return putFile(b, key, rec, sig)
}

func (w *txWriter) putBatch(bt *Batch) error {
	return putBatch(w.t.Bolt().Bucket(storage.BucketImports), bt)
}

func (w *txWriter) deleteBatch(id uint64) error {
	return w.t.Bolt().Bucket(storage.BucketImports).Delete(storage.Key(id))
}

func embedOf(p *Plan, i int) (embedMatch, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	em, ok := p.embed[i]
	return em, ok
}

// node is the vault node of a draft, labelled with the library it was
// imported from (knowledge hits name it).
func (x *exec) node(d patterns.NodeDraft) vault.Node {
	n := nodeFor(d)
	if x.p != nil && x.p.Label != "" {
		n.Meta[MetaLibrary] = x.p.Label
	}
	return n
}
