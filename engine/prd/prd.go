// Package prd reads, validates, writes and schedules build plans (PRDs).
//
// A PRD is compatible with Nova26's .nova/prd-*.json files: a `meta` object
// plus `tasks[]`, each task with id, title, description, agent, status,
// dependencies, phase, attempts and createdAt (optionally output and error).
// The same shape is accepted as YAML. Fields nova does not know are kept and
// written back unchanged, so a load/save cycle loses nothing.
//
// Nothing should run from a PRD until Validate returns nil; Ready enforces
// this by returning no task for an invalid plan.
package prd

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// Sentinel errors callers branch on.
var (
	// ErrMalformed is wrapped by every *ParseError: the bytes are not a PRD.
	ErrMalformed = errors.New("malformed prd")
	// ErrInvalid is wrapped by *ValidationError: the PRD parses but cannot run.
	ErrInvalid = errors.New("invalid prd")
)

// Status is the state of one task.
type Status string

// Status values. Nova26 uses exactly these; ParseStatus also accepts common
// spellings from other tools.
const (
	StatusPending Status = "pending"
	StatusReady   Status = "ready"
	StatusRunning Status = "running"
	StatusDone    Status = "done"
	StatusFailed  Status = "failed"
	StatusBlocked Status = "blocked"
)

// Statuses returns the six status values in lifecycle order.
func Statuses() []Status {
	return []Status{StatusPending, StatusReady, StatusRunning, StatusDone, StatusFailed, StatusBlocked}
}

// ParseStatus normalises a status string: case and surrounding space are
// ignored, "" means pending, and aliases such as "in_progress", "completed"
// or "error" map to running, done and failed. ok is false for anything else.
func ParseStatus(s string) (st Status, ok bool) {
	k := strings.Map(func(r rune) rune {
		if r == '-' || r == ' ' {
			return '_'
		}
		return unicode.ToLower(r)
	}, strings.TrimSpace(s))
	switch k {
	case "", "pending", "todo", "to_do", "new", "queued", "open":
		return StatusPending, true
	case "ready":
		return StatusReady, true
	case "running", "in_progress", "inprogress", "active", "started", "working":
		return StatusRunning, true
	case "done", "complete", "completed", "success", "succeeded", "passed", "finished":
		return StatusDone, true
	case "failed", "failure", "fail", "error", "errored":
		return StatusFailed, true
	case "blocked", "cancelled", "canceled", "on_hold":
		return StatusBlocked, true
	}
	return Status(s), false
}

// Normalize returns the canonical form of s, or s unchanged if it is unknown.
func (s Status) Normalize() Status {
	n, _ := ParseStatus(string(s))
	return n
}

// Valid reports whether s is (or normalises to) one of the six statuses.
func (s Status) Valid() bool {
	_, ok := ParseStatus(string(s))
	return ok
}

// PRD is a parsed build plan.
type PRD struct {
	Meta  Meta   `json:"meta" yaml:"meta"`
	Tasks []Task `json:"tasks" yaml:"tasks"`

	// Extra holds top-level fields nova does not know, as raw JSON.
	Extra map[string]json.RawMessage `json:"-" yaml:"-"`
	// Source is the name or path the PRD was parsed from (not serialised).
	Source string `json:"-" yaml:"-"`
}

// Meta describes the plan.
type Meta struct {
	Name      string `json:"name" yaml:"name"`
	Version   string `json:"version" yaml:"version"`
	CreatedAt string `json:"createdAt" yaml:"createdAt"`

	// Extra holds meta fields nova does not know, as raw JSON.
	Extra map[string]json.RawMessage `json:"-" yaml:"-"`
}

// Task is one unit of work for one agent.
type Task struct {
	ID           string   `json:"id" yaml:"id"`
	Title        string   `json:"title" yaml:"title"`
	Description  string   `json:"description" yaml:"description"`
	Agent        string   `json:"agent" yaml:"agent"`
	Status       Status   `json:"status" yaml:"status"`
	Dependencies []string `json:"dependencies" yaml:"dependencies"`
	Phase        int      `json:"phase" yaml:"phase"`
	Attempts     int      `json:"attempts" yaml:"attempts"`
	// CreatedAt is kept as written (Nova26 uses RFC 3339).
	CreatedAt string `json:"createdAt" yaml:"createdAt"`
	Output    string `json:"output,omitempty" yaml:"output,omitempty"`
	Error     string `json:"error,omitempty" yaml:"error,omitempty"`
	// Checks, when present, replace the workspace's check commands (config
	// checks) for this task: shell lines run on a copy with the task's
	// changes applied. An empty list runs none; absent (nil) uses the
	// workspace's.
	Checks []string `json:"checks,omitzero" yaml:"checks,omitempty"`
	// Critical marks a task the rest of the plan depends on: when its
	// agent runs out of time, the retry runs on a larger model tier.
	Critical bool `json:"critical,omitempty" yaml:"critical,omitempty"`

	// Extra holds task fields nova does not know, as raw JSON.
	Extra map[string]json.RawMessage `json:"-" yaml:"-"`
}

// Task returns the first task with this id.
func (p *PRD) Task(id string) (Task, bool) {
	if p == nil {
		return Task{}, false
	}
	for _, t := range p.Tasks {
		if t.ID == id {
			return t, true
		}
	}
	return Task{}, false
}

// StatusOf returns the status recorded in the file for a task ("" if there
// is no such task). It fits Ready's statusOf parameter.
func (p *PRD) StatusOf(id string) Status {
	t, ok := p.Task(id)
	if !ok {
		return ""
	}
	return t.Status.Normalize()
}

// Phases returns the distinct phases used by the tasks, ascending.
func (p *PRD) Phases() []int {
	if p == nil {
		return nil
	}
	var out []int
	for _, t := range p.Tasks {
		out = append(out, t.Phase)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// --- lossless JSON ------------------------------------------------------------

// Known field names, used to split off extras.
var (
	prdFields  = []string{"meta", "tasks"}
	metaFields = []string{"name", "version", "createdAt"}
	taskFields = []string{"id", "title", "description", "agent", "status", "dependencies",
		"phase", "attempts", "createdAt", "output", "error", "checks", "critical"}
)

// MarshalJSON writes the known fields in Nova26's order, then the extras
// sorted by key.
func (p PRD) MarshalJSON() ([]byte, error) {
	type plain PRD
	tasks := p.Tasks
	if tasks == nil {
		tasks = []Task{}
	}
	v := plain(p)
	v.Tasks = tasks
	return withExtras(v, p.Extra, prdFields)
}

// MarshalJSON writes the known fields, then the extras sorted by key.
func (m Meta) MarshalJSON() ([]byte, error) {
	type plain Meta
	return withExtras(plain(m), m.Extra, metaFields)
}

// MarshalJSON writes the known fields in Nova26's order (dependencies as [],
// never null), then the extras sorted by key.
func (t Task) MarshalJSON() ([]byte, error) {
	type plain Task
	v := plain(t)
	if v.Dependencies == nil {
		v.Dependencies = []string{}
	}
	return withExtras(v, t.Extra, taskFields)
}

// UnmarshalJSON reads what MarshalJSON writes: the known fields, and the
// others into Extra (a PRD crosses the owner's socket intact).
func (p *PRD) UnmarshalJSON(b []byte) error {
	type plain PRD
	return withoutExtras(b, (*plain)(p), &p.Extra, prdFields)
}

// UnmarshalJSON reads what MarshalJSON writes, unknown fields into Extra.
func (m *Meta) UnmarshalJSON(b []byte) error {
	type plain Meta
	return withoutExtras(b, (*plain)(m), &m.Extra, metaFields)
}

// UnmarshalJSON reads what MarshalJSON writes, unknown fields into Extra.
func (t *Task) UnmarshalJSON(b []byte) error {
	type plain Task
	return withoutExtras(b, (*plain)(t), &t.Extra, taskFields)
}

// withoutExtras decodes an object into v (a method-less twin of the type)
// and its unknown members into *extra; null is a no-op, as for
// encoding/json itself.
func withoutExtras(b []byte, v any, extra *map[string]json.RawMessage, known []string) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		return nil
	}
	if err := json.Unmarshal(b, v); err != nil {
		return err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*extra = extras(m, known)
	return nil
}

// withExtras marshals v (an object) and appends the extra members whose keys
// are not among known.
func withExtras(v any, extra map[string]json.RawMessage, known []string) ([]byte, error) {
	b, err := marshal(v)
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		if !slices.Contains(known, k) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return b, nil
	}
	sort.Strings(keys)
	var buf bytes.Buffer
	buf.Write(bytes.TrimSuffix(b, []byte("}")))
	for i, k := range keys {
		if i > 0 || len(b) > 2 {
			buf.WriteByte(',')
		}
		kb, err := marshal(k)
		if err != nil {
			return nil, err
		}
		buf.Write(kb)
		buf.WriteByte(':')
		raw := extra[k]
		if len(bytes.TrimSpace(raw)) == 0 {
			raw = json.RawMessage("null")
		}
		buf.Write(raw)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// marshal is json.Marshal without HTML escaping, so that "<", ">" and "&" in
// descriptions stay readable in saved files.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
