package tools

import (
	"context"
	"errors"
	"fmt"
)

// Kind classifies a failed tool invocation. The values are shared with the
// agent loop's failure kinds (engine/agents).
type Kind string

// Failure kinds of a tool invocation.
const (
	// KindToolError: the tool ran and failed (file not found, search text
	// absent, command could not start, ...).
	KindToolError Kind = "tool_error"
	// KindTimeout: the tool did not finish within its timeout.
	KindTimeout Kind = "timeout"
	// KindValidation: the call itself is wrong: unknown tool, arguments that
	// do not match the tool's schema.
	KindValidation Kind = "validation_failed"
	// KindPolicyDenied: the call was refused: a path outside the workspace,
	// a tool the agent may not use, a command not on the allowlist, a
	// command the user did not approve.
	KindPolicyDenied Kind = "policy_denied"
)

// Sentinel errors callers branch on with errors.Is.
var (
	// ErrPolicyDenied is wrapped by every refusal (confinement, permissions,
	// allowlist, approval).
	ErrPolicyDenied = errors.New("policy denied")
	// ErrUnknownTool: no tool has this name.
	ErrUnknownTool = errors.New("unknown tool")
	// ErrInvalidArgs: the arguments do not match the tool's schema.
	ErrInvalidArgs = errors.New("invalid tool arguments")
	// ErrToolTimeout: the tool ran past its timeout.
	ErrToolTimeout = errors.New("tool timed out")
	// ErrNoStage: a mutating tool ran without a changeset to stage into.
	ErrNoStage = errors.New("no changeset to stage changes in")
	// ErrFileNotFound: the file does not exist (on disk or in the staged view).
	ErrFileNotFound = errors.New("file not found")
)

// KindOf maps an error to its Kind (KindToolError when nothing more precise
// applies).
func KindOf(err error) Kind {
	switch {
	case errors.Is(err, ErrPolicyDenied):
		return KindPolicyDenied
	case errors.Is(err, ErrUnknownTool), errors.Is(err, ErrInvalidArgs):
		return KindValidation
	case errors.Is(err, ErrToolTimeout), errors.Is(err, context.DeadlineExceeded):
		return KindTimeout
	}
	return KindToolError
}

// denied builds a policy error.
func denied(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrPolicyDenied, fmt.Sprintf(format, a...))
}

// invalid builds an argument error.
func invalid(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidArgs, fmt.Sprintf(format, a...))
}
