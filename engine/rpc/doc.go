// Package rpc is the protocol between the nova process that owns a
// workspace and every other nova process working on it: HTTP/1.1 with JSON
// bodies over a Unix socket, built on the standard library only (net/http
// does the framing, keep-alive and cancellation on disconnect, and curl can
// speak it: see docs/PROTOCOL.md).
//
// A [Server] exposes any value through an interface type, method by method,
// by reflection:
//
//	POST /v1/call/{Method}    body: the arguments after ctx as a JSON array
//	                          200: the results before the error as a JSON array
//	                          4xx/5xx: {"error": {message, code, codes, failureKind, errors}}
//	POST /v1/stream/{Method}  a method returning <-chan T: one JSON value per line (NDJSON)
//	GET  /v1/methods          what is served, and what is not and why
//	GET  /version             the protocol and nova versions (never changes shape)
//
// A [Client] calls them; rpcgen (engine/rpc/rpcgen) writes the typed client
// that implements the interface on top of [Client.Call], [Subscribe] and
// [Stream], so callers never know whether they hold the local value or a
// remote one.
//
// Errors keep what callers branch on: every sentinel registered with
// [RegisterSentinel] that the error matches crosses the wire by name and
// errors.Is holds on the client; error types registered with [RegisterType]
// cross with their fields and errors.As finds them; the failure kind
// (engine/failure) crosses as failureKind and failure.Of agrees on both sides.
//
// Cancellation: a client's ctx ends its HTTP request, which closes the
// connection, which cancels the ctx the owner passed to the method. A
// client killed mid-request is the same disconnect. Nothing is retried
// unless it is safe: a request that never reached the owner is retried
// after re-dialling (the owner may have changed), a request lost after it
// was sent only when the method is marked idempotent.
package rpc
