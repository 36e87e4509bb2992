package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/nova-dev/nova/engine/importer"
	"github.com/nova-dev/nova/engine/vault"
)

// ImportVerbs are the verbs of pattern-library import: scanned plans, batches, undo.
type ImportVerbs interface {
	// ImportPatterns imports every *.md file under dir in one undoable batch
	// (or reports what it would do, DryRun). Progress: TopicImport
	// EventProgress events carrying o.Op. An import over the tier's node cap
	// is refused before anything is written (vault.ErrOverCap); a dry run
	// over the cap is a report with Result.OverCap set, not an error (the
	// same holds for ScanPatterns' preview, PreviewImport and a dry
	// ApplyImport).
	ImportPatterns(ctx context.Context, dir string, o ImportOptions) (importer.Result, error)
	// ImportStarterPatterns imports the workspace's starter library
	// (.nova/patterns, else the copy the binary carries); a no-op when
	// unchanged.
	ImportStarterPatterns(ctx context.Context) (importer.Result, error)
	// ScanPatterns reads and parses a library without writing and keeps the
	// plan in the engine for PreviewImport / ApplyImport (drop it with
	// DropImportPlan). Progress as for ImportPatterns.
	ScanPatterns(ctx context.Context, dir string, o ImportOptions) (ImportPlan, error)
	// PreviewImport reports what applying a scanned plan with o would do.
	//rpc:idempotent
	PreviewImport(ctx context.Context, planID string, o ImportOptions) (importer.Result, error)
	// ApplyImport imports a scanned plan in one batch and remembers its
	// folder among the recent sources.
	ApplyImport(ctx context.Context, planID string, o ImportOptions) (importer.Result, error)
	// ImportPlanBody returns the markdown body of one file of a plan.
	//rpc:idempotent
	ImportPlanBody(ctx context.Context, planID, sourceFile string) (string, error)
	// DropImportPlan forgets a scanned plan.
	DropImportPlan(ctx context.Context, planID string) error
	// ImportDefaults returns the options an import uses when none are given.
	//rpc:idempotent
	ImportDefaults(ctx context.Context) (ImportOptions, error)
	// RecentImportSources lists the folders imported from, newest first.
	//rpc:idempotent
	RecentImportSources(ctx context.Context) ([]string, error)
	// ListImports lists the import batches, newest first.
	//rpc:idempotent
	ListImports(ctx context.Context) ([]importer.Batch, error)
	// GetImport returns one import batch.
	//rpc:idempotent
	GetImport(ctx context.Context, id uint64) (importer.Batch, error)
	// UndoImport reverts a batch: what it added goes, what it changed comes
	// back.
	UndoImport(ctx context.Context, id uint64) (importer.UndoResult, error)
}

// importArea implements ImportVerbs over the workspace's services.
type importArea struct{ *core }

var _ ImportVerbs = importArea{}

// ImportPatterns implements ImportVerbs.
func (l importArea) ImportPatterns(ctx context.Context, dir string, o ImportOptions) (importer.Result, error) {
	if !filepath.IsAbs(dir) {
		return importer.Result{}, fmt.Errorf("import %s: %w", dir, ErrRelativePath)
	}
	res, err := l.Importer().Import(ctx, importer.DirSource(dir), l.importProgress(o))
	if o.DryRun {
		return reportOverCap(res, err)
	}
	return res, err
}

// ImportStarterPatterns implements ImportVerbs: .nova/patterns when it is
// there, else the copy in Options.Defaults.
func (l importArea) ImportStarterPatterns(ctx context.Context) (importer.Result, error) {
	src := importer.DirSource(l.ws.Path("patterns"))
	if st, err := os.Stat(src.Dir); err != nil || !st.IsDir() {
		if l.defaults == nil {
			return importer.Result{}, fmt.Errorf("%w: %s", importer.ErrNoSource, src.Dir)
		}
		sub, err := fs.Sub(l.defaults, ".nova/patterns")
		if err != nil {
			return importer.Result{}, err
		}
		src = importer.FSSource("embedded:.nova/patterns", sub)
	}
	return l.Importer().Import(ctx, src, importer.Options{User: importer.StarterUser})
}

// ScanPatterns implements ImportVerbs.
func (l importArea) ScanPatterns(ctx context.Context, dir string, o ImportOptions) (ImportPlan, error) {
	if !filepath.IsAbs(dir) {
		return ImportPlan{}, fmt.Errorf("scan %s: %w", dir, ErrRelativePath)
	}
	im := l.Importer()
	p, err := im.Scan(ctx, importer.DirSource(dir), l.importProgress(o))
	if err != nil {
		return ImportPlan{}, err
	}
	res, err := reportOverCap(im.Preview(ctx, p, o.importer()))
	if err != nil {
		return ImportPlan{}, err
	}
	return ImportPlan{ID: l.plans.put(p), Source: p.Label, Files: len(p.Docs()), Preview: res}, nil
}

// PreviewImport implements ImportVerbs.
func (l importArea) PreviewImport(ctx context.Context, planID string, o ImportOptions) (importer.Result, error) {
	p, err := l.plans.get(planID)
	if err != nil {
		return importer.Result{}, err
	}
	return reportOverCap(l.Importer().Preview(ctx, p, o.importer()))
}

// ApplyImport implements ImportVerbs.
func (l importArea) ApplyImport(ctx context.Context, planID string, o ImportOptions) (importer.Result, error) {
	p, err := l.plans.get(planID)
	if err != nil {
		return importer.Result{}, err
	}
	im := l.Importer()
	res, err := im.Apply(ctx, p, l.importProgress(o))
	if o.DryRun {
		return reportOverCap(res, err)
	}
	if err == nil && !o.DryRun && p.Source.Dir != "" {
		// Forgetting a recent folder is not worth failing a committed import for.
		_ = im.RememberSource(context.WithoutCancel(ctx), p.Source.Dir)
	}
	return res, err
}

// ImportPlanBody implements ImportVerbs.
func (l importArea) ImportPlanBody(ctx context.Context, planID, sourceFile string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	p, err := l.plans.get(planID)
	if err != nil {
		return "", err
	}
	for _, d := range p.Docs() {
		if d.SourceFile == sourceFile {
			return d.Body, nil
		}
	}
	return "", fmt.Errorf("%s was not parsed: %w", sourceFile, importer.ErrNoSource)
}

// DropImportPlan implements ImportVerbs.
func (l importArea) DropImportPlan(ctx context.Context, planID string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	l.plans.drop(planID)
	return nil
}

// ImportDefaults implements ImportVerbs.
func (l importArea) ImportDefaults(ctx context.Context) (ImportOptions, error) {
	if err := ctx.Err(); err != nil {
		return ImportOptions{}, err
	}
	return importOptionsOf(l.Importer().Defaults()), nil
}

// RecentImportSources implements ImportVerbs.
func (l importArea) RecentImportSources(ctx context.Context) ([]string, error) {
	return l.Importer().RecentSources(ctx)
}

// ListImports implements ImportVerbs.
func (l importArea) ListImports(ctx context.Context) ([]importer.Batch, error) {
	return l.Importer().Batches(ctx)
}

// GetImport implements ImportVerbs.
func (l importArea) GetImport(ctx context.Context, id uint64) (importer.Batch, error) {
	return l.Importer().Batch(ctx, id)
}

// UndoImport implements ImportVerbs.
func (l importArea) UndoImport(ctx context.Context, id uint64) (importer.UndoResult, error) {
	return l.Importer().Undo(ctx, id)
}

// maxPlans bounds the scanned plans an engine keeps (a wizard holds one;
// the oldest goes first).
const maxPlans = 8

// planStore keeps scanned import plans between ScanPatterns and
// ApplyImport.
type planStore struct {
	mu    sync.Mutex
	seq   uint64
	plans map[string]*importer.Plan
	order []string
}

func (s *planStore) put(p *importer.Plan) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.plans == nil {
		s.plans = map[string]*importer.Plan{}
	}
	s.seq++
	id := fmt.Sprintf("plan-%d", s.seq)
	s.plans[id] = p
	s.order = append(s.order, id)
	for len(s.order) > maxPlans {
		delete(s.plans, s.order[0])
		s.order = s.order[1:]
	}
	return id
}

func (s *planStore) get(id string) (*importer.Plan, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.plans[id]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNoSuchPlan, id)
	}
	return p, nil
}

func (s *planStore) drop(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.plans, id)
	for i, have := range s.order {
		if have == id {
			s.order = append(s.order[:i], s.order[i+1:]...)
			break
		}
	}
}

// progress returns the importer's progress callback for o: droppable
// TopicImport events carrying o.Op.
func (l *core) importProgress(o ImportOptions) importer.Options {
	io := o.importer()
	op := o.Op
	io.Progress = func(p importer.Progress) {
		l.Publish(Event{Type: EventProgress, Topic: TopicImport, Op: op, Status: string(p.Phase), Done: p.Done, Total: p.Total})
	}
	return io
}

// reportOverCap makes a dry run over the tier cap a report, not an error:
// the importer returns the report with Result.OverCap set AND the
// *vault.CapError; over the facade the report is the answer (one result or
// an error, never both, so a remote caller loses nothing) and the caller
// reads OverCap.
func reportOverCap(res importer.Result, err error) (importer.Result, error) {
	var ce *vault.CapError
	if err != nil && res.OverCap != nil && errors.As(err, &ce) {
		return res, nil
	}
	return res, err
}
