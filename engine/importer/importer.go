package importer

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/nova-dev/nova/engine/patterns"
	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/storage"
)

// Sentinel errors callers branch on.
var (
	// ErrNoSource: the source directory is missing, not a directory or unreadable.
	ErrNoSource = errors.New("no pattern library there")
	// ErrBatchNotFound: no batch with that id.
	ErrBatchNotFound = errors.New("import batch not found")
	// ErrAlreadyUndone: the batch was undone before.
	ErrAlreadyUndone = errors.New("import batch already undone")
	// ErrUndoBlocked: a later batch changed the same nodes; undo that one first.
	ErrUndoBlocked = errors.New("a later import batch changed the same nodes")
	// ErrBadOption: an option is out of range (confidence, threshold, user).
	ErrBadOption = errors.New("invalid import option")
)

// Defaults.
const (
	// DefaultDedupThreshold is the Jaccard similarity (word 3-shingles) at which a new file is
	// a near-duplicate, unless import.dedupThreshold says otherwise.
	DefaultDedupThreshold = 0.8
	// EmbedThreshold is the cosine similarity of embeddings (title + summary) at which two
	// patterns are duplicates when an embedding model is available.
	EmbedThreshold = 0.97
	// DefaultEmbedTimeout bounds the whole embedding step of one scan.
	DefaultEmbedTimeout = 3 * time.Second
	// maxEmbedInputs caps the texts embedded for one scan (batch plus existing nodes).
	maxEmbedInputs = 512
	// StarterUser owns the starter library `nova init` imports.
	StarterUser = "nova-starter"
)

// Embedder computes embeddings; *llm.Client implements it.
type Embedder interface {
	Embed(ctx context.Context, model string, inputs []string) ([][]float32, error)
}

// Config wires an Importer.
type Config struct {
	// DedupThreshold and BaseConfidence are the workspace defaults (config import.*); 0 means
	// DefaultDedupThreshold and patterns.DefaultBaseConfidence.
	DedupThreshold float64
	BaseConfidence float64
	// Embedder and EmbedModel enable the embedding duplicate test; both must be set.
	Embedder     Embedder
	EmbedModel   string
	EmbedTimeout time.Duration
	// Workers parse files in parallel; 0 means GOMAXPROCS.
	Workers int
	// ChunkFiles is the number of files an import writes per transaction when it writes
	// more; 0 means DefaultChunkFiles.
	ChunkFiles int
	// OnCommit is called after a batch (or an undo) is committed, outside the transaction.
	OnCommit func(Commit)
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	// chunkHook, in tests, runs after each committed chunk but the last (numbered from 0);
	// an error stops the import there, errSimulatedCrash as if the process died.
	chunkHook func(chunk int) error
	// threadBudget, in tests, replaces the number of file records a transaction of a
	// chunked import's threading phase writes (Importer.threadBudget).
	threadBudget int
	// indexBudget, in tests, replaces the number of postings a transaction of a chunked
	// import's full-text phase writes (Importer.indexBudget).
	indexBudget int
	// threadAtEnd, in tests, makes a chunked import thread every category chain after its
	// last chunk, as it does when the chains cannot be threaded chunk by chunk (exec.early).
	threadAtEnd bool
}

// Commit describes a committed batch or undo, for Config.OnCommit.
type Commit struct {
	Batch  uint64 `json:"batch"`
	Undo   bool   `json:"undo"`
	Source string `json:"source"`
	Nodes  int    `json:"nodes"` // nodes written or removed
}

// Importer imports pattern libraries into one workspace's vault. It is safe for concurrent
// use; writes are serialised by the database.
type Importer struct {
	db  *storage.DB
	v   *vault.Vault
	cfg Config
}

// New returns an importer over db and its vault. It does no I/O.
func New(db *storage.DB, v *vault.Vault, cfg Config) *Importer {
	if cfg.DedupThreshold <= 0 || cfg.DedupThreshold > 1 {
		cfg.DedupThreshold = DefaultDedupThreshold
	}
	if cfg.BaseConfidence <= 0 || cfg.BaseConfidence > 1 {
		cfg.BaseConfidence = patterns.DefaultBaseConfidence
	}
	if cfg.EmbedTimeout <= 0 {
		cfg.EmbedTimeout = DefaultEmbedTimeout
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Importer{db: db, v: v, cfg: cfg}
}

// Defaults returns the options an import uses when the caller sets none: the workspace's base
// confidence and dedup threshold, the default user.
func (im *Importer) Defaults() Options {
	return Options{User: patterns.DefaultUser, BaseConfidence: im.cfg.BaseConfidence, DedupThreshold: im.cfg.DedupThreshold}
}

// ReadOnly reports whether writes will fail (the workspace was opened read-only).
func (im *Importer) ReadOnly() bool { return im.db.ReadOnly() }

func (im *Importer) now() time.Time { return im.cfg.Now().UTC() }

// Source is where a library comes from: a directory, or a file system (the starter library
// embedded in the binary).
type Source struct {
	// Dir is a directory on disk; it wins over FS.
	Dir string
	// FS and Name describe an fs.FS source; Name labels it in batches ("embedded:.nova/patterns").
	FS   fs.FS
	Name string
}

// DirSource is the directory dir.
func DirSource(dir string) Source { return Source{Dir: dir} }

// FSSource is a file system labelled name.
func FSSource(name string, fsys fs.FS) Source { return Source{FS: fsys, Name: name} }

// Label names the source in batches and reports: the absolute directory, or the FS name.
func (s Source) Label() string {
	if s.Dir != "" {
		if abs, err := filepath.Abs(s.Dir); err == nil {
			return abs
		}
		return s.Dir
	}
	if s.Name != "" {
		return s.Name
	}
	return "fs"
}

// Phase names a stage of an import, for progress.
type Phase string

// Phases, in order.
const (
	PhaseScan   Phase = "scan"
	PhaseDedup  Phase = "dedup"
	PhaseWrite  Phase = "write"
	PhaseCommit Phase = "commit"
)

// Progress is one progress report: Done of Total units of Phase.
type Progress struct {
	Phase Phase `json:"phase"`
	Done  int   `json:"done"`
	Total int   `json:"total"`
}

// Options tunes one import. The zero value imports with the workspace defaults.
type Options struct {
	// DryRun makes Import report what it would do and write nothing.
	DryRun bool `json:"dryRun"`
	// Split adds one node per "## Pattern…" section, linked to its file's node (refines).
	Split bool `json:"split"`
	// User owns the nodes and namespaces the file records; "" means "bistrolens-import".
	User string `json:"user"`
	// BaseConfidence is the base of the confidence formula; 0 means the workspace default.
	BaseConfidence float64 `json:"baseConfidence"`
	// DedupThreshold is the near-duplicate Jaccard threshold in (0, 1]; 0 means the workspace
	// default.
	DedupThreshold float64 `json:"dedupThreshold"`
	// NoDedup turns the near-duplicate test off.
	NoDedup bool `json:"noDedup,omitempty"`
	// Exclude lists source files (paths relative to the root) to leave out.
	Exclude []string `json:"exclude,omitempty"`
	// Progress, when set, is called from the importing goroutine, never concurrently.
	Progress func(Progress) `json:"-"`
}

// resolve fills defaults and validates.
func (im *Importer) resolve(o Options) (Options, error) {
	if o.User == "" {
		o.User = patterns.DefaultUser
	}
	if len(o.User) > 128 || !printable(o.User) {
		return o, errorf(ErrBadOption, "user %q: at most 128 printable characters", o.User)
	}
	if o.BaseConfidence == 0 {
		o.BaseConfidence = im.cfg.BaseConfidence
	}
	if !(o.BaseConfidence > 0 && o.BaseConfidence <= 1) {
		return o, errorf(ErrBadOption, "base confidence %v: want a value in (0, 1]", o.BaseConfidence)
	}
	if o.DedupThreshold == 0 {
		o.DedupThreshold = im.cfg.DedupThreshold
	}
	if !(o.DedupThreshold > 0 && o.DedupThreshold <= 1) {
		return o, errorf(ErrBadOption, "dedup threshold %v: want a value in (0, 1]", o.DedupThreshold)
	}
	return o, nil
}

// resolveFor is resolve for a plan: a plan scanned without sections cannot be split.
func (im *Importer) resolveFor(p *Plan, o Options) (Options, error) {
	if o.Split && p.noSections {
		return o, errorf(ErrBadOption, "split: the plan was scanned without its sections; scan it with Importer.Scan")
	}
	return im.resolve(o)
}

func (o Options) progress(p Phase, done, total int) {
	if o.Progress != nil {
		o.Progress(Progress{Phase: p, Done: done, Total: total})
	}
}

func (o Options) draftOptions() patterns.DraftOptions {
	return patterns.DraftOptions{User: o.User, BaseConfidence: o.BaseConfidence}
}

func printable(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return s != ""
}
