// Package llm is nova's LLM layer over the official Ollama client
// (github.com/ollama/ollama/api, and only that package of Ollama).
//
// A Client resolves its host with Ollama's own OLLAMA_HOST rules
// ([ResolveHost]), talks to Ollama through api.Client with an HTTP client of
// its own (dial and request timeouts), and turns failures into the sentinel
// errors callers branch on: [ErrUnreachable], [ErrModelNotFound], [ErrServer],
// [ErrStreamCut], [ErrTimeout], [ErrBadRequest], [ErrBudgetExceeded] and
// [ErrInvalidOutput]. Errors carry a message meant for the user (the host
// tried, the `ollama pull` hint, ...). context.Canceled is returned as such
// (wrapped) and is not a failure.
//
// Resilience: connection errors, 5xx answers, an {"error": ...} line inside a
// 200 stream, and a stream that ends without done are retried with
// exponential backoff (Config.Retries, Config.Backoff). A 404 for a model, a
// 4xx, a timeout and a cancellation are not retried. Chat retries even after
// some deltas of the failed attempt were delivered: the callback then
// receives Delta{Reset: true} before the first delta of the new attempt and
// must discard what it showed for this call.
//
// Beyond the client the package holds model tiers ([Tier], [Models],
// [Escalate]), token accounting ([Meter], [Budget]) and structured output
// ([ExtractJSON], [Structured]).
package llm

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
)

// Defaults applied by New to zero Config fields.
const (
	DefaultTimeout      = 30 * time.Second
	DefaultDialTimeout  = 5 * time.Second
	DefaultRetries      = 2
	DefaultBackoff      = 250 * time.Millisecond
	DefaultMaxBackoff   = 5 * time.Second
	DefaultProbeTimeout = 5 * time.Second
	// DefaultIdleTimeout bounds the wait for the first byte of an answer and
	// for each next chunk of a streamed one.
	DefaultIdleTimeout = 60 * time.Second
	// DefaultReplyReserve is the room (tokens) kept free for the reply when
	// a prompt is fitted into the model's context.
	DefaultReplyReserve = 1024
	// DefaultMaxReply bounds one streamed reply (content, thinking and tool
	// call arguments together), in bytes.
	DefaultMaxReply = 4 << 20
)

// Config configures a Client. The zero value is usable.
type Config struct {
	// Host is the Ollama address ("localhost:11434", "http://box:1", ...).
	// Empty means OLLAMA_HOST with Ollama's rules, else 127.0.0.1:11434.
	Host string
	// Timeout bounds each non-streaming request (version, tags, show,
	// embed); default 30s. Chats are not bounded by it, since a generation
	// may legitimately stream for minutes: see ChatTimeout.
	Timeout time.Duration
	// DialTimeout bounds connection set-up; default 5s.
	DialTimeout time.Duration
	// ChatTimeout is the default per-call timeout of Chat (all attempts
	// included); zero means none. ChatRequest.Timeout overrides it.
	ChatTimeout time.Duration
	// Retries is the number of retries after the first attempt: 0 means
	// DefaultRetries, a negative value means no retry.
	Retries int
	// Backoff is the wait before the first retry, doubled for each further
	// retry (with jitter) up to MaxBackoff. Defaults 250ms and 5s.
	Backoff    time.Duration
	MaxBackoff time.Duration
	// IdleTimeout bounds the wait for the first byte of any answer and for
	// each next chunk of a streamed chat (default 60s; negative: none). A
	// chat that stalls is retried once, then fails with ErrTimeout.
	IdleTimeout time.Duration
	// NumCtx is the default context window (options.num_ctx); 0 leaves the
	// model's default.
	NumCtx int
	// ReplyReserve is the room kept for the reply when prompts are fitted
	// (default 1024 tokens); a retry after a length stop asks for at least
	// twice it.
	ReplyReserve int
	// KeepAlive is how long Ollama keeps the model loaded after a request;
	// 0 leaves Ollama's default, a negative value means forever.
	KeepAlive time.Duration
	// Meter, when set, records the tokens of every successful chat.
	Meter *Meter
	// OnRetry, when set, is called before each retry (attempt is the number
	// of the attempt about to start, from 2).
	OnRetry func(attempt int, err error, wait time.Duration)
	// HTTPClient replaces the HTTP client built from the timeouts above.
	HTTPClient *http.Client
	// MaxReply bounds one chat reply in bytes (content, thinking and tool
	// call arguments together; default DefaultMaxReply, negative: none). A
	// longer reply is cut at the cap while it streams (the rest is never
	// read) and the call fails with ErrLength, like a reply that hit the
	// token limit.
	MaxReply int
}

// Client talks to one Ollama server. It is safe for concurrent use.
type Client struct {
	api  *api.Client
	http *http.Client
	base *url.URL
	cfg  Config
	// viaAPI sends chats through api.Client.Chat (ollama.com needs its
	// request signing) instead of the package's own stream reader.
	viaAPI bool

	models modelCache
	tools  toolCache
}

// New builds a Client. It does not contact the server.
func New(cfg Config) (*Client, error) {
	base, err := ResolveHost(cfg.Host)
	if err != nil {
		return nil, err
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.DialTimeout <= 0 {
		cfg.DialTimeout = DefaultDialTimeout
	}
	switch {
	case cfg.Retries == 0:
		cfg.Retries = DefaultRetries
	case cfg.Retries < 0:
		cfg.Retries = 0
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = DefaultBackoff
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = DefaultMaxBackoff
	}
	switch {
	case cfg.IdleTimeout == 0:
		cfg.IdleTimeout = DefaultIdleTimeout
	case cfg.IdleTimeout < 0:
		cfg.IdleTimeout = 0
	}
	if cfg.ReplyReserve <= 0 {
		cfg.ReplyReserve = DefaultReplyReserve
	}
	switch {
	case cfg.MaxReply == 0:
		cfg.MaxReply = DefaultMaxReply
	case cfg.MaxReply < 0:
		cfg.MaxReply = 0
	}
	hc := cfg.HTTPClient
	if hc == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.DialContext = (&net.Dialer{Timeout: cfg.DialTimeout, KeepAlive: 30 * time.Second}).DialContext
		tr.MaxIdleConnsPerHost = 16
		// No http.Client.Timeout: it would cut long streams. Requests are
		// bounded by contexts instead.
		hc = &http.Client{Transport: tr}
	}
	return &Client{api: api.NewClient(base, hc), http: hc, base: base, cfg: cfg,
		viaAPI: strings.EqualFold(base.Hostname(), "ollama.com")}, nil
}

// Host is the base URL the client talks to, e.g. "http://127.0.0.1:11434".
func (c *Client) Host() string { return c.base.String() }

// API exposes the underlying official client for calls this package does not
// wrap (pull, ps, ...).
func (c *Client) API() *api.Client { return c.api }

// Version asks the server's version.
func (c *Client) Version(ctx context.Context) (string, error) {
	var v string
	err := c.unary(ctx, "version", "", c.cfg.Retries, c.cfg.Timeout, func(ctx context.Context) error {
		var err error
		v, err = c.api.Version(ctx)
		return err
	})
	return v, err
}

// Model is one installed model, as listed by Ollama.
type Model struct {
	Name          string    `json:"name"`
	Size          int64     `json:"size"`
	Family        string    `json:"family"`
	ParameterSize string    `json:"parameterSize"`
	Quantization  string    `json:"quantization"`
	Modified      time.Time `json:"modified"`
	Digest        string    `json:"digest,omitempty"`
}

// ListModels lists the installed models.
func (c *Client) ListModels(ctx context.Context) ([]Model, error) {
	var out []Model
	err := c.unary(ctx, "list models", "", c.cfg.Retries, c.cfg.Timeout, func(ctx context.Context) error {
		lr, err := c.api.List(ctx)
		if err != nil {
			return err
		}
		out = make([]Model, 0, len(lr.Models))
		for _, m := range lr.Models {
			out = append(out, Model{
				Name:          m.Name,
				Size:          m.Size,
				Family:        m.Details.Family,
				ParameterSize: m.Details.ParameterSize,
				Quantization:  m.Details.QuantizationLevel,
				Modified:      m.ModifiedAt,
				Digest:        m.Digest,
			})
		}
		return nil
	})
	return out, err
}

// ModelInfo is what Show reports about one model.
type ModelInfo struct {
	Model
	Families      []string `json:"families,omitempty"`
	ContextLength int      `json:"contextLength,omitempty"`
	Capabilities  []string `json:"capabilities,omitempty"`
}

// Can reports whether the model declares a capability ("tools", "thinking",
// "embedding", "vision", "completion").
func (m ModelInfo) Can(capability string) bool {
	for _, c := range m.Capabilities {
		if strings.EqualFold(c, capability) {
			return true
		}
	}
	return false
}

// Show describes one model. An unknown model gives ErrModelNotFound.
func (c *Client) Show(ctx context.Context, name string) (ModelInfo, error) {
	var out ModelInfo
	err := c.unary(ctx, "show", name, c.cfg.Retries, c.cfg.Timeout, func(ctx context.Context) error {
		r, err := c.api.Show(ctx, &api.ShowRequest{Model: name})
		if err != nil {
			return err
		}
		out = ModelInfo{
			Model: Model{
				Name:          name,
				Family:        r.Details.Family,
				ParameterSize: r.Details.ParameterSize,
				Quantization:  r.Details.QuantizationLevel,
				Modified:      r.ModifiedAt,
			},
			Families:      r.Details.Families,
			ContextLength: r.Details.ContextLength,
		}
		if out.ContextLength == 0 {
			out.ContextLength = contextLength(r.ModelInfo)
		}
		for _, cp := range r.Capabilities {
			out.Capabilities = append(out.Capabilities, string(cp))
		}
		return nil
	})
	return out, err
}

// contextLength reads "<architecture>.context_length" from model_info.
func contextLength(info map[string]any) int {
	arch, _ := info["general.architecture"].(string)
	if arch == "" {
		return 0
	}
	switch v := info[arch+".context_length"].(type) {
	case float64:
		return int(v)
	case int:
		return v
	}
	return 0
}

// Embed returns one vector per input, in order. No inputs means no request.
func (c *Client) Embed(ctx context.Context, model string, inputs []string) ([][]float32, error) {
	if len(inputs) == 0 {
		return [][]float32{}, nil
	}
	var out [][]float32
	err := c.unary(ctx, "embed", model, c.cfg.Retries, c.cfg.Timeout, func(ctx context.Context) error {
		r, err := c.api.Embed(ctx, &api.EmbedRequest{Model: model, Input: inputs, KeepAlive: c.keepAlive(0)})
		if err != nil {
			return err
		}
		if len(r.Embeddings) != len(inputs) {
			return fmt.Errorf("%w: embed: ollama returned %d vectors for %d inputs", ErrServer, len(r.Embeddings), len(inputs))
		}
		out = r.Embeddings
		return nil
	})
	return out, err
}

// Probe is a one-shot health report for `nova doctor` and status bars.
type Probe struct {
	Host      string        `json:"host"`
	Reachable bool          `json:"reachable"`
	Version   string        `json:"version,omitempty"`
	Models    []Model       `json:"models"`
	Latency   time.Duration `json:"latency"` // of the version request, in ns
	// Loaded are the models the server holds in memory (Ollama's /api/ps;
	// an OpenAI-compatible server: every listed model).
	Loaded []string `json:"loaded,omitempty"`
	Error  string   `json:"error,omitempty"`
	// Err is the error behind Error, for errors.Is.
	Err error `json:"-"`
}

// HasModel reports whether name is installed ("llama3.2" matches
// "llama3.2:latest").
func (p Probe) HasModel(name string) bool {
	for _, m := range p.Models {
		if SameModel(m.Name, name) {
			return true
		}
	}
	return false
}

// SameModel reports whether two model names denote the same model, applying
// Ollama's implicit ":latest" tag.
func SameModel(a, b string) bool {
	return normalizeModel(a) == normalizeModel(b)
}

func normalizeModel(n string) string {
	n = strings.ToLower(strings.TrimSpace(n))
	if n != "" && !strings.Contains(n[strings.LastIndex(n, "/")+1:], ":") {
		n += ":latest"
	}
	return n
}

// Probe checks the server once, without retries: version, then the model
// list. Each request is bounded by min(Config.Timeout, 5s) and by ctx. It
// never fails; problems are reported in the result.
func (c *Client) Probe(ctx context.Context) Probe {
	p := Probe{Host: c.Host(), Models: []Model{}}
	timeout := min(c.cfg.Timeout, DefaultProbeTimeout)
	start := time.Now()
	var v string
	err := c.unary(ctx, "version", "", 0, timeout, func(ctx context.Context) error {
		var err error
		v, err = c.api.Version(ctx)
		return err
	})
	p.Latency = time.Since(start)
	if err != nil {
		p.Error, p.Err = err.Error(), err
		return p
	}
	p.Reachable, p.Version = true, v
	err = c.unary(ctx, "list models", "", 0, timeout, func(ctx context.Context) error {
		lr, err := c.api.List(ctx)
		if err != nil {
			return err
		}
		for _, m := range lr.Models {
			p.Models = append(p.Models, Model{
				Name: m.Name, Size: m.Size, Family: m.Details.Family,
				ParameterSize: m.Details.ParameterSize, Quantization: m.Details.QuantizationLevel,
				Modified: m.ModifiedAt, Digest: m.Digest,
			})
		}
		return nil
	})
	if err != nil {
		p.Error, p.Err = err.Error(), err
		return p
	}
	_ = c.unary(ctx, "list running models", "", 0, timeout, func(ctx context.Context) error {
		pr, err := c.api.ListRunning(ctx)
		if err != nil {
			return err
		}
		for _, m := range pr.Models {
			p.Loaded = append(p.Loaded, m.Name)
		}
		return nil
	})
	return p
}

func (c *Client) keepAlive(d time.Duration) *api.Duration {
	if d == 0 {
		d = c.cfg.KeepAlive
	}
	if d == 0 {
		return nil
	}
	return &api.Duration{Duration: d}
}

// unary runs a non-streaming request with a per-attempt timeout and retries.
func (c *Client) unary(ctx context.Context, op, model string, retries int, timeout time.Duration, do func(context.Context) error) error {
	return c.unaryWith(ctx, op, model, retries, timeout, c.wrap, do)
}

// unaryWith is unary with the error wrapping of a provider (wrap).
func (c *Client) unaryWith(ctx context.Context, op, model string, retries int, timeout time.Duration,
	wrap func(op, model string, k kind, err error) error, do func(context.Context) error) error {
	if c.cfg.IdleTimeout > 0 {
		// A short answer that does not come within the idle timeout is a
		// stalled server, whatever the request's own bound.
		timeout = min(timeout, c.cfg.IdleTimeout)
	}
	return c.retry(ctx, retries, func(int) (kind, error) {
		actx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		err := do(actx)
		if err == nil {
			return kindOther, nil
		}
		if ctx.Err() != nil {
			return kindCtx, fmt.Errorf("%s: %w", op, ctx.Err())
		}
		if actx.Err() != nil {
			return kindCtx, fmt.Errorf("%w: %s: no answer from %s within %s: %w",
				ErrTimeout, op, c.Host(), timeout, context.DeadlineExceeded)
		}
		err = asStatus(err)
		k := classify(err)
		return k, wrap(op, model, k, err)
	})
}

// wrap turns a classified api error into the package's error for op.
func (c *Client) wrap(op, model string, k kind, err error) error {
	switch k {
	case kindUnreachable:
		return &UnreachableError{Host: c.Host(), Err: err}
	case kindNotFound:
		return &ModelNotFoundError{Model: model, Host: c.Host()}
	case kindBadRequest:
		if tooLong(err) {
			return fmt.Errorf("%w: %s: %s", ErrPromptTooLong, op, describe(err))
		}
		return fmt.Errorf("%w: %s: %s", ErrBadRequest, op, describe(err))
	case kindCut:
		if errors.Is(err, errNoDone) {
			return fmt.Errorf("%w: %s: %w", ErrStreamCut, op, err)
		}
		return fmt.Errorf("%w: %s: connection to %s closed early: %w", ErrStreamCut, op, c.Host(), err)
	case kindCtx:
		// A deadline or cancellation that is not ours (e.g. inside the
		// transport) — report it as a timeout of the request.
		return fmt.Errorf("%w: %s: %w", ErrTimeout, op, err)
	default:
		if errors.Is(err, ErrServer) {
			return err
		}
		return fmt.Errorf("%w: %s: %s", ErrServer, op, describe(err))
	}
}

// retry runs attempt until it succeeds, fails with a kind that is not
// retryable, or the retries are used up. Waits honour ctx. Hand-written:
// no retry library is in go.mod and the loop must interleave with stream
// state (Delta.Reset), which generic helpers do not model.
func (c *Client) retry(ctx context.Context, retries int, attempt func(n int) (kind, error)) error {
	for n := 1; ; n++ {
		k, err := attempt(n)
		if err == nil {
			return nil
		}
		if !k.retryable() || n > retries || ctx.Err() != nil {
			if n > 1 && k.retryable() {
				return fmt.Errorf("%w (gave up after %d attempts)", err, n)
			}
			return err
		}
		wait := c.backoff(n)
		if c.cfg.OnRetry != nil {
			c.cfg.OnRetry(n+1, err, wait)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			// Not %w: a cancelled call must not also match ErrServer & co.
			return fmt.Errorf("%w (while waiting to retry after: %s)", ctx.Err(), err.Error())
		case <-t.C:
		}
	}
}

// backoff is the wait before retry n (n >= 1): Backoff·2^(n-1), capped at
// MaxBackoff, scaled by a jitter factor in [0.5, 1].
func (c *Client) backoff(n int) time.Duration {
	d := c.cfg.Backoff
	for i := 1; i < n && d < c.cfg.MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, c.cfg.MaxBackoff)
	return time.Duration(float64(d) * (0.5 + rand.Float64()/2))
}
