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
