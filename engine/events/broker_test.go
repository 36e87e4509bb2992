package events

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type ev struct {
	delta bool
	n     int
}

func isDelta(e ev) bool { return e.delta }

func TestDeliversInOrder(t *testing.T) {
	t.Parallel()
	b := New(isDelta)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := b.Subscribe(ctx)
	for i := 0; i < 50; i++ {
		b.Publish(ev{n: i})
	}
	for i := 0; i < 50; i++ {
		got := <-ch
		assert.Equal(t, i, got.n)
	}
}

func TestSlowSubscriberLosesDeltasNeverTerminals(t *testing.T) {
	t.Parallel()
	b := New(isDelta, WithBacklog(8))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := b.Subscribe(ctx)

	// Nobody reads while 10k deltas and 1k terminal events are published from
	// several goroutines: Publish must not block and no terminal may be lost.
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 2500; i++ {
				b.Publish(ev{delta: true, n: i})
				if i%10 == 0 {
					b.Publish(ev{n: g*10000 + i})
				}
			}
		}(g)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("publish blocked on a slow subscriber")
	}

	terminals, deltas := 0, 0
	timeout := time.After(5 * time.Second)
	for terminals < 1000 {
		select {
		case e := <-ch:
			if e.delta {
				deltas++
			} else {
				terminals++
			}
		case <-timeout:
			t.Fatalf("only %d of 1000 terminal events arrived", terminals)
		}
	}
	assert.Equal(t, 1000, terminals)
	assert.LessOrEqual(t, deltas, 8+4, "deltas beyond the backlog are dropped")
}

func TestUnsubscribeOnCancelAndNoLeaks(t *testing.T) {
	b := New[ev](nil)
	before := runtime.NumGoroutine()
	var chans []<-chan ev
	var cancels []context.CancelFunc
	for i := 0; i < 100; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		chans = append(chans, b.Subscribe(ctx))
		cancels = append(cancels, cancel)
	}
	assert.Equal(t, 100, b.Subscribers())
	b.Publish(ev{n: 1})
	for _, c := range cancels {
		c()
	}
	for _, ch := range chans {
		for range ch { //nolint:revive // drain until closed
		}
	}
	require.Eventually(t, func() bool { return b.Subscribers() == 0 }, 2*time.Second, 10*time.Millisecond)
	require.Eventually(t, func() bool { return runtime.NumGoroutine() <= before+2 }, 2*time.Second, 10*time.Millisecond,
		"subscriber goroutines must exit")
}

func TestShutdownClosesSubscribers(t *testing.T) {
	t.Parallel()
	b := New[ev](nil)
	ch := b.Subscribe(context.Background())
	b.Shutdown()
	_, ok := <-ch
	assert.False(t, ok)
	b.Publish(ev{n: 1}) // ignored, must not panic
	late := b.Subscribe(context.Background())
	_, ok = <-late
	assert.False(t, ok)
}

func BenchmarkPublishDelta(b *testing.B) {
	br := New(isDelta)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := br.Subscribe(ctx)
	go func() {
		for range ch { //nolint:revive // drain
		}
	}()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		br.Publish(ev{delta: true, n: i})
	}
}

type endEv struct {
	n      int
	behind int
}

// A subscriber that stops reading is dropped once it is max events behind:
// its queue never holds more, it gets one last event saying how far behind
// it was, then its channel closes; a reader that keeps up gets every event
// (issue 26, finding 10).
func TestStuckSubscriberIsDroppedWithAnEndEvent(t *testing.T) {
	t.Parallel()
	const max, published = 100, 10_000
	b := New[endEv](nil, WithMaxBacklog(max, func(behind int) endEv { return endEv{n: -1, behind: behind} }))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stuck := make([]<-chan endEv, 5)
	for i := range stuck {
		stuck[i] = b.Subscribe(ctx)
	}
	live := b.Subscribe(ctx)
	seen := make(chan int, published)
	go func() {
		n := 0
		for e := range live {
			if e.n != n {
				break
			}
			n++
			seen <- n
			if n == published {
				break
			}
		}
		close(seen)
	}()
	read := 0
	for i := range published {
		b.Publish(endEv{n: i})
		if i%50 == 49 {
			// The live reader keeps up: it is never max events behind.
			for read < i+1 {
				n, ok := <-seen
				require.True(t, ok, "the live reader lost an event after %d", read)
				read = n
			}
			b.mu.Lock()
			for s := range b.subs {
				s.mu.Lock()
				assert.LessOrEqual(t, len(s.queue), max, "a queue never holds more than max events")
				s.mu.Unlock()
			}
			b.mu.Unlock()
		}
	}
	assert.Equal(t, published, read, "the reader that keeps up gets every event, in order")
	assert.Equal(t, 1, b.Subscribers(), "the stuck subscribers are gone")

	for _, ch := range stuck {
		var last endEv
		n := 0
		for e := range ch { // the channel closes after the end event
			last = e
			n++
		}
		assert.Equal(t, -1, last.n, "the last event says it was dropped")
		assert.Equal(t, max+1, last.behind)
		assert.LessOrEqual(t, n, 2, "at most the event the pump held, then the end")
	}
}
