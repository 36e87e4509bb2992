package ace

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/nova-dev/nova/engine/untrusted"
)

// ContextShare is the playbook block's share of the prompt token budget.
const ContextShare = 0.10

// Budget returns the playbook block's token budget for a prompt budget.
func Budget(promptTokens int) int { return int(float64(max(promptTokens, 0)) * ContextShare) }

// Tokens estimates tokens as ceil(chars/4).
func Tokens(s string) int { return (len([]rune(s)) + 3) / 4 }

// maxContextRules bounds the rules considered for one block.
const maxContextRules = 20

// Injected is a rendered playbook block and its provenance.
type Injected struct {
	Agent   string   `json:"agent"`
	Version int      `json:"version"`
	Block   string   `json:"block"`
	RuleIDs []string `json:"ruleIds"`
	Tokens  int      `json:"tokens"`
}

// Generate renders the <playbook_context> block of the rules most relevant
// to a task, within budgetTokens (nothing when no rule fits). It does not
// record anything: see System.Context.
func (m *Manager) Generate(ctx context.Context, agent, task string, budgetTokens int) (Injected, error) {
	p, err := m.readShared(ctx, agent)
	if err != nil {
		return Injected{}, err
	}
	inj := Injected{Agent: p.Agent, Version: p.Version}
	if len(p.Rules) == 0 || budgetTokens <= 0 {
		return inj, nil
	}
	ranked := m.rank(p, task, maxContextRules)
	const intro = "Rules this agent learned from earlier tasks, most relevant first. Follow them unless the task says otherwise.\n"
	var lines []string
	var ids []string
	render := func(ids []string, lines []string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "<playbook_context agent=%q version=\"%d\" rules_applied=%q>\n", p.Agent, p.Version, strings.Join(ids, ","))
		b.WriteString(intro)
		for _, l := range lines {
			b.WriteString(l)
		}
		b.WriteString("</playbook_context>")
		return b.String()
	}
	for _, r := range ranked {
		text, from := oneLine(r.Content), ""
		if r.Team != nil {
			// A teammate's rule is data from outside: its markers are made inert.
			text, from = untrusted.Neutralize(text), ", shared by teammate "+r.Team.Author
		}
		line := "- [" + r.ID + "] " + text + " (" + string(r.Kind) + from + ", confidence " +
			strconv.FormatFloat(r.Confidence, 'f', 2, 64) + ")\n"
		candIDs := append(append([]string(nil), ids...), r.ID)
		candLines := append(append([]string(nil), lines...), line)
		if Tokens(render(candIDs, candLines)) > budgetTokens {
			continue // a shorter rule further down may still fit
		}
		ids, lines = candIDs, candLines
	}
	if len(ids) == 0 {
		return inj, nil
	}
	inj.Block = render(ids, lines)
	inj.RuleIDs = ids
	inj.Tokens = Tokens(inj.Block)
	return inj, nil
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
