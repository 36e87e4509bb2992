package lsp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// maxMessage bounds one message from a server.
const maxMessage = 8 << 20

// ErrProtocol: a server broke the protocol (a bad header, a message past
// maxMessage, invalid JSON).
var ErrProtocol = errors.New("language server protocol error")

// message is any JSON-RPC 2.0 message.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("error %d: %s", e.Code, e.Message) }

// readMessage reads one framed message (Content-Length header, blank line,
// body).
func readMessage(r *bufio.Reader) (message, error) {
	length := -1
	for n := 0; ; n++ {
		if n > 32 {
			return message{}, fmt.Errorf("%w: too many header lines", ErrProtocol)
		}
		line, err := r.ReadSlice('\n')
		if err != nil {
			if errors.Is(err, bufio.ErrBufferFull) {
				return message{}, fmt.Errorf("%w: header line too long", ErrProtocol)
			}
			return message{}, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		name, value, ok := strings.Cut(string(line), ":")
		if !ok {
			return message{}, fmt.Errorf("%w: bad header %q", ErrProtocol, clip(string(line), 80))
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			v, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || v < 0 {
				return message{}, fmt.Errorf("%w: bad Content-Length %q", ErrProtocol, clip(value, 40))
			}
			length = v
		}
	}
	if length < 0 {
		return message{}, fmt.Errorf("%w: no Content-Length", ErrProtocol)
	}
	if length > maxMessage {
		return message{}, fmt.Errorf("%w: a message of %d bytes (limit %d)", ErrProtocol, length, maxMessage)
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r, body); err != nil {
		return message{}, err
	}
	var m message
	if err := json.Unmarshal(body, &m); err != nil {
		return message{}, fmt.Errorf("%w: %w", ErrProtocol, err)
	}
	return m, nil
}

// frame encodes one message with its header.
func frame(m message) ([]byte, error) {
	m.JSONRPC = "2.0"
	body, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return append([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body))), body...), nil
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
