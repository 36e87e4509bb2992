package engine

import (
	"fmt"
	"strings"

	"github.com/nova-dev/nova/engine/workspace"
)

// lspCheck lists the language servers nova looks for and which of them
// are on the PATH: their diagnostics check an agent's edits in the same
// turn. None found is a warning (edits are then checked by the configured
// checks only).
func lspCheck(cfg workspace.LSPConfig) Check {
	if cfg.Off {
		return Check{Name: "language servers", OK: true, Status: "skip", Detail: "off (lsp.off in .nova/config.yaml)"}
	}
	var found, missing []string
	for _, s := range LanguageServers(cfg) {
		if s.Path != "" {
			found = append(found, fmt.Sprintf("%s (%s: %s)", s.Name, strings.Join(s.Languages, "/"), s.Path))
		} else {
			missing = append(missing, s.Name+" ("+s.Command+")")
		}
	}
	detail := "found: none"
	if len(found) > 0 {
		detail = "found: " + strings.Join(found, ", ")
	}
	if len(missing) > 0 {
		detail += "; not on the PATH: " + strings.Join(missing, ", ")
	}
	if len(found) == 0 {
		return Check{Name: "language servers", OK: true, Status: "warn", Detail: detail,
			Hint: "install one for your language (e.g. `go install golang.org/x/tools/gopls@latest`) or name it under lsp.servers; edits are then checked in the same turn"}
	}
	return Check{Name: "language servers", OK: true, Detail: detail}
}
