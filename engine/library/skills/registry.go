package skills

import (
	"cmp"
	"embed"
	"io/fs"
	"slices"
	"sync"
	"time"

	"github.com/nova-dev/nova/engine/library/internal/yamldoc"
)

//go:embed builtin/*.yaml
var builtinFS embed.FS

// Registration is a registered skill and where it came from.
type Registration struct {
	Skill        Skill     `json:"skill"`
	RegisteredAt time.Time `json:"registeredAt"`
	// Source is "builtin" or "user".
	Source string `json:"source"`
}

// Registry holds skills by name. It is safe for concurrent use.
type Registry struct {
	mu sync.RWMutex
	m  map[string]Registration
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{m: map[string]Registration{}} }

// Register adds a skill, replacing one with the same name.
func (r *Registry) Register(s Skill, source string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.m[s.Name] = Registration{Skill: s, RegisteredAt: time.Now().UTC(), Source: cmp.Or(source, SourceUser)}
}

// Get returns the skill with this name.
func (r *Registry) Get(name string) (Skill, bool) {
	reg, ok := r.Lookup(name)
	return reg.Skill, ok
}

// Lookup returns the registration of the skill with this name.
func (r *Registry) Lookup(name string) (Registration, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	reg, ok := r.m[name]
	return reg, ok
}

// Has reports whether a skill with this name is registered.
func (r *Registry) Has(name string) bool {
	_, ok := r.Lookup(name)
	return ok
}

// Unregister removes a skill and reports whether it existed.
func (r *Registry) Unregister(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.m[name]
	delete(r.m, name)
	return ok
}

// Clear removes every skill.
func (r *Registry) Clear() {
	r.mu.Lock()
	defer r.mu.Unlock()
	clear(r.m)
}

// ListAll returns every skill, sorted by name.
func (r *Registry) ListAll() []Skill {
	return r.list(func(Skill) bool { return true })
}

// ListForAgent returns the skills agent may use (those that list no agents,
// and those that list it), sorted by name.
func (r *Registry) ListForAgent(agent string) []Skill {
	return r.list(func(s Skill) bool { return s.For(agent) })
}

// Registrations returns every registration, sorted by name.
func (r *Registry) Registrations() []Registration {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Registration, 0, len(r.m))
	for _, reg := range r.m {
		out = append(out, reg)
	}
	slices.SortFunc(out, func(a, b Registration) int { return cmp.Compare(a.Skill.Name, b.Skill.Name) })
	return out
}

func (r *Registry) list(keep func(Skill) bool) []Skill {
	var out []Skill
	for _, reg := range r.Registrations() {
		if keep(reg.Skill) {
			out = append(out, reg.Skill)
		}
	}
	return out
}

// Builtins parses the skills shipped in the binary. They are validated
// without a tool registry (the runner checks tools before running); a
// test checks them against the real one.
func Builtins() []Skill {
	entries, _ := fs.ReadDir(builtinFS, "builtin")
	var out []Skill
	for _, e := range entries {
		data, err := fs.ReadFile(builtinFS, "builtin/"+e.Name())
		if err != nil {
			continue
		}
		s, errs := Parse("builtin/"+e.Name(), data, nil, nil)
		if len(errs) > 0 {
			continue // TestBuiltinsAreValid keeps this from happening
		}
		s.Source = SourceBuiltin
		out = append(out, s)
	}
	return out
}

// BuiltinFiles returns the built-in skill files (name → YAML), for tests
// and `skills show`.
func BuiltinFiles() map[string][]byte {
	out := map[string][]byte{}
	entries, _ := fs.ReadDir(builtinFS, "builtin")
	for _, e := range entries {
		if data, err := fs.ReadFile(builtinFS, "builtin/"+e.Name()); err == nil {
			out[e.Name()] = data
		}
	}
	return out
}

// Load builds a registry: the built-ins, then every *.yaml / *.yml file
// directly in dir (a missing dir is fine). A file whose skill has a
// built-in's name replaces it. Good files load even when others are bad;
// every problem is returned, naming its file.
func Load(dir string, toolInfo ToolInfo, known KnownAgent) (*Registry, []error) {
	r := NewRegistry()
	for _, s := range Builtins() {
		r.Register(s, SourceBuiltin)
	}
	errs := yamldoc.ReadDir(dir, "skill", "name", func(file string, data []byte) (Skill, string, []error) {
		s, errs := Parse(file, data, toolInfo, known)
		return s, s.Name, errs
	}, func(s Skill) { r.Register(s, SourceUser) })
	return r, errs
}
