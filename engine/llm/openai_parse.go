package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// maxToolArgs bounds the arguments of one tool call (bytes).
const maxToolArgs = 8 << 20

// ParseToolArguments turns the arguments string of an OpenAI-style tool call
// into the JSON object nova's tools take. Accepted: an object (surrounding
// space trimmed), an empty string or null (no arguments: {}), and an object
// encoded once more as a JSON string (some servers double-encode). Anything
// else (truncated JSON, an array, text around the object) is an error: the
// call cannot be run as the model meant it. It never panics.
func ParseToolArguments(s string) (json.RawMessage, error) {
	if len(s) > maxToolArgs {
		return nil, fmt.Errorf("arguments are longer than %d MiB", maxToolArgs>>20)
	}
	t := strings.TrimSpace(s)
	if t == "" || t == "null" {
		return json.RawMessage("{}"), nil
	}
	if strings.HasPrefix(t, `"`) {
		var inner string
		if err := json.Unmarshal([]byte(t), &inner); err != nil {
			return nil, fmt.Errorf("arguments are not JSON: %w", err)
		}
		inner = strings.TrimSpace(inner)
		if !strings.HasPrefix(inner, "{") {
			return nil, errors.New("arguments are a string, not a JSON object")
		}
		t = inner
	}
	if !strings.HasPrefix(t, "{") {
		return nil, errors.New("arguments are not a JSON object")
	}
	dec := json.NewDecoder(strings.NewReader(t))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return nil, fmt.Errorf("arguments are not valid JSON: %w", err)
	}
	if dec.More() || dec.InputOffset() != int64(len(t)) {
		return nil, errors.New("arguments have text after the JSON object")
	}
	var out bytes.Buffer
	if err := json.Compact(&out, []byte(t)); err != nil {
		return nil, fmt.Errorf("arguments are not valid JSON: %w", err)
	}
	return json.RawMessage(out.Bytes()), nil
}

// ModelContextFromJSON reads the context length an OpenAI-compatible server
// reports for one entry of /v1/models, under the names servers use:
// context_length / context_window / max_context_length (LM Studio, OpenRouter
// style, MLX servers), max_model_len (vLLM), meta.n_ctx / meta.n_ctx_train
// (llama.cpp's llama-server; n_ctx, the running size, wins). 0 when none is
// there or the entry is not JSON. It never panics.
func ModelContextFromJSON(raw []byte) int {
	var m struct {
		ContextLength    json.Number `json:"context_length"`
		ContextWindow    json.Number `json:"context_window"`
		MaxContextLength json.Number `json:"max_context_length"`
		MaxModelLen      json.Number `json:"max_model_len"`
		Meta             struct {
			NCtx      json.Number `json:"n_ctx"`
			NCtxTrain json.Number `json:"n_ctx_train"`
		} `json:"meta"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		// A field of another type (a string, an object) must not hide
		// the others: read them one by one.
		var loose map[string]json.RawMessage
		if json.Unmarshal(raw, &loose) != nil {
			return 0
		}
		for _, k := range []string{"context_length", "max_model_len", "context_window", "max_context_length"} {
			var n json.Number
			if json.Unmarshal(loose[k], &n) == nil {
				if v := positive(n); v > 0 {
					return v
				}
			}
		}
		return 0
	}
	for _, n := range []json.Number{m.ContextLength, m.MaxModelLen, m.Meta.NCtx, m.ContextWindow, m.MaxContextLength, m.Meta.NCtxTrain} {
		if v := positive(n); v > 0 {
			return v
		}
	}
	return 0
}

// positive is n as a whole number of tokens in (0, 1<<30], else 0.
func positive(n json.Number) int {
	v, err := n.Int64()
	if err != nil {
		f, ferr := n.Float64()
		if ferr != nil || f != f || f < 1 || f > 1<<30 {
			return 0
		}
		v = int64(f)
	}
	if v < 1 || v > 1<<30 {
		return 0
	}
	return int(v)
}
