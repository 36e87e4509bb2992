package llm

import (
	"fmt"
	"maps"
	"sync"
)

// Usage counts LLM calls and tokens.
type Usage struct {
	Calls        int `json:"calls"`
	PromptTokens int `json:"promptTokens"`
	EvalTokens   int `json:"evalTokens"`
}

// Total is prompt plus eval tokens.
func (u Usage) Total() int { return u.PromptTokens + u.EvalTokens }

// Add returns u + o.
func (u Usage) Add(o Usage) Usage {
	return Usage{Calls: u.Calls + o.Calls, PromptTokens: u.PromptTokens + o.PromptTokens, EvalTokens: u.EvalTokens + o.EvalTokens}
}

// Meter records token usage overall and per key (a task id, a build id, an
// agent, ...). It is safe for concurrent use; the zero value is ready, and a
// nil *Meter ignores records.
type Meter struct {
	mu    sync.Mutex
	total Usage
	byKey map[string]Usage
}

// NewMeter returns an empty Meter.
func NewMeter() *Meter { return &Meter{} }

// Record adds u to the total and to each distinct key.
func (m *Meter) Record(u Usage, keys ...string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.total = m.total.Add(u)
	if m.byKey == nil {
		m.byKey = map[string]Usage{}
	}
	seen := map[string]bool{}
	for _, k := range keys {
		if seen[k] {
			continue
		}
		seen[k] = true
		m.byKey[k] = m.byKey[k].Add(u)
	}
}

// Total is the usage of every recorded call.
func (m *Meter) Total() Usage {
	if m == nil {
		return Usage{}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.total
}

// Get is the usage recorded under key.
func (m *Meter) Get(key string) Usage {
	if m == nil {
		return Usage{}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.byKey[key]
}

// Snapshot copies the per-key usage.
func (m *Meter) Snapshot() map[string]Usage {
	if m == nil {
		return map[string]Usage{}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out := maps.Clone(m.byKey)
	if out == nil {
		out = map[string]Usage{}
	}
	return out
}

// Budget caps the tokens (prompt + eval) recorded in a Meter under one key,
// or in total when the key is empty. It reads the Meter it was made from:
// make sure that meter records the calls (Config.Meter or ChatRequest.Meter).
// A call that starts under the limit may end above it; the next call is
// refused.
type Budget struct {
	meter *Meter
	key   string
	limit int
}

// NewBudget caps meter's usage under key at limit tokens.
func NewBudget(meter *Meter, key string, limit int) *Budget {
	return &Budget{meter: meter, key: key, limit: limit}
}

// Limit is the token cap.
func (b *Budget) Limit() int { return b.limit }

// Spent is the tokens used so far.
func (b *Budget) Spent() int {
	if b == nil {
		return 0
	}
	if b.key == "" {
		return b.meter.Total().Total()
	}
	return b.meter.Get(b.key).Total()
}

// Remaining is the tokens left, never negative.
func (b *Budget) Remaining() int {
	if b == nil {
		return 0
	}
	return max(0, b.limit-b.Spent())
}

// Check returns an error wrapping ErrBudgetExceeded when the budget is spent.
// A nil Budget never fails.
func (b *Budget) Check() error {
	if b == nil {
		return nil
	}
	spent := b.Spent()
	if spent < b.limit {
		return nil
	}
	scope := "in total"
	if b.key != "" {
		scope = fmt.Sprintf("for %q", b.key)
	}
	return fmt.Errorf("%w: %d of %d tokens used %s", ErrBudgetExceeded, spent, b.limit, scope)
}
