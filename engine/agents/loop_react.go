package agents

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/internal/lazyre"
)

// Errors of ParseReAct.
var (
	// ErrNoReAct: the reply holds neither an Action nor a Final Answer.
	ErrNoReAct = errors.New("no Action or Final Answer in the reply")
	// ErrBadActionInput: an Action was found but its Action Input is not a
	// JSON object.
	ErrBadActionInput = errors.New("action input is not a JSON object")
)

// ReAct is one reply in the text format used with models that have no
// native tool calling:
//
//	Thought: what to do next
//	Action: readFile
//	Action Input: {"path": "main.go"}
//
// or, at the end:
//
//	Thought: done
//	Final Answer: what was changed and why
type ReAct struct {
	Thought string `json:"thought,omitempty"`
	Action  string `json:"action,omitempty"`
	// Input is the Action Input as a JSON object ({} when the action has no
	// input); nil when it is not JSON (ErrBadActionInput).
	Input    json.RawMessage `json:"input,omitempty"`
	RawInput string          `json:"rawInput,omitempty"`
	Final    string          `json:"final,omitempty"`
	HasFinal bool            `json:"hasFinal,omitempty"`
}

// maxReActInput bounds the text ParseReAct looks at.
const maxReActInput = 1 << 20

// label matches a ReAct label at the start of a line, tolerating markdown
// decoration ("**Action:**", "- Action:", "### Final Answer").
var label = lazyre.New(`(?i)^[\s>*#_\-]*(thought|action input|action|observation|final answer|final)[\s*_]*:[\s*_]*`)

var thinkBlock = lazyre.New(`(?is)<think>.*?</think>`)

type section struct {
	name string // lower-case label
	text string
}

// ParseReAct parses a text-mode reply. The first complete step wins: an
// Action (with its Action Input) or a Final Answer, whichever comes first;
// anything after an Observation label is ignored (the model is imagining the
// tool's answer). It never panics on input.
//
// Errors: ErrNoReAct when neither an Action nor a Final Answer is present
// (Thought is still filled when there is one), ErrBadActionInput when the
// Action's input is not a JSON object (Action and RawInput are filled).
func ParseReAct(text string) (ReAct, error) {
	if len(text) > maxReActInput {
		text = text[:maxReActInput]
	}
	text = thinkBlock.ReplaceAllString(text, "")
	text = strings.ReplaceAll(text, "\r\n", "\n")

	var secs []section
	cur := -1
	for line := range strings.SplitSeq(text, "\n") {
		if m := label.FindStringSubmatchIndex(line); m != nil {
			name := strings.ToLower(line[m[2]:m[3]])
			if name == "final" {
				name = "final answer"
			}
			secs = append(secs, section{name: name, text: line[m[1]:]})
			cur = len(secs) - 1
			continue
		}
		if cur >= 0 {
			secs[cur].text += "\n" + line
		}
	}

	var r ReAct
	haveAction, haveInput := false, false
loop:
	for _, s := range secs {
		body := strings.TrimSpace(s.text)
		switch s.name {
		case "thought":
			if haveAction {
				break loop
			}
			if r.Thought == "" {
				r.Thought = body
			}
		case "action":
			if haveAction {
				break loop
			}
			haveAction = true
			r.Action, r.RawInput = splitAction(body)
			haveInput = r.RawInput != ""
		case "action input":
			if !haveAction || haveInput {
				if haveAction {
					break loop
				}
				continue
			}
			r.RawInput = body
			haveInput = true
		case "observation":
			if haveAction {
				break loop
			}
		case "final answer":
			if haveAction {
				break loop
			}
			r.Final, r.HasFinal = body, true
			break loop
		}
	}

	switch {
	case haveAction && r.Action != "":
		in, ok := actionInput(r.RawInput)
		if !ok {
			return r, ErrBadActionInput
		}
		r.Input = in
		return r, nil
	case r.HasFinal:
		return r, nil
	}
	return r, ErrNoReAct
}

// splitAction reads the Action line: a tool name, possibly written as a
// call ("readFile({...})") or decorated with backticks or quotes.
func splitAction(body string) (name, input string) {
	first, rest, _ := strings.Cut(body, "\n")
	first = strings.TrimSpace(first)
	if i := strings.IndexByte(first, '('); i > 0 {
		inner := strings.TrimSpace(first[i+1:])
		inner = strings.TrimSuffix(inner, ")")
		name, input = first[:i], inner
	} else {
		name = first
		if strings.TrimSpace(rest) != "" {
			input = ""
		}
	}
	name = strings.Trim(strings.TrimSpace(name), "`'\"*_ .")
	if f := strings.Fields(name); len(f) > 0 {
		name = f[0]
	}
	return name, strings.TrimSpace(input)
}

// actionInput turns the raw Action Input into a JSON object.
func actionInput(raw string) (json.RawMessage, bool) {
	raw = strings.TrimSpace(raw)
	if raw == "" || strings.EqualFold(raw, "none") || raw == "{}" {
		return json.RawMessage(`{}`), true
	}
	doc, err := llm.ExtractJSON(raw)
	if err != nil {
		return nil, false
	}
	doc = bytes.TrimSpace(doc)
	if len(doc) == 0 || doc[0] != '{' {
		return nil, false
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(doc, &obj) != nil || obj == nil {
		return nil, false
	}
	return json.RawMessage(doc), true
}
