package styles

import (
	"embed"
	"io/fs"
	"sort"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
)

//go:embed *.xml
var embedded embed.FS

// Registry of Styles.
//
// nova patch: the embedded XML styles are parsed on first use, not at init
// (upstream parsed all of them in every program that imports this package).
// Until then Registry holds only the fallback style, "swapoff"; Register,
// Names, Get and GetForMode load the rest first, so through them the
// registry is the same as upstream's. A direct read of Registry before any of
// them finds only styles registered so far: glamour reads Registry[its own
// theme name] and then calls Register, which behaves as upstream because no
// embedded style has glamour's theme names ("charm"; see the lazy test in
// nova's tui/components/diffview). Loading never replaces an entry already in
// Registry, just as upstream's later registrations replaced embedded ones.
var Registry = map[string]*chroma.Style{}

var loadOnce sync.Once

// ensure parses every embedded style into Registry, once.
func ensure() {
	loadOnce.Do(func() {
		files, err := fs.ReadDir(embedded, ".")
		if err != nil {
			panic(err)
		}
		for _, file := range files {
			if file.IsDir() {
				continue
			}
			style := mustParse(file.Name())
			name := strings.ToLower(style.Name)
			if _, ok := Registry[name]; !ok {
				Registry[name] = style
			}
		}
	})
}

func mustParse(path string) *chroma.Style {
	r, err := embedded.Open(path)
	if err != nil {
		panic(err)
	}
	defer r.Close() //nolint:errcheck
	style, err := chroma.NewXMLStyle(r)
	if err != nil {
		panic(err)
	}
	return style
}

// Fallback style. Reassign to change the default fallback style.
//
// nova patch: parsed on its own at init (one small file), and registered.
var Fallback = func() *chroma.Style {
	s := mustParse("swapoff.xml")
	Registry[strings.ToLower(s.Name)] = s
	return s
}()

// Register a chroma.Style.
func Register(style *chroma.Style) *chroma.Style {
	ensure()
	Registry[strings.ToLower(style.Name)] = style
	return style
}

// Names of all available styles.
func Names() []string {
	ensure()
	out := []string{}
	for name := range Registry {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// Get named style, or Fallback.
func Get(name string) *chroma.Style {
	ensure()
	if style, ok := Registry[strings.ToLower(name)]; ok {
		return style
	}
	return Fallback
}

// GetForMode returns the named style if it already matches mode, otherwise its
// registered counterpart if one exists and matches mode. If neither matches,
// the originally-requested style is returned (or Fallback if the name is
// unknown), so callers always get something usable.
func GetForMode(name string, mode chroma.Mode) *chroma.Style {
	style := Get(name)
	if style.Mode() == mode {
		return style
	}
	if style.Counterpart == "" {
		return style
	}
	counterpart, ok := Registry[style.Counterpart]
	if !ok || counterpart.Mode() != mode {
		return style
	}
	return counterpart
}

// RegisterPair links two styles as light/dark counterparts of each other.
//
// Both styles are also registered if they are not already present.
func RegisterPair(a, b *chroma.Style) {
	Register(a)
	Register(b)
	a.Counterpart = strings.ToLower(b.Name)
	b.Counterpart = strings.ToLower(a.Name)
}
