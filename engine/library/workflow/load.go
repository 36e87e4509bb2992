package workflow

import (
	"cmp"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

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
			if e.IsDir() || !isYAML(e.Name()) {
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
	entries, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return l, errs
		}
		return l, append(errs, fmt.Errorf("read workflows dir %s: %w", dir, err))
	}
	owner := map[string]string{}
	for _, e := range entries {
		if e.IsDir() || !isYAML(e.Name()) {
			continue
		}
		file := filepath.Join(dir, e.Name())
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			errs = append(errs, yamldoc.NotRegular(file)) // symbolic links too: nothing outside the folder is read
			continue
		}
		data, err := yamldoc.ReadFile(file, "workflow") // regular, at most MaxSize bytes read
		if err != nil {
			errs = append(errs, err)
			continue
		}
		w, werrs := Parse(file, data, env)
		if len(werrs) > 0 {
			errs = append(errs, werrs...)
			continue
		}
		if first, dup := owner[w.ID]; dup {
			errs = append(errs, &yamldoc.Error{File: file, Field: "id", Msg: fmt.Sprintf("workflow %q is already defined in %s", w.ID, first)})
			continue
		}
		owner[w.ID] = file
		l.byID[w.ID] = w
	}
	return l, errs
}

func isYAML(name string) bool {
	if strings.HasPrefix(name, ".") {
		return false
	}
	ext := strings.ToLower(path.Ext(name))
	return ext == ".yaml" || ext == ".yml"
}
