package themes

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/goccy/go-yaml"

	"github.com/nova-dev/nova/internal/yamlguard"
)

// MaxThemeSize bounds a theme file; a palette is a few hundred bytes.
const MaxThemeSize = 64 << 10

var themeLimits = yamlguard.Limits{MaxBytes: MaxThemeSize}

// ErrUnknownTheme means no palette has the requested name.
var ErrUnknownTheme = errors.New("unknown theme")

// Registry holds built-in and user palettes by name.
type Registry struct {
	byName map[string]Palette
	order  []string
}

// NewRegistry returns a registry of the built-in palettes.
func NewRegistry() *Registry {
	r := &Registry{byName: map[string]Palette{}}
	for _, p := range Builtin() {
		r.add(p)
	}
	return r
}

func (r *Registry) add(p Palette) {
	if _, ok := r.byName[p.Name]; !ok {
		r.order = append(r.order, p.Name)
	}
	r.byName[p.Name] = p
}

// Names lists palettes: built-ins first, then user themes by name.
func (r *Registry) Names() []string { return append([]string(nil), r.order...) }

// Get returns the palette called name.
func (r *Registry) Get(name string) (Palette, error) {
	p, ok := r.byName[name]
	if !ok {
		return Palette{}, fmt.Errorf("%w %q (have %s)", ErrUnknownTheme, name, strings.Join(r.order, ", "))
	}
	return p, nil
}

// LoadDir adds every *.yaml palette in dir. Bad files are skipped and
// returned as errors naming the file, line and field; good ones still load.
func (r *Registry) LoadDir(dir string) []error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return []error{fmt.Errorf("read themes %s: %w", dir, err)}
	}
	var errs []error
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if !e.IsDir() && (strings.HasSuffix(e.Name(), ".yaml") || strings.HasSuffix(e.Name(), ".yml")) {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	for _, n := range names {
		path := filepath.Join(dir, n)
		// A regular file only, and the limit on the bytes read: a FIFO or a
		// link to /dev/zero among the themes killed the TUI at start.
		data, err := yamlguard.ReadFile(path, themeLimits)
		if err != nil {
			errs = append(errs, err) // every error of ReadFile names the path
			continue
		}
		p, err := ParsePalette(path, data)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		r.add(p)
	}
	return errs
}

// ParsePalette reads a user palette. Missing colours fall back to nova-dark
// (or nova-light when dark is false); the name defaults to the file name.
func ParsePalette(path string, data []byte) (Palette, error) {
	var p Palette
	p.Dark = true
	if err := yamlguard.Unmarshal(path, data, &p, themeLimits, yaml.Strict()); err != nil {
		var le *yamlguard.LimitError
		if errors.As(err, &le) {
			return Palette{}, err // it names the file, the line and the limit
		}
		var ye yaml.Error
		if errors.As(err, &ye) && ye.GetToken() != nil && ye.GetToken().Position != nil {
			return Palette{}, fmt.Errorf("%s:%d: %s", path, ye.GetToken().Position.Line, ye.GetMessage())
		}
		return Palette{}, fmt.Errorf("%s: %w", path, err)
	}
	if strings.TrimSpace(p.Name) == "" {
		p.Name = strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), ".yaml"), ".yml")
	}
	base := NovaDark.Colors
	if !p.Dark {
		base = NovaLight.Colors
	}
	p.Colors.fillFrom(base)
	if err := p.Validate(); err != nil {
		field := strings.SplitN(err.Error(), ":", 2)[0]
		return Palette{}, fmt.Errorf("%s:%d: %w", path, lineOf(data, field), err)
	}
	return p, nil
}

func lineOf(data []byte, field string) int {
	p, err := yaml.PathString("$." + field)
	if err != nil {
		return 0
	}
	n, err := p.ReadNode(strings.NewReader(string(data)))
	if err != nil || n == nil || n.GetToken() == nil || n.GetToken().Position == nil {
		return 0
	}
	return n.GetToken().Position.Line
}
