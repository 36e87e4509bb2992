// Package docs finds documentation for the libraries an agent works with,
// in this order:
//
//  1. Local, exact version, offline. For the project's own dependencies the
//     documentation already on disk is read at the version the project
//     uses: a Go module required by go.mod is read from the module cache
//     (or vendor/, or a local replace directory) and rendered the way
//     `go doc` shows it (go/parser + go/doc, no network, no `go` command);
//     a standard-library package from GOROOT; an npm package from
//     node_modules/<pkg> (its README and type declarations).
//  2. The cache (bbolt bucket docs_cache), per (source, library, topic),
//     for a TTL (default 7 days). A second fetch within the TTL makes no
//     network request.
//  3. Context7's v2 API ([Client]): GET {base}/api/v2/libs/search resolves
//     the library to an id, GET {base}/api/v2/context returns the text.
//     A stale cache entry is refreshed when the network answers and served
//     (marked stale) when it does not.
//
// A fetch never blocks an agent: anything that goes wrong (an unknown
// library, the server down, a timeout, a non-200 status, an HTML or empty
// or undecodable body) gives the fallback text ([Unavailable]) and the
// error beside it; the agent's tool shows the text and the task goes on.
// Content is cut to a token budget (default 2,000, ceil(chars/4)) with a
// "...[truncated]" marker.
//
// Cache keys are sanitised ([Key]): control bytes are dropped and each
// part is at most 200 bytes (a longer one ends in a hash), so a library
// name such as "../../etc" or 10 KB of text only ever names a bbolt key,
// and local lookups accept only a valid module path or npm package name.
//
// The cached entries are searchable ([Cache.Search]) with an in-memory
// full-text index that follows the bucket's change counter.
package docs
