package llm

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ollama/ollama/api"
)

// errRepetition is what chatAttempts returns (wrapped in ErrRepetition's
// message) for a degenerate reply; Chat changes the request once.
var errRepetition = ErrRepetition

// Degenerate output: the real server (llm/server.go of Ollama) stops a
// completion and ends the HTTP 200 stream without a done message when the
// same token (compared trimmed) comes more than 30 times in a row. nova
// recognises the same thing from its side, with some slack for servers
// that merge tokens into chunks: a trailing run of identical trimmed
// deltas, or a tail of the text that is one short unit repeated.
const (
	repeatRunDeltas = 16 // identical trimmed deltas at the end
	repeatUnits     = 12 // repetitions of a unit at the end of the text
	repeatMaxUnit   = 64 // longest unit checked, in bytes
)

// repeatWatch follows the trailing run of identical deltas of one attempt.
type repeatWatch struct {
	last string
	run  int
	seen bool
}

func (w *repeatWatch) add(content string) {
	t := strings.TrimSpace(content)
	if w.seen && t == w.last {
		w.run++
		return
	}
	w.last, w.run, w.seen = t, 1, true
}

// degenerate reports whether an attempt's output ends in repetition, and the
// repeated unit.
func (w *repeatWatch) degenerate(text string) (string, bool) {
	if w.run >= repeatRunDeltas {
		return w.last, true
	}
	return repeatedTail(text)
}

// repeatedTail finds a unit of 1..repeatMaxUnit bytes that the end of s
// repeats at least repeatUnits times (trailing whitespace ignored).
func repeatedTail(s string) (string, bool) {
	s = strings.TrimRight(s, " \t\r\n")
	for p := 1; p <= repeatMaxUnit && p*repeatUnits <= len(s); p++ {
		tail := s[len(s)-p*repeatUnits:]
		unit := tail[len(tail)-p:]
		if strings.TrimSpace(unit) == "" {
			continue
		}
		if strings.Repeat(unit, repeatUnits) == tail {
			return unit, true
		}
	}
	return "", false
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// Options a changed retry sets.

func setOption(r *api.ChatRequest, key string, v any) {
	if r.Options == nil {
		r.Options = map[string]any{}
	}
	r.Options[key] = v
}

func optionInt(r *api.ChatRequest, key string) int {
	switch v := r.Options[key].(type) {
	case int:
		return v
	case int64:
		return int(v)
	case float64:
		return int(v)
	case json.Number:
		n, _ := v.Int64()
		return int(n)
	}
	return 0
}

func optionFloat(r *api.ChatRequest, key string) float64 {
	switch v := r.Options[key].(type) {
	case float64:
		return v
	case float32:
		return float64(v)
	case int:
		return float64(v)
	}
	return 0
}

func numPredict(r *api.ChatRequest) int { return optionInt(r, "num_predict") }

func describeNumPredict(n int) string {
	if n <= 0 {
		return "the model's default"
	}
	return strconv.Itoa(n)
}

// largerNumPredict is the limit of the retry after a length stop: at least
// twice what the cut reply used and what was asked, and twice the reply
// reserve.
func (c *Client) largerNumPredict(asked, used int) int {
	return max(2*asked, 2*used, 2*c.cfg.ReplyReserve, 256)
}

// changedTemperature is the temperature of the retry after repetition: a
// deterministic request (0 or unset) gets 0.7, a warm one 0.3 more.
func changedTemperature(r *api.ChatRequest) float64 {
	t := optionFloat(r, "temperature")
	if _, set := r.Options["temperature"]; !set || t < 0.5 {
		return 0.7
	}
	return min(t+0.3, 1.5)
}
