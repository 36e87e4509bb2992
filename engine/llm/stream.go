package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/ollama/ollama/api"
)

// Sizes of the stream reader: lines are read through a small buffer that
// grows only for a long line (a tool call with a whole file in it), up to
// maxLine.
const (
	streamBufSize = 32 << 10
	maxLine       = 8 << 20
)

// errIdle marks an attempt ended by the idle timeout: no first byte, or no
// next chunk, within Config.IdleTimeout.
var errIdle = errors.New("idle timeout")

// errLineTooLong: a stream line longer than maxLine.
var errLineTooLong = fmt.Errorf("a line of the reply is longer than %d MiB", maxLine>>20)

// chatStream posts one chat to /api/chat and calls fn for every message of
// the answer, in order, on the calling goroutine. It returns nil when the
// body ended cleanly (whether or not a message said done: the caller
// checks), an api.StatusError for an HTTP error answer, a plain error for an
// {"error": ...} line, errIdle (wrapped) when the server went quiet for
// Config.IdleTimeout, and the transport's error when the connection broke.
//
// Hand-written on the wire types of the official client rather than
// api.Client.Chat: that one allocates an 8 MiB scanner buffer on every call
// (this reader starts at 32 KiB and grows only for a long line), and it has
// no idle timeout, so a server that accepts the connection and never answers
// held a run for minutes.
func (c *Client) chatStream(ctx context.Context, areq *api.ChatRequest, fn func(api.ChatResponse) error) error {
	body, err := json.Marshal(areq)
	if err != nil {
		return err
	}
	idle := c.cfg.IdleTimeout
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var timer *time.Timer
	if idle > 0 {
		timer = time.AfterFunc(idle, func() { cancel(errIdle) })
		defer timer.Stop()
	}
	alive := func() {
		if timer != nil {
			timer.Reset(idle)
		}
	}
	quiet := func(err error) error {
		if errors.Is(context.Cause(actx), errIdle) && ctx.Err() == nil {
			return fmt.Errorf("%w: %w", errIdle, err)
		}
		return err
	}

	req, err := http.NewRequestWithContext(actx, http.MethodPost, c.base.JoinPath("/api/chat").String(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/x-ndjson")
	req.Header.Set("User-Agent", "nova (ollama api)")
	resp, err := c.http.Do(req)
	if err != nil {
		return quiet(err)
	}
	defer func() { _ = resp.Body.Close() }()
	alive()

	if resp.StatusCode >= http.StatusBadRequest {
		data, rerr := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		if rerr != nil && len(data) == 0 {
			return quiet(rerr)
		}
		var e struct {
			Error     string `json:"error"`
			SigninURL string `json:"signin_url"`
		}
		msg := string(bytes.TrimSpace(data))
		if json.Unmarshal(data, &e) == nil && e.Error != "" {
			msg = e.Error
		}
		if resp.StatusCode == http.StatusUnauthorized {
			return api.AuthorizationError{StatusCode: resp.StatusCode, Status: resp.Status, SigninURL: e.SigninURL}
		}
		return api.StatusError{StatusCode: resp.StatusCode, Status: resp.Status, ErrorMessage: msg}
	}

	r := bufio.NewReaderSize(resp.Body, streamBufSize)
	var long []byte // a line that did not fit the reader's buffer
	for {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if len(long)+len(line) > maxLine {
				return errLineTooLong
			}
			long = append(long, line...)
			alive()
			continue
		}
		if long != nil {
			line = append(long, line...)
			long = nil
		}
		if len(bytes.TrimSpace(line)) > 0 {
			alive()
			var msg struct {
				api.ChatResponse
				Error string `json:"error,omitempty"`
			}
			if jerr := json.Unmarshal(line, &msg); jerr != nil {
				// Not the protocol (a proxy's HTML page, a cut line).
				return errors.New(string(bytes.TrimSpace(line)))
			}
			if msg.Error != "" {
				return errors.New(msg.Error)
			}
			if ferr := fn(msg.ChatResponse); ferr != nil {
				return ferr
			}
		}
		switch {
		case err == nil:
		case errors.Is(err, io.EOF):
			return nil // the body ended cleanly
		default:
			return quiet(err)
		}
	}
}
