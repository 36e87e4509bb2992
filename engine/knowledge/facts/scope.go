package facts

import (
	"errors"
	"fmt"
	"strings"

	"github.com/nova-dev/nova/internal/lazyre"
)

// ErrInvalid marks bad input: an unknown scope, a confidence outside 0–1,
// empty or oversized content, a malformed id. The CLI maps it to exit 2.
var ErrInvalid = errors.New("invalid fact input")

// Level is how wide a scope is; lower is broader.
type Level int

// Scope levels, broadest first.
const (
	LevelUser      Level = iota + 1 // every workspace of this user
	LevelTeam                       // the team's workspaces (engine/team); held in each workspace file
	LevelWorkspace                  // this workspace
	LevelBuild                      // one build
	LevelAgent                      // one agent
)

// Scope is where a fact holds: user ⊃ team ⊃ workspace ⊃ build:ID ⊃
// agent:NAME.
// The zero Scope means "any scope" in searches and listings.
type Scope struct {
	Level Level
	// Name is the build id or the agent name ("" for user and workspace).
	Name string
}

// User is the user scope (all of this user's workspaces).
func User() Scope { return Scope{Level: LevelUser} }

// Team is the team scope: facts shared with the team's workspaces
// (engine/team), seen by every narrower search, never the reverse.
func Team() Scope { return Scope{Level: LevelTeam} }

// Workspace is the workspace scope.
func Workspace() Scope { return Scope{Level: LevelWorkspace} }

// Build is the scope of one build.
func Build(id string) Scope { return Scope{Level: LevelBuild, Name: id} }

// Agent is the scope of one agent (names are upper-cased: agent ids match
// in any case).
func Agent(name string) Scope { return Scope{Level: LevelAgent, Name: strings.ToUpper(name)} }

// IsZero reports whether s is the zero ("any") scope.
func (s Scope) IsZero() bool { return s.Level == 0 }

// Broader reports whether s is a broader level than o.
func (s Scope) Broader(o Scope) bool { return s.Level < o.Level }

var (
	buildIDPattern = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
	agentPattern   = lazyre.New(`^[A-Za-z][A-Za-z0-9_-]{0,63}$`)
)

// ScopeHelp lists the accepted spellings, for error messages and help.
const ScopeHelp = "user, team, workspace, build:ID or agent:NAME"

// ParseScope reads "user", "team", "workspace", "build:ID" or "agent:NAME" (the
// kind in any case). Anything else wraps ErrInvalid.
func ParseScope(s string) (Scope, error) {
	raw := strings.TrimSpace(s)
	kind, name, hasName := strings.Cut(raw, ":")
	kind = strings.ToLower(strings.TrimSpace(kind))
	name = strings.TrimSpace(name)
	bad := func(why string) (Scope, error) {
		return Scope{}, fmt.Errorf("%w: scope %q %s (want %s)", ErrInvalid, clip(raw, 80), why, ScopeHelp)
	}
	switch kind {
	case "user", "team", "workspace":
		if hasName {
			return bad("takes no name")
		}
		switch kind {
		case "user":
			return User(), nil
		case "team":
			return Team(), nil
		}
		return Workspace(), nil
	case "build":
		if !buildIDPattern.MatchString(name) {
			return bad("needs a build id")
		}
		return Build(name), nil
	case "agent":
		if !agentPattern.MatchString(name) {
			return bad("needs an agent name (a letter, then letters, digits, - or _)")
		}
		return Agent(name), nil
	case "":
		return bad("is empty")
	}
	return bad("is unknown")
}

// String is the scope's spelling (ParseScope reads it back); "" for the
// zero scope.
func (s Scope) String() string {
	switch s.Level {
	case LevelUser:
		return "user"
	case LevelTeam:
		return "team"
	case LevelWorkspace:
		return "workspace"
	case LevelBuild:
		return "build:" + s.Name
	case LevelAgent:
		return "agent:" + s.Name
	}
	return ""
}

// MarshalText implements encoding.TextMarshaler.
func (s Scope) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (s *Scope) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*s = Scope{}
		return nil
	}
	v, err := ParseScope(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Chain lists the scopes a search at s sees: s and every broader scope.
// An agent scope sees its build's facts when it runs in build (build != "").
// The zero scope sees everything (nil).
func Chain(s Scope, build string) []Scope {
	switch s.Level {
	case LevelUser:
		return []Scope{User()}
	case LevelTeam:
		return []Scope{User(), Team()}
	case LevelWorkspace:
		return []Scope{User(), Team(), Workspace()}
	case LevelBuild:
		return []Scope{User(), Team(), Workspace(), s}
	case LevelAgent:
		out := []Scope{User(), Team(), Workspace()}
		if build != "" {
			out = append(out, Build(build))
		}
		return append(out, s)
	}
	return nil
}

// Visible reports whether a fact at fact is seen by a search whose chain
// is chain (nil: every scope).
func Visible(fact Scope, chain []Scope) bool {
	if chain == nil {
		return true
	}
	for _, c := range chain {
		if c == fact {
			return true
		}
	}
	return false
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
