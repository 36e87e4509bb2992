package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/workspace"
)

// providerChecks are doctor's checks of a workspace with providers: one
// line per host of every provider a tier uses (reachable, version, models,
// loaded models, load), then whether each tier's model is on a host of its
// provider. It also returns the hosts and the status of the tiers.
func providerChecks(ctx context.Context, r *llm.Router, cfg workspace.Config) ([]Check, []llm.HostStatus, OllamaStatus) {
	var out []Check
	tiers := tierModels(cfg)
	used, needed := map[string]bool{}, map[string]bool{}
	for _, tm := range tiers {
		_, p, _ := r.Resolve(tm.Model)
		used[p] = true
		needed[p] = needed[p] || !tm.Optional
	}
	hosts := r.Hosts(ctx)
	byProvider := map[string][]llm.HostStatus{}
	for _, h := range hosts {
		byProvider[h.Provider] = append(byProvider[h.Provider], h)
	}
	var shown []llm.HostStatus
	for _, name := range r.Names() {
		hs := byProvider[name]
		if !used[name] && name == workspace.ProviderOllama {
			if _, configured := cfg.Providers[name]; !configured {
				continue // the ollama: section's host, which no tier uses
			}
		}
		up := 0
		for _, h := range hs {
			if h.Up {
				up++
			}
		}
		for _, h := range hs {
			shown = append(shown, h)
			c := Check{Name: "host", OK: true, Detail: describeHost(h)}
			if !h.Up {
				c.Detail = fmt.Sprintf("%s %s: unreachable (%s)", h.Provider, h.URL, h.Error)
				c.Hint = fmt.Sprintf("start the server, or fix or remove it in providers.%s of .nova/config.yaml", h.Provider)
				if h.Provider == workspace.ProviderOllama && cfg.Providers[h.Provider].Type == "" {
					c.Hint = "start it with `ollama serve`, or point nova at it with OLLAMA_HOST=host:port or ollama.host in .nova/config.yaml"
				}
				switch {
				case !needed[name]:
					c.Status = "warn" // no chat tier needs it
				case up > 0:
					c.Status = "warn"
					c.Detail += fmt.Sprintf("; %d of %d hosts of %s serve meanwhile", up, len(hs), name)
				default:
					c.OK = false
				}
			}
			out = append(out, c)
		}
	}

	st := OllamaStatus{Host: r.Host(), Models: []llm.Model{}}
	var missing, have, optional []string
	var hints []string
	for _, tm := range tiers {
		_, p, name := r.Resolve(tm.Model)
		n, total := 0, 0
		for _, h := range byProvider[p] {
			if !h.Up {
				continue
			}
			total++
			for _, m := range h.Models {
				if m == name || llm.SameModel(m, name) {
					n++
					break
				}
			}
		}
		tm.Installed = n > 0
		st.Tiers = append(st.Tiers, tm)
		switch {
		case tm.Installed:
			have = append(have, fmt.Sprintf("%s=%s (%d of %d hosts)", tm.Tier, tm.Model, n, total))
		case tm.Optional:
			optional = append(optional, tm.Model)
		case total == 0:
			missing = append(missing, fmt.Sprintf("%s=%s (no host of %s is up)", tm.Tier, tm.Model, p))
		default:
			missing = append(missing, tm.Tier+"="+tm.Model)
			if cfg.Providers[p].Type == workspace.ProviderOpenAI {
				hints = append(hints, fmt.Sprintf("load %s in the server of provider %s (it lists its models at /v1/models)", name, p))
			} else {
				hints = append(hints, fmt.Sprintf("run `ollama pull %s` on the hosts of %s", name, p))
			}
		}
	}
	for _, h := range shown {
		if h.Up {
			st.Reachable = true
			for _, m := range h.Models {
				if !slices.ContainsFunc(st.Models, func(x llm.Model) bool { return llm.SameModel(x.Name, m) }) {
					st.Models = append(st.Models, llm.Model{Name: m})
				}
			}
		}
	}
	switch {
	case len(missing) > 0:
		hint := strings.Join(hints, "; ")
		if hint == "" {
			hint = "start the hosts above"
		}
		out = append(out, Check{Name: "models", Detail: "missing tier models: " + strings.Join(missing, ", "),
			Hint: hint + ", or change models.* in .nova/config.yaml"})
	default:
		c := Check{Name: "models", OK: true, Detail: "tier models present: " + strings.Join(have, ", ")}
		if len(optional) > 0 {
			c.Status = "warn"
			c.Detail += "; embedding model " + strings.Join(optional, ", ") + " missing (search works without it)"
		}
		out = append(out, c)
	}
	return out, shown, st
}

// tierModels are the configured tier models.
func tierModels(cfg workspace.Config) []TierModel {
	var out []TierModel
	for _, tm := range []TierModel{
		{Tier: "small", Model: cfg.Models.Small},
		{Tier: "medium", Model: cfg.Models.Medium},
		{Tier: "large", Model: cfg.Models.Large},
		{Tier: "embed", Model: cfg.Models.Embed, Optional: true},
	} {
		if tm.Model != "" {
			out = append(out, tm)
		}
	}
	return out
}

// describeHost is one reachable host for doctor: provider, URL, server,
// models, loaded models and load.
func describeHost(h llm.HostStatus) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %s", h.Provider, h.URL, h.Type)
	if h.Version != "" && h.Version != "openai-compatible" {
		fmt.Fprintf(&b, " %s", h.Version)
	}
	fmt.Fprintf(&b, ", %d models", len(h.Models))
	if len(h.Loaded) > 0 && h.Type == workspace.ProviderOllama {
		fmt.Fprintf(&b, ", loaded: %s", strings.Join(h.Loaded, ", "))
	}
	fmt.Fprintf(&b, ", load %d/%d, %.0f ms", h.InFlight, h.Slots, h.LatencyMs)
	return b.String()
}
