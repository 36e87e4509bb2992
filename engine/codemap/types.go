package codemap

import "errors"

// Sentinel errors callers branch on.
var (
	// ErrParse: a file is not valid source of its language; it is left out
	// of the map.
	ErrParse = errors.New("does not parse")
	// ErrSkipped: a file is left out of the map before parsing (too large,
	// minified, binary, not UTF-8).
	ErrSkipped = errors.New("left out of the map")
	// ErrNotMapped: outline of a path that is not in the map.
	ErrNotMapped = errors.New("not in the code map")
	// ErrNoSymbol: findSymbol or references of a name the map does not know.
	ErrNoSymbol = errors.New("no such symbol in the code map")
)

// MaxFileBytes is the largest source file mapped: larger ones are almost
// always generated or bundled, and their signatures would crowd a prompt.
const MaxFileBytes = 1 << 20

// Def is one definition in a file.
type Def struct {
	Name string `json:"n"`
	// Kind is func, method, type, class, interface, struct, enum, trait,
	// const, var, module…
	Kind string `json:"k"`
	// Line is 1-based.
	Line int `json:"l"`
	// Signature is the definition's head without its body, on one line.
	Signature string `json:"s"`
	// Parent is the enclosing definition (a method's type or class).
	Parent string `json:"p,omitempty"`
}

// Ref is a name a file refers to, with how often and where first.
type Ref struct {
	Name  string `json:"n"`
	Count int    `json:"c"`
	// Line of the first reference (1-based) and the definition it is in
	// ("" at top level).
	Line int    `json:"l"`
	In   string `json:"i,omitempty"`
}

// FileSyms is what parsing one file yields.
type FileSyms struct {
	Lang string `json:"lang"`
	Defs []Def  `json:"defs"`
	Refs []Ref  `json:"refs"`
}

// Item is one provenance entry of a map block (the same fields as
// promptctx.Item, so the facade converts it one to one).
type Item struct {
	Block  string `json:"block"`
	Source string `json:"source"`
	ID     string `json:"id"`
	Title  string `json:"title"`
	Tokens int    `json:"tokens"`
}

// Location is a definition found by name (findSymbol).
type Location struct {
	Path string `json:"path"`
	Def
}

// RefLocation is a file that refers to a name (references).
type RefLocation struct {
	Path string `json:"path"`
	Ref
}

// Outline is a mapped file's definitions (outline).
type Outline struct {
	Path string `json:"path"`
	Lang string `json:"lang"`
	Defs []Def  `json:"defs"`
	// Skipped says why the file is not mapped ("" when it is).
	Skipped string `json:"skipped,omitempty"`
}

// RankedFile is a file of the ranked map with its top definitions.
type RankedFile struct {
	Path string  `json:"path"`
	Rank float64 `json:"rank"`
	Defs []Def   `json:"defs"`
}

// Stats describes the map after an update.
type Stats struct {
	Files   int            `json:"files"`   // source files mapped
	Defs    int            `json:"defs"`    // definitions
	Parsed  int            `json:"parsed"`  // files parsed by this update
	Removed int            `json:"removed"` // files gone since the last update
	Skipped map[string]int `json:"skipped,omitempty"`
	// Langs counts mapped files per language.
	Langs map[string]int `json:"langs,omitempty"`
}
