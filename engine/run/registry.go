package run

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
)

// Kind names what kind of run a Key identifies.
type Kind string

// The kinds of run.
const (
	KindBuild    Kind = "build"
	KindGoal     Kind = "goal"
	KindWorkflow Kind = "workflow"
	KindChat     Kind = "chat"
)

// Key identifies one run: ids are per kind.
type Key struct {
	Kind Kind   `json:"kind"`
	ID   uint64 `json:"id"`
}

func (k Key) String() string { return fmt.Sprintf("%s %d", k.Kind, k.ID) }

// Sentinel errors of the registry.
var (
	// ErrActive: the run is already running in this process.
	ErrActive = errors.New("already running")
	// ErrNotActive: the run is not running in this process.
	ErrNotActive = errors.New("not running in this process")
)

// Answer is a user's answer to a run that asks (a build task, a goal run's
// lead, a chat turn's question). Task names what asked, where a run has
// several things that can ask.
type Answer struct {
	Task string
	Text string
}

// Control is the handle of one active run. The run's own goroutine reads
// it (Paused, Canceled, Wake, Answers); everybody else acts on it through
// the Registry.
type Control struct {
	key      Key
	mu       sync.Mutex
	cancel   context.CancelFunc
	paused   atomic.Bool
	canceled atomic.Bool
	// stopped: canceled or interrupted (Shutdown); a run that installs its
	// cancel after that is stopped at once.
	stopped atomic.Bool
	done    chan struct{}
	wake    chan struct{}
	answers chan Answer
}

// Key returns the run's key.
func (c *Control) Key() Key { return c.key }

// SetCancel installs the function that stops the run's context. A run
// canceled or shut down before it installed one is stopped at once.
func (c *Control) SetCancel(cancel context.CancelFunc) {
	c.mu.Lock()
	c.cancel = cancel
	c.mu.Unlock()
	if c.stopped.Load() {
		cancel()
	}
}

// Context derives the run's context from parent and installs its cancel.
func (c *Control) Context(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	c.SetCancel(cancel)
	return ctx, cancel
}

func (c *Control) stop() {
	c.stopped.Store(true)
	c.mu.Lock()
	cancel := c.cancel
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// Paused reports whether the user asked the run to pause: it lets running
// work finish and starts nothing new.
func (c *Control) Paused() bool { return c.paused.Load() }

// Canceled reports whether the user canceled the run (as opposed to the
// process stopping it, which interrupts it).
func (c *Control) Canceled() bool { return c.canceled.Load() }

// Done is closed when the run has been released.
func (c *Control) Done() <-chan struct{} { return c.done }

// Wake receives when a run waiting for something (an answer, the model
// server) should look at its control again (pause, cancel).
func (c *Control) Wake() <-chan struct{} { return c.wake }

// Answers carries answers to the run's questions.
func (c *Control) Answers() <-chan Answer { return c.answers }

func (c *Control) poke() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// Registry holds the runs active in this process, of every kind. One
// registry serves a workspace; its zero value is not usable: NewRegistry.
type Registry struct {
	mu     sync.Mutex
	active map[Key]*Control
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{active: map[Key]*Control{}} }

// Claim marks k active and returns its control; ErrActive when it already
// is. The caller must Release the control when the run stops.
func (r *Registry) Claim(k Key) (*Control, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.active[k]; ok {
		return nil, fmt.Errorf("%s: %w", k, ErrActive)
	}
	c := &Control{key: k, done: make(chan struct{}), wake: make(chan struct{}, 1), answers: make(chan Answer)}
	r.active[k] = c
	return c, nil
}

// Release ends c's claim and closes its Done channel. Releasing twice is
// harmless.
func (r *Registry) Release(c *Control) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.active[c.key] != c {
		return
	}
	delete(r.active, c.key)
	close(c.done)
}

// Get returns k's control while it is active.
func (r *Registry) Get(k Key) (*Control, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.active[k]
	return c, ok
}

// Active reports whether k is running in this process.
func (r *Registry) Active(k Key) bool {
	_, ok := r.Get(k)
	return ok
}

func (r *Registry) must(k Key) (*Control, error) {
	c, ok := r.Get(k)
	if !ok {
		return nil, fmt.Errorf("%s: %w", k, ErrNotActive)
	}
	return c, nil
}

// Pause asks k to pause: running work finishes, nothing new starts.
func (r *Registry) Pause(k Key) error {
	c, err := r.must(k)
	if err != nil {
		return err
	}
	c.paused.Store(true)
	c.poke()
	return nil
}

// Wake makes k, when it waits in this process (for an answer, the model
// server, a blocker on its board), look at what it waits for again. It
// reports whether k is active.
func (r *Registry) Wake(k Key) bool {
	c, ok := r.Get(k)
	if ok {
		c.poke()
	}
	return ok
}

// Cancel stops k now, as the user's choice.
func (r *Registry) Cancel(k Key) error {
	c, err := r.must(k)
	if err != nil {
		return err
	}
	c.canceled.Store(true)
	c.poke()
	c.stop()
	return nil
}

// Answer hands a to k's goroutine, waiting until it takes it, the run stops,
// or ctx ends.
func (r *Registry) Answer(ctx context.Context, k Key, a Answer) error {
	c, err := r.must(k)
	if err != nil {
		return err
	}
	select {
	case c.answers <- a:
		return nil
	case <-c.done:
		return fmt.Errorf("%s: %w", k, ErrNotActive)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Wait blocks until k stops running in this process, or ctx ends. A run
// that is not active returns at once.
func (r *Registry) Wait(ctx context.Context, k Key) error {
	c, ok := r.Get(k)
	if !ok {
		return nil
	}
	select {
	case <-c.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Running lists the ids of kind's active runs, ascending (never nil: it
// crosses the wire as a list).
func (r *Registry) Running(kind Kind) []uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	ids := []uint64{}
	for k := range r.active {
		if k.Kind == kind {
			ids = append(ids, k.ID)
		}
	}
	slices.Sort(ids)
	return ids
}

// Shutdown interrupts the active runs of the given kinds (every kind when
// none is given), as a quit does, and waits for them to be released or for
// ctx to end. Interrupted runs are not canceled: they resume later.
func (r *Registry) Shutdown(ctx context.Context, kinds ...Kind) error {
	r.mu.Lock()
	var cs []*Control
	for k, c := range r.active {
		if len(kinds) == 0 || slices.Contains(kinds, k.Kind) {
			cs = append(cs, c)
		}
	}
	r.mu.Unlock()
	for _, c := range cs {
		c.poke()
		c.stop()
	}
	for _, c := range cs {
		select {
		case <-c.done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}
