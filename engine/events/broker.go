// Package events is nova's typed publish/subscribe broker. The engine
// publishes what happens (token deltas, task transitions, approvals needed)
// and the TUI and CLI subscribe.
//
// Delivery has two classes. Droppable events (token deltas, progress ticks)
// are dropped for a subscriber whose queue is full, so a slow screen never
// slows a model stream. Every other event (done, failed, needs approval…) is
// queued and always delivered while the subscriber lives. With
// [WithMaxBacklog], a subscriber that falls that many events behind (a
// reader that stopped reading: a client suspended with ctrl+z) is dropped:
// its queue is freed and it gets one last event saying so, then its
// channel closes. Publish never blocks.
package events

import (
	"context"
	"sync"
)

// DefaultDroppableBacklog is how many droppable events may wait per subscriber.
const DefaultDroppableBacklog = 256

// Broker fans events of type T out to subscribers.
type Broker[T any] struct {
	droppable func(T) bool
	backlog   int
	max       int                // most queued events per subscriber (0: no bound)
	end       func(behind int) T // the last event of a dropped subscriber

	mu     sync.Mutex
	subs   map[*subscriber[T]]struct{}
	closed bool
}

// Option configures a Broker.
type Option func(*options)

type options struct {
	backlog int
	max     int
	end     any // func(int) T
}

// WithBacklog sets how many droppable events may wait per subscriber.
func WithBacklog(n int) Option { return func(o *options) { o.backlog = n } }

// WithMaxBacklog bounds every subscriber's queue to n events: a subscriber
// n events behind is dropped, and end(behind) is its last event. end must
// be a func(int) T of the broker's T.
func WithMaxBacklog[T any](n int, end func(behind int) T) Option {
	return func(o *options) { o.max, o.end = n, end }
}

// New makes a broker. droppable reports which events may be dropped under
// load; nil means none may.
func New[T any](droppable func(T) bool, opts ...Option) *Broker[T] {
	o := options{backlog: DefaultDroppableBacklog}
	for _, fn := range opts {
		fn(&o)
	}
	if droppable == nil {
		droppable = func(T) bool { return false }
	}
	b := &Broker[T]{droppable: droppable, backlog: o.backlog, subs: map[*subscriber[T]]struct{}{}}
	if end, ok := o.end.(func(int) T); ok && o.max > 0 {
		b.max, b.end = o.max, end
	}
	return b
}

type subscriber[T any] struct {
	mu        sync.Mutex
	queue     []T
	droppable int // droppable events currently queued
	wake      chan struct{}
	done      chan struct{}
	out       chan T
	dropped   uint64
	// ended: the subscriber was dropped for falling behind; its queue holds
	// only the end event, and the pump stops once it is delivered.
	ended    bool
	finished chan struct{} // closed when the pump returns
}

// Subscribe returns a channel of events published from now on. The
// subscription ends (and the channel closes) when ctx is done or the broker
// shuts down.
func (b *Broker[T]) Subscribe(ctx context.Context) <-chan T {
	s := &subscriber[T]{
		wake:     make(chan struct{}, 1),
		done:     make(chan struct{}),
		out:      make(chan T),
		finished: make(chan struct{}),
	}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		close(s.out)
		return s.out
	}
	b.subs[s] = struct{}{}
	b.mu.Unlock()

	go s.pump(ctx, b.droppable)
	go func() {
		select {
		case <-ctx.Done():
		case <-s.done:
		case <-s.finished:
		}
		b.remove(s)
	}()
	return s.out
}

func (b *Broker[T]) remove(s *subscriber[T]) {
	b.mu.Lock()
	if _, ok := b.subs[s]; ok {
		delete(b.subs, s)
		close(s.done)
	}
	b.mu.Unlock()
}

// pump moves queued events to the subscriber's channel in order.
func (s *subscriber[T]) pump(ctx context.Context, droppable func(T) bool) {
	defer close(s.finished)
	defer close(s.out)
	for {
		s.mu.Lock()
		if len(s.queue) == 0 {
			ended := s.ended
			s.mu.Unlock()
			if ended {
				return
			}
			select {
			case <-s.wake:
				continue
			case <-s.done:
				return
			case <-ctx.Done():
				return
			}
		}
		ev := s.queue[0]
		var zero T
		s.queue[0] = zero
		s.queue = s.queue[1:]
		if droppable(ev) {
			s.droppable--
		}
		s.mu.Unlock()
		select {
		case s.out <- ev:
		case <-s.done:
			return
		case <-ctx.Done():
			return
		}
	}
}

// Publish hands ev to every subscriber. It never blocks: droppable events are
// dropped for a subscriber whose backlog is full; others are always queued.
func (b *Broker[T]) Publish(ev T) {
	drop := b.droppable(ev)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	for s := range b.subs {
		s.mu.Lock()
		if drop && s.droppable >= b.backlog {
			s.dropped++
			s.mu.Unlock()
			continue
		}
		if b.max > 0 && len(s.queue) >= b.max {
			// A reader this far behind has stopped reading: free what it
			// would have read and tell it, instead of queueing for ever.
			behind := len(s.queue) + 1
			clear(s.queue)
			s.queue = append(s.queue[:0:0], b.end(behind))
			s.droppable = 0
			s.ended = true
			s.mu.Unlock()
			delete(b.subs, s)
			select {
			case s.wake <- struct{}{}:
			default:
			}
			continue
		}
		s.queue = append(s.queue, ev)
		if drop {
			s.droppable++
		}
		s.mu.Unlock()
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
}

// Subscribers returns the number of live subscriptions.
func (b *Broker[T]) Subscribers() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.subs)
}

// Shutdown ends every subscription; later publishes are ignored.
func (b *Broker[T]) Shutdown() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	b.closed = true
	for s := range b.subs {
		delete(b.subs, s)
		close(s.done)
	}
}
