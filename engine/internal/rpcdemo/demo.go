// Package rpcdemo is a small service with every method shape the rpc
// package serves (ctx only, several arguments, struct, slice, map and
// pointer results, several results, variadic arguments, no ctx, no error,
// sentinel, typed and kinded errors, streams that end and streams that do
// not, a method that cannot be served). It keeps its state in a real nova
// database, so that owner election, locks, kills and resumes are tested
// against bbolt itself. Tests of engine/rpc, engine/rpc/gen and engine/owner
// use it; nova does not.
package rpcdemo

//go:generate go run github.com/nova-dev/nova/engine/rpc/rpcgen -iface github.com/nova-dev/nova/engine/internal/rpcdemo.Demo -type Remote -out zz_generated_remote.go -idempotent Ping,Get,List,Count,Tags,Pair,Find,Version,Sum,Steps -local Close -errors github.com/nova-dev/nova/engine/internal/rpcdemo,github.com/nova-dev/nova/storage

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nova-dev/nova/engine/failure"
)

// Item is a stored record.
type Item struct {
	ID   uint64            `json:"id"`
	Name string            `json:"name"`
	Tags []string          `json:"tags,omitempty"`
	Meta map[string]string `json:"meta,omitempty"`
	At   time.Time         `json:"at"`
	// Local is never sent (in-process only), like engine.Event's Payload.
	Local any `json:"-"`
}

// Query selects an item by name.
type Query struct {
	Name   string `json:"name"`
	Prefix bool   `json:"prefix"`
}

// Event is what Subscribe and Watch deliver.
type Event struct {
	Type  string `json:"type"`
	Topic string `json:"topic,omitempty"`
	ID    uint64 `json:"id,omitempty"`
	Text  string `json:"text,omitempty"`
}

// Errors callers branch on.
var (
	// ErrNotFound: no item with that id.
	ErrNotFound = errors.New("item not found")
	// ErrUnreachable carries a failure kind.
	ErrUnreachable error = failure.NewSentinel(failure.Unreachable, "demo backend is not reachable")
	// ErrInvalid is wrapped by ValidationError.
	ErrInvalid = errors.New("invalid item")
)

// ValidationError is a typed error with fields, one of them an error.
type ValidationError struct {
	Field    string
	Problems []string
	Err      error
}

func (e *ValidationError) Error() string {
	return fmt.Sprintf("%s: %d problem(s): %v", e.Field, len(e.Problems), e.Err)
}

// Unwrap returns the cause.
func (e *ValidationError) Unwrap() error { return e.Err }

// Demo is the served interface.
type Demo interface {
	// Ping takes only a ctx.
	Ping(ctx context.Context) error
	// Add takes several arguments.
	Add(ctx context.Context, a, b int) (int, error)
	// Join takes a slice and a string.
	Join(ctx context.Context, parts []string, sep string) (string, error)
	// Put stores an item (a write; not idempotent).
	Put(ctx context.Context, it Item) (Item, error)
	// Get returns an item or ErrNotFound.
	Get(ctx context.Context, id uint64) (Item, error)
	// List returns up to limit items (0: all), oldest first.
	List(ctx context.Context, limit int) ([]Item, error)
	// Count counts the items.
	Count(ctx context.Context) (int, error)
	// Tags counts items per tag.
	Tags(ctx context.Context) (map[string]int, error)
	// Pair returns two results and an error.
	Pair(ctx context.Context, id uint64) (Item, []string, error)
	// Find takes and returns pointers; nil when nothing matches.
	Find(ctx context.Context, q *Query) (*Item, error)
	// Sum is variadic.
	Sum(ctx context.Context, xs ...int) (int, error)
	// Version takes no ctx and returns no error.
	Version() string
	// Fail returns the error named by kind: "notFound", "typed", "kinded",
	// "canceled", "plain", "panic".
	Fail(ctx context.Context, kind string) error
	// Block waits until ctx ends and returns its error.
	Block(ctx context.Context) error
	// Fill adds n items in ONE transaction, pausing between them; a ctx
	// that ends midway rolls everything back (all or nothing).
	Fill(ctx context.Context, n int, pause time.Duration) (int, error)
	// JobVerbs is embedded, the way engine.Workspace embeds its area
	// interfaces: its methods are served and generated under their own
	// names, its //rpc:idempotent directives apply.
	JobVerbs
	// Subscribe streams events until ctx ends.
	Subscribe(ctx context.Context) <-chan Event
	// Watch streams n events of a topic, then ends by itself.
	Watch(ctx context.Context, topic string, n int) (<-chan Event, error)
	// Callback takes a func: not servable.
	Callback(fn func()) error
	// Close releases the database.
	Close() error
}
