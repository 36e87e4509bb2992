package agents

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/nova-dev/nova/internal/lazyre"
)

// TraceLine is one tool call of a stored run as people read it (`nova
// agent runs show`, the run view's trace list): the arguments on one line,
// the result clipped, the rule an edit matched by, and the text form a call
// was read from.
type TraceLine struct {
	ID       uint64        `json:"id"`
	Step     int           `json:"step"`
	Tool     string        `json:"tool"`
	Args     string        `json:"args"`
	Status   string        `json:"status"`
	Result   string        `json:"result"`
	Clipped  bool          `json:"clipped,omitempty"`
	Duration time.Duration `json:"durationNs"`
	// Rule is the matching rule an editFile call's search text was found
	// by ("exact", "whitespace", …), from its output.
	Rule string `json:"rule,omitempty"`
	// Edit is where an editFile call's block landed, from its claim's
	// anchor ("a.go:4-6").
	Edit string `json:"edit,omitempty"`
	// Via is the text form a call written as text was read from ("" for a
	// native tool call).
	Via  string    `json:"via,omitempty"`
	Time time.Time `json:"time"`
}

// TraceResultChars is how much of a result a TraceLine keeps.
const TraceResultChars = 400

var ruleRe = lazyre.New(`matched by rule: ([^);\n]+)`)

// TraceLines turns a run's traces into what people read, in order. max
// bounds each result in runes (0: TraceResultChars).
func TraceLines(ts []Trace, max int) []TraceLine {
	if max <= 0 {
		max = TraceResultChars
	}
	out := make([]TraceLine, 0, len(ts))
	for _, t := range ts {
		l := TraceLine{ID: t.ID, Step: t.Step, Tool: t.Tool, Status: string(t.Status), Duration: t.Duration, Via: t.Via, Time: t.Time}
		var compact bytes.Buffer
		if len(t.Args) > 0 && json.Compact(&compact, t.Args) == nil {
			l.Args = compact.String()
		} else {
			l.Args = string(t.Args)
		}
		result := strings.TrimSpace(strings.ToValidUTF8(t.Output, "\uFFFD"))
		if utf8.RuneCountInString(result) > max {
			result, l.Clipped = string([]rune(result)[:max])+"…", true
		}
		l.Result = result
		if m := ruleRe.FindStringSubmatch(t.Output); m != nil {
			l.Rule = strings.TrimSpace(m[1])
		}
		for _, e := range t.Evidence {
			if e.Anchor != nil {
				l.Edit = fmt.Sprintf("%s:%d-%d", e.Path, e.Anchor.StartLine, e.Anchor.EndLine)
			}
		}
		out = append(out, l)
	}
	return out
}
