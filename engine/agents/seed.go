package agents

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// The kb.specialist/1 files this format grew from name tools by area and
// verb ("fs:read", "shell:exec") and carry fields nova has no use for. A
// file written that way loads: its tool names are mapped onto nova's tools
// (and `nova agents show` says how), and the fields nova does not run on
// are accepted with a note instead of failing as typos would.

// ToolAlias is one kb.specialist/1 tool name and the nova tools it became.
type ToolAlias struct {
	From string   `json:"from"`
	To   []string `json:"to"`
}

// String formats as "fs:list → listFiles, searchFiles".
func (a ToolAlias) String() string { return a.From + " → " + strings.Join(a.To, ", ") }

// seedTools maps the kb.specialist/1 tool names onto nova's. Reading a
// directory in that format also means finding files in it, and writing a
// file also means editing one, so those two grant a pair.
var seedTools = map[string][]string{
	"fs:read":        {ToolReadFile},
	"fs:list":        {ToolListFiles, ToolSearchFiles},
	"fs:search":      {ToolSearchFiles},
	"fs:grep":        {ToolSearchFiles},
	"code:search":    {ToolSearchFiles},
	"code:insert":    {ToolEditFile},
	"code:edit":      {ToolEditFile},
	"fs:write":       {ToolWriteFile, ToolEditFile},
	"fs:edit":        {ToolEditFile},
	"fs:delete":      {ToolDeleteFile},
	"shell:exec":     {ToolRunCommand},
	"mind:rag-query": {ToolQueryKnowledge},
	"mind:query":     {ToolQueryKnowledge},
	"http:get":       {ToolFetchDocs},
}

// SeedToolNames returns the kb.specialist/1 tool names nova maps, sorted.
func SeedToolNames() []string {
	names := make([]string, 0, len(seedTools))
	for n := range seedTools {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func isSeedTool(name string) bool { _, ok := seedTools[name]; return ok }

// mapSeedTools replaces kb.specialist/1 names in list by nova's, recording
// each mapping in prior (which it returns extended). A nova tool a mapping
// brings in that is already listed is not added twice; a name listed twice
// by the file itself is left for Validate to report.
func mapSeedTools(list []string, prior []ToolAlias) ([]string, []ToolAlias) {
	if !slices.ContainsFunc(list, isSeedTool) {
		return list, prior
	}
	out := make([]string, 0, len(list)+2)
	aliases := slices.Clone(prior)
	for _, t := range list {
		to, ok := seedTools[t]
		if !ok {
			out = append(out, t)
			continue
		}
		for _, n := range to {
			if !slices.Contains(out, n) && !slices.Contains(list, n) {
				out = append(out, n)
			}
		}
		aliases = append(aliases, ToolAlias{From: t, To: slices.Clone(to)})
	}
	return out, aliases
}

// adoptSeedFields reads the kb.specialist/1 fields nova does not name the
// same way into nova's (only where nova's own field is empty) and notes
// each, and notes the fields it takes without using. It runs before
// Validate, so a value it moves is checked in its new place.
func adoptSeedFields(s *Spec) {
	note := func(format string, args ...any) { s.Notes = append(s.Notes, fmt.Sprintf(format, args...)) }
	if name := strings.TrimSpace(s.SeedName); name != "" {
		if s.Display.Name == "" {
			s.Display.Name = name
			note("name: read as display.name")
		} else {
			note("name: not used (display.name is set)")
		}
	}
	if d := strings.TrimSpace(s.SeedDescription); d != "" {
		if s.Display.Description == "" {
			s.Display.Description = d
			note("description: read as display.description")
		} else {
			note("description: not used (display.description is set)")
		}
	}
	if len(s.SeedContext) > 0 {
		keys := make([]string, 0, len(s.SeedContext))
		for k := range s.SeedContext {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var unused []string
		for _, k := range keys {
			if sys, ok := s.SeedContext[k].(string); k == "system" && ok && strings.TrimSpace(sys) != "" && strings.TrimSpace(s.Role) == "" {
				s.Role = sys
				note("context.system: read as role")
				continue
			}
			unused = append(unused, "context."+k)
		}
		if len(unused) > 0 {
			note("%s: not used (nova adds the workspace's knowledge to the prompt itself)", strings.Join(unused, ", "))
		}
	}
	if len(s.SeedLLM) > 0 {
		keys := make([]string, 0, len(s.SeedLLM))
		for k := range s.SeedLLM {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var unused []string
		for _, k := range keys {
			if tier, ok := s.SeedLLM[k].(string); k == "tier" && ok && s.Tier == "" {
				s.Tier = Tier(tier)
				note("llm.tier: read as tier")
				continue
			}
			unused = append(unused, "llm."+k)
		}
		if len(unused) > 0 {
			note("%s: not used (nova takes the model and its settings from the tier's profile)", strings.Join(unused, ", "))
		}
	}
	if ms := s.Limits.TimeoutMs; ms != 0 {
		if s.Limits.Timeout == "" && ms > 0 {
			s.Limits.Timeout = (time.Duration(ms) * time.Millisecond).String()
			note("limits.timeoutMs: read as limits.timeout %s", s.Limits.Timeout)
		} else if ms < 0 {
			note("limits.timeoutMs: %d is not positive; not used", ms)
		} else {
			note("limits.timeoutMs: not used (limits.timeout is set)")
		}
	}
	if n := s.Limits.ForcedReasoningInterval; n != 0 {
		if s.ForcedReasoningInterval == 0 {
			s.ForcedReasoningInterval = n
			note("limits.forcedReasoningInterval: read as forcedReasoningInterval")
		} else {
			note("limits.forcedReasoningInterval: not used (forcedReasoningInterval is set)")
		}
	}
	if strings.TrimSpace(s.Role) == "" {
		if role := seedRole(s); role != "" {
			s.Role = role
			note("role: none in the file; written from capabilities and constraints")
		}
	}
	var unused []string
	for _, f := range []struct {
		name string
		set  bool
	}{{"capabilities", s.SeedCapabilities != nil}, {"constraints", s.SeedConstraints != nil}, {"input", s.SeedInput != nil}, {"output", s.SeedOutput != nil}} {
		if f.set {
			unused = append(unused, f.name)
		}
	}
	if len(unused) > 0 {
		note("%s: accepted; not used beyond the role (nova's prompt is built from role, staticContext and examples; tools are what limits an agent)", strings.Join(unused, ", "))
	}
	for i, ex := range s.Examples {
		if (ex.Task != "" || ex.Outcome != "") && ex.Input == "" && ex.Output == "" {
			note("examples[%d]: task, approach and outcome read as input and output", i)
		}
	}
}

// seedRole writes a role for a kb.specialist/1 file that has none from its
// capabilities and constraints lists ("" when it has neither).
func seedRole(s *Spec) string {
	can, must := stringList(s.SeedCapabilities), stringList(s.SeedConstraints)
	if len(can) == 0 && len(must) == 0 {
		return ""
	}
	name := cmp.Or(strings.TrimSpace(s.Display.Name), s.ID)
	var b strings.Builder
	fmt.Fprintf(&b, "You are %s.\n", name)
	if len(can) > 0 {
		b.WriteString("What you do:\n")
		for _, c := range can {
			fmt.Fprintf(&b, "- %s\n", c)
		}
	}
	if len(must) > 0 {
		b.WriteString("Rules you keep:\n")
		for _, c := range must {
			fmt.Fprintf(&b, "- %s\n", c)
		}
	}
	return b.String()
}

// stringList returns the non-blank entries, trimmed.
func stringList(items []string) []string {
	var out []string
	for _, s := range items {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
