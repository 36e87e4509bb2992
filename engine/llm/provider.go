package llm

import "context"

// Provider is what nova's runs (agent loop, builds, rehearsal, goal runs,
// knowledge, ACE) need of a model server. Three implementations:
//
//   - *Client: one Ollama server over its native API (num_ctx per request,
//     "truncate": false);
//   - *OpenAI: one OpenAI-compatible server (llama.cpp's llama-server, LM
//     Studio, vLLM, MLX servers, Ollama's /v1) over chat completions;
//   - *Pool: several hosts of one provider, routing each call to the least
//     busy host that has the model, and *Router: several named providers
//     chosen by a "provider/model" prefix (what config's models: name).
//
// Every implementation maps its failures to the same sentinels
// (ErrUnreachable, ErrStreamCut, ErrTimeout, ErrLength, ErrPromptTooLong,
// ...), so callers branch on failure kinds without knowing the server.
type Provider interface {
	// Chat sends one chat and streams the reply to onDelta (may be nil);
	// see (*Client).Chat for retries, Delta.Reset and the length rules.
	Chat(ctx context.Context, req ChatRequest, onDelta func(Delta)) (ChatResult, error)
	// Embed returns one vector per input, in order.
	Embed(ctx context.Context, model string, inputs []string) ([][]float32, error)
	// ModelInfo describes a model (context length, capabilities), cached.
	ModelInfo(ctx context.Context, model string) (ModelInfo, error)
	// Window is the context a request for model gets (numCtx 0: configured).
	Window(ctx context.Context, model string, numCtx int) (Window, error)
	// TokenFactor and RaiseTokenFactor are the learned ratio of real to
	// estimated prompt tokens of a model.
	TokenFactor(model string) float64
	RaiseTokenFactor(model string, mult float64) float64
	// Version asks the server's version: the cheapest liveness check.
	Version(ctx context.Context) (string, error)
	// Host names where the provider talks to, for messages.
	Host() string
	// Probe is a one-shot health report (never fails; see Probe.Error).
	Probe(ctx context.Context) Probe
}

var (
	_ Provider = (*Client)(nil)
	_ Provider = (*OpenAI)(nil)
)
