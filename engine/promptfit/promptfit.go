// Package promptfit fits nova's prompts into a model's context.
//
// The model server uses min(ollama.numCtx, the model's own context length)
// tokens of context; every prompt plus a reply reserve (budgets.replyReserve)
// must fit into it, because a server asked not to truncate refuses a longer
// prompt, and one that is allowed to keeps only its first tokens and its tail
// (the role, the rules and the tool instructions are lost). nova therefore
// trims its own sections first, in this order ([TrimOrder]): the knowledge
// tools' schemas (in an agent run), knowledge hits, taste-vault context,
// playbook rules, dependency previews, an agent's worked examples. Only then is the task itself cut, with a marker that says so;
// when not even a useful slice of the task fits beside the agent's fixed
// prompt, the prompt is refused (failure kind misconfigured) with what to
// change.
//
// Tokens are estimated as ceil(chars/4) times a per-model factor the model
// client learns from the server's prompt_eval_count (llm.Client.TokenFactor).
package promptfit

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
)

// Kind is the kind of a context block, by which it is trimmed.
type Kind string

// Block kinds, lowest priority first (the order they are trimmed in), then
// blocks that are never trimmed.
const (
	// KnowledgeTools are the schemas of the tools every agent is offered
	// whatever its spec lists (queryKnowledge, fetchDocs, …): not a block;
	// the agent loop leaves them out first (the model can work without
	// looking things up; their schemas weigh on every step).
	KnowledgeTools Kind = "knowledgeTools"
	Knowledge      Kind = "knowledge"
	Vault          Kind = "vault"
	Playbook       Kind = "playbook"
	// CodeMap is the repository map (engine/codemap, <code_map>).
	CodeMap      Kind = "codemap"
	Dependencies Kind = "dependencies"
	Examples     Kind = "examples"
	Other        Kind = "context"
)

// TrimOrder is the order in which kinds give up their room.
var TrimOrder = []Kind{KnowledgeTools, Knowledge, Vault, CodeMap, Playbook, Dependencies, Examples}

// Tags that open the blocks nova's context sources render.
var tags = []struct {
	prefix string
	kind   Kind
}{
	{"<knowledge", Knowledge},
	{"<taste_vault_context", Vault},
	{"<global_wisdom", Vault},
	{"<playbook_context", Playbook},
	{"<dependency_artifacts", Dependencies},
	{"<code_map", CodeMap},
}

// KindOf classifies a context block by the tag it opens with.
func KindOf(block string) Kind {
	b := strings.TrimSpace(block)
	for _, t := range tags {
		if strings.HasPrefix(b, t.prefix) {
			return t.kind
		}
	}
	return Other
}

// Estimator estimates tokens: ceil(runes/4) times Factor (≥ 1).
type Estimator struct {
	Factor float64
}

// Tokens estimates s.
func (e Estimator) Tokens(s string) int {
	return e.scale((utf8.RuneCountInString(s) + 3) / 4)
}

func (e Estimator) scale(n int) int {
	if e.Factor <= 1 {
		return n
	}
	return int(math.Ceil(float64(n) * e.Factor))
}

// runes is how many runes about tokens hold.
func (e Estimator) runes(tokens int) int {
	f := max(e.Factor, 1)
	return int(float64(tokens) * 4 / f)
}

// Cut cuts s to about tokens (marker included) and says so at the end: what
// is the name of the part ("task", "vault context", …). It cuts on a line
// end when one is close, else on a rune boundary. s that fits is returned
// unchanged; no room for more than the marker gives "".
func Cut(s string, tokens int, est Estimator, what string) string {
	total := est.Tokens(s)
	if total <= tokens {
		return s
	}
	marker := func(shown int) string {
		return fmt.Sprintf("\n[… %s cut to fit the model's context: about %d of %d tokens shown]", what, shown, total)
	}
	room := tokens - est.Tokens(marker(total))
	for room > 0 {
		cut := byteOffset(s, est.runes(room))
		if nl := strings.LastIndexByte(s[:cut], '\n'); nl > cut*3/4 {
			cut = nl + 1
		}
		head := strings.TrimRight(s[:cut], " \t")
		if head == "" {
			return ""
		}
		out := head + marker(est.Tokens(head))
		if est.Tokens(out) <= tokens {
			return out
		}
		room -= max(1, room/10)
	}
	return ""
}

// byteOffset is the byte offset of the n-th rune of s (len(s) when shorter).
func byteOffset(s string, n int) int {
	i := 0
	for pos := range s {
		if i == n {
			return pos
		}
		i++
	}
	return len(s)
}

// Trim records one block that was shrunk or dropped.
type Trim struct {
	Kind Kind `json:"kind"`
	From int  `json:"from"` // tokens before
	To   int  `json:"to"`   // tokens after (0: dropped)
}

func (t Trim) String() string {
	if t.To == 0 {
		return fmt.Sprintf("dropped %s (%d tokens)", t.Kind.label(), t.From)
	}
	return fmt.Sprintf("cut %s %d→%d tokens", t.Kind.label(), t.From, t.To)
}

// label names a kind for people.
func (k Kind) label() string {
	switch k {
	case Knowledge:
		return "knowledge hits"
	case KnowledgeTools:
		return "knowledge tools"
	case Vault:
		return "vault context"
	case Playbook:
		return "playbook rules"
	case Dependencies:
		return "dependency previews"
	case CodeMap:
		return "code map"
	case Examples:
		return "worked examples"
	}
	return string(k)
}

// minBlock is the smallest useful remainder of a block; less is dropped.
const minBlock = 96

// FitBlocks shrinks blocks until their estimate is at most room, kind by
// kind in TrimOrder (the last blocks of a kind first); blocks of kind Other
// are never touched. kinds gives each block's kind (KindOf when nil). It
// returns the blocks in their order, "" for a dropped one, and the trims.
func FitBlocks(blocks []string, kinds []Kind, room int, est Estimator) ([]string, []Trim) {
	if kinds == nil {
		kinds = make([]Kind, len(blocks))
		for i, b := range blocks {
			kinds[i] = KindOf(b)
		}
	}
	out := append([]string(nil), blocks...)
	sizes := make([]int, len(out))
	total := 0
	for i, b := range out {
		sizes[i] = est.Tokens(b)
		total += sizes[i]
	}
	var trims []Trim
	for _, k := range TrimOrder {
		for i := len(out) - 1; i >= 0 && total > room; i-- {
			if kinds[i] != k || sizes[i] == 0 {
				continue
			}
			over := total - room
			target := sizes[i] - over
			from := sizes[i]
			if target < minBlock {
				out[i] = ""
			} else {
				out[i] = Cut(out[i], target, est, k.label())
			}
			sizes[i] = est.Tokens(out[i])
			total += sizes[i] - from
			trims = append(trims, Trim{Kind: k, From: from, To: sizes[i]})
		}
	}
	return out, trims
}

// NonEmpty drops the empty blocks FitBlocks left for dropped ones.
func NonEmpty(blocks []string) []string {
	out := make([]string, 0, len(blocks))
	for _, b := range blocks {
		if b != "" {
			out = append(out, b)
		}
	}
	return out
}

// TooLargeError says a prompt cannot fit even after every trim.
type TooLargeError struct {
	// Fixed is what the parts that are never trimmed need (tokens).
	Fixed int
	// Budget is the room for the prompt: the window minus the reserve.
	Budget int
	// Window says where the context size comes from.
	Window string
	// Reserve is the reply reserve.
	Reserve int
	// What names the prompt ("agent tester's prompt").
	What string
}

func (e *TooLargeError) Error() string {
	if e.Budget <= 0 {
		return fmt.Sprintf("%s cannot fit: the model's context is %s and the reply reserve (budgets.replyReserve) "+
			"takes %d of it, leaving no room for any prompt; raise ollama.numCtx (within the model's context length), "+
			"lower budgets.replyReserve, or use a model with a larger context", e.What, e.Window, e.Reserve)
	}
	return fmt.Sprintf("%s cannot fit: its fixed part (role, rules, tools and the start of the task) needs about %d tokens, "+
		"but the model's context is %s and %d of it are reserved for the reply, leaving %d; raise ollama.numCtx "+
		"(within the model's context length), lower budgets.replyReserve, or shorten the agent's role",
		e.What, e.Fixed, e.Window, e.Reserve, e.Budget)
}

// MinTask is the smallest slice of a task worth sending (tokens).
const MinTask = 128
