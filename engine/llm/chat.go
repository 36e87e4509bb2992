package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

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

// Chat sends one chat and streams the reply to onDelta (which may be nil; the
// request is then sent with "stream": false). Deltas arrive in order on the
// calling goroutine. See the package comment for retries and Delta.Reset.
// Cancelling ctx stops the stream at once; the error then satisfies
// errors.Is(err, context.Canceled).
func (c *Client) Chat(ctx context.Context, req ChatRequest, onDelta func(Delta)) (ChatResult, error) {
	start := time.Now()
	if strings.TrimSpace(req.Model) == "" {
		return ChatResult{}, fmt.Errorf("%w: chat: no model given", ErrBadRequest)
	}
	for _, b := range req.Budgets {
		if err := b.Check(); err != nil {
			return ChatResult{}, fmt.Errorf("chat %s: %w", req.Model, err)
		}
	}
	areq, err := c.toAPIChat(req, onDelta != nil)
	if err != nil {
		return ChatResult{}, err
	}

	timeout := req.Timeout
	if timeout <= 0 {
		timeout = c.cfg.ChatTimeout
	}
	callCtx, cancel := ctx, context.CancelFunc(func() {})
	if timeout > 0 {
		callCtx, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()

	var res ChatResult
	delivered := false
	attempts := 0
	op := "chat " + req.Model
	err = c.retry(callCtx, c.cfg.Retries, func(n int) (kind, error) {
		attempts = n
		if delivered && onDelta != nil {
			onDelta(Delta{Reset: true})
			delivered = false
		}
		var acc ChatResult
		done := false
		err := c.api.Chat(callCtx, areq, func(r api.ChatResponse) error {
			if err := callCtx.Err(); err != nil {
				return err
			}
			d := Delta{Content: r.Message.Content, Thinking: r.Message.Thinking, ToolCalls: fromAPIToolCalls(r.Message.ToolCalls)}
			acc.Content += d.Content
			acc.Thinking += d.Thinking
			acc.ToolCalls = append(acc.ToolCalls, d.ToolCalls...)
			if onDelta != nil && (d.Content != "" || d.Thinking != "" || len(d.ToolCalls) > 0) {
				delivered = true
				onDelta(d)
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
		if err == nil && !done {
			err = errNoDone
		}
		if err == nil {
			res = acc
			return kindOther, nil
		}
		if callCtx.Err() != nil {
			return kindCtx, err
		}
		k := classify(err)
		if k == kindServer {
			var se api.StatusError
			if !errors.As(err, &se) && !errors.Is(err, ErrServer) {
				err = fmt.Errorf("%w: %s: error in stream: %s", ErrServer, op, err.Error())
			}
		}
		return k, c.wrap(op, req.Model, k, err)
	})
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
	res.Attempts = attempts
	res.Duration = time.Since(start)
	c.record(req, res)
	return res, nil
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
	out := &api.ChatRequest{
		Model:     req.Model,
		Messages:  make([]api.Message, 0, len(req.Messages)),
		Stream:    &stream,
		KeepAlive: c.keepAlive(req.KeepAlive),
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
		at, err := toAPITool(t)
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
