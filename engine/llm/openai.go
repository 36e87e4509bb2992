package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/packages/respjson"
	"github.com/openai/openai-go/v3/shared"
)

// OpenAI talks to one OpenAI-compatible server (llama.cpp's llama-server,
// LM Studio, vLLM, MLX servers, Ollama's own /v1) through the official
// openai-go client: streamed chat completions with tools and JSON-schema
// output, models from /v1/models. It is safe for concurrent use.
//
// It shares the Ollama client's rules (Config's timeouts, retries, idle
// timeout, reply cap, reply reserve, meters and token calibration) and its
// failure sentinels: a dial failure is ErrUnreachable, a 5xx or a malformed
// SSE stream ErrServer (retried), a stream that ends without a finish_reason
// ErrStreamCut (retried), no chunk within the idle timeout ErrTimeout
// (stalled), finish_reason "length" ErrLength after one retry with a larger
// max_tokens, a 400 about the context length ErrPromptTooLong, a 404 for the
// model ErrModelNotFound, tool calls whose arguments are not a JSON object
// ErrInvalidOutput after one retry.
//
// Unlike Ollama, an OpenAI-compatible server has no per-request context size
// and no "truncate": false: nova fits prompts to the context the server
// reports in /v1/models (context_length, max_model_len, meta.n_ctx_train,
// ...), capped by Config.NumCtx (the configured contextSize), or to
// Config.NumCtx alone when the server reports nothing.
type OpenAI struct {
	core *Client // config defaults, HTTP client, retries, caches, meters
	name string  // provider name, for messages
	key  string
	base string // base URL, ending in /v1

	chat   openai.ChatCompletionService
	models openai.ModelService

	listMu sync.Mutex
	listAt time.Time
	list   []openAIModel
}

// openAIModel is one entry of /v1/models.
type openAIModel struct {
	ID            string
	ContextLength int
}

// modelListTTL is how long a /v1/models answer is reused.
const modelListTTL = 30 * time.Second

// NewOpenAI builds a client of an OpenAI-compatible server at baseURL (e.g.
// "http://127.0.0.1:1234/v1"; a URL without a path gets /v1). name is the
// provider's name in messages; apiKey, when set, is sent as a bearer token
// (and nothing is read from OPENAI_* variables: a key meant for one server is
// never sent to another). cfg.Host is ignored.
func NewOpenAI(name, baseURL, apiKey string, cfg Config) (*OpenAI, error) {
	u, err := ResolveHost(baseURL)
	if err != nil || strings.TrimSpace(baseURL) == "" {
		if err == nil {
			err = errors.New("no baseURL")
		}
		return nil, fmt.Errorf("%w: provider %s: baseURL %q: %w", ErrBadRequest, name, baseURL, err)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1"
	}
	cfg.Host = u.String()
	core, err := New(cfg)
	if err != nil {
		return nil, err
	}
	base := strings.TrimRight(u.String(), "/")
	opts := []option.RequestOption{
		option.WithBaseURL(base + "/"),
		option.WithHTTPClient(core.http),
		option.WithMaxRetries(0), // nova retries itself, with its own rules
		option.WithHeader("User-Agent", "nova (openai-compatible)"),
	}
	if apiKey != "" {
		opts = append(opts, option.WithAPIKey(apiKey))
	}
	return &OpenAI{core: core, name: name, key: apiKey, base: base,
		chat: openai.NewChatCompletionService(opts...), models: openai.NewModelService(opts...)}, nil
}

// Host is the base URL, e.g. "http://127.0.0.1:1234/v1".
func (o *OpenAI) Host() string { return o.base }

// Name is the provider's name.
func (o *OpenAI) Name() string { return o.name }

// TokenFactor implements Provider.
func (o *OpenAI) TokenFactor(model string) float64 { return o.core.TokenFactor(model) }

// RaiseTokenFactor implements Provider.
func (o *OpenAI) RaiseTokenFactor(model string, mult float64) float64 {
	return o.core.RaiseTokenFactor(model, mult)
}

// ReplyReserve is the configured reply reserve.
func (o *OpenAI) ReplyReserve() int { return o.core.cfg.ReplyReserve }

// Version implements Provider: OpenAI-compatible servers have no version
// endpoint, so it lists the models (the cheapest request every such server
// answers) and reports "openai-compatible".
func (o *OpenAI) Version(ctx context.Context) (string, error) {
	if _, err := o.listModels(ctx, o.core.cfg.Retries, true); err != nil {
		return "", err
	}
	return "openai-compatible", nil
}

// ListModels lists the server's models (/v1/models).
func (o *OpenAI) ListModels(ctx context.Context) ([]Model, error) {
	ms, err := o.listModels(ctx, o.core.cfg.Retries, true)
	if err != nil {
		return nil, err
	}
	out := make([]Model, 0, len(ms))
	for _, m := range ms {
		out = append(out, Model{Name: m.ID})
	}
	return out, nil
}

func (o *OpenAI) listModels(ctx context.Context, retries int, fresh bool) ([]openAIModel, error) {
	o.listMu.Lock()
	if !fresh && o.list != nil && time.Since(o.listAt) < modelListTTL {
		l := o.list
		o.listMu.Unlock()
		return l, nil
	}
	o.listMu.Unlock()
	var out []openAIModel
	err := o.core.unaryWith(ctx, "list models", "", retries, o.core.cfg.Timeout, o.wrap, func(ctx context.Context) error {
		page, err := o.models.List(ctx)
		if err != nil {
			return err
		}
		out = make([]openAIModel, 0, len(page.Data))
		for _, m := range page.Data {
			out = append(out, openAIModel{ID: m.ID, ContextLength: ModelContextFromJSON([]byte(m.RawJSON()))})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	o.listMu.Lock()
	o.list, o.listAt = out, time.Now()
	o.listMu.Unlock()
	return out, nil
}

// Probe implements Provider: /v1/models, without retries.
func (o *OpenAI) Probe(ctx context.Context) Probe {
	p := Probe{Host: o.Host(), Models: []Model{}}
	start := time.Now()
	ms, err := o.listModels(ctx, 0, true)
	p.Latency = time.Since(start)
	if err != nil {
		p.Error, p.Err = err.Error(), err
		return p
	}
	p.Reachable, p.Version = true, "openai-compatible"
	for _, m := range ms {
		p.Models = append(p.Models, Model{Name: m.ID})
		// An OpenAI-compatible server serves what it lists: count every
		// listed model as loaded (there is no /api/ps).
		p.Loaded = append(p.Loaded, m.ID)
	}
	return p
}

// ModelInfo implements Provider from /v1/models: the model's context length
// when the server reports one. The capabilities are unknown (empty): a
// server that cannot do tools says so with a 400, and callers fall back.
func (o *OpenAI) ModelInfo(ctx context.Context, model string) (ModelInfo, error) {
	ms, err := o.listModels(ctx, o.core.cfg.Retries, false)
	if err != nil {
		return ModelInfo{}, err
	}
	for _, m := range ms {
		if m.ID == model || SameModel(m.ID, model) {
			return ModelInfo{Model: Model{Name: m.ID}, ContextLength: m.ContextLength}, nil
		}
	}
	return ModelInfo{}, &ModelNotFoundError{Model: model, Host: o.Host(), Provider: o.name}
}

// Window implements Provider: the context the server reports for model,
// capped by numCtx (0: Config.NumCtx, the configured contextSize); only the
// configured size when the server reports none.
func (o *OpenAI) Window(ctx context.Context, model string, numCtx int) (Window, error) {
	w := Window{Model: model, NumCtx: cmpOr(numCtx, o.core.cfg.NumCtx), Reserve: o.core.cfg.ReplyReserve}
	info, err := o.ModelInfo(ctx, model)
	if err == nil {
		w.ModelContext = info.ContextLength
	}
	switch {
	case w.NumCtx > 0 && w.ModelContext > 0:
		w.Tokens = min(w.NumCtx, w.ModelContext)
	case w.NumCtx > 0:
		w.Tokens = w.NumCtx
	case w.ModelContext > 0:
		w.Tokens = w.ModelContext
	}
	if err != nil {
		return w, err
	}
	if w.Tokens == 0 {
		return w, ErrNoWindow
	}
	return w, nil
}

// Embed implements Provider with /v1/embeddings.
func (o *OpenAI) Embed(ctx context.Context, model string, inputs []string) ([][]float32, error) {
	if len(inputs) == 0 {
		return [][]float32{}, nil
	}
	var out [][]float32
	svc := openai.NewEmbeddingService(o.chat.Options...)
	err := o.core.unaryWith(ctx, "embed", model, o.core.cfg.Retries, o.core.cfg.Timeout, o.wrap, func(ctx context.Context) error {
		r, err := svc.New(ctx, openai.EmbeddingNewParams{
			Model: model, Input: openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: inputs},
		})
		if err != nil {
			return err
		}
		if len(r.Data) != len(inputs) {
			return fmt.Errorf("%w: embed: %s returned %d vectors for %d inputs", ErrServer, o.Host(), len(r.Data), len(inputs))
		}
		out = make([][]float32, len(r.Data))
		for _, d := range r.Data {
			if d.Index < 0 || int(d.Index) >= len(out) {
				return fmt.Errorf("%w: embed: %s returned a vector for input %d of %d", ErrServer, o.Host(), d.Index, len(inputs))
			}
			v := make([]float32, len(d.Embedding))
			for i, f := range d.Embedding {
				v[i] = float32(f)
			}
			out[d.Index] = v
		}
		return nil
	})
	return out, err
}

// wrap classifies an error of the SDK (or of the stream reader) and gives
// the package's error for op, naming the provider and host.
func (o *OpenAI) wrap(op, model string, k kind, err error) error {
	switch k {
	case kindUnreachable:
		return &UnreachableError{Host: o.Host(), Err: err, Provider: o.name}
	case kindNotFound:
		return &ModelNotFoundError{Model: model, Host: o.Host(), Provider: o.name}
	}
	where := op + " (" + o.name + " at " + o.Host() + ")"
	var se api.StatusError
	if k == kindBadRequest && errors.As(err, &se) && (se.StatusCode == http.StatusUnauthorized || se.StatusCode == http.StatusForbidden) {
		hint := "set providers." + o.name + ".apiKey (e.g. ${ENV_VAR})"
		if o.key != "" {
			hint = "check providers." + o.name + ".apiKey"
		}
		return &providerError{err: fmt.Errorf("%w: %s: %s: %s", ErrAuth, where, describe(err), hint), name: o.name}
	}
	return &providerError{err: o.core.wrap(where, model, k, err), name: o.name}
}

// providerError is an error of an OpenAI-compatible provider: the same
// sentinels as Ollama's (errors.Is sees through it), its text naming the
// provider where the sentinel says "ollama".
type providerError struct {
	err  error
	name string
}

func (e *providerError) Error() string {
	msg := e.err.Error()
	if rest, ok := strings.CutPrefix(msg, "ollama "); ok {
		return "provider " + e.name + " " + rest
	}
	return msg
}

func (e *providerError) Unwrap() error { return e.err }

// asStatus turns the SDK's API error into the api.StatusError the package's
// classification understands; other errors pass through.
func asStatus(err error) error {
	var ae *openai.Error
	if !errors.As(err, &ae) {
		return err
	}
	msg := ae.Message
	if msg == "" {
		msg = strings.TrimSpace(ae.RawJSON())
	}
	if ae.StatusCode == http.StatusNotFound && !isModelNotFound(msg) && strings.Contains(strings.ToLower(msg), "model") {
		msg = "model not found: " + msg
	}
	return api.StatusError{StatusCode: ae.StatusCode, Status: fmt.Sprintf("%d %s", ae.StatusCode, http.StatusText(ae.StatusCode)), ErrorMessage: msg}
}

// Chat implements Provider. See the type's comment for the failure rules;
// retries, Delta.Reset, the reply cap, meters and budgets behave as in
// (*Client).Chat.
func (o *OpenAI) Chat(ctx context.Context, req ChatRequest, onDelta func(Delta)) (ChatResult, error) {
	start := time.Now()
	c := o.core
	if err := checkChat(req); err != nil {
		return ChatResult{}, err
	}
	params, err := o.toParams(req)
	if err != nil {
		return ChatResult{}, err
	}
	callCtx, cancel, timeout := c.chatContext(ctx, req)
	defer cancel()

	st := &chatState{onDelta: onDelta}
	op := "chat " + req.Model
	var total Usage
	lengthRetried, repeatRetried, argsRetried := false, false, false
	for {
		res, err := o.chatAttempts(callCtx, &params, op, req.Model, st)
		total.PromptTokens += res.PromptTokens
		total.EvalTokens += res.EvalTokens
		if err == nil && res.DoneReason == doneLength && callCtx.Err() == nil {
			asked := int(params.MaxTokens.Value)
			if !lengthRetried {
				lengthRetried = true
				params.MaxTokens = param.NewOpt(int64(c.largerNumPredict(asked, res.EvalTokens)))
				continue
			}
			res.PromptTokens, res.EvalTokens = total.PromptTokens, total.EvalTokens
			res.Attempts, res.Duration = st.attempts, time.Since(start)
			return res, fmt.Errorf("%w: %s: the reply stopped at the token limit (finish_reason \"length\" after %d tokens, "+
				"max_tokens %s) even after one retry with a larger limit; it is not used as an answer",
				ErrLength, op, res.EvalTokens, describeNumPredict(asked))
		}
		if err != nil && errors.Is(err, ErrLength) {
			res.Attempts, res.Duration = st.attempts, time.Since(start)
			return res, err
		}
		if err != nil && errors.Is(err, errBadToolArgs) && callCtx.Err() == nil && !argsRetried {
			argsRetried = true
			continue
		}
		if err != nil && errors.Is(err, errRepetition) && callCtx.Err() == nil {
			if !repeatRetried {
				repeatRetried = true
				t := 0.7
				if params.Temperature.Valid() && params.Temperature.Value >= 0.5 {
					t = min(params.Temperature.Value+0.3, 1.5)
				}
				params.Temperature = param.NewOpt(t)
				params.Seed = param.NewOpt(int64(rand.IntN(1<<31-1) + 1))
				continue
			}
			return ChatResult{Attempts: st.attempts}, fmt.Errorf("%w (retried once with temperature %.2g and a new seed)", err, params.Temperature.Value)
		}
		if err != nil {
			switch {
			case ctx.Err() != nil:
				return ChatResult{}, fmt.Errorf("%s: %w", op, ctx.Err())
			case callCtx.Err() != nil:
				return ChatResult{}, fmt.Errorf("%w: %s: no complete reply from %s within %s: %w",
					ErrTimeout, op, o.Host(), timeout, context.DeadlineExceeded)
			}
			return ChatResult{}, err
		}
		if res.Model == "" {
			res.Model = req.Model
		}
		res.Attempts = st.attempts
		res.Duration = time.Since(start)
		o.calibrate(req, res.PromptTokens)
		res.PromptTokens, res.EvalTokens = total.PromptTokens, total.EvalTokens
		c.record(req, res)
		return res, nil
	}
}

// errBadToolArgs marks a reply whose tool call arguments are not a JSON
// object (wrapped with ErrInvalidOutput); Chat asks once more.
var errBadToolArgs = errors.New("tool call arguments are not a JSON object")

// finishGrace is how long the stream may stay open after the finish_reason
// chunk (for the usage chunk and [DONE]) before nova stops reading and
// takes the reply as complete: a server that never sends [DONE] does not
// hold a run.
const finishGrace = 2 * time.Second

// partialCall accumulates one streamed tool call.
type partialCall struct {
	id, name string
	args     strings.Builder
}

// chatAttempts runs one request with the transport retries.
func (o *OpenAI) chatAttempts(callCtx context.Context, params *openai.ChatCompletionNewParams, op, model string, st *chatState) (ChatResult, error) {
	c := o.core
	var res ChatResult
	stalls := 0
	err := c.retry(callCtx, c.cfg.Retries, func(int) (kind, error) {
		st.attempts++
		if st.delivered && st.onDelta != nil {
			st.onDelta(Delta{Reset: true})
			st.delivered = false
		}
		acc, err := o.streamOnce(callCtx, *params, op, st)
		if errors.Is(err, errReplyCap) {
			acc.DoneReason = doneLength
			res = acc
			return kindOther, fmt.Errorf("%w: %s: the reply from %s passed %s (maxReply); it was cut there, the rest was "+
				"not read, and it is not used as an answer", ErrLength, op, o.Host(), byteSize(c.cfg.MaxReply))
		}
		if errors.Is(err, errBadToolArgs) || errors.Is(err, errRepetition) {
			return kindOther, err
		}
		if err == nil {
			res = acc
			return kindOther, nil
		}
		if callCtx.Err() != nil {
			return kindCtx, err
		}
		if errors.Is(err, errIdle) {
			stalls++
			werr := fmt.Errorf("%w: %s: no reply from %s (%s) within %s (idleTimeout)", ErrTimeout, op, o.name, o.Host(), c.cfg.IdleTimeout)
			if stalls > 1 {
				return kindCtx, fmt.Errorf("%w (gave up after %d stalled attempts)", werr, stalls)
			}
			return kindStalled, werr
		}
		err = asStatus(err)
		k := classify(err)
		if k == kindServer {
			var se api.StatusError
			if !errors.As(err, &se) && !errors.Is(err, ErrServer) {
				err = fmt.Errorf("%w: %s: malformed stream from %s: %s", ErrServer, op, o.Host(), err.Error())
			}
		}
		return k, o.wrap(op, model, k, err)
	})
	return res, err
}

// streamOnce sends one streamed request and reads it to its end.
func (o *OpenAI) streamOnce(callCtx context.Context, params openai.ChatCompletionNewParams, op string, st *chatState) (ChatResult, error) {
	c := o.core
	idle := c.cfg.IdleTimeout
	actx, cancel := context.WithCancelCause(callCtx)
	defer cancel(nil)
	var finished sync.Mutex // guards finishedSeen for the timer
	finishedSeen := false
	var timer *time.Timer
	if idle > 0 {
		timer = time.AfterFunc(idle, func() { cancel(errIdle) })
		defer timer.Stop()
	}
	alive := func() {
		if timer == nil {
			return
		}
		finished.Lock()
		d := idle
		if finishedSeen {
			d = min(idle, finishGrace)
		}
		finished.Unlock()
		timer.Reset(d)
	}

	stream := o.chat.NewStreaming(actx, params)
	defer func() { _ = stream.Close() }()
	alive()

	var acc ChatResult
	var content, thinking strings.Builder
	var calls []*partialCall
	var rep repeatWatch
	size := 0
	finish := ""
	for stream.Next() {
		alive()
		chunk := stream.Current()
		if chunk.Model != "" {
			acc.Model = chunk.Model
		}
		if chunk.JSON.Usage.Valid() && (chunk.Usage.PromptTokens > 0 || chunk.Usage.CompletionTokens > 0) {
			acc.PromptTokens, acc.EvalTokens = int(chunk.Usage.PromptTokens), int(chunk.Usage.CompletionTokens)
		}
		for _, ch := range chunk.Choices {
			if ch.Index != 0 {
				continue
			}
			d := Delta{Content: ch.Delta.Content, Thinking: reasoningOf(ch.Delta.JSON.ExtraFields)}
			for _, tc := range ch.Delta.ToolCalls {
				i := int(tc.Index)
				if i < 0 || i > 255 {
					continue
				}
				for len(calls) <= i {
					calls = append(calls, &partialCall{})
				}
				p := calls[i]
				if tc.ID != "" {
					p.id = tc.ID
				}
				if tc.Function.Name != "" {
					p.name += tc.Function.Name
				}
				p.args.WriteString(tc.Function.Arguments)
				size += len(tc.Function.Name) + len(tc.Function.Arguments)
			}
			if c.cfg.MaxReply > 0 {
				size += len(d.Content) + len(d.Thinking)
				if size > c.cfg.MaxReply {
					room := c.cfg.MaxReply - (size - len(d.Content) - len(d.Thinking))
					d.Thinking = cutUTF8(d.Thinking, room)
					d.Content = cutUTF8(d.Content, room-len(d.Thinking))
					content.WriteString(d.Content)
					thinking.WriteString(d.Thinking)
					acc.Content, acc.Thinking = content.String(), thinking.String()
					if st.onDelta != nil && (d.Content != "" || d.Thinking != "") {
						st.delivered = true
						st.onDelta(d)
					}
					return acc, errReplyCap
				}
			}
			content.WriteString(d.Content)
			thinking.WriteString(d.Thinking)
			rep.add(d.Content)
			if st.onDelta != nil && (d.Content != "" || d.Thinking != "") {
				st.delivered = true
				st.onDelta(d)
			}
			if ch.FinishReason != "" {
				finish = ch.FinishReason
				finished.Lock()
				finishedSeen = true
				finished.Unlock()
				alive()
			}
		}
	}
	err := stream.Err()
	acc.Content, acc.Thinking = content.String(), thinking.String()
	if err != nil && finish != "" && errors.Is(context.Cause(actx), errIdle) && callCtx.Err() == nil {
		// The reply finished; the server just never closed the stream
		// (no [DONE]). Take it.
		err = nil
	}
	if err != nil {
		if errors.Is(context.Cause(actx), errIdle) && callCtx.Err() == nil {
			return acc, fmt.Errorf("%w: %w", errIdle, err)
		}
		return acc, err
	}
	if finish == "" {
		if unit, ok := rep.degenerate(acc.Content); ok {
			return acc, fmt.Errorf("%w: %s: %s ended the reply without a finish_reason after the model "+
				"kept repeating %q (%d characters of output)", ErrRepetition, op, o.Host(), clipText(unit, 40), len(acc.Content))
		}
		return acc, fmt.Errorf("stream from %s ended without a finish_reason: %w", o.Host(), errNoDone)
	}
	switch finish {
	case "length":
		acc.DoneReason = doneLength
	case "tool_calls", "function_call":
		acc.DoneReason = "stop"
	default:
		acc.DoneReason = finish
	}
	for i, p := range calls {
		if p.name == "" && p.args.Len() == 0 {
			continue
		}
		args, perr := ParseToolArguments(p.args.String())
		if perr != nil {
			return acc, fmt.Errorf("%w: %s: %s sent a call of %s whose %w: %w (%q)", ErrInvalidOutput, op, o.Host(),
				p.name, errBadToolArgs, perr, clipText(p.args.String(), 120))
		}
		tc := ToolCall{ID: p.id, Index: i, Name: p.name, Arguments: args}
		acc.ToolCalls = append(acc.ToolCalls, tc)
	}
	if len(acc.ToolCalls) > 0 && st.onDelta != nil {
		st.delivered = true
		st.onDelta(Delta{ToolCalls: acc.ToolCalls})
	}
	return acc, nil
}

// reasoningOf reads the reasoning text servers add to a delta
// (reasoning_content: llama.cpp, vLLM, LM Studio; reasoning: Ollama).
func reasoningOf(extra map[string]respjson.Field) string {
	for _, k := range []string{"reasoning_content", "reasoning"} {
		f, ok := extra[k]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal([]byte(f.Raw()), &s) == nil {
			return s
		}
	}
	return ""
}

// calibrate learns the token factor from a successful chat.
func (o *OpenAI) calibrate(req ChatRequest, promptTokens int) {
	if promptTokens <= 0 {
		return
	}
	est := EstimateMessages(req.Messages, req.Tools)
	if est < calibrateMin {
		return
	}
	o.core.learn(req.Model, promptTokens, est)
}

// toParams converts a ChatRequest to the SDK's request. Problems are
// reported as bad requests before anything is sent.
func (o *OpenAI) toParams(req ChatRequest) (openai.ChatCompletionNewParams, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: chat %s (%s): %s", ErrBadRequest, req.Model, o.name, fmt.Sprintf(format, a...))
	}
	p := openai.ChatCompletionNewParams{
		Model:         req.Model,
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: param.NewOpt(true)},
	}
	// Tool results name their call; a call without an id (from an Ollama
	// conversation) gets one here, and the result that follows takes it.
	pending := []string{}
	for i, m := range req.Messages {
		switch m.Role {
		case RoleSystem:
			p.Messages = append(p.Messages, openai.SystemMessage(m.Content))
		case RoleUser:
			p.Messages = append(p.Messages, openai.UserMessage(m.Content))
		case RoleAssistant:
			am := openai.ChatCompletionAssistantMessageParam{}
			if m.Content != "" || len(m.ToolCalls) == 0 {
				am.Content.OfString = param.NewOpt(m.Content)
			}
			for j, tc := range m.ToolCalls {
				id := tc.ID
				if id == "" {
					id = fmt.Sprintf("call_%d_%d", i, j)
				}
				pending = append(pending, id)
				args := string(tc.Arguments)
				if args == "" || args == "null" {
					args = "{}"
				}
				am.ToolCalls = append(am.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
						ID:       id,
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: args},
					}})
			}
			p.Messages = append(p.Messages, openai.ChatCompletionMessageParamUnion{OfAssistant: &am})
		case RoleTool:
			id := m.ToolCallID
			if id == "" && len(pending) > 0 {
				id = pending[0]
			}
			if k := indexOf(pending, id); k >= 0 {
				pending = append(pending[:k], pending[k+1:]...)
			}
			if id == "" {
				id = fmt.Sprintf("call_%d", i)
			}
			p.Messages = append(p.Messages, openai.ToolMessage(m.Content, id))
		default:
			return p, bad("message %d: unknown role %q", i, m.Role)
		}
	}
	for _, t := range req.Tools {
		if strings.TrimSpace(t.Name) == "" {
			return p, bad("tool without a name")
		}
		fd := shared.FunctionDefinitionParam{Name: t.Name}
		if t.Description != "" {
			fd.Description = param.NewOpt(t.Description)
		}
		params := map[string]any{"type": "object", "properties": map[string]any{}}
		if len(t.Parameters) > 0 {
			if err := json.Unmarshal(t.Parameters, &params); err != nil || params == nil {
				return p, bad("tool %s: parameters are not a JSON schema object", t.Name)
			}
		}
		fd.Parameters = params
		p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(fd))
	}
	if len(req.Format) > 0 {
		if !json.Valid(req.Format) {
			return p, bad("format is not valid JSON")
		}
		var s string
		if json.Unmarshal(req.Format, &s) == nil {
			if s == "json" {
				p.ResponseFormat.OfJSONObject = &shared.ResponseFormatJSONObjectParam{}
			}
		} else {
			var schema map[string]any
			if err := json.Unmarshal(req.Format, &schema); err != nil {
				return p, bad("format is neither \"json\" nor a JSON schema object")
			}
			// Sent as written: a map would sort the properties, and servers
			// that derive a grammar from the schema keep its key order (the
			// order a model is asked to write them in).
			p.ResponseFormat.OfJSONSchema = &shared.ResponseFormatJSONSchemaParam{
				JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: "nova_output", Schema: req.Format},
			}
		}
	}
	if req.Temperature != nil {
		p.Temperature = param.NewOpt(*req.Temperature)
	} else if v, ok := req.Options["temperature"].(float64); ok {
		p.Temperature = param.NewOpt(v)
	}
	if req.NumPredict > 0 {
		p.MaxTokens = param.NewOpt(int64(req.NumPredict))
	}
	switch v := req.Options["seed"].(type) {
	case int:
		p.Seed = param.NewOpt(int64(v))
	case float64:
		p.Seed = param.NewOpt(int64(v))
	}
	if v, ok := req.Options["top_p"].(float64); ok {
		p.TopP = param.NewOpt(v)
	}
	return p, nil
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}
