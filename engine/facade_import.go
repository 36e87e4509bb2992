package engine

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/nova-dev/nova/engine/importer"
)

// Pattern-library import verbs of the Workspace facade (engine/importer.go
// wires the importer). Progress arrives as TopicImport EventProgress events
// carrying the caller's ImportOptions.Op.

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
func (l *Local) importProgress(o ImportOptions) importer.Options {
	io := o.importer()
	op := o.Op
	io.Progress = func(p importer.Progress) {
		l.Publish(Event{Type: EventProgress, Topic: TopicImport, Op: op, Status: string(p.Phase), Done: p.Done, Total: p.Total})
	}
	return io
}

// ImportPatterns implements Workspace.
func (l *Local) ImportPatterns(ctx context.Context, dir string, o ImportOptions) (importer.Result, error) {
	if !filepath.IsAbs(dir) {
		return importer.Result{}, fmt.Errorf("import %s: %w", dir, ErrRelativePath)
	}
	return l.Importer().Import(ctx, importer.DirSource(dir), l.importProgress(o))
}

// ImportStarterPatterns implements Workspace: .nova/patterns when it is
// there, else the copy in Options.Defaults.
func (l *Local) ImportStarterPatterns(ctx context.Context) (importer.Result, error) {
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

// ScanPatterns implements Workspace.
func (l *Local) ScanPatterns(ctx context.Context, dir string, o ImportOptions) (ImportPlan, error) {
	if !filepath.IsAbs(dir) {
		return ImportPlan{}, fmt.Errorf("scan %s: %w", dir, ErrRelativePath)
	}
	im := l.Importer()
	p, err := im.Scan(ctx, importer.DirSource(dir), l.importProgress(o))
	if err != nil {
		return ImportPlan{}, err
	}
	res, err := im.Preview(ctx, p, o.importer())
	if err != nil {
		return ImportPlan{}, err
	}
	return ImportPlan{ID: l.plans.put(p), Source: p.Label, Files: len(p.Docs()), Preview: res}, nil
}

// PreviewImport implements Workspace.
func (l *Local) PreviewImport(ctx context.Context, planID string, o ImportOptions) (importer.Result, error) {
	p, err := l.plans.get(planID)
	if err != nil {
		return importer.Result{}, err
	}
	return l.Importer().Preview(ctx, p, o.importer())
}

// ApplyImport implements Workspace.
func (l *Local) ApplyImport(ctx context.Context, planID string, o ImportOptions) (importer.Result, error) {
	p, err := l.plans.get(planID)
	if err != nil {
		return importer.Result{}, err
	}
	im := l.Importer()
	res, err := im.Apply(ctx, p, l.importProgress(o))
	if err == nil && !o.DryRun && p.Source.Dir != "" {
		// Forgetting a recent folder is not worth failing a committed import for.
		_ = im.RememberSource(context.WithoutCancel(ctx), p.Source.Dir)
	}
	return res, err
}

// ImportPlanBody implements Workspace.
func (l *Local) ImportPlanBody(ctx context.Context, planID, sourceFile string) (string, error) {
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

// DropImportPlan implements Workspace.
func (l *Local) DropImportPlan(ctx context.Context, planID string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	l.plans.drop(planID)
	return nil
}

// ImportDefaults implements Workspace.
func (l *Local) ImportDefaults(ctx context.Context) (ImportOptions, error) {
	if err := ctx.Err(); err != nil {
		return ImportOptions{}, err
	}
	return importOptionsOf(l.Importer().Defaults()), nil
}

// RecentImportSources implements Workspace.
func (l *Local) RecentImportSources(ctx context.Context) ([]string, error) {
	return l.Importer().RecentSources(ctx)
}

// ListImports implements Workspace.
func (l *Local) ListImports(ctx context.Context) ([]importer.Batch, error) {
	return l.Importer().Batches(ctx)
}

// GetImport implements Workspace.
func (l *Local) GetImport(ctx context.Context, id uint64) (importer.Batch, error) {
	return l.Importer().Batch(ctx, id)
}

// UndoImport implements Workspace.
func (l *Local) UndoImport(ctx context.Context, id uint64) (importer.UndoResult, error) {
	return l.Importer().Undo(ctx, id)
}
