package workflow

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// StepChecks are a step's check commands, in one of two spellings:
//
//	checks: [go test ./...]   # the step's own list, replacing the workspace's (config checks)
//	checks: []                # no check for this step
//	checks: true              # the workspace's checks (false: none), the older switch
//
// An agent step without the field runs the workspace's checks when its
// agent can change files; a skill step runs checks only when the step or
// its skill lists them.
type StepChecks struct {
	// Run is the older switch; nil when a list was given.
	Run *bool
	// List is the step's own commands; nil when the switch was given.
	List []string
}

// errStepChecks: the field is neither a list of strings nor a boolean.
var errStepChecks = errors.New("checks must be a list of check commands (or true/false)")

// UnmarshalYAML implements go-yaml's InterfaceUnmarshaler: the decoder
// that is already reading the (guarded) document decodes the value.
func (c *StepChecks) UnmarshalYAML(decode func(any) error) error {
	var v any
	if err := decode(&v); err != nil {
		return errStepChecks
	}
	return c.set(v)
}

// set reads a decoded value: null (not given), a boolean, or a list of
// strings.
func (c *StepChecks) set(v any) error {
	switch x := v.(type) {
	case nil:
		*c = StepChecks{}
	case bool:
		*c = StepChecks{Run: &x}
	case []any:
		list := make([]string, 0, len(x))
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return errStepChecks
			}
			list = append(list, s)
		}
		*c = StepChecks{List: list}
	default:
		return errStepChecks
	}
	return nil
}

// MarshalYAML writes the spelling that was read.
func (c StepChecks) MarshalYAML() (any, error) {
	switch {
	case c.List != nil:
		return c.List, nil
	case c.Run != nil:
		return *c.Run, nil
	}
	return nil, nil
}

// MarshalJSON writes the list, or the switch.
func (c StepChecks) MarshalJSON() ([]byte, error) {
	switch {
	case c.List != nil:
		return json.Marshal(c.List)
	case c.Run != nil:
		return json.Marshal(*c.Run)
	}
	return []byte("null"), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (c *StepChecks) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("%w: %w", errStepChecks, err)
	}
	return c.set(v)
}

// Switch is the older on/off switch (nil: not given, or a list was).
func (c *StepChecks) Switch() *bool {
	if c == nil || c.Run == nil {
		return nil
	}
	on := *c.Run
	return &on
}

// Commands is the step's own list (nil: none given; empty: run none).
func (c *StepChecks) Commands() []string {
	if c == nil || c.List == nil {
		return nil
	}
	return slices.Clone(c.List)
}
