package chat

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/nova-dev/nova/engine/agents"
)

// PreferredWriter is the agent a change request goes to when the roster
// has it: the roster's implementer.
const PreferredWriter = "implementer"

// Route is the router's choice for one message.
type Route struct {
	Agent string `json:"agent"`
	// Reason says why, for the turn's header ("@MARS", "a change: the
	// roster's implementer", "a question: a read-only agent").
	Reason string `json:"reason"`
	// Writes is true when the agent can stage file changes.
	Writes bool `json:"writes"`
}

// SplitAgent takes a leading "@AGENT" off msg when AGENT is in the roster
// (case-insensitive); it returns the agent's id and the rest.
func SplitAgent(specs []agents.Spec, msg string) (agent, rest string) {
	s := strings.TrimLeftFunc(msg, unicode.IsSpace)
	if !strings.HasPrefix(s, "@") {
		return "", msg
	}
	word, tail, _ := strings.Cut(s[1:], " ")
	for _, sp := range specs {
		if strings.EqualFold(sp.ID, word) {
			return sp.ID, strings.TrimSpace(tail)
		}
	}
	return "", msg
}

// writes reports whether a spec can stage file changes.
func writes(s agents.Spec) bool { return slices.ContainsFunc(s.Tools, agents.IsWriteTool) }

// RouteMessage picks the agent of a message: the one the message names
// (@AGENT), else the session's choice (/agent), else a writing specialist
// for a change request (the roster's implementer when it has one) and a
// read-only one for a question.
func RouteMessage(specs []agents.Spec, msg, named, sessionAgent string) (Route, error) {
	find := func(id string) (agents.Spec, bool) {
		i := slices.IndexFunc(specs, func(s agents.Spec) bool { return strings.EqualFold(s.ID, id) })
		if i < 0 {
			return agents.Spec{}, false
		}
		return specs[i], true
	}
	if named != "" {
		if s, ok := find(named); ok {
			return Route{Agent: s.ID, Reason: "@" + s.ID, Writes: writes(s)}, nil
		}
		return Route{}, fmt.Errorf("%w: @%s is not in the roster", ErrNoAgent, named)
	}
	if sessionAgent != "" {
		if s, ok := find(sessionAgent); ok {
			return Route{Agent: s.ID, Reason: "the session's agent (/agent)", Writes: writes(s)}, nil
		}
	}
	var writers, readers []agents.Spec
	for _, s := range specs {
		if writes(s) {
			writers = append(writers, s)
		} else if slices.Contains(s.Tools, agents.ToolReadFile) {
			readers = append(readers, s)
		}
	}
	if IsQuestion(msg) && len(readers) > 0 {
		slices.SortStableFunc(readers, func(a, b agents.Spec) int { return rankReader(a) - rankReader(b) })
		return Route{Agent: readers[0].ID, Reason: "a question: a read-only agent"}, nil
	}
	if len(writers) == 0 {
		if len(readers) > 0 {
			return Route{Agent: readers[0].ID, Reason: "no agent of the roster can write files"}, nil
		}
		return Route{}, fmt.Errorf("%w: the roster has no agent that reads or writes files (see `nova agents list`)", ErrNoAgent)
	}
	if s, ok := find(PreferredWriter); ok && writes(s) {
		return Route{Agent: s.ID, Reason: "a change: the roster's implementer", Writes: true}, nil
	}
	slices.SortStableFunc(writers, func(a, b agents.Spec) int { return a.Tier.Rank() - b.Tier.Rank() })
	return Route{Agent: writers[0].ID, Reason: "a change: an agent that writes files", Writes: true}, nil
}

// rankReader orders read-only agents: researchers first, then those with
// the most reading tools.
func rankReader(s agents.Spec) int {
	r := 10
	if strings.EqualFold(s.Domain, "research") {
		r = 0
	}
	for _, t := range []string{agents.ToolListFiles, agents.ToolSearchFiles} {
		if slices.Contains(s.Tools, t) {
			r--
		}
	}
	return r
}

// changeWords start or mark a request to change code.
var changeWords = []string{
	"fix", "add", "implement", "change", "refactor", "rename", "write", "create", "remove", "delete",
	"update", "make", "handle", "replace", "move", "support", "convert", "extract", "bump", "port",
	"rewrite", "edit", "patch", "correct", "also",
}

// questionWords start a question.
var questionWords = []string{
	"why", "what", "how", "where", "which", "who", "when", "explain", "describe", "is", "are",
	"does", "do", "can", "could", "should", "show", "list", "find", "tell",
}

// IsQuestion reports whether a message asks something rather than asks
// for a change: it starts with a question word or ends with "?", and no
// change verb leads it. A request such as "fix the bug" or "no, also handle
// nil" is a change.
func IsQuestion(msg string) bool {
	words := strings.FieldsFunc(strings.ToLower(msg), func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' })
	if len(words) == 0 {
		return false
	}
	// "no, also handle nil", "please fix": look past fillers.
	lead := words
	for len(lead) > 1 && slices.Contains([]string{"no", "please", "now", "ok", "okay", "and", "then", "yes", "can", "could", "you"}, lead[0]) {
		lead = lead[1:]
	}
	if slices.Contains(changeWords, lead[0]) {
		return false
	}
	if strings.HasSuffix(strings.TrimSpace(msg), "?") {
		return true
	}
	return slices.Contains(questionWords, words[0])
}
