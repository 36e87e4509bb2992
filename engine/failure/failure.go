// Package failure is nova's one list of failure kinds and the policy each
// kind follows. Builds, agent runs, rehearsals, workflows and orchestrator
// runs all classify an error with [Of] and act on [Kind.Policy]; no other
// package keeps its own list.
//
// | kind          | examples                                             | policy                                              |
// |---------------|------------------------------------------------------|-----------------------------------------------------|
// | unreachable   | connection refused, DNS, server restarting           | wait with backoff, resume by itself; never learned  |
// | misconfigured | model not found, model lacks a capability, no fit    | fail fast with what to do; never learned            |
// | stalled       | no first byte / no chunk within the idle timeout     | retry once, then fail clearly; never learned        |
// | cut           | stream ended without done for a network reason       | retry (limited); never learned                      |
// | server        | the model server answered 5xx                        | retry (limited), then fail; never learned           |
// | length        | done_reason "length"                                 | retry once with a larger limit or escalate; never   |
// |               |                                                      | accepted as complete; never learned                 |
// | repetition    | stream ended without done after degenerate output    | change temperature/seed once, then escalate or fail |
// | invalidOutput | bad JSON, schema mismatch, empty reply               | informed retry, then escalate; never learned        |
// | workFailed    | gate failed, verdict failed or inconclusive          | retry with evidence, then blocked; LEARNED          |
// | cancelled     | ctrl-c, cancel                                       | not a failure; resumable                            |
// | unknown       | anything not classified                              | fail; never learned                                 |
//
// Only workFailed is ever learned (vault Mistake nodes, playbook harm,
// self-improvement outcomes). An error nobody classified is unknown, which
// is never learned either: learning is opt-in by evidence, not by default.
package failure

import (
	"context"
	"errors"
)

// Kind is the cause class of a failure. Values are lowerCamelCase strings,
// stable in JSON and bbolt.
type Kind string

// The failure kinds (see the package comment for their policy).
const (
	Unreachable   Kind = "unreachable"
	Misconfigured Kind = "misconfigured"
	Stalled       Kind = "stalled"
	Cut           Kind = "cut"
	Server        Kind = "server"
	Length        Kind = "length"
	Repetition    Kind = "repetition"
	InvalidOutput Kind = "invalidOutput"
	WorkFailed    Kind = "workFailed"
	Cancelled     Kind = "cancelled"
	Unknown       Kind = "unknown"
)

// Kinds lists every kind in the order of the package comment's table.
var Kinds = []Kind{
	Unreachable, Misconfigured, Stalled, Cut, Server, Length, Repetition,
	InvalidOutput, WorkFailed, Cancelled, Unknown,
}

// Policy is what nova does about a failure of one kind.
type Policy struct {
	// Learned: the failure may be learned (vault Mistake, playbook harm,
	// self-improvement). Only the work itself failing is learned.
	Learned bool
	// Wait: the work pauses with a reason and resumes by itself when the
	// cause goes away (a build shows "waiting").
	Wait bool
	// Retries is how many more attempts the same work gets for this kind
	// (0: fail at once). A changed request (larger limit, other seed,
	// escalated tier) counts as an attempt.
	Retries int
	// Escalate: after the retries, try the next model tier if the caps allow.
	Escalate bool
	// ChangeRequest: an identical retry is pointless; the next attempt must
	// change the request (temperature/seed, num_predict).
	ChangeRequest bool
	// Infrastructure: the cause is outside the work (server, network,
	// configuration, the user).
	Infrastructure bool
	// Resumable: the work is left resumable rather than failed.
	Resumable bool
}

var policies = map[Kind]Policy{
	Unreachable:   {Wait: true, Infrastructure: true, Resumable: true},
	Misconfigured: {Infrastructure: true},
	Stalled:       {Retries: 1, Infrastructure: true},
	Cut:           {Retries: 2, Infrastructure: true},
	Server:        {Retries: 2, Infrastructure: true},
	Length:        {Retries: 1, Escalate: true, ChangeRequest: true},
	Repetition:    {Retries: 1, Escalate: true, ChangeRequest: true},
	InvalidOutput: {Retries: 1, Escalate: true},
	WorkFailed:    {Learned: true, Retries: 1},
	Cancelled:     {Infrastructure: true, Resumable: true},
	Unknown:       {},
}

// Policy returns the kind's policy; an unlisted kind gets Unknown's.
func (k Kind) Policy() Policy {
	if p, ok := policies[k]; ok {
		return p
	}
	return policies[Unknown]
}

// Learnable reports whether a failure of this kind may be learned.
func (k Kind) Learnable() bool { return k.Policy().Learned }

// Infrastructure reports whether the cause lies outside the work.
func (k Kind) Infrastructure() bool { return k.Policy().Infrastructure }

// Valid reports whether k is one of [Kinds].
func (k Kind) Valid() bool {
	_, ok := policies[k]
	return ok
}

// Kinded is implemented by errors that know their kind. [Of] finds the
// outermost one in an error chain.
type Kinded interface {
	error
	FailureKind() Kind
}

// Error attaches a kind to an error.
type Error struct {
	Kind Kind
	Err  error
}

// New returns err marked with kind (nil stays nil).
func New(kind Kind, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Kind: kind, Err: err}
}

func (e *Error) Error() string { return e.Err.Error() }

// Unwrap returns the marked error.
func (e *Error) Unwrap() error { return e.Err }

// FailureKind implements Kinded.
func (e *Error) FailureKind() Kind { return e.Kind }

// Sentinel is a comparable sentinel error that carries a kind; packages
// declare their sentinels with it so that errors.Is keeps working and [Of]
// classifies anything that wraps them.
type Sentinel struct {
	kind Kind
	msg  string
}

// NewSentinel declares a sentinel error of a kind.
func NewSentinel(kind Kind, msg string) *Sentinel { return &Sentinel{kind: kind, msg: msg} }

func (s *Sentinel) Error() string { return s.msg }

// FailureKind implements Kinded.
func (s *Sentinel) FailureKind() Kind { return s.kind }

// Of classifies err: cancellation first (context.Canceled is never a
// failure), then the outermost [Kinded] error in the chain, then a deadline
// (stalled); anything else is Unknown. Of(nil) is "".
func Of(err error) Kind {
	if err == nil {
		return ""
	}
	if errors.Is(err, context.Canceled) {
		return Cancelled
	}
	var k Kinded
	if errors.As(err, &k) {
		if kind := k.FailureKind(); kind.Valid() {
			return kind
		}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return Stalled
	}
	return Unknown
}
