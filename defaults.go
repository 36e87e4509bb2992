// Package nova holds the workspace defaults shipped inside the binary: the
// .nova/ tree (config.yaml, agents, starter patterns, PRDs, templates,
// themes, the skills guide, the shipped workflows and the .gitignore that
// keeps the database, sockets and outputs out of git). `nova init` copies it
// into a new workspace.
package nova

import "embed"

// Defaults is the shipped .nova/ tree. The database and build output are
// never embedded.
//
//go:embed .nova/config.yaml .nova/.gitignore .nova/agents .nova/patterns .nova/prds .nova/templates .nova/themes .nova/skills .nova/workflows
var Defaults embed.FS
