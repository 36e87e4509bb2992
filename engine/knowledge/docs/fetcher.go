package docs

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/nova-dev/nova/storage"
)

// Defaults of a Fetcher.
const (
	DefaultTTL       = 7 * 24 * time.Hour
	DefaultMaxTokens = 2000
)

// Options configures a Fetcher.
type Options struct {
	// Root is the workspace root (go.mod, vendor/, node_modules/).
	Root string
	// Getenv reads GOMODCACHE, GOPATH, HOME and GOROOT (nil: os.Getenv).
	Getenv func(string) string
	// BaseURL is the Context7 base URL; "off" turns network docs off.
	BaseURL string
	APIKey  string
	// Timeout bounds one network request (default 10 s).
	Timeout time.Duration
	// TTL is how long a network entry is fresh (default 7 days).
	TTL time.Duration
	// MaxTokens cuts a fetch (default 2,000).
	MaxTokens int
	// Now is the clock (tests).
	Now func() time.Time
	// Transport overrides the HTTP transport (tests).
	Transport http.RoundTripper
	// UserAgent is sent to the docs service.
	UserAgent string
}

// Fetcher answers documentation requests: local first, then the cache,
// then Context7 (see the package comment).
type Fetcher struct {
	opts   Options
	cache  *Cache
	client *Client // nil when network docs are off
	golang *goDocs
	npm    *npmDocs
	netErr error // why there is no client
}

// New returns a fetcher over a workspace database. An invalid base URL
// leaves network docs off (Fetch then says why).
func New(db *storage.DB, o Options) *Fetcher {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.TTL <= 0 {
		o.TTL = DefaultTTL
	}
	if o.MaxTokens <= 0 {
		o.MaxTokens = DefaultMaxTokens
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	f := &Fetcher{opts: o, cache: NewCache(db, o.Now), npm: &npmDocs{root: o.Root}}
	mc, gr := goEnv(o.Getenv)
	f.golang = &goDocs{root: o.Root, modCache: mc, goroot: gr}
	if strings.EqualFold(strings.TrimSpace(o.BaseURL), "off") {
		f.netErr = fmt.Errorf("%w (docs.context7.url is off)", ErrOffline)
	} else {
		c, err := NewClient(ClientOptions{BaseURL: o.BaseURL, APIKey: o.APIKey, Timeout: o.Timeout,
			Transport: o.Transport, UserAgent: o.UserAgent})
		if err != nil {
			f.netErr = err
		} else {
			f.client = c
		}
	}
	return f
}

// Cache is the fetcher's cache (list, clear, stats, search).
func (f *Fetcher) Cache() *Cache { return f.cache }

// Client is the Context7 client (nil when network docs are off).
func (f *Fetcher) Client() *Client { return f.client }

// Result is the answer to one fetch. With Source FromNone, Content is the
// fallback text ([Unavailable]).
type Result struct {
	Library string `json:"library"`
	Topic   string `json:"topic"`
	// Source is "local", "cache", "network" or "none".
	Source    string `json:"source"`
	Content   string `json:"content"`
	Truncated bool   `json:"truncated"`
	// FetchedAt is when the text was read or fetched (zero for "none").
	FetchedAt time.Time `json:"fetchedAt,omitzero"`
	// Available is false when Content is the fallback text.
	Available bool `json:"available"`
	// Stale: served from the cache past its TTL because a refresh failed.
	Stale bool `json:"stale,omitempty"`
	// Version is the exact version of local docs.
	Version string `json:"version,omitempty"`
	// Origin: where local docs were read, or the Context7 library id.
	Origin string `json:"origin,omitempty"`
	// Ref identifies the cache entry (docs:SOURCE:LIBRARY#TOPIC).
	Ref    string `json:"ref,omitempty"`
	Tokens int    `json:"tokens"`
	// Warning says what went wrong on the way (a stale refresh, a module
	// missing from the module cache) when the fetch still answered.
	Warning string `json:"warning,omitempty"`
}

// FetchOptions tune one fetch.
type FetchOptions struct {
	// MaxTokens overrides the fetcher's budget.
	MaxTokens int `json:"maxTokens,omitempty"`
	// Refresh asks the network even when the cache is fresh.
	Refresh bool `json:"refresh,omitempty"`
	// NoNetwork answers from local docs and the cache only.
	NoNetwork bool `json:"noNetwork,omitempty"`
}

// Fetch finds documentation for library (and topic). It always returns a
// Result whose Content can be shown; the error is nil when documentation
// was found, wraps ErrInvalid for a bad request (empty name, too long) and
// ErrUnavailable when nothing could be found (with the cause). The fetch
// never takes longer than the network timeout plus the local read.
func (f *Fetcher) Fetch(ctx context.Context, library, topic string, o FetchOptions) (Result, error) {
	lib, top, err := CheckRequest(library, topic)
	if err != nil {
		name := lib
		if name == "" {
			name = "(no library)"
		}
		return fallback(clip(name, 80), clip(top, 80)), err
	}
	budget := o.MaxTokens
	if budget <= 0 {
		budget = f.opts.MaxTokens
	}
	var warnings []string
	switch r, err := f.local(ctx, lib, top, budget); {
	case err == nil:
		return r, nil
	case errors.Is(err, context.Canceled):
		return fallback(lib, top), err
	case errors.Is(err, errLocalMissing):
		warnings = append(warnings, strings.TrimPrefix(err.Error(), errLocalMissing.Error()+": "))
	}

	key := NewKey(SourceContext7, lib, top)
	cached, cerr := f.cache.Get(ctx, key)
	haveCache := cerr == nil
	now := f.opts.Now()
	if haveCache && cached.ExpiresAt.After(now) && !o.Refresh {
		return f.result(key, cached, FromCache, budget, warnings), nil
	}
	var netErr error
	switch {
	case o.NoNetwork:
		netErr = fmt.Errorf("%w (asked for local and cached docs only)", ErrOffline)
	case f.client == nil:
		netErr = f.netErr
	default:
		// One timeout for the whole lookup (search + context), so a fetch
		// never takes longer than it.
		nctx, cancel := context.WithTimeout(ctx, f.opts.Timeout)
		libInfo, text, err := f.client.Lookup(nctx, lib, top)
		cancel()
		if err == nil {
			e := Entry{Source: SourceContext7, Library: lib, Topic: top, LibraryID: libInfo.ID, Origin: "context7 " + libInfo.ID,
				Title: titleOf(libInfo, lib, top), Content: text, FetchedAt: now, ExpiresAt: now.Add(f.opts.TTL)}
			if perr := f.cache.Put(ctx, key, e); perr != nil {
				warnings = append(warnings, "not cached: "+perr.Error())
			}
			return f.result(key, e, FromNetwork, budget, warnings), nil
		}
		netErr = err
	}
	if errors.Is(netErr, context.Canceled) {
		return fallback(lib, top), netErr
	}
	if haveCache {
		r := f.result(key, cached, FromCache, budget, append(warnings, "stale: could not refresh: "+netErr.Error()))
		r.Stale = true
		return r, nil
	}
	r := fallback(lib, top)
	r.Warning = strings.Join(append(warnings, netErr.Error()), "; ")
	return r, fmt.Errorf("%w for %s: %w", ErrUnavailable, describe(lib, top), netErr)
}

// local answers from the project's own dependencies and stores the text in
// the cache (so knowledge searches find it) when it changed.
func (f *Fetcher) local(ctx context.Context, lib, top string, budget int) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	ld, err := f.golang.Lookup(lib, top)
	if errors.Is(err, errNotLocal) {
		ld, err = f.npm.Lookup(lib, top)
	}
	if err != nil {
		return Result{}, err
	}
	now := f.opts.Now()
	key := NewKey(SourceLocal, ld.Library, ld.Topic)
	e := Entry{Source: SourceLocal, Library: ld.Library, Topic: ld.Topic, Version: ld.Version, Origin: ld.Origin,
		Title: ld.Title, Content: ld.Content, FetchedAt: now, ExpiresAt: now.Add(f.opts.TTL)}
	e.Content, _ = cut(e.Content, MaxStoredChars)
	var warnings []string
	if old, err := f.cache.Get(ctx, key); err == nil && old.Version == e.Version && old.Content == e.Content && old.ExpiresAt.After(now) {
		e.FetchedAt, e.ExpiresAt = old.FetchedAt, old.ExpiresAt
	} else if !f.readOnly() {
		if perr := f.cache.Put(ctx, key, e); perr != nil {
			warnings = append(warnings, "not cached: "+perr.Error())
		}
	}
	r := f.result(key, e, FromLocal, budget, warnings)
	return r, nil
}

func (f *Fetcher) readOnly() bool { return f.cache.db.ReadOnly() }

func (f *Fetcher) result(k Key, e Entry, from string, budget int, warnings []string) Result {
	text, cutAt := Truncate(e.Content, budget)
	r := Result{Library: e.Library, Topic: e.Topic, Source: from, Content: text, Truncated: cutAt,
		FetchedAt: e.FetchedAt, Available: true, Version: e.Version, Origin: e.Origin, Ref: k.Ref(),
		Tokens: EstimateTokens(text), Warning: strings.Join(warnings, "; ")}
	if e.LibraryID != "" {
		r.Origin = e.LibraryID
	}
	return r
}

func fallback(lib, top string) Result {
	text := Unavailable(lib, top)
	return Result{Library: lib, Topic: top, Source: FromNone, Content: text, Tokens: EstimateTokens(text)}
}

func describe(lib, top string) string {
	if top != "" {
		return lib + " (" + top + ")"
	}
	return lib
}

func titleOf(l Library, lib, top string) string {
	t := l.Title
	if t == "" {
		t = lib
	}
	if top != "" {
		t += " — " + top
	}
	return t
}
