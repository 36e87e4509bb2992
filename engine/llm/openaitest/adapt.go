package openaitest

import (
	"encoding/json"

	"github.com/ollama/ollama/api"

	"github.com/nova-dev/nova/engine/llm/ollamatest"
)

// FromOllama answers with a fake Ollama's script (a ChatFunc of
// ollamatest, e.g. a scenario): the OpenAI request is read into Ollama's
// request shape (messages with tool calls and tool results, tools, format),
// and the scripted reply (content, thinking, tool calls, latency) is played
// over SSE. The same scenario then runs against either wire protocol.
func FromOllama(fn ollamatest.ChatFunc) func(n int, body map[string]any) Reply {
	return func(n int, body map[string]any) Reply {
		rep := fn(n, toOllama(body))
		out := Reply{Content: rep.Content, Reasoning: rep.Thinking, Latency: rep.Latency, ChunkDelay: rep.ChunkDelay,
			ChunkSize: rep.ChunkSize, Cut: rep.Cut, NoFinish: rep.CutClean}
		if len(rep.Chunks) > 0 && out.Content == "" {
			for _, c := range rep.Chunks {
				out.Content += c
			}
		}
		for _, tc := range rep.ToolCalls {
			args, err := tc.Function.Arguments.MarshalJSON()
			if err != nil {
				args = []byte("{}")
			}
			out.Calls = append(out.Calls, Call{Name: tc.Function.Name, Args: string(args)})
		}
		if rep.Status >= 400 {
			out.Status, out.Message = rep.Status, rep.ErrorMessage
		}
		return out
	}
}

// toOllama reads an OpenAI chat request body as Ollama's.
func toOllama(body map[string]any) api.ChatRequest {
	var req api.ChatRequest
	req.Model, _ = body["model"].(string)
	msgs, _ := body["messages"].([]any)
	for _, raw := range msgs {
		m, _ := raw.(map[string]any)
		am := api.Message{}
		am.Role, _ = m["role"].(string)
		switch c := m["content"].(type) {
		case string:
			am.Content = c
		case []any:
			for _, part := range c {
				if p, ok := part.(map[string]any); ok {
					if s, ok := p["text"].(string); ok {
						am.Content += s
					}
				}
			}
		}
		am.ToolCallID, _ = m["tool_call_id"].(string)
		calls, _ := m["tool_calls"].([]any)
		for _, rc := range calls {
			c, _ := rc.(map[string]any)
			f, _ := c["function"].(map[string]any)
			name, _ := f["name"].(string)
			argText, _ := f["arguments"].(string)
			args := api.NewToolCallFunctionArguments()
			_ = args.UnmarshalJSON([]byte(argText))
			id, _ := c["id"].(string)
			am.ToolCalls = append(am.ToolCalls, api.ToolCall{ID: id, Function: api.ToolCallFunction{Name: name, Arguments: args}})
		}
		req.Messages = append(req.Messages, am)
	}
	if tools, ok := body["tools"]; ok {
		b, _ := json.Marshal(tools)
		_ = json.Unmarshal(b, &req.Tools)
	}
	if rf, ok := body["response_format"].(map[string]any); ok {
		if js, ok := rf["json_schema"].(map[string]any); ok {
			req.Format, _ = json.Marshal(js["schema"])
		} else {
			req.Format = json.RawMessage(`"json"`)
		}
	}
	return req
}
