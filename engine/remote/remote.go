// Package remote is the engine.Workspace of a nova process that does not
// own its workspace: every method calls the owning process over the
// workspace's socket (engine/rpc, engine/owner). The client is generated
// from the interface's declaration, together with the wire registry of the
// engine's sentinel errors and error types, by
//
//	go generate ./engine/remote
//
// TestGeneratedFilesAreFresh fails when either file is stale. A read verb
// (it changes nothing) gets a //rpc:idempotent line at the end of its doc
// comment: the client retries it once when a connection breaks after the
// request was sent. Verbs and their values must be servable (plain data,
// both halves of a marshaler pair, no unexported fields: docs/PROTOCOL.md,
// "Adding a method"); TestEveryVerbCrossesTheSocket calls every verb
// through the socket and compares with the in-process answer, and
// TestOldClientsStillServed keeps the wire names an older client calls.
//
// Every binary that serves or calls a workspace must link this package (for
// the error registry), which it does by using it.
package remote

//go:generate go run github.com/nova-dev/nova/engine/rpc/rpcgen -iface github.com/nova-dev/nova/engine.Workspace -type Workspace -out zz_generated_remote.go -local Close -errors github.com/nova-dev/nova/engine/...,github.com/nova-dev/nova/storage/... -errors-exclude github.com/nova-dev/nova/engine/rpc/...,github.com/nova-dev/nova/engine/internal/rpcdemo,github.com/nova-dev/nova/engine/remote
