package llm

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// Pool defaults.
const (
	// DefaultProbeEvery is how old a host's model list may be before the
	// pool asks again (in the background).
	DefaultProbeEvery = 15 * time.Second
	// DefaultDownFor is how long a host that failed is skipped before it
	// is tried again.
	DefaultDownFor = 5 * time.Second
)

// PoolConfig configures a Pool.
type PoolConfig struct {
	// Name is the provider's name, for messages ("local").
	Name string
	// Type is "ollama" or "openai", for reports.
	Type string
	// Slots is how many requests one host works on at once (default 1):
	// routing prefers a host with a free slot.
	Slots int
	// ProbeEvery and DownFor: see DefaultProbeEvery and DefaultDownFor.
	ProbeEvery time.Duration
	DownFor    time.Duration
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Pool spreads the calls of one provider over several hosts. Each call goes
// to the least busy host that has the model (requests in flight per slot,
// then a host that has it loaded, then the one that served fewest): so the
// branches of a rehearsal, a build's parallel tasks and escalations run on
// different hosts at once. A host that cannot be reached, or that dies
// mid-request, is marked down for that host only and the call moves to
// another host (the stream restarts there: Delta.Reset); when every host is
// down the call fails with ErrUnreachable, and builds wait and resume as
// with one server. A host answering that it lacks the model is skipped for
// that model. The pool checks its hosts (Probe: reachable, installed and
// loaded models) on first use and refreshes them in the background.
type Pool struct {
	cfg   PoolConfig
	hosts []*poolHost

	once sync.Once
	// pickMu makes choosing a host and counting the request on it one
	// step: two calls at once never both take the same free host.
	pickMu sync.Mutex
}

type poolHost struct {
	p Provider

	mu        sync.Mutex
	probed    time.Time
	probing   bool
	up        bool
	err       string
	latency   time.Duration
	version   string
	models    []Model
	loaded    []string
	missing   map[string]bool // models the host answered 404 for
	downUntil time.Time
	inflight  int
	served    int64
	failed    int64
}

// NewPool builds a pool over hosts (at least one), each a Provider talking
// to one server.
func NewPool(cfg PoolConfig, hosts ...Provider) (*Pool, error) {
	if len(hosts) == 0 {
		return nil, fmt.Errorf("%w: provider %s has no hosts", ErrBadRequest, cfg.Name)
	}
	if cfg.Slots <= 0 {
		cfg.Slots = 1
	}
	if cfg.ProbeEvery <= 0 {
		cfg.ProbeEvery = DefaultProbeEvery
	}
	if cfg.DownFor <= 0 {
		cfg.DownFor = DefaultDownFor
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	p := &Pool{cfg: cfg}
	for _, h := range hosts {
		p.hosts = append(p.hosts, &poolHost{p: h, missing: map[string]bool{}})
	}
	return p, nil
}

// HostStatus is one host of a pool, for `nova doctor` and Home.
type HostStatus struct {
	Provider string `json:"provider"`
	Type     string `json:"type"`
	URL      string `json:"url"`
	Up       bool   `json:"up"`
	Error    string `json:"error,omitempty"`
	Version  string `json:"version,omitempty"`
	// Models are the installed (ollama) or listed (openai) models.
	Models []string `json:"models"`
	// Loaded are the models in memory (ollama /api/ps).
	Loaded []string `json:"loaded,omitempty"`
	// InFlight is the requests the host works on now; Slots its capacity.
	InFlight int `json:"inFlight"`
	Slots    int `json:"slots"`
	// Served and Failed count this process's calls.
	Served    int64   `json:"served"`
	Failed    int64   `json:"failed"`
	LatencyMs float64 `json:"latencyMs"`
}

// Hosts probes every host now (in parallel) and reports them.
func (p *Pool) Hosts(ctx context.Context) []HostStatus {
	p.probeAll(ctx)
	return p.Snapshot()
}

// Snapshot reports the hosts as last seen, without asking them.
func (p *Pool) Snapshot() []HostStatus {
	out := make([]HostStatus, 0, len(p.hosts))
	for _, h := range p.hosts {
		h.mu.Lock()
		st := HostStatus{Provider: p.cfg.Name, Type: p.cfg.Type, URL: h.p.Host(), Up: h.up, Error: h.err, Version: h.version,
			Models: []string{}, Loaded: slices.Clone(h.loaded), InFlight: h.inflight, Slots: p.cfg.Slots,
			Served: h.served, Failed: h.failed, LatencyMs: float64(h.latency.Microseconds()) / 1000}
		for _, m := range h.models {
			st.Models = append(st.Models, m.Name)
		}
		h.mu.Unlock()
		out = append(out, st)
	}
	return out
}

func (p *Pool) probeAll(ctx context.Context) {
	var wg sync.WaitGroup
	for _, h := range p.hosts {
		wg.Go(func() { p.probe(ctx, h) })
	}
	wg.Wait()
}

func (p *Pool) probe(ctx context.Context, h *poolHost) {
	pr := h.p.Probe(ctx)
	if ctx.Err() != nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.probed, h.probing = p.cfg.Now(), false
	h.up, h.err, h.latency, h.version = pr.Reachable, pr.Error, pr.Latency, pr.Version
	if pr.Reachable {
		h.models, h.loaded = pr.Models, pr.Loaded
		h.downUntil = time.Time{}
		clear(h.missing)
	} else {
		h.downUntil = p.cfg.Now().Add(p.cfg.DownFor)
	}
}

// refresh probes every host once on first use, then re-probes stale hosts
// in the background.
func (p *Pool) refresh(ctx context.Context) {
	p.once.Do(func() {
		pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), DefaultProbeTimeout)
		defer cancel()
		p.probeAll(pctx)
	})
	now := p.cfg.Now()
	for _, h := range p.hosts {
		h.mu.Lock()
		stale := !h.probing && now.Sub(h.probed) > p.cfg.ProbeEvery
		if stale {
			h.probing = true
		}
		h.mu.Unlock()
		if stale {
			go func() {
				pctx, cancel := context.WithTimeout(context.Background(), DefaultProbeTimeout)
				defer cancel()
				p.probe(pctx, h)
				h.mu.Lock()
				h.probing = false
				h.mu.Unlock()
			}()
		}
	}
}

// pick chooses the host for model among those not in tried, and counts
// the request in flight. nil: none left.
func (p *Pool) pick(model string, tried map[*poolHost]bool) *poolHost {
	p.pickMu.Lock()
	defer p.pickMu.Unlock()
	now := p.cfg.Now()
	type cand struct {
		h      *poolHost
		load   float64
		loaded bool
		down   bool
		served int64
	}
	var cs []cand
	for _, h := range p.hosts {
		if tried[h] {
			continue
		}
		h.mu.Lock()
		down := !h.up && now.Before(h.downUntil)
		has := !h.up || len(h.models) == 0 || hasModel(h.models, model)
		if h.missing[normalizeModel(model)] {
			has = false
		}
		c := cand{h: h, load: float64(h.inflight) / float64(p.cfg.Slots), loaded: slices.ContainsFunc(h.loaded, func(n string) bool { return SameModel(n, model) }),
			down: down, served: h.served}
		h.mu.Unlock()
		if has {
			cs = append(cs, c)
		}
	}
	if len(cs) == 0 {
		return nil
	}
	slices.SortStableFunc(cs, func(a, b cand) int {
		switch {
		case a.down != b.down:
			if a.down {
				return 1
			}
			return -1
		case a.load != b.load:
			if a.load < b.load {
				return -1
			}
			return 1
		case a.loaded != b.loaded:
			if a.loaded {
				return -1
			}
			return 1
		case a.served != b.served:
			if a.served < b.served {
				return -1
			}
			return 1
		}
		return 0
	})
	h := cs[0].h
	h.mu.Lock()
	h.inflight++
	h.mu.Unlock()
	return h
}

func hasModel(ms []Model, name string) bool {
	for _, m := range ms {
		if m.Name == name || SameModel(m.Name, name) {
			return true
		}
	}
	return false
}

// done ends a request on h: err decides whether the host is marked down
// or lacks the model. It reports whether the call should move on.
func (p *Pool) done(h *poolHost, model string, err error) (moveOn bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.inflight--
	switch {
	case err == nil:
		h.served++
		if !slices.ContainsFunc(h.loaded, func(n string) bool { return SameModel(n, model) }) {
			h.loaded = append(h.loaded, model)
		}
		return false
	case errors.Is(err, ErrUnreachable):
		h.failed++
		h.up, h.err = false, err.Error()
		h.downUntil = p.cfg.Now().Add(p.cfg.DownFor)
		return true
	case errors.Is(err, ErrModelNotFound):
		h.missing[normalizeModel(model)] = true
		return true
	case errors.Is(err, ErrStreamCut), errors.Is(err, ErrServer):
		// The host dropped the reply or broke down even after its own
		// retries: try another host once.
		h.failed++
		return true
	}
	return false
}

// errAllDown wraps the last host error when no host is left.
func (p *Pool) errAllDown(op string, tried int, last error) error {
	if last == nil {
		return &UnreachableError{Host: p.Host(), Err: fmt.Errorf("no host of provider %s has the model", p.cfg.Name), Provider: p.cfg.Name}
	}
	if tried <= 1 {
		return last
	}
	return fmt.Errorf("%s: every host of provider %s failed (%d tried), the last: %w", op, p.cfg.Name, tried, last)
}

// Chat implements Provider: the least busy host with the model, moving to
// the next host when one is unreachable or dies mid-reply.
func (p *Pool) Chat(ctx context.Context, req ChatRequest, onDelta func(Delta)) (ChatResult, error) {
	if len(p.hosts) == 1 {
		return p.one(ctx, req, onDelta)
	}
	p.refresh(ctx)
	tried := map[*poolHost]bool{}
	delivered := false
	var last error
	for {
		h := p.pick(req.Model, tried)
		if h == nil {
			return ChatResult{}, p.errAllDown("chat "+req.Model, len(tried), last)
		}
		tried[h] = true
		if delivered && onDelta != nil {
			onDelta(Delta{Reset: true})
			delivered = false
		}
		res, err := h.p.Chat(ctx, req, func(d Delta) {
			if !d.Reset {
				delivered = true
			}
			if onDelta != nil {
				onDelta(d)
			}
		})
		if !p.done(h, req.Model, err) || ctx.Err() != nil {
			return res, err
		}
		last = err
	}
}

// one is Chat on a single host, still counting load for reports.
func (p *Pool) one(ctx context.Context, req ChatRequest, onDelta func(Delta)) (ChatResult, error) {
	h := p.hosts[0]
	h.mu.Lock()
	h.inflight++
	h.mu.Unlock()
	res, err := h.p.Chat(ctx, req, onDelta)
	p.done(h, req.Model, err)
	return res, err
}

// Embed implements Provider, routed like Chat.
func (p *Pool) Embed(ctx context.Context, model string, inputs []string) ([][]float32, error) {
	if len(p.hosts) == 1 {
		return p.hosts[0].p.Embed(ctx, model, inputs)
	}
	p.refresh(ctx)
	tried := map[*poolHost]bool{}
	var last error
	for {
		h := p.pick(model, tried)
		if h == nil {
			return nil, p.errAllDown("embed "+model, len(tried), last)
		}
		tried[h] = true
		out, err := h.p.Embed(ctx, model, inputs)
		if !p.done(h, model, err) || ctx.Err() != nil {
			return out, err
		}
		last = err
	}
}

// first runs fn on the hosts in turn (up ones first) until one does not
// fail with ErrUnreachable.
func (p *Pool) first(ctx context.Context, model string, fn func(Provider) error) error {
	if len(p.hosts) > 1 {
		p.refresh(ctx)
	}
	tried := map[*poolHost]bool{}
	var last error
	for {
		h := p.pick(model, tried)
		if h == nil {
			if last == nil {
				return p.errAllDown("", 0, nil)
			}
			return last
		}
		tried[h] = true
		err := fn(h.p)
		h.mu.Lock()
		h.inflight--
		if errors.Is(err, ErrUnreachable) {
			h.up, h.err = false, err.Error()
			h.downUntil = p.cfg.Now().Add(p.cfg.DownFor)
		}
		h.mu.Unlock()
		if err == nil || !errors.Is(err, ErrUnreachable) || ctx.Err() != nil {
			return err
		}
		last = err
	}
}

// ModelInfo implements Provider (the first host that answers).
func (p *Pool) ModelInfo(ctx context.Context, model string) (ModelInfo, error) {
	var out ModelInfo
	err := p.first(ctx, model, func(h Provider) error {
		var err error
		out, err = h.ModelInfo(ctx, model)
		return err
	})
	return out, err
}

// Window implements Provider (the first host that answers).
func (p *Pool) Window(ctx context.Context, model string, numCtx int) (Window, error) {
	var out Window
	err := p.first(ctx, model, func(h Provider) error {
		var err error
		out, err = h.Window(ctx, model, numCtx)
		return err
	})
	return out, err
}

// TokenFactor implements Provider: the largest any host learned.
func (p *Pool) TokenFactor(model string) float64 {
	f := 1.0
	for _, h := range p.hosts {
		f = max(f, h.p.TokenFactor(model))
	}
	return f
}

// RaiseTokenFactor implements Provider on every host.
func (p *Pool) RaiseTokenFactor(model string, mult float64) float64 {
	f := 1.0
	for _, h := range p.hosts {
		f = max(f, h.p.RaiseTokenFactor(model, mult))
	}
	return f
}

// Version implements Provider: the first host that answers.
func (p *Pool) Version(ctx context.Context) (string, error) {
	var last error
	for _, h := range p.hosts {
		v, err := h.p.Version(ctx)
		if err == nil {
			return v, nil
		}
		last = err
		if ctx.Err() != nil {
			break
		}
	}
	return "", last
}

// Host lists the hosts, comma-separated.
func (p *Pool) Host() string {
	urls := make([]string, 0, len(p.hosts))
	for _, h := range p.hosts {
		urls = append(urls, h.p.Host())
	}
	return strings.Join(urls, ", ")
}

// Name is the provider's name.
func (p *Pool) Name() string { return p.cfg.Name }

// Probe implements Provider: every host, merged (reachable when one is).
func (p *Pool) Probe(ctx context.Context) Probe {
	p.probeAll(ctx)
	out := Probe{Host: p.Host(), Models: []Model{}}
	var errs []string
	for _, h := range p.hosts {
		h.mu.Lock()
		if h.up {
			if !out.Reachable {
				out.Version, out.Latency = h.version, h.latency
			}
			out.Reachable = true
			for _, m := range h.models {
				if !hasModel(out.Models, m.Name) {
					out.Models = append(out.Models, m)
				}
			}
			for _, l := range h.loaded {
				if !slices.Contains(out.Loaded, l) {
					out.Loaded = append(out.Loaded, l)
				}
			}
		} else {
			errs = append(errs, h.err)
		}
		h.mu.Unlock()
	}
	if !out.Reachable {
		out.Error = strings.Join(errs, "; ")
		out.Err = &UnreachableError{Host: p.Host(), Err: errors.New(out.Error), Provider: p.cfg.Name}
	}
	return out
}

var _ Provider = (*Pool)(nil)
