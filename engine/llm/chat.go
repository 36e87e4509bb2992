package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/ollama/ollama/api"
)

// Message roles.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one chat message.
type Message struct {
	Role     string `json:"role"`
	Content  string `json:"content"`
	Thinking string `json:"thinking,omitempty"`
	// ToolCalls are the calls an assistant message made.
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	// ToolName and ToolCallID identify, on a RoleTool message, the call whose
	// result Content is.
	ToolName   string   `json:"toolName,omitempty"`
	ToolCallID string   `json:"toolCallId,omitempty"`
	Images     [][]byte `json:"images,omitempty"`
}

// ToolCall is a native tool call made by the model.
type ToolCall struct {
	ID    string `json:"id,omitempty"`
	Index int    `json:"index"`
	Name  string `json:"name"`
	// Arguments is a JSON object, keys in the order the model wrote them.
	Arguments json.RawMessage `json:"arguments"`
}

// Tool is a function the model may call.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Parameters is the JSON Schema of the arguments object. Empty means no
	// arguments. Ollama's wire type keeps only type, properties (with type,
	// description, enum, items, anyOf, nested properties, required),
	// required, items and $defs; other keywords are dropped.
	Parameters json.RawMessage `json:"parameters,omitempty"`
}

// ChatRequest is one chat call.
type ChatRequest struct {
	Model    string
	Messages []Message
	Tools    []Tool
	// Format constrains the output: a JSON schema, or the JSON string "json".
	Format json.RawMessage
	// Think, when set, is sent explicitly (true or false); nil leaves the
	// model's default.
	Think *bool
	// NumCtx overrides Config.NumCtx when non-zero.
	NumCtx int
	// NumPredict, when positive, limits the reply (options.num_predict);
	// zero leaves the model's default.
	NumPredict int
	// KeepAlive overrides Config.KeepAlive when non-zero.
	KeepAlive time.Duration
	// Temperature, when set, is sent as options.temperature.
	Temperature *float64
	// Options are extra model options (seed, top_p, num_predict, stop, ...).
	Options map[string]any
	// Timeout bounds the whole call, retries included; zero means
	// Config.ChatTimeout.
	Timeout time.Duration
	// Meter, when set, records this call's tokens (besides Config.Meter)
	// under MeterKeys (e.g. "task:T1", "build:B7").
	Meter     *Meter
	MeterKeys []string
	// Budgets are checked before the call: if one is spent the call is not
	// made and ErrBudgetExceeded is returned.
	Budgets []*Budget
}

// Delta is one streamed piece of the reply.
type Delta struct {
	Content   string
	Thinking  string
	ToolCalls []ToolCall
	// Reset means the attempt that produced the previous deltas of this call
	// failed and is being retried: discard them. It carries no text.
	Reset bool
}

// ChatResult is the complete reply of a successful chat.
type ChatResult struct {
	Content    string     `json:"content"`
	Thinking   string     `json:"thinking,omitempty"`
	ToolCalls  []ToolCall `json:"toolCalls,omitempty"`
	Model      string     `json:"model"`
	DoneReason string     `json:"doneReason"`
	// PromptTokens and EvalTokens are Ollama's prompt_eval_count and
	// eval_count for the successful attempt.
	PromptTokens int `json:"promptTokens"`
	EvalTokens   int `json:"evalTokens"`
	// Duration is the wall time of the call, retries included.
	Duration time.Duration `json:"duration"`
	// Attempts is the number of attempts made (1 without retries).
	Attempts int `json:"attempts"`
}

// Message is the assistant message to append to the conversation.
func (r ChatResult) Message() Message {
	return Message{Role: RoleAssistant, Content: r.Content, Thinking: r.Thinking, ToolCalls: r.ToolCalls}
}

// Usage is the result's token usage, for a Meter.
func (r ChatResult) Usage() Usage {
	return Usage{Calls: 1, PromptTokens: r.PromptTokens, EvalTokens: r.EvalTokens}
}

// Chat sends one chat and streams the reply to onDelta (which may be nil).
// Deltas arrive in order on the calling goroutine. The server is always
// asked to stream, even without onDelta: an answer held back until the end
// ("stream": false) sends no byte for as long as the model generates, which
// no idle timeout could tell from a stalled server. See the package comment for retries and Delta.Reset.
// Cancelling ctx stops the stream at once; the error then satisfies
// errors.Is(err, context.Canceled).
//
// Every request asks the server not to truncate the prompt nor shift the
// context ("truncate": false, "shift": false): a prompt that does not fit is
// refused with ErrPromptTooLong instead of silently losing its start.
//
// A reply is never returned as complete unless the server said done with a
// reason other than "length":
//   - done_reason "length" is retried once with a larger num_predict, then
//     fails with ErrLength (the cut reply is in the returned result);
//   - a stream that ends cleanly without done after degenerate, repeated
//     output (the real server's repetition stop) is retried once with another
//     temperature and seed, then fails with ErrRepetition; it is never sent
//     again unchanged;
//   - no first byte or no next chunk within Config.IdleTimeout is retried
//     once, then fails with ErrTimeout (stalled).
func (c *Client) Chat(ctx context.Context, req ChatRequest, onDelta func(Delta)) (ChatResult, error) {
	start := time.Now()
	if err := checkChat(req); err != nil {
		return ChatResult{}, err
	}
	areq, err := c.toAPIChat(req, true)
	if err != nil {
		return ChatResult{}, err
	}
	callCtx, cancel, timeout := c.chatContext(ctx, req)
	defer cancel()

	st := &chatState{onDelta: onDelta}
	op := "chat " + req.Model
	var total Usage
	lengthRetried, repeatRetried := false, false
	for {
		res, err := c.chatAttempts(callCtx, areq, op, req.Model, st)
		total.PromptTokens += res.PromptTokens
		total.EvalTokens += res.EvalTokens
		if err == nil && res.DoneReason == doneLength && callCtx.Err() == nil {
			np := numPredict(areq)
			if !lengthRetried {
				lengthRetried = true
				setOption(areq, "num_predict", c.largerNumPredict(np, res.EvalTokens))
				continue
			}
			res.PromptTokens, res.EvalTokens = total.PromptTokens, total.EvalTokens
			res.Attempts, res.Duration = st.attempts, time.Since(start)
			return res, fmt.Errorf("%w: %s: the reply stopped at the token limit (done_reason \"length\" after %d tokens, "+
				"num_predict %s) even after one retry with a larger limit; it is not used as an answer",
				ErrLength, op, res.EvalTokens, describeNumPredict(np))
		}
		if err != nil && errors.Is(err, ErrLength) {
			res.Attempts, res.Duration = st.attempts, time.Since(start)
			return res, err
		}
		if err != nil && errors.Is(err, errRepetition) && callCtx.Err() == nil {
			if !repeatRetried {
				repeatRetried = true
				temp := changedTemperature(areq)
				setOption(areq, "temperature", temp)
				setOption(areq, "seed", rand.IntN(1<<31-1)+1)
				continue
			}
			return ChatResult{Attempts: st.attempts}, fmt.Errorf("%w (retried once with temperature %.2g and a new seed)",
				err, optionFloat(areq, "temperature"))
		}
		if err != nil {
			switch {
			case ctx.Err() != nil:
				return ChatResult{}, fmt.Errorf("%s: %w", op, ctx.Err())
			case callCtx.Err() != nil:
				return ChatResult{}, fmt.Errorf("%w: %s: no complete reply within %s: %w",
					ErrTimeout, op, timeout, context.DeadlineExceeded)
			}
			return ChatResult{}, err
		}
		if res.Model == "" {
			res.Model = req.Model
		}
		res.Attempts = st.attempts
		res.Duration = time.Since(start)
		c.calibrate(req.Model, areq, res.PromptTokens)
		// Tokens of a cut attempt were spent too.
		res.PromptTokens, res.EvalTokens = total.PromptTokens, total.EvalTokens
		c.record(req, res)
		return res, nil
	}
}

const doneLength = "length"

// errReplyCap marks a reply cut at Config.MaxReply (wrapped with ErrLength).
var errReplyCap = errors.New("reply larger than ollama.maxReply")

// deltaSize is what a delta adds to a reply, in bytes.
func deltaSize(d Delta) int {
	n := len(d.Content) + len(d.Thinking)
	for _, tc := range d.ToolCalls {
		n += len(tc.Name) + len(tc.Arguments)
	}
	return n
}

// cutUTF8 returns the longest prefix of s of at most n bytes that does not
// split a UTF-8 sequence.
func cutUTF8(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// byteSize renders a byte count for messages ("4 MiB", "512 KiB").
func byteSize(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// chatState carries a call's stream state across its attempts.
type chatState struct {
	onDelta   func(Delta)
	delivered bool
	attempts  int
}

// chatAttempts runs one request with the transport retries (cut, server,
// unreachable, one stall). A reply that ends without done after degenerate
// output returns errRepetition at once: repeating the identical request
// would give the same reply.
func (c *Client) chatAttempts(callCtx context.Context, areq *api.ChatRequest, op, model string, st *chatState) (ChatResult, error) {
	var res ChatResult
	stalls := 0
	send := c.chatStream
	if c.viaAPI {
		send = func(ctx context.Context, r *api.ChatRequest, fn func(api.ChatResponse) error) error {
			return c.api.Chat(ctx, r, fn)
		}
	}
	err := c.retry(callCtx, c.cfg.Retries, func(int) (kind, error) {
		st.attempts++
		if st.delivered && st.onDelta != nil {
			st.onDelta(Delta{Reset: true})
			st.delivered = false
		}
		var acc ChatResult
		// Builders, not +=: a long reply arrives in many small chunks, and
		// concatenating strings would copy it over and over (quadratic).
		var content, thinking strings.Builder
		done := false
		var rep repeatWatch
		size, capped := 0, false
		err := send(callCtx, areq, func(r api.ChatResponse) error {
			if err := callCtx.Err(); err != nil {
				return err
			}
			d := Delta{Content: r.Message.Content, Thinking: r.Message.Thinking, ToolCalls: fromAPIToolCalls(r.Message.ToolCalls)}
			if c.cfg.MaxReply > 0 {
				size += deltaSize(d)
				if size > c.cfg.MaxReply {
					// Keep what fits, then stop reading: returning an error
					// ends the stream and closes the body.
					capped = true
					room := c.cfg.MaxReply - (size - deltaSize(d))
					d.Thinking = cutUTF8(d.Thinking, room)
					d.Content = cutUTF8(d.Content, room-len(d.Thinking))
					d.ToolCalls = nil // a cut call cannot be run
				}
			}
			content.WriteString(d.Content)
			thinking.WriteString(d.Thinking)
			acc.ToolCalls = append(acc.ToolCalls, d.ToolCalls...)
			rep.add(d.Content)
			if st.onDelta != nil && (d.Content != "" || d.Thinking != "" || len(d.ToolCalls) > 0) {
				st.delivered = true
				st.onDelta(d)
			}
			if capped {
				return errReplyCap
			}
			if r.Done {
				done = true
				acc.Model = r.Model
				acc.DoneReason = r.DoneReason
				acc.PromptTokens = r.PromptEvalCount
				acc.EvalTokens = r.EvalCount
			}
			return nil
		})
		acc.Content, acc.Thinking = content.String(), thinking.String()
		if errors.Is(err, errReplyCap) {
			acc.DoneReason = doneLength
			res = acc
			return kindOther, fmt.Errorf("%w: %s: the reply passed %s (ollama.maxReply); it was cut there, the rest was "+
				"not read, and it is not used as an answer", ErrLength, op, byteSize(c.cfg.MaxReply))
		}
		if err == nil && !done {
			if unit, ok := rep.degenerate(acc.Content); ok {
				return kindRepetition, fmt.Errorf("%w: %s: the server ended the reply without done after the model "+
					"kept repeating %q (%d characters of output)", ErrRepetition, op, clipText(unit, 40), len(acc.Content))
			}
			err = errNoDone
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
			werr := fmt.Errorf("%w: %s: no reply from %s within %s (ollama.idleTimeout); a large model on a slow "+
				"machine may need a longer one", ErrTimeout, op, c.Host(), c.cfg.IdleTimeout)
			if stalls > 1 {
				return kindCtx, fmt.Errorf("%w (gave up after %d stalled attempts)", werr, stalls)
			}
			return kindStalled, werr
		}
		k := classify(err)
		if k == kindServer {
			var se api.StatusError
			if !errors.As(err, &se) && !errors.Is(err, ErrServer) {
				err = fmt.Errorf("%w: %s: error in stream: %s", ErrServer, op, err.Error())
			}
		}
		return k, c.wrap(op, model, k, err)
	})
	return res, err
}

func (c *Client) record(req ChatRequest, res ChatResult) {
	u := res.Usage()
	if c.cfg.Meter != nil {
		c.cfg.Meter.Record(u, req.MeterKeys...)
	}
	if req.Meter != nil && req.Meter != c.cfg.Meter {
		req.Meter.Record(u, req.MeterKeys...)
	}
}

// toAPIChat converts a ChatRequest to the wire request. Everything that could
// make json.Marshal fail inside the api client is checked here, so that such
// a failure is reported as a bad request and not retried.
func (c *Client) toAPIChat(req ChatRequest, stream bool) (*api.ChatRequest, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: chat %s: %s", ErrBadRequest, req.Model, fmt.Sprintf(format, a...))
	}
	no := false
	out := &api.ChatRequest{
		Model:     req.Model,
		Messages:  make([]api.Message, 0, len(req.Messages)),
		Stream:    &stream,
		KeepAlive: c.keepAlive(req.KeepAlive),
		// Never let the server cut the prompt or slide the context
		// silently: a prompt that does not fit is refused (400) and nova
		// trims its own sections instead.
		Truncate: &no,
		Shift:    &no,
	}
	for i, m := range req.Messages {
		am := api.Message{
			Role: m.Role, Content: m.Content, Thinking: m.Thinking,
			ToolName: m.ToolName, ToolCallID: m.ToolCallID,
		}
		for _, img := range m.Images {
			am.Images = append(am.Images, api.ImageData(img))
		}
		calls, err := toAPIToolCalls(m.ToolCalls)
		if err != nil {
			return nil, bad("message %d: %v", i, err)
		}
		am.ToolCalls = calls
		out.Messages = append(out.Messages, am)
	}
	for _, t := range req.Tools {
		at, err := c.tools.get(t)
		if err != nil {
			return nil, bad("%v", err)
		}
		out.Tools = append(out.Tools, at)
	}
	if len(req.Format) > 0 {
		if !json.Valid(req.Format) {
			return nil, bad("format is not valid JSON")
		}
		out.Format = req.Format
	}
	if req.Think != nil {
		out.Think = &api.ThinkValue{Value: *req.Think}
	}
	opts := maps.Clone(req.Options)
	if opts == nil {
		opts = map[string]any{}
	}
	if n := cmpOr(req.NumCtx, c.cfg.NumCtx); n > 0 {
		opts["num_ctx"] = n
	}
	if req.Temperature != nil {
		opts["temperature"] = *req.Temperature
	}
	if req.NumPredict > 0 {
		opts["num_predict"] = req.NumPredict
	}
	if len(opts) > 0 {
		if _, err := json.Marshal(opts); err != nil {
			return nil, bad("options: %v", err)
		}
		out.Options = opts
	}
	return out, nil
}

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

// toolCache keeps the wire form of the tools a client sent: an agent run sends the same
// dozen tools with every chat, and decoding their JSON schemas into Ollama's ordered maps,
// then encoding them again to estimate the request, was ~3 % of a build task's CPU. The
// cached api.Tool values are shared by requests and never modified (json.Marshal only
// reads them), so every request carries the same bytes as before.
type toolCache struct {
	mu sync.Mutex
	m  map[string]api.Tool // by name, description and parameters
	// size is the length of each cached tool's JSON encoding, by its (never shared)
	// properties map, for estimateRequest.
	size map[*api.ToolPropertiesMap]int
}

// maxCachedTools bounds the cache (a roster has a few dozen distinct tools).
const maxCachedTools = 512

func (tc *toolCache) get(t Tool) (api.Tool, error) {
	key := t.Name + "\x00" + t.Description + "\x00" + string(t.Parameters)
	tc.mu.Lock()
	at, ok := tc.m[key]
	tc.mu.Unlock()
	if ok {
		return at, nil
	}
	at, err := toAPITool(t)
	if err != nil {
		return api.Tool{}, err
	}
	b, err := json.Marshal(at)
	if err != nil {
		return at, nil // the request's own encoding reports it
	}
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if len(tc.m) >= maxCachedTools {
		clear(tc.m)
		clear(tc.size)
	}
	if tc.m == nil {
		tc.m, tc.size = map[string]api.Tool{}, map[*api.ToolPropertiesMap]int{}
	}
	tc.m[key] = at
	tc.size[at.Function.Parameters.Properties] = len(b)
	return at, nil
}

// encodedSize returns the length of t's JSON encoding, from the cache when t came from it.
func (tc *toolCache) encodedSize(t api.Tool) int {
	if p := t.Function.Parameters.Properties; p != nil {
		tc.mu.Lock()
		n, ok := tc.size[p]
		tc.mu.Unlock()
		if ok {
			return n
		}
	}
	b, _ := json.Marshal(t)
	return len(b)
}

func toAPITool(t Tool) (api.Tool, error) {
	if strings.TrimSpace(t.Name) == "" {
		return api.Tool{}, errors.New("tool without a name")
	}
	params := api.ToolFunctionParameters{Type: "object", Properties: api.NewToolPropertiesMap()}
	if len(t.Parameters) > 0 {
		if err := json.Unmarshal(t.Parameters, &params); err != nil {
			return api.Tool{}, fmt.Errorf("tool %s: parameters are not a JSON schema object: %w", t.Name, err)
		}
		if params.Type == "" {
			params.Type = "object"
		}
		if params.Properties == nil {
			params.Properties = api.NewToolPropertiesMap()
		}
	}
	return api.Tool{
		Type:     "function",
		Function: api.ToolFunction{Name: t.Name, Description: t.Description, Parameters: params},
	}, nil
}

func toAPIToolCalls(calls []ToolCall) ([]api.ToolCall, error) {
	if len(calls) == 0 {
		return nil, nil
	}
	out := make([]api.ToolCall, 0, len(calls))
	for _, tc := range calls {
		args := api.NewToolCallFunctionArguments()
		if len(tc.Arguments) > 0 && string(tc.Arguments) != "null" {
			if err := args.UnmarshalJSON(tc.Arguments); err != nil {
				return nil, fmt.Errorf("tool call %s: arguments are not a JSON object: %w", tc.Name, err)
			}
		}
		out = append(out, api.ToolCall{
			ID:       tc.ID,
			Function: api.ToolCallFunction{Index: tc.Index, Name: tc.Name, Arguments: args},
		})
	}
	return out, nil
}

func fromAPIToolCalls(calls []api.ToolCall) []ToolCall {
	if len(calls) == 0 {
		return nil
	}
	out := make([]ToolCall, 0, len(calls))
	for _, tc := range calls {
		args, err := tc.Function.Arguments.MarshalJSON()
		if err != nil || len(args) == 0 {
			args = []byte("{}")
		}
		out = append(out, ToolCall{ID: tc.ID, Index: tc.Function.Index, Name: tc.Function.Name, Arguments: args})
	}
	return out
}

// checkChat refuses a chat request with no model or a budget already spent
// (both providers check the same way).
func checkChat(req ChatRequest) error {
	if strings.TrimSpace(req.Model) == "" {
		return fmt.Errorf("%w: chat: no model given", ErrBadRequest)
	}
	for _, b := range req.Budgets {
		if err := b.Check(); err != nil {
			return fmt.Errorf("chat %s: %w", req.Model, err)
		}
	}
	return nil
}

// chatContext is the context one chat call runs in, and its timeout:
// req.Timeout, else the configured chat timeout (none when both are 0).
func (c *Client) chatContext(ctx context.Context, req ChatRequest) (context.Context, context.CancelFunc, time.Duration) {
	timeout := req.Timeout
	if timeout <= 0 {
		timeout = c.cfg.ChatTimeout
	}
	if timeout > 0 {
		cctx, cancel := context.WithTimeout(ctx, timeout)
		return cctx, cancel, timeout
	}
	return ctx, func() {}, 0
}
