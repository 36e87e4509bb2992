package vault

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nova-dev/nova/storage"
)

// Tier names (the workspace config's tier).
const (
	TierFree    = "free"
	TierPremium = "premium"
)

// Limits are what a tier allows.
type Limits struct {
	// MaxNodes is the tier's node cap (0 = unlimited). User writes over it
	// are refused; learning archives a less confident node or is not stored
	// (see CheckCap and the package comment).
	MaxNodes int `json:"maxNodes"`
	// GlobalInjections is how many global-wisdom patterns go into a prompt.
	GlobalInjections int `json:"globalInjections"`
}

// TierLimits returns the limits of a tier; anything but "premium" is free.
func TierLimits(tier string) Limits {
	if tier == TierPremium {
		return Limits{MaxNodes: 0, GlobalInjections: 12}
	}
	return Limits{MaxNodes: 500, GlobalInjections: 4}
}

// Embedder computes embeddings; *llm.Client implements it.
type Embedder interface {
	Embed(ctx context.Context, model string, inputs []string) ([][]float32, error)
}

// Change describes a committed write, for Options.OnChange.
type Change struct {
	// Op names the write: "add", "update", "remove", "link", "unlink",
	// "learn", "import", "reinforce", "wisdom", ...
	Op string `json:"op"`
	// Nodes and Edges are the ids written (created, changed or removed).
	Nodes []uint64 `json:"nodes,omitempty"`
	Edges []uint64 `json:"edges,omitempty"`
	// Revision is the vault's change counter after the write.
	Revision uint64 `json:"revision"`
	// Archived lists the nodes the tier cap moved to the archive in this
	// write (they are also in Nodes); NotStored counts learned nodes the cap
	// left out because no stored node was less confident.
	Archived  []uint64 `json:"archived,omitempty"`
	NotStored int      `json:"notStored,omitempty"`
}

// Options configures a Vault. The zero value works (user "local", free tier,
// no embeddings).
type Options struct {
	// UserID owns nodes added without one; default "local".
	UserID string
	// Identity is the workspace identity that promotes, backs and reports
	// global wisdom (config userId, or git's user.email when userId is the
	// default "local"; see workspace.Identity); default UserID. Wisdom
	// records it as its pseudonymous AuthorID.
	Identity string
	// IdentityFunc, when set, gives Identity on first need instead (it may
	// ask git, a process start that reads such as `vault stats` should not
	// pay); an empty answer falls back to UserID.
	IdentityFunc func() string
	// Tier is "free" or "premium" (see TierLimits).
	Tier string
	// OptInGlobal says the identity shares high-confidence nodes with global
	// wisdom (config vault.optInGlobal); Wisdom.SetOptIn overrides it.
	OptInGlobal bool
	// ProjectTerms are project-specific words (workspace name, module path)
	// that the wisdom sanitizer replaces.
	ProjectTerms []string
	// Foreign, when set, reports a node about another stack than the
	// project's (its code language, or a language or framework its tags
	// name: workspace.Stack.Foreign); such nodes stay out of prompt context
	// (BuildVaultContext), though search and the browser still find them.
	Foreign func(language string, tags []string) bool
	// Embedder and EmbedModel enable re-ranking of search results with
	// embeddings; both must be set. Any failure falls back silently.
	Embedder   Embedder
	EmbedModel string
	// EmbedTimeout bounds one embedding call; default 1.5 s.
	EmbedTimeout time.Duration
	// OnChange is called after every committed write, outside any
	// transaction and lock. It must not block for long.
	OnChange func(Change)
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Vault is the taste vault over one workspace database. It is safe for
// concurrent use. Construction does no I/O; the full-text index lives in the
// database and every write keeps it current (see fts.go).
type Vault struct {
	db   *storage.DB
	opts Options

	// wmu serialises write transactions together with the cache updates that
	// follow each commit, so they apply commits in order.
	wmu sync.Mutex

	mem         memIndex // in-memory index of a read-only handle without a current one
	importChunk int      // records per import transaction (tests); 0 means importChunk
	// chunkHook, when set (tests), runs after each committed chunk of a journaled
	// import; an error from it fails the import there.
	chunkHook func(chunk int) error
	emb       *embedState
	wisdom    *Wisdom
	identity  func() string // Options.Identity, resolved once (identityOf)
	teamHook  atomic.Pointer[TeamHook]
	nodeHook  atomic.Pointer[NodeHook]

	bgCtx    context.Context
	bgCancel context.CancelFunc
	bgWG     sync.WaitGroup
}

// New returns the vault over db. It does no I/O and never fails.
func New(db *storage.DB, opts Options) *Vault {
	if opts.UserID == "" {
		opts.UserID = "local"
	}
	if strings.TrimSpace(opts.Identity) == "" {
		opts.Identity = opts.UserID
	}
	if opts.Tier == "" {
		opts.Tier = TierFree
	}
	if opts.EmbedTimeout <= 0 {
		opts.EmbedTimeout = 1500 * time.Millisecond
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	ctx, cancel := context.WithCancel(context.Background())
	v := &Vault{db: db, opts: opts, bgCtx: ctx, bgCancel: cancel}
	v.emb = &embedState{vecs: map[uint64]embVec{}}
	v.wisdom = &Wisdom{v: v}
	v.identity = identityOf(opts)
	return v
}

// identityOf is the workspace identity of opts, asked for at most once.
func identityOf(opts Options) func() string {
	if opts.IdentityFunc == nil {
		return func() string { return opts.Identity }
	}
	return sync.OnceValue(func() string {
		if id := strings.TrimSpace(opts.IdentityFunc()); id != "" {
			return id
		}
		return opts.Identity
	})
}

// Close stops background work (see Warm). It does not close the database.
func (v *Vault) Close() error {
	v.bgCancel()
	v.bgWG.Wait()
	return nil
}

// Wisdom returns the global-wisdom pipeline of this vault.
func (v *Vault) Wisdom() *Wisdom { return v.wisdom }

// Options returns the options the vault was built with.
func (v *Vault) Options() Options { return v.opts }

// Limits returns the limits of the vault's tier.
func (v *Vault) Limits() Limits { return TierLimits(v.opts.Tier) }

// ReadOnly reports whether writes will fail with storage.ErrReadOnly.
func (v *Vault) ReadOnly() bool { return v.db.ReadOnly() }

func (v *Vault) now() time.Time { return v.opts.Now().UTC() }

func (v *Vault) notify(c Change) {
	if v.opts.OnChange != nil {
		v.opts.OnChange(c)
	}
}
