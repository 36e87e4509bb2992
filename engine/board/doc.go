// Package board is the session board every goal run and every build shares
// among its agents (a blackboard with lazy artifacts).
//
// A board holds a small inline part that goes into every prompt of its run
// or build — the current goal, at most [MaxDecisions] key decisions, at most
// [MaxBlockers] open blockers, a compressed history summary and references
// to the artifacts tasks produced (id, type, a [PreviewChars]-character
// preview, token size, who made it) — and, beside it, the full content of
// those artifacts, loaded only when a task asks for them (includeArtifacts)
// or an agent calls readArtifact. [Board.Inline] renders the inline part in
// at most [InlineTokens] tokens whatever the board holds.
//
// Agents change the board through the board tools ([Tools]: addDecision,
// addBlocker, resolveBlocker, setGoal, readArtifact), bound to the calling
// agent and task by a [Handle]. Every task ends with a [Handoff] (summary,
// artifacts, constraints for the next agent, suggested next agent, open
// questions), parsed from the end of its answer ([ParseHandoff]) or derived
// from the outcome when the agent wrote none.
//
// Storage (see storage/doc.go): boards (one record per board), board_artifacts
// (full contents, by a global artifact id) and board_handoffs. Every write is
// one bbolt transaction; Options.Notify is called after it commits.
package board
