package llm

import (
	"context"
	"errors"
	"slices"
	"strings"
)

// Router holds the named providers of a workspace and routes each call by
// its model name: "NAME/MODEL" goes to provider NAME with model MODEL; a
// name whose first segment is not a provider (e.g. "qwen2.5-coder:7b", or
// Ollama's "hf.co/user/model") goes to the default provider unchanged.
type Router struct {
	providers map[string]Provider
	names     []string // sorted
	def       string
}

// NewRouter builds a router; def names the provider of unprefixed models
// (it must be in providers).
func NewRouter(def string, providers map[string]Provider) (*Router, error) {
	if _, ok := providers[def]; !ok {
		return nil, errors.New("router: the default provider " + def + " is not configured")
	}
	r := &Router{providers: providers, def: def}
	for n := range providers {
		r.names = append(r.names, n)
	}
	slices.Sort(r.names)
	return r, nil
}

// SplitModel splits "NAME/MODEL" when NAME is one of names; otherwise it
// returns ("", model).
func SplitModel(model string, names []string) (provider, name string) {
	if p, rest, ok := strings.Cut(strings.TrimSpace(model), "/"); ok && rest != "" && slices.Contains(names, p) {
		return p, rest
	}
	return "", model
}

// Resolve returns the provider of model, its name, and the model name the
// provider knows.
func (r *Router) Resolve(model string) (Provider, string, string) {
	p, name := SplitModel(model, r.names)
	if p == "" {
		p = r.def
	}
	return r.providers[p], p, name
}

// Names lists the providers, sorted.
func (r *Router) Names() []string { return slices.Clone(r.names) }

// Provider returns the named provider.
func (r *Router) Provider(name string) (Provider, bool) {
	p, ok := r.providers[name]
	return p, ok
}

// Default is the name of the provider of unprefixed models.
func (r *Router) Default() string { return r.def }

// Chat implements Provider.
func (r *Router) Chat(ctx context.Context, req ChatRequest, onDelta func(Delta)) (ChatResult, error) {
	p, _, name := r.Resolve(req.Model)
	req.Model = name
	return p.Chat(ctx, req, onDelta)
}

// Embed implements Provider.
func (r *Router) Embed(ctx context.Context, model string, inputs []string) ([][]float32, error) {
	p, _, name := r.Resolve(model)
	return p.Embed(ctx, name, inputs)
}

// ModelInfo implements Provider.
func (r *Router) ModelInfo(ctx context.Context, model string) (ModelInfo, error) {
	p, _, name := r.Resolve(model)
	return p.ModelInfo(ctx, name)
}

// Window implements Provider.
func (r *Router) Window(ctx context.Context, model string, numCtx int) (Window, error) {
	p, _, name := r.Resolve(model)
	w, err := p.Window(ctx, name, numCtx)
	w.Model = model
	return w, err
}

// TokenFactor implements Provider.
func (r *Router) TokenFactor(model string) float64 {
	p, _, name := r.Resolve(model)
	return p.TokenFactor(name)
}

// RaiseTokenFactor implements Provider.
func (r *Router) RaiseTokenFactor(model string, mult float64) float64 {
	p, _, name := r.Resolve(model)
	return p.RaiseTokenFactor(name, mult)
}

// Version implements Provider: the default provider's, else the first
// provider that answers (a liveness check: something can serve).
func (r *Router) Version(ctx context.Context) (string, error) {
	v, err := r.providers[r.def].Version(ctx)
	if err == nil {
		return v, nil
	}
	for _, n := range r.names {
		if n == r.def {
			continue
		}
		if v, e := r.providers[n].Version(ctx); e == nil {
			return v, nil
		}
	}
	return "", err
}

// Host implements Provider: the default provider's hosts.
func (r *Router) Host() string { return r.providers[r.def].Host() }

// Probe implements Provider: the default provider's probe.
func (r *Router) Probe(ctx context.Context) Probe { return r.providers[r.def].Probe(ctx) }

// Hosts reports every host of every provider (probed now), providers in
// name order.
func (r *Router) Hosts(ctx context.Context) []HostStatus {
	var out []HostStatus
	for _, n := range r.names {
		if pool, ok := r.providers[n].(*Pool); ok {
			out = append(out, pool.Hosts(ctx)...)
		}
	}
	return out
}

// Snapshot reports every host as last seen.
func (r *Router) Snapshot() []HostStatus {
	var out []HostStatus
	for _, n := range r.names {
		if pool, ok := r.providers[n].(*Pool); ok {
			out = append(out, pool.Snapshot()...)
		}
	}
	return out
}

var _ Provider = (*Router)(nil)
