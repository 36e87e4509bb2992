package importer

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nova-dev/nova/engine/patterns"
	"github.com/nova-dev/nova/engine/textindex"
	"github.com/nova-dev/nova/engine/vault"
)

// Plan is a parsed library: what Scan read, ready for Preview and Apply. A Plan is not tied to
// options, so a wizard can preview it again with other options without re-reading the files.
// It is safe to share between goroutines.
type Plan struct {
	Source Source
	// Label names the source (absolute directory or FS name).
	Label string
	// Scan is the parser's result; every Doc carries its split sections, but not its Fields
	// and FrontMatter (what Parse read them for is in the Doc's other fields).
	Scan patterns.ScanResult
	// ScannedAt is when Scan finished.
	ScannedAt time.Time

	sigs []textindex.Signature // per Scan.Docs entry
	// noSections: the docs were parsed without their sections (Import's own plan, for an
	// import without Options.Split); such a plan cannot be applied with Split.
	noSections bool
	// consume lets Apply drop each doc's text and signature once the doc is written: the
	// plan is Import's own, used once.
	consume bool

	mu         sync.Mutex         // guards the embedding test's results
	embedTried bool               // the embedding test ran (or failed)
	embed      map[int]embedMatch // doc index → most similar earlier doc or vault node
	// embedWarn explains why the embedding test did not run ("" when it ran or was off).
	embedWarn string
}

// Docs returns the parsed files, in path order.
func (p *Plan) Docs() []patterns.Doc { return p.Scan.Docs }

// Scan reads and parses every *.md file of src (nothing is written). Missing or non-directory
// sources give ErrNoSource. Per-file problems are in the plan, not errors. Progress reports
// PhaseScan per file, then PhaseDedup while signatures are computed.
func (im *Importer) Scan(ctx context.Context, src Source, opts Options) (*Plan, error) {
	return im.scan(ctx, src, opts, true)
}

// scan is Scan; sections says whether the docs carry their split sections (a plan that only
// Import uses needs them only with Options.Split: parsing them is a tenth of the scan).
func (im *Importer) scan(ctx context.Context, src Source, opts Options, sections bool) (*Plan, error) {
	sopts := patterns.ScanOptions{
		Parse:   patterns.ParseOptions{Split: sections},
		Workers: im.cfg.Workers,
		Progress: func(done, total int) {
			opts.progress(PhaseScan, done, total)
		},
	}
	var (
		res patterns.ScanResult
		err error
	)
	if src.Dir != "" {
		st, serr := os.Stat(src.Dir)
		switch {
		case serr != nil:
			return nil, fmt.Errorf("%w: %s: %w", ErrNoSource, src.Dir, serr)
		case !st.IsDir():
			return nil, fmt.Errorf("%w: %s is not a directory", ErrNoSource, src.Dir)
		}
		res, err = patterns.Scan(ctx, src.Dir, sopts)
	} else if src.FS != nil {
		res, err = patterns.ScanFS(ctx, src.FS, sopts)
	} else {
		return nil, fmt.Errorf("%w: empty source", ErrNoSource)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w: %w", ErrNoSource, err)
	}
	// Nothing after the parser reads the header fields and the front matter: a plan lives
	// until its files are written, and these small maps were a tenth of its memory.
	for i := range res.Docs {
		res.Docs[i].Fields, res.Docs[i].FrontMatter = nil, nil
	}
	p := &Plan{Source: src, Label: src.Label(), Scan: res, noSections: !sections}
	if p.sigs, err = signatures(ctx, res.Docs, im.cfg.Workers, opts); err != nil {
		return nil, err
	}
	p.ScannedAt = im.now()
	return p, nil
}

// ensureEmbed runs the embedding duplicate test once per plan, and only when it can matter:
// an embedder is configured, dedup is on and some file has no node yet. It runs outside any
// write transaction (it waits on the network, within Config.EmbedTimeout).
func (im *Importer) ensureEmbed(ctx context.Context, p *Plan, o Options) error {
	if o.NoDedup || im.cfg.Embedder == nil || im.cfg.EmbedModel == "" {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.embedTried {
		return nil
	}
	needed := false
	excluded := make(map[string]bool, len(o.Exclude))
	for _, e := range o.Exclude {
		excluded[e] = true
	}
	err := im.v.WithReadTx(ctx, func(r *vault.ReadTx) error {
		for i := range p.Scan.Docs {
			if excluded[p.Scan.Docs[i].SourceFile] {
				continue
			}
			rec, err := getFile(r.Bolt(), fileKey(o.User, p.Scan.Docs[i].SourceFile))
			if err != nil {
				return err
			}
			if rec == nil || !r.Has(rec.NodeID) {
				needed = true
				return nil
			}
		}
		return nil
	})
	if err != nil || !needed {
		return err
	}
	p.embed, p.embedWarn = im.embedMatches(ctx, p.Scan.Docs)
	p.embedTried = true
	return ctx.Err()
}

// Near-duplicate signatures: MinHash over word 3-shingles.
const (
	sigHashes  = 128
	shingleLen = 3
)

var minHasher = func() *textindex.MinHasher {
	m, err := textindex.NewMinHasher(sigHashes, 1)
	if err != nil {
		panic(err) // constant parameters
	}
	return m
}()

// signatureOf is the signature of the text a signature covers: the title and the body (the
// summary when a node has no body), so that a file and the node it became have the same
// signature. It is the shingle signature of title + "\n" + body, hashed without joining them.
func signatureOf(title, body, content string) textindex.Signature {
	if body == "" {
		body = content
	}
	return minHasher.ShingleSignatureJoined(shingleLen, title, body)
}

// signatures computes the docs' signatures in parallel.
func signatures(ctx context.Context, docs []patterns.Doc, workers int, opts Options) ([]textindex.Signature, error) {
	sigs := make([]textindex.Signature, len(docs))
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, len(docs)))
	// Workers take the next doc from a counter (no feeder goroutine: two goroutine switches
	// per doc less).
	var next atomic.Int64
	finished := make(chan struct{}, len(docs))
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= len(docs) {
					return
				}
				sigs[i] = signatureOf(docs[i].Title, docs[i].Body, docs[i].Description)
				finished <- struct{}{}
			}
		})
	}
	go func() { wg.Wait(); close(finished) }()
	opts.progress(PhaseDedup, 0, len(docs))
	done := 0
	for range finished {
		done++
		opts.progress(PhaseDedup, done, len(docs))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return sigs, nil
}
