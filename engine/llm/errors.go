package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"

	"github.com/ollama/ollama/api"

	"github.com/nova-dev/nova/engine/failure"
)

// Sentinel errors callers branch on with errors.Is. The errors returned by
// this package carry a full, human-readable message on top of them.
var (
	// ErrUnreachable: nothing answers at the configured host (connection
	// refused, unknown host, dial timeout). The message names the host tried
	// and how to fix it.
	ErrUnreachable error = failure.NewSentinel(failure.Unreachable, "ollama is not reachable")
	// ErrModelNotFound: the model is not pulled. The message carries the
	// `ollama pull` hint.
	ErrModelNotFound error = failure.NewSentinel(failure.Misconfigured, "model not found")
	// ErrServer: Ollama answered 5xx, sent an {"error": ...} line inside a
	// stream, or sent something that is not its protocol.
	ErrServer error = failure.NewSentinel(failure.Server, "ollama server error")
	// ErrStreamCut: the connection ended before Ollama said done.
	ErrStreamCut error = failure.NewSentinel(failure.Cut, "ollama stream cut before completion")
	// ErrTimeout: no complete answer within the per-call or per-request
	// timeout. Such errors also satisfy errors.Is(err, context.DeadlineExceeded).
	ErrTimeout error = failure.NewSentinel(failure.Stalled, "ollama timed out")
	// ErrBadRequest: Ollama (or this package, before sending) rejected the
	// request as invalid (4xx other than 404), e.g. a model that does not
	// support tools. Retrying the same request will not help.
	ErrBadRequest error = failure.NewSentinel(failure.Misconfigured, "ollama rejected the request")
	// ErrAuth: an OpenAI-compatible server refused nova's credentials (401
	// or 403): the provider's apiKey is missing or wrong. Not retried, and
	// not taken for a model that cannot do tools.
	ErrAuth error = failure.NewSentinel(failure.Misconfigured, "the server refused the credentials")
	// ErrPromptTooLong: the prompt does not fit the model's context (the
	// server refused it, or nova's fitting found no room). Callers may trim
	// and try again; otherwise it is a configuration problem.
	ErrPromptTooLong error = failure.NewSentinel(failure.Misconfigured, "the prompt does not fit the model's context")
	// ErrBudgetExceeded: a token Budget is spent; the call was not made.
	ErrBudgetExceeded error = failure.NewSentinel(failure.Misconfigured, "token budget exceeded")
	// ErrInvalidOutput: the model's output could not be parsed or validated.
	ErrInvalidOutput error = failure.NewSentinel(failure.InvalidOutput, "invalid model output")
	// ErrLength: the reply stopped at the token limit (done_reason "length");
	// it is never accepted as a complete answer.
	ErrLength error = failure.NewSentinel(failure.Length, "reply hit the token limit")
	// ErrRepetition: the server ended the stream without done after the model
	// kept repeating itself; an identical request would do the same.
	ErrRepetition error = failure.NewSentinel(failure.Repetition, "model output degenerated into repetition")
)

// UnreachableError is returned (wrapped) when Ollama cannot be reached.
// errors.Is(err, ErrUnreachable) holds, and Unwrap gives the network error.
type UnreachableError struct {
	Host string
	Err  error
	// Provider names an OpenAI-compatible provider (empty: Ollama).
	Provider string
}

func (e *UnreachableError) Error() string {
	if e.Provider != "" {
		return fmt.Sprintf("provider %s is not reachable at %s (%v): start the server, or fix providers.%s in .nova/config.yaml",
			e.Provider, e.Host, e.Err, e.Provider)
	}
	return fmt.Sprintf("ollama is not reachable at %s (%v): start it with \"ollama serve\", "+
		"or point nova at it with OLLAMA_HOST or ollama.host in .nova/config.yaml", e.Host, e.Err)
}

// Is reports whether target is ErrUnreachable.
func (e *UnreachableError) Is(target error) bool { return target == ErrUnreachable }

// Unwrap returns the underlying network error.
func (e *UnreachableError) Unwrap() error { return e.Err }

// FailureKind implements failure.Kinded.
func (e *UnreachableError) FailureKind() failure.Kind { return failure.Unreachable }

// ModelNotFoundError is returned when Ollama answers 404 for a model.
// errors.Is(err, ErrModelNotFound) holds.
type ModelNotFoundError struct {
	Model string
	Host  string
	// Provider names an OpenAI-compatible provider (empty: Ollama).
	Provider string
}

func (e *ModelNotFoundError) Error() string {
	if e.Provider != "" {
		return fmt.Sprintf("model %s not found at %s (provider %s): load it in that server, or pick one it lists at /v1/models",
			e.Model, e.Host, e.Provider)
	}
	return fmt.Sprintf("model %s not found — run \"ollama pull %s\"", e.Model, e.Model)
}

// Is reports whether target is ErrModelNotFound.
func (e *ModelNotFoundError) Is(target error) bool { return target == ErrModelNotFound }

// FailureKind implements failure.Kinded.
func (e *ModelNotFoundError) FailureKind() failure.Kind { return failure.Misconfigured }

// kind is the classification of one failed attempt.
type kind int

const (
	kindOther       kind = iota
	kindCtx              // context canceled or its deadline passed
	kindUnreachable      // dial failed
	kindNotFound         // 404 for a model
	kindBadRequest       // other 4xx
	kindServer           // 5xx, error line, malformed protocol
	kindCut              // connection dropped / stream ended without done
	kindStalled          // no first byte / next chunk within the idle timeout
	kindRepetition       // ended without done after degenerate output
)

func (k kind) retryable() bool {
	return k == kindUnreachable || k == kindServer || k == kindCut || k == kindStalled
}

// errNoDone marks a stream that ended cleanly but never said done.
var errNoDone = errors.New("stream ended without a done message")

// classify maps an error from the api client (or from our own stream
// handling) to a kind. The api client surfaces: api.StatusError for HTTP
// status >= 400 (api.AuthorizationError for 401); errors.New(text) for an
// {"error": ...} line (or a non-JSON line) inside a 200 stream; json errors
// for chunks that do not decode; and net/http transport errors otherwise.
func classify(err error) kind {
	var se api.StatusError
	var ae api.AuthorizationError
	var opErr *net.OpError
	var dnsErr *net.DNSError
	var synErr *json.SyntaxError
	var typErr *json.UnmarshalTypeError
	switch {
	case err == nil:
		return kindOther
	case errors.As(err, &se):
		switch {
		case se.StatusCode == http.StatusNotFound && isModelNotFound(se.ErrorMessage):
			return kindNotFound
		case se.StatusCode >= 500, se.StatusCode == http.StatusNotFound, se.StatusCode == http.StatusTooManyRequests:
			return kindServer
		default:
			return kindBadRequest
		}
	case errors.As(err, &ae):
		return kindBadRequest
	case errors.As(err, &dnsErr), errors.Is(err, syscall.ECONNREFUSED),
		errors.As(err, &opErr) && opErr.Op == "dial":
		// Checked before the context cases: a dial timeout also satisfies
		// errors.Is(err, context.DeadlineExceeded). Callers look at their
		// own contexts before classifying.
		return kindUnreachable
	case errors.Is(err, errNoDone), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return kindCut
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return kindCtx
	case errors.As(err, &synErr), errors.As(err, &typErr):
		return kindServer
	default:
		// Plain errors from the stream: an {"error": ...} line, a non-JSON
		// line, a line longer than the client's buffer, or an HTTP protocol
		// error from the transport.
		return kindServer
	}
}

// tooLong reports a 400 of a prompt longer than the context (Ollama's runner:
// "the input length exceeds the context length", with truncate false).
func tooLong(err error) bool {
	var se api.StatusError
	if !errors.As(err, &se) {
		return false
	}
	m := strings.ToLower(se.ErrorMessage)
	switch {
	case strings.Contains(m, "exceeds") && strings.Contains(m, "context length"): // ollama
	case strings.Contains(m, "maximum context length"): // openai, vllm
	case strings.Contains(m, "exceeds the available context size"): // llama.cpp
	case strings.Contains(m, "context length exceeded"), strings.Contains(m, "context_length_exceeded"):
	case strings.Contains(m, "context") && strings.Contains(m, "too long"):
	default:
		return false
	}
	return true
}

func isModelNotFound(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "not found") && strings.Contains(m, "model")
}

// describe renders the detail of an api error for messages.
func describe(err error) string {
	var se api.StatusError
	if errors.As(err, &se) {
		status := se.Status
		if status == "" {
			status = fmt.Sprintf("%d %s", se.StatusCode, http.StatusText(se.StatusCode))
		}
		if se.ErrorMessage != "" {
			return status + ": " + se.ErrorMessage
		}
		return status
	}
	return err.Error()
}
