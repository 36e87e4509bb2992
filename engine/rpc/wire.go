package rpc

import (
	"strconv"
)

// ProtocolVersion is the version of the wire protocol. It changes when a
// client of one version could misread an owner of another: the shape of a
// call, of a result, of the error envelope or of a stream. Adding a method
// does not change it (an owner that lacks a method answers with
// ErrUnknownMethod, naming both nova versions).
const ProtocolVersion = 1

// Wire names.
const (
	// HeaderProtocol carries the client's ProtocolVersion on every request;
	// an owner speaking another version refuses with ErrProtocolMismatch.
	HeaderProtocol = "Nova-Protocol"
	// HeaderVersion carries the client's nova version (for messages).
	HeaderVersion = "Nova-Version"
	// Host is the host name used in URLs over the socket
	// (curl --unix-socket .nova/nova.sock http://nova/version).
	Host = "nova"
	// PathVersion answers VersionInfo; its shape never changes, so any
	// client can tell which protocol an owner speaks.
	PathVersion = "/version"

	// trailerStreamEnd is set (as an HTTP trailer) when a streaming method
	// closed its channel itself; a stream that ends without it was cut
	// (owner gone or handing over) and the client subscribes again.
	trailerStreamEnd = "Nova-Stream-End"

	contentJSON   = "application/json"
	contentNDJSON = "application/x-ndjson"
)

// prefix is the path prefix of this protocol version ("/v1").
func prefix(protocol int) string { return "/v" + strconv.Itoa(protocol) }

// Prefix is the path prefix of ProtocolVersion ("/v1"), for handlers served
// beside a Server (the owner's /v1/owner).
func Prefix() string { return prefix(ProtocolVersion) }

// VersionInfo is what GET /version answers.
type VersionInfo struct {
	// Protocol is the owner's ProtocolVersion.
	Protocol int `json:"protocol"`
	// Version is the owner's nova version ("dev" for a development build).
	Version string `json:"version"`
	// Interface names the served interface, e.g. "engine.Workspace".
	Interface string `json:"interface"`
	// PID is the owner's process id.
	PID int `json:"pid"`
}

// MethodInfo describes one method in GET /v1/methods.
type MethodInfo struct {
	Name string `json:"name"`
	// Args are the Go types of the arguments after ctx, in order.
	Args []string `json:"args"`
	// Results are the Go types of the results before the error.
	Results []string `json:"results"`
	// Stream is set for a method answered as NDJSON at /v1/stream/{name}.
	Stream bool `json:"stream,omitempty"`
	// Context is set when the method takes a ctx (cancelled on disconnect).
	Context bool `json:"context"`
}

// SkippedMethod is a method of the interface that is not served.
type SkippedMethod struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// MethodsInfo is what GET /v1/methods answers.
type MethodsInfo struct {
	Interface string          `json:"interface"`
	Methods   []MethodInfo    `json:"methods"`
	Skipped   []SkippedMethod `json:"skipped"`
}
