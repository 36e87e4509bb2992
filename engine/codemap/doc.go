// Package codemap keeps a map of the workspace's source code: the
// definitions (functions, methods, types, classes, constants) of every file
// and the names each file refers to, so that a prompt can carry the part of
// the repository a task is about without the agent listing and searching
// for it turn by turn.
//
// Go is read with go/parser; Python, JavaScript, TypeScript (and TSX), Rust
// and Java with tree-sitter grammars. A file that does not parse, is larger
// than [MaxFileBytes], looks minified, is not UTF-8 or is a symlink is left
// out (it only drops out of the map; [Stats] says why). The map lives in
// bbolt (storage buckets codemap_files and codemap_syms, migration 9) and
// is updated incrementally: a file whose size and modification time did not
// change is not read again, and one whose content hash did not change is not
// parsed again.
//
// [Map.Block] ranks files and their definitions over the reference graph (a
// PageRank personalised to the files and identifiers the task names) and
// renders the top of it, signatures only, into a prompt block that fits a
// token budget, with provenance [Item]s.
package codemap
