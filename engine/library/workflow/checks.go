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
// that is already reading the (guarded) document decodes the value, first
// as a boolean, then as a list.
func (c *StepChecks) UnmarshalYAML(decode func(any) error) error {
	var on bool
	if err := decode(&on); err == nil {
		*c = StepChecks{Run: &on}
		return nil
	}
	var list []string
	if err := decode(&list); err != nil {
		return errStepChecks
	}
	if list == nil {
		list = []string{}
	}
	*c = StepChecks{List: list}
	return nil
}

// MarshalYAML writes the spelling that was read.
func (c StepChecks) MarshalYAML() (any, error) {
	if c.List != nil || c.Run == nil {
		return c.commands(), nil
	}
	return *c.Run, nil
}

// MarshalJSON writes the list, or the switch.
func (c StepChecks) MarshalJSON() ([]byte, error) {
	if c.List != nil || c.Run == nil {
		return json.Marshal(c.commands())
	}
	return json.Marshal(*c.Run)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (c *StepChecks) UnmarshalJSON(b []byte) error {
	var on bool
	if err := json.Unmarshal(b, &on); err == nil {
		*c = StepChecks{Run: &on}
		return nil
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return fmt.Errorf("%w: %w", errStepChecks, err)
	}
	if list == nil {
		list = []string{}
	}
	*c = StepChecks{List: list}
	return nil
}

func (c StepChecks) commands() []string {
	if c.List == nil {
		return []string{}
	}
	return c.List
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
