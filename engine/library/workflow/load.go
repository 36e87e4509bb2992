package workflow

import (
	"cmp"
	"io/fs"
	"slices"

	"github.com/nova-dev/nova/engine/library/internal/yamldoc"
)

// SourceBuiltin marks a workflow from the defaults shipped in the binary.
const SourceBuiltin = "builtin"

// Library is a set of loaded workflows.
type Library struct {
	byID map[string]Workflow
}

// Get returns the workflow with this id.
func (l *Library) Get(id string) (Workflow, bool) {
	if l == nil {
		return Workflow{}, false
	}
	w, ok := l.byID[id]
	return w, ok
}

// List returns every workflow, by id.
func (l *Library) List() []Workflow {
	if l == nil {
		return nil
	}
	out := make([]Workflow, 0, len(l.byID))
	for _, w := range l.byID {
		out = append(out, w)
	}
	slices.SortFunc(out, func(a, b Workflow) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// IDs lists the workflow ids.
func (l *Library) IDs() []string {
	var out []string
	for _, w := range l.List() {
		out = append(out, w.ID)
	}
	return out
}

// Load reads the defaults (the *.yaml files of defaults, an fs.FS rooted at
// the workflows directory; nil for none), then every *.yaml / *.yml file
// directly in dir; a file with a default's id replaces it. Good files load
// even when others are bad; every problem is returned naming its file.
func Load(defaults fs.FS, dir string, env Env) (*Library, []error) {
	l := &Library{byID: map[string]Workflow{}}
	var errs []error
	if defaults != nil {
		entries, _ := fs.ReadDir(defaults, ".")
		for _, e := range entries {
			if e.IsDir() || !yamldoc.IsYAML(e.Name()) {
				continue
			}
			data, err := fs.ReadFile(defaults, e.Name())
			if err != nil {
				continue
			}
			w, werrs := Parse("builtin/"+e.Name(), data, env)
			if len(werrs) > 0 {
				errs = append(errs, werrs...)
				continue
			}
			w.Source = SourceBuiltin
			l.byID[w.ID] = w
		}
	}
	errs = append(errs, yamldoc.ReadDir(dir, "workflow", "id", func(file string, data []byte) (Workflow, string, []error) {
		w, errs := Parse(file, data, env)
		return w, w.ID, errs
	}, func(w Workflow) { l.byID[w.ID] = w })...)
	return l, errs
}
