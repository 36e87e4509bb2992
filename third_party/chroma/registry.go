package chroma

import (
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

var (
	ignoredSuffixes = [...]string{
		// Editor backups
		"~", ".bak", ".old", ".orig",
		// Debian and derivatives apt/dpkg/ucf backups
		".dpkg-dist", ".dpkg-old", ".ucf-dist", ".ucf-new", ".ucf-old",
		// Red Hat and derivatives rpm backups
		".rpmnew", ".rpmorig", ".rpmsave",
		// Build system input/template files
		".in",
	}
)

// LexerRegistry is a registry of Lexers.
//
// nova patch: a registry made by NewLazyLexerRegistry fills itself on first
// use; Lexers is only complete after a method other than Register or Deferred
// has been called. See third_party/chroma/README.nova.md.
type LexerRegistry struct {
	Lexers  Lexers
	byName  map[string]Lexer
	byAlias map[string]Lexer
	lazy    *lazyLexers // nil: an eager registry, as upstream
}

// lazyLexers is the state of a registry that loads its first lexers on first
// use. Until then Register and Deferred queue their work in ops, in call
// order, and the load replays it after the loaded lexers: the registry ends up
// exactly as if load's lexers had been registered first, eagerly.
type lazyLexers struct {
	once   sync.Once
	mu     sync.Mutex // guards ops and loaded
	load   func() []Lexer
	ops    []func()
	loaded bool
}

// NewLexerRegistry creates a new LexerRegistry of Lexers.
func NewLexerRegistry() *LexerRegistry {
	return &LexerRegistry{
		byName:  map[string]Lexer{},
		byAlias: map[string]Lexer{},
	}
}

// NewLazyLexerRegistry creates a LexerRegistry whose first lexers come from
// load, called once, on the first lookup (Names, Aliases, Get, MatchMimeType,
// Match, Analyse) instead of at creation (nova patch).
func NewLazyLexerRegistry(load func() []Lexer) *LexerRegistry {
	l := NewLexerRegistry()
	l.lazy = &lazyLexers{load: load}
	return l
}

// ensure loads a lazy registry's lexers and replays what was queued before.
func (l *LexerRegistry) ensure() {
	if l.lazy == nil {
		return
	}
	l.lazy.once.Do(func() {
		z := l.lazy
		z.mu.Lock()
		defer z.mu.Unlock()
		for _, lexer := range z.load() {
			l.register(lexer)
		}
		for _, op := range z.ops {
			op()
		}
		z.ops, z.loaded = nil, true
	})
}

// queue runs op now if the registry is eager or already loaded, otherwise
// keeps it for ensure. It reports whether op was queued.
func (l *LexerRegistry) queue(op func()) bool {
	if l.lazy == nil {
		return false
	}
	l.lazy.mu.Lock()
	defer l.lazy.mu.Unlock()
	if l.lazy.loaded {
		return false
	}
	l.lazy.ops = append(l.lazy.ops, op)
	return true
}

// Deferred calls fn with a lookup that works like Get once the registry's
// lexers are loaded: now for an eager or loaded registry, otherwise on first
// use, in order with the Register calls made before it (nova patch; the
// lexers package's init functions use it to set analysers).
func (l *LexerRegistry) Deferred(fn func(get func(name string) Lexer)) {
	op := func() { fn(l.get) }
	if !l.queue(op) {
		op()
	}
}

// Names of all lexers, optionally including aliases.
func (l *LexerRegistry) Names(withAliases bool) []string {
	l.ensure()
	out := []string{}
	for _, lexer := range l.Lexers {
		config := lexer.Config()
		out = append(out, config.Name)
		if withAliases {
			out = append(out, config.Aliases...)
		}
	}
	sort.Strings(out)
	return out
}

// Aliases of all the lexers, and skip those lexers who do not have any aliases,
// or show their name instead
func (l *LexerRegistry) Aliases(skipWithoutAliases bool) []string {
	l.ensure()
	out := []string{}
	for _, lexer := range l.Lexers {
		config := lexer.Config()
		if len(config.Aliases) == 0 {
			if skipWithoutAliases {
				continue
			}
			out = append(out, config.Name)
		}
		out = append(out, config.Aliases...)
	}
	sort.Strings(out)
	return out
}

// Get a Lexer by name, alias or file extension.
func (l *LexerRegistry) Get(name string) Lexer {
	l.ensure()
	return l.get(name)
}

func (l *LexerRegistry) get(name string) Lexer {
	if lexer := l.byName[name]; lexer != nil {
		return lexer
	}
	if lexer := l.byAlias[name]; lexer != nil {
		return lexer
	}
	if lexer := l.byName[strings.ToLower(name)]; lexer != nil {
		return lexer
	}
	if lexer := l.byAlias[strings.ToLower(name)]; lexer != nil {
		return lexer
	}

	candidates := PrioritisedLexers{}
	// Try file extension.
	if lexer := l.match("filename." + name); lexer != nil {
		candidates = append(candidates, lexer)
	}
	// Try exact filename.
	if lexer := l.match(name); lexer != nil {
		candidates = append(candidates, lexer)
	}
	if len(candidates) == 0 {
		return nil
	}
	sort.Sort(candidates)
	return candidates[0]
}

// MatchMimeType attempts to find a lexer for the given MIME type.
func (l *LexerRegistry) MatchMimeType(mimeType string) Lexer {
	l.ensure()
	matched := PrioritisedLexers{}
	for _, l := range l.Lexers {
		for _, lmt := range l.Config().MimeTypes {
			if mimeType == lmt {
				matched = append(matched, l)
			}
		}
	}
	if len(matched) != 0 {
		sort.Sort(matched)
		return matched[0]
	}
	return nil
}

// Match returns the first lexer matching filename.
//
// Note that this iterates over all file patterns in all lexers, so is not fast.
func (l *LexerRegistry) Match(filename string) Lexer {
	l.ensure()
	return l.match(filename)
}

func (l *LexerRegistry) match(filename string) Lexer {
	filename = filepath.Base(filename)
	matched := PrioritisedLexers{}
	// First, try primary filename matches.
	for _, lexer := range l.Lexers {
		config := lexer.Config()
		for _, glob := range config.Filenames {
			ok, err := filepath.Match(glob, filename)
			if err != nil { // nolint
				panic(err)
			} else if ok {
				matched = append(matched, lexer)
			} else {
				for _, suf := range &ignoredSuffixes {
					ok, err := filepath.Match(glob+suf, filename)
					if err != nil {
						panic(err)
					} else if ok {
						matched = append(matched, lexer)
						break
					}
				}
			}
		}
	}
	if len(matched) > 0 {
		sort.Sort(matched)
		return matched[0]
	}
	matched = nil
	// Next, try filename aliases.
	for _, lexer := range l.Lexers {
		config := lexer.Config()
		for _, glob := range config.AliasFilenames {
			ok, err := filepath.Match(glob, filename)
			if err != nil { // nolint
				panic(err)
			} else if ok {
				matched = append(matched, lexer)
			} else {
				for _, suf := range &ignoredSuffixes {
					ok, err := filepath.Match(glob+suf, filename)
					if err != nil {
						panic(err)
					} else if ok {
						matched = append(matched, lexer)
						break
					}
				}
			}
		}
	}
	if len(matched) > 0 {
		sort.Sort(matched)
		return matched[0]
	}
	return nil
}

// Analyse text content and return the "best" lexer..
func (l *LexerRegistry) Analyse(text string) Lexer {
	l.ensure()
	var picked Lexer
	highest := float32(0.0)
	for _, lexer := range l.Lexers {
		if analyser, ok := lexer.(Analyser); ok {
			weight := analyser.AnalyseText(text)
			if weight > highest {
				picked = lexer
				highest = weight
			}
		}
	}
	return picked
}

// Register a Lexer with the LexerRegistry. If the lexer is already registered
// it will be replaced.
func (l *LexerRegistry) Register(lexer Lexer) Lexer {
	lexer.SetRegistry(l)
	if l.queue(func() { l.register(lexer) }) {
		return lexer // registered when the lazy registry loads (nova patch)
	}
	l.register(lexer)
	return lexer
}

func (l *LexerRegistry) register(lexer Lexer) {
	lexer.SetRegistry(l)
	config := lexer.Config()

	l.byName[config.Name] = lexer
	l.byName[strings.ToLower(config.Name)] = lexer

	for _, alias := range config.Aliases {
		l.byAlias[alias] = lexer
		l.byAlias[strings.ToLower(alias)] = lexer
	}

	l.Lexers = add(l.Lexers, lexer)
}

// add adds a lexer to a slice of lexers if it doesn't already exist, or if found will replace it.
func add(lexers Lexers, lexer Lexer) Lexers {
	for i, val := range lexers {
		if val == nil {
			continue
		}

		if val.Config().Name == lexer.Config().Name {
			lexers[i] = lexer
			return lexers
		}
	}

	return append(lexers, lexer)
}
