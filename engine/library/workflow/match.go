package workflow

import (
	"cmp"
	"slices"
	"strings"
	"unicode"

	"github.com/nova-dev/nova/engine/library/params"
)

// Match is a workflow a request triggers.
type Match struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Trigger is the phrase that matched ("" when the workflow's id or name
	// did).
	Trigger string `json:"trigger"`
	// Score is 1 or more for the whole phrase in the text (longer phrases
	// score higher), below 1 for most of its words.
	Score float64 `json:"score"`
	// Params suggests values read from the request: the text after a
	// matched phrase fills the first required text parameter.
	Params map[string]string `json:"params,omitempty"`
}

// MinScore is the lowest score Matches returns.
const MinScore = 0.5

// Matches returns the workflows text triggers, best first. A trigger
// matches when its words appear in the text in order (score ≥ 1), or when
// at least three quarters of them appear (a lower score); a workflow's id
// and name count as triggers too, a little weaker.
func Matches(text string, ws []Workflow) []Match {
	words := tokenize(text)
	if len(words) == 0 {
		return nil
	}
	var out []Match
	for _, w := range ws {
		best := Match{ID: w.ID, Name: w.Name}
		try := func(trigger string, weight float64, explicit bool) {
			tw := tokenize(trigger)
			if len(tw) == 0 {
				return
			}
			score, end := 0.0, -1
			if at := phrase(words, tw); at >= 0 {
				score = 1 + 0.05*float64(len(tw))
				end = at + len(tw)
			} else {
				hit := 0
				for _, t := range tw {
					if slices.ContainsFunc(words, func(x token) bool { return x.norm == t.norm }) {
						hit++
					}
				}
				if c := float64(hit) / float64(len(tw)); c >= 0.75 {
					score = 0.75 * c
				}
			}
			score *= weight
			if score <= best.Score {
				return
			}
			best.Score, best.Trigger, best.Params = score, "", nil
			if explicit {
				best.Trigger = trigger
			}
			if end >= 0 && end < len(words) {
				if p, ok := firstTextParam(w.Params); ok {
					rest := strings.TrimSpace(strings.TrimLeft(text[words[end].start:], " \t:,-–—"))
					for {
						first, tail, ok := strings.Cut(rest, " ")
						if !ok || !connector[strings.ToLower(first)] {
							break
						}
						rest = strings.TrimSpace(tail)
					}
					if rest != "" {
						best.Params = map[string]string{p: rest}
					}
				}
			}
		}
		for _, t := range w.Triggers {
			try(t, 1, true)
		}
		try(strings.ReplaceAll(w.ID, "-", " "), 0.9, false)
		try(w.Name, 0.9, false)
		if best.Score >= MinScore {
			out = append(out, best)
		}
	}
	slices.SortStableFunc(out, func(a, b Match) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.ID, b.ID))
	})
	return out
}

// connector words are dropped from the start of a suggested value ("add
// tests for parser.go" suggests "parser.go").
var connector = map[string]bool{"for": true, "to": true, "in": true, "on": true, "of": true, "about": true, "the": true, "a": true, "an": true}

func firstTextParam(ps []params.Param) (string, bool) {
	for _, p := range ps {
		if p.Kind() == params.String && p.IsRequired() {
			return p.Name, true
		}
	}
	return "", false
}

type token struct {
	norm  string
	start int // byte offset in the text
}

// tokenize splits text into lower-cased words, a plural "s" dropped.
func tokenize(s string) []token {
	var out []token
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		w := strings.ToLower(s[start:end])
		if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			w = w[:len(w)-1]
		}
		out = append(out, token{norm: w, start: start})
		start = -1
	}
	for i, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
	}
	flush(len(s))
	return out
}

// phrase returns where tw occurs in words as a contiguous run, or -1.
func phrase(words, tw []token) int {
	for i := 0; i+len(tw) <= len(words); i++ {
		ok := true
		for j := range tw {
			if words[i+j].norm != tw[j].norm {
				ok = false
				break
			}
		}
		if ok {
			return i
		}
	}
	return -1
}
