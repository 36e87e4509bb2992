// Package nova holds the workspace defaults shipped inside the binary: the
// .nova/ tree (config.yaml, agents, starter patterns, PRDs, templates and
// themes). `nova init` copies it into a new workspace.
package nova

import "embed"

// Defaults is the shipped .nova/ tree. The database and build output are
// never embedded.
//
//go:embed .nova/config.yaml .nova/agents .nova/patterns .nova/prds .nova/templates .nova/themes
var Defaults embed.FS
