package team

import (
	"sync"
	"time"
)

// HLC is a hybrid logical clock: readings follow the wall clock and never go
// backwards, and a reading taken after observing a remote clock is later than
// it.
type HLC struct {
	mu   sync.Mutex
	last Clock
	now  func() time.Time
}

// NewHLC returns a clock starting after last.
func NewHLC(now func() time.Time, last Clock) *HLC {
	if now == nil {
		now = time.Now
	}
	return &HLC{now: now, last: last}
}

// Now returns a reading later than every reading and observation before.
func (h *HLC) Now() Clock {
	h.mu.Lock()
	defer h.mu.Unlock()
	pt := h.now().UnixMilli()
	if pt > h.last.Wall {
		h.last = Clock{Wall: pt}
	} else {
		h.last.Logical++
	}
	return h.last
}

// Observe moves the clock past a remote reading (one already checked
// against MaxClockSkew).
func (h *HLC) Observe(c Clock) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if c.Compare(h.last) > 0 {
		h.last = c
	}
}

// Last is the latest reading or observation.
func (h *HLC) Last() Clock {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.last
}
