package agents

import (
	"encoding/json"
	"strings"

	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/engine/untrusted"
)

// trustedOutputTools print only nova's own words (the summary of a staged
// write or deletion); every other tool's output — file contents, command
// output, search results, documentation, knowledge hits, and the results
// of tools nova does not know (MCP) — reaches the model inside an
// untrusted block (engine/untrusted), which the system prompt says is
// data, never instructions.
var trustedOutputTools = map[string]bool{tools.NameWriteFile: true, tools.NameDeleteFile: true}

// markUntrusted wraps a tool's observation unless the tool is trusted; the
// block's source names the tool and the path or library it was asked for.
func markUntrusted(tool string, args json.RawMessage, obs string) string {
	if trustedOutputTools[tool] || strings.TrimSpace(obs) == "" {
		return obs
	}
	source := tool
	var a map[string]any
	if json.Unmarshal(args, &a) == nil {
		for _, k := range []string{"path", "library", "query", "command", "pattern"} {
			if v, ok := a[k].(string); ok && v != "" {
				source += " " + clip(v, 80)
				break
			}
		}
	}
	return untrusted.Wrap(source, obs)
}
