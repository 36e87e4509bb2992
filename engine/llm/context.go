package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"
	"unicode/utf8"

	"github.com/ollama/ollama/api"
)

// modelCache keeps what Show said about each model, and what nova learned
// about its tokenizer, for the client's lifetime.
type modelCache struct {
	mu     sync.Mutex
	info   map[string]ModelInfo
	factor map[string]float64 // real prompt tokens per estimated token
}

// ModelInfo returns Show's answer for model, asked once per client.
// Failures are not cached.
func (c *Client) ModelInfo(ctx context.Context, model string) (ModelInfo, error) {
	key := normalizeModel(model)
	c.models.mu.Lock()
	info, ok := c.models.info[key]
	c.models.mu.Unlock()
	if ok {
		return info, nil
	}
	info, err := c.Show(ctx, model)
	if err != nil {
		return ModelInfo{}, err
	}
	c.models.mu.Lock()
	if c.models.info == nil {
		c.models.info = map[string]ModelInfo{}
	}
	c.models.info[key] = info
	c.models.mu.Unlock()
	return info, nil
}

// Window is the context a model really gets: the server uses
// min(num_ctx, the model's context length).
type Window struct {
	Model string `json:"model"`
	// NumCtx is what nova asks for (options.num_ctx; 0: the server's
	// default, taken as the model's length).
	NumCtx int `json:"numCtx"`
	// ModelContext is the model's own context length from /api/show (0:
	// unknown).
	ModelContext int `json:"modelContext"`
	// Tokens is min(NumCtx, ModelContext) over the known values.
	Tokens int `json:"tokens"`
	// Reserve is the room kept for the reply.
	Reserve int `json:"reserve"`
}

// PromptBudget is what a prompt may use: Tokens minus Reserve (may be ≤ 0).
func (w Window) PromptBudget() int { return w.Tokens - w.Reserve }

// Describe says where the window comes from, for messages.
func (w Window) Describe() string {
	switch {
	case w.ModelContext > 0 && w.NumCtx > 0 && w.ModelContext < w.NumCtx:
		return fmt.Sprintf("%d tokens (%s's own context length; ollama.numCtx asks %d)", w.Tokens, w.Model, w.NumCtx)
	case w.NumCtx > 0:
		return fmt.Sprintf("%d tokens (ollama.numCtx)", w.Tokens)
	default:
		return fmt.Sprintf("%d tokens (%s's context length)", w.Tokens, w.Model)
	}
}

// ErrNoWindow: neither num_ctx nor the model's context length is known.
var ErrNoWindow = errors.New("the model's context length is unknown")

// Window works out the context of model for a request asking numCtx (0:
// the client's Config.NumCtx). The model's length comes from ModelInfo; if
// Show fails, the error is returned with the window known so far.
func (c *Client) Window(ctx context.Context, model string, numCtx int) (Window, error) {
	w := Window{Model: model, NumCtx: cmpOr(numCtx, c.cfg.NumCtx), Reserve: c.cfg.ReplyReserve}
	info, err := c.ModelInfo(ctx, model)
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

// ReplyReserve is the configured reply reserve.
func (c *Client) ReplyReserve() int { return c.cfg.ReplyReserve }

// Calibration: nova estimates tokens as ceil(chars/4). After each chat the
// server reports the prompt's real size (prompt_eval_count counts the whole
// prompt, cached or not), so the client learns how much larger than the
// estimate a model's prompts really are and fits later prompts with that
// factor. Small prompts are skipped: the template's fixed overhead would
// dominate them.
const (
	calibrateMin = 256 // estimated tokens below which a prompt teaches nothing
	maxFactor    = 4.0
)

// TokenFactor is the learned ratio of real to estimated prompt tokens of
// model (1 until a chat has taught otherwise; never below 1).
func (c *Client) TokenFactor(model string) float64 {
	c.models.mu.Lock()
	defer c.models.mu.Unlock()
	if f, ok := c.models.factor[normalizeModel(model)]; ok {
		return f
	}
	return 1
}

// RaiseTokenFactor makes estimates of model more cautious by mult (after the
// server refused a prompt nova thought would fit).
func (c *Client) RaiseTokenFactor(model string, mult float64) float64 {
	c.models.mu.Lock()
	defer c.models.mu.Unlock()
	if c.models.factor == nil {
		c.models.factor = map[string]float64{}
	}
	key := normalizeModel(model)
	f := c.models.factor[key]
	if f < 1 {
		f = 1
	}
	f = math.Min(f*mult, maxFactor)
	c.models.factor[key] = f
	return f
}

// calibrate learns from one successful chat: promptTokens is what the
// server counted for the request areq.
func (c *Client) calibrate(model string, areq *api.ChatRequest, promptTokens int) {
	if promptTokens <= 0 {
		return
	}
	est := estimateRequest(areq, c.tools.encodedSize)
	if est < calibrateMin {
		return
	}
	c.learn(model, promptTokens, est)
}

// learn updates model's token factor from one chat: the server counted
// promptTokens for a prompt nova estimated at est tokens.
func (c *Client) learn(model string, promptTokens, est int) {
	ratio := math.Min(float64(promptTokens)/float64(est), maxFactor)
	c.models.mu.Lock()
	defer c.models.mu.Unlock()
	if c.models.factor == nil {
		c.models.factor = map[string]float64{}
	}
	key := normalizeModel(model)
	old, ok := c.models.factor[key]
	switch {
	case !ok:
		c.models.factor[key] = math.Max(1, ratio)
	default:
		// Lean towards the larger: an underestimate costs a refused call.
		c.models.factor[key] = math.Max(1, math.Max(ratio, 0.7*old+0.3*ratio))
	}
}

// EstimateTokens is nova's token estimate of a text: ceil(runes/4).
func EstimateTokens(s string) int { return (utf8.RuneCountInString(s) + 3) / 4 }

// perMessage is the estimated template overhead of one message (role
// markers, separators).
const perMessage = 8

// EstimateMessages estimates the prompt tokens of a conversation and its
// tools (the template renders tool schemas into the prompt).
func EstimateMessages(msgs []Message, tools []Tool) int {
	n := 0
	for _, m := range msgs {
		n += perMessage + EstimateTokens(m.Content)
		for _, tc := range m.ToolCalls {
			n += EstimateTokens(tc.Name) + (len(tc.Arguments)+3)/4
		}
	}
	for _, t := range tools {
		n += perMessage + EstimateTokens(t.Name) + EstimateTokens(t.Description) + (len(t.Parameters)+3)/4
	}
	return n
}

// EstimateRequest estimates the prompt tokens of a wire request.
func EstimateRequest(r *api.ChatRequest) int {
	return estimateRequest(r, func(t api.Tool) int {
		b, _ := json.Marshal(t)
		return len(b)
	})
}

// estimateRequest is EstimateRequest with the length of a tool's JSON encoding from size.
func estimateRequest(r *api.ChatRequest, size func(api.Tool) int) int {
	n := 0
	for _, m := range r.Messages {
		n += perMessage + EstimateTokens(m.Content)
		for _, tc := range m.ToolCalls {
			args, _ := tc.Function.Arguments.MarshalJSON()
			n += EstimateTokens(tc.Function.Name) + (len(args)+3)/4
		}
	}
	for _, t := range r.Tools {
		n += perMessage + (size(t)+3)/4
	}
	return n
}
