package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaCache holds compiled schemas by their text; nova uses a small fixed
// set of schemas, so it is not bounded.
var schemaCache sync.Map // string -> *jsonschema.Schema

// CompileSchema compiles a JSON Schema (draft 2020-12 unless $schema says
// otherwise). Results are cached by schema text.
func CompileSchema(schema []byte) (*jsonschema.Schema, error) {
	key := string(schema)
	if s, ok := schemaCache.Load(key); ok {
		return s.(*jsonschema.Schema), nil
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("schema is not valid JSON: %w", err)
	}
	const url = "mem:///nova/structured-output.schema.json"
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	schemaCache.Store(key, sch)
	return sch, nil
}

// ValidateJSON extracts the JSON document from model output and validates it
// against sch. It returns the document, or an error wrapping
// ErrInvalidOutput that says what is wrong.
func ValidateJSON(output string, sch *jsonschema.Schema) ([]byte, error) {
	doc, err := ExtractJSON(output)
	if err != nil {
		return nil, err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidOutput, err)
	}
	if err := sch.Validate(inst); err != nil {
		return nil, fmt.Errorf("%w: the JSON does not match the schema: %w", ErrInvalidOutput, err)
	}
	return doc, nil
}

// Structured asks for output matching schema and decodes it into out (a
// pointer, or nil to only validate). It sets req.Format to the schema,
// temperature 0, and adds the schema to the system prompt. The reply is
// extracted with ExtractJSON, validated with the schema on the client side
// and unmarshalled into out. If that fails the conversation is sent once more
// with the reply and the validation error appended; if the second reply fails
// too the error wraps ErrInvalidOutput with the validation message.
// Transport errors (ErrUnreachable, ...) are returned as from Chat. The
// result's token counts cover both attempts.
func Structured(ctx context.Context, c Provider, req ChatRequest, schema []byte, out any) (ChatResult, error) {
	if c == nil {
		return ChatResult{}, errors.New("structured: nil client")
	}
	if out != nil {
		if v := reflect.ValueOf(out); v.Kind() != reflect.Pointer || v.IsNil() {
			return ChatResult{}, fmt.Errorf("structured: out must be a non-nil pointer, got %T", out)
		}
	}
	sch, err := CompileSchema(schema)
	if err != nil {
		return ChatResult{}, fmt.Errorf("structured: %w", err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, schema); err != nil {
		return ChatResult{}, fmt.Errorf("structured: schema: %w", err)
	}
	req.Format = json.RawMessage(compact.Bytes())
	req.Temperature = new(0.0)
	req.Messages = withSchemaPrompt(req.Messages, compact.String())

	var total ChatResult
	for attempt := 1; ; attempt++ {
		res, err := c.Chat(ctx, req, nil)
		total.PromptTokens += res.PromptTokens
		total.EvalTokens += res.EvalTokens
		total.Duration += res.Duration
		total.Attempts += res.Attempts
		if err != nil {
			return total, err
		}
		res.PromptTokens, res.EvalTokens = total.PromptTokens, total.EvalTokens
		res.Duration, res.Attempts = total.Duration, total.Attempts
		doc, verr := ValidateJSON(res.Content, sch)
		if verr == nil && out != nil {
			if err := json.Unmarshal(doc, out); err != nil {
				verr = fmt.Errorf("%w: the JSON does not fit %T: %w", ErrInvalidOutput, out, err)
			}
		}
		if verr == nil {
			return res, nil
		}
		if attempt == 2 {
			return res, fmt.Errorf("structured output from %s, after one retry: %w", req.Model, verr)
		}
		req.Messages = append(slices.Clip(req.Messages),
			Message{Role: RoleAssistant, Content: res.Content},
			Message{Role: RoleUser, Content: retryPrompt(verr)},
		)
	}
}

func schemaPrompt(schema string) string {
	return "Reply with exactly one JSON document that conforms to the JSON Schema below. " +
		"Output the JSON alone: no explanation before or after it and no Markdown code fence.\n\nJSON Schema:\n" + schema
}

func retryPrompt(verr error) string {
	msg := strings.TrimPrefix(verr.Error(), ErrInvalidOutput.Error()+": ")
	return "Your previous reply could not be used: " + msg +
		"\nReply again with only the corrected JSON document, matching the schema."
}

// withSchemaPrompt appends the schema instructions to the leading system
// message, or prepends a system message. The caller's slice is not modified.
func withSchemaPrompt(msgs []Message, schema string) []Message {
	out := slices.Clone(msgs)
	if len(out) > 0 && out[0].Role == RoleSystem {
		out[0].Content = strings.TrimRight(out[0].Content, "\n") + "\n\n" + schemaPrompt(schema)
		return out
	}
	return append([]Message{{Role: RoleSystem, Content: schemaPrompt(schema)}}, out...)
}
