package ollamatest

import (
	"fmt"
	"iter"
	"slices"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
)

// Reply scripts one answer of the fake server. Build it with one of the
// constructors ([Text], [Thinking], [ToolCalls], [StreamError], [Cut],
// [CutClean], [HTTPError], [ServerError], [NotFound], [Raw], [Empty]) and
// refine it with the With* methods, which return modified copies.
//
// On /api/chat a normal reply streams its thinking, then its content, then
// its tool calls, then the final done message carrying the token counts,
// exactly as Ollama does. On the other endpoints only Latency, Status,
// ErrorMessage, Raw and Cut are honoured; the endpoint's normal answer is
// sent otherwise.
type Reply struct {
	// Content is the assistant text, streamed in chunks.
	Content string
	// Thinking is the reasoning text, streamed before Content. It is dropped
	// when the request sets "think": false, as Ollama does.
	Thinking string
	// ToolCalls are sent in one chunk after the content. IDs left empty get
	// a deterministic "call_…" id.
	ToolCalls []api.ToolCall

	// Chunks, when set, are the exact content pieces to stream (Content is
	// then ignored).
	Chunks []string
	// ChunkSize is the number of runes per streamed chunk (default 4).
	ChunkSize int
	// Latency is waited before the response headers are written.
	Latency time.Duration
	// ChunkDelay is waited before each streamed chunk.
	ChunkDelay time.Duration

	// PromptTokens and EvalTokens are reported in the done message
	// (prompt_eval_count / eval_count). Zero means estimated: ceil(chars/4)
	// of the request messages and of the reply, at least 1.
	PromptTokens int
	EvalTokens   int
	// DoneReason is sent with the done message (default "stop").
	DoneReason string

	// Status, when non-zero, answers with this HTTP status and the body
	// {"error": ErrorMessage} before anything is streamed.
	Status int
	// ErrorMessage is the text of the error. With Status zero it is sent as
	// an {"error": ...} line inside the 200 stream, after the content
	// chunks, and the stream ends there (no done message). With
	// "stream": false Ollama answers 500 {"error": ...} instead, and so does
	// the fake.
	ErrorMessage string
	// Cut streams the content chunks and then drops the connection without
	// the done message (the client sees an unexpected EOF).
	Cut bool
	// CutClean is like Cut but ends the HTTP response properly: the body is
	// well formed, it simply never says done.
	CutClean bool
	// Raw, when RawSet, is written verbatim as a 200 body (use it for
	// malformed NDJSON or an empty body).
	Raw    string
	RawSet bool
	// RepeatUnit, when set, follows the content with this chunk 31 times and
	// ends the 200 stream without done: the real server's repetition stop.
	RepeatUnit string
	// ContentStream, when set, streams more content chunks after Content,
	// generated one at a time (a huge reply without holding it: see
	// [Huge]). The stream stops when the client stops reading.
	ContentStream iter.Seq[string] `json:"-"`
}

// Huge streams size bytes of content in chunks of chunk bytes, generated
// as they are sent (nothing of that size is ever held by the fake).
func Huge(size, chunk int) Reply {
	if chunk <= 0 {
		chunk = 4096
	}
	return Reply{ContentStream: func(yield func(string) bool) {
		piece := strings.Repeat("the quick brown fox jumps over the lazy dog. ", chunk/45+1)[:chunk]
		for sent := 0; sent < size; sent += chunk {
			if !yield(piece[:min(chunk, size-sent)]) {
				return
			}
		}
	}}
}

// Text streams content in chunks, then the done message.
func Text(content string) Reply { return Reply{Content: content} }

// Empty is a well-formed reply with no content: only the done message.
func Empty() Reply { return Reply{} }

// Thinking streams thinking, then content.
func Thinking(thinking, content string) Reply {
	return Reply{Thinking: thinking, Content: content}
}

// ToolCalls answers with native tool calls (and no content).
func ToolCalls(calls ...api.ToolCall) Reply { return Reply{ToolCalls: calls} }

// Call builds an [api.ToolCall]; arguments are set in sorted key order so the
// wire bytes are deterministic.
func Call(name string, args map[string]any) api.ToolCall {
	a := api.NewToolCallFunctionArguments()
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		a.Set(k, args[k])
	}
	return api.ToolCall{Function: api.ToolCallFunction{Name: name, Arguments: a}}
}

// StreamError streams partial, then an {"error": msg} line in the 200
// response, as Ollama does when generation fails after it started.
func StreamError(partial, msg string) Reply {
	return Reply{Content: partial, ErrorMessage: msg}
}

// Cut streams partial and then drops the connection without a done message.
func Cut(partial string) Reply { return Reply{Content: partial, Cut: true} }

// CutClean streams partial and ends the response normally without a done
// message.
func CutClean(partial string) Reply { return Reply{Content: partial, CutClean: true} }

// Repetition streams prefix, then unit over and over, and ends the stream
// without a done message, as the real server does when a model repeats a
// token more than 30 times. With "stream": false it answers one object with
// everything generated and "done": false.
func Repetition(prefix, unit string) Reply { return Reply{Content: prefix, RepeatUnit: unit} }

// HTTPError answers with the given status and {"error": msg}.
func HTTPError(status int, msg string) Reply {
	return Reply{Status: status, ErrorMessage: msg}
}

// ServerError answers 500 {"error": msg}.
func ServerError(msg string) Reply { return HTTPError(500, msg) }

// NotFound answers 404 in Ollama's shape: {"error":"model 'NAME' not found"}.
func NotFound(model string) Reply {
	return HTTPError(404, fmt.Sprintf("model '%s' not found", model))
}

// Raw writes body verbatim with status 200 (e.g. "not json\n" or "").
func Raw(body string) Reply { return Reply{Raw: body, RawSet: true} }

// WithChunkSize sets the runes per chunk.
func (r Reply) WithChunkSize(n int) Reply { r.ChunkSize = n; return r }

// WithChunks sets the exact content chunks.
func (r Reply) WithChunks(chunks ...string) Reply { r.Chunks = chunks; return r }

// WithLatency waits d before the response headers.
func (r Reply) WithLatency(d time.Duration) Reply { r.Latency = d; return r }

// WithChunkDelay waits d before each chunk.
func (r Reply) WithChunkDelay(d time.Duration) Reply { r.ChunkDelay = d; return r }

// WithTokens sets prompt_eval_count and eval_count of the done message.
func (r Reply) WithTokens(prompt, eval int) Reply {
	r.PromptTokens, r.EvalTokens = prompt, eval
	return r
}

// WithDoneReason sets done_reason (e.g. "length").
func (r Reply) WithDoneReason(reason string) Reply { r.DoneReason = reason; return r }

// WithThinking adds reasoning text streamed before the content.
func (r Reply) WithThinking(thinking string) Reply { r.Thinking = thinking; return r }

// WithToolCalls adds tool calls after the content.
func (r Reply) WithToolCalls(calls ...api.ToolCall) Reply { r.ToolCalls = calls; return r }

func (r Reply) contentChunks() []string {
	if r.Chunks != nil {
		return r.Chunks
	}
	return splitRunes(r.Content, r.ChunkSize)
}

func splitRunes(s string, n int) []string {
	if s == "" {
		return nil
	}
	if n <= 0 {
		n = 4
	}
	var out []string
	runes := []rune(s)
	for len(runes) > 0 {
		k := min(n, len(runes))
		out = append(out, string(runes[:k]))
		runes = runes[k:]
	}
	return out
}
