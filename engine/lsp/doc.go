// Package lsp is a minimal Language Server Protocol client over stdio:
// enough to start a server (initialize, initialized), show it the staged
// content of files (didOpen, didChange) and collect the diagnostics it
// publishes (textDocument/publishDiagnostics), so that an agent hears of a
// broken build in the same turn as the edit that broke it.
//
// A server is untrusted and may misbehave: every wait has a timeout, a
// server that crashes is started again on the next call (a few times at
// most), one that hangs at initialize is killed and left alone for a while,
// and one that floods diagnostics cannot grow memory (only the latest
// diagnostics of each file are kept, at most maxDiagsPerFile of them, and
// a message larger than maxMessage ends the session).
package lsp
