// Package facts keeps scoped, temporal, correctable facts: short
// statements an agent or the user can rely on ("the API paginates with
// cursors"), each with a scope, a source, a confidence (0–1), tags, the
// time it became valid and, once corrected, the time it stopped being
// valid and why.
//
// # Scopes
//
// From broad to narrow: user (every workspace of this user), workspace,
// build:ID, agent:NAME. A search standing at a narrow scope sees the
// broader scopes too; a broad search never sees narrower facts ([Chain],
// [Visible]). An agent searching inside a build also sees that build's
// facts.
//
// Workspace, build and agent facts live in the workspace database (ids
// "f<n>"); user facts live in a small user-level bbolt file ([UserPath]:
// $NOVA_HOME/user.db, else the XDG data dir) opened briefly per operation
// with a short lock timeout (ids "u<n>"). When that file is locked, damaged
// or absent, searches still answer from the workspace with a warning, and
// only user-scope writes fail ([ErrUserUnavailable]).
//
// # Correct, don't overwrite
//
// [Service.Correct] closes a fact (validUntil and a reason) and, with a
// replacement, records the new fact linked both ways (supersedes /
// supersededBy); [Service.History] walks the chain; [Service.Promote] moves
// a fact to a broader scope the same way. Nothing is ever deleted.
//
// # Usefulness
//
// A fact counts the times it was handed to an agent (retrievals) and the
// outcome of the tasks that used it (helpful / not helpful). After at least
// 3 uses with a help rate below 20 %, or 90 days unused, it is archived
// (hidden from searches, kept, restorable with [Service.Reaffirm]); a fact
// naming a workspace file that changed since it was recorded is flagged for
// review ([Service.Sweep]).
//
// # Search
//
// Searches rank with engine/textindex (BM25 over content and tags, with
// the code-aware analyzer and synonyms) over an in-memory snapshot of both
// files, weighed by confidence and an optional recency preference. The
// snapshot follows the workspace file's change counter ("~rev" in
// facts_idx) and the user file's size and time, so writes by another
// process are seen by the next search.
package facts
