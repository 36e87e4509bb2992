package codemap

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/nova-dev/nova/engine/tools"
)

// BlockTag opens the map block (engine/promptfit trims blocks by tag).
const BlockTag = "<code_map>"

// maxCallers is how many callers a named definition lists.
const maxCallers = 5

// Tokens is the map block's budget on a tier: share (budgets.mapShare) of
// the prompt budget, half of it on the small tier, whose first turn must
// stay small.
func Tokens(promptTokens int, share float64, tier string) int {
	n := int(float64(promptTokens) * share)
	if tier == "small" {
		n /= 2
	}
	return n
}

// estimate is nova's token estimate: ceil(runes/4).
func estimate(s string) int { return (utf8.RuneCountInString(s) + 3) / 4 }

// Block renders the map for a task into a prompt block of at most tokens
// (estimated): files and their definitions ranked for the task (the
// definitions it names first, with the files that call them), signatures
// only, and one provenance Item per file shown. An empty map, or a budget
// too small for one file, gives "".
func (m *Map) Block(ctx context.Context, task string, tokens int) (string, []Item, error) {
	if tokens <= 0 {
		return "", nil, nil
	}
	s, err := m.current(ctx)
	if err != nil {
		return "", nil, err
	}
	text, items := s.render(task, tokens)
	return text, items, nil
}

// Block is m.Block: the map block of a task within tokens.
func Block(ctx context.Context, m *Map, task string, tokens int) (string, []Item, error) {
	if m == nil {
		return "", nil, nil
	}
	return m.Block(ctx, task, tokens)
}

const (
	blockHead = "Code map: files and definitions related to the task, signatures only (line│ signature).\n"
	blockEnd  = "</code_map>"
)

// render fits the ranked map into tokens.
func (s *snapshot) render(task string, tokens int) (string, []Item) {
	rk := s.rank(task)
	used := estimate(BlockTag+"\n"+blockHead+blockEnd) + 1
	type shown struct {
		defs []Def
		ord  int
	}
	files := map[string]*shown{}
	callers := map[string]string{} // path \x00 name \x00 line → the callers line
	for _, sd := range rk.defs {
		if sd.score <= 0 || tokens-used < 8 {
			break
		}
		line := defLine(sd.def)
		cost := estimate(line) + 1
		var calls string
		if rk.mn.idents[sd.def.Name] {
			if calls = s.callersLine(sd.def.Name, sd.path); calls != "" {
				cost += estimate(calls) + 1
			}
		}
		f := files[sd.path]
		if f == nil {
			cost += estimate(sd.path) + 1
		}
		if used+cost > tokens && calls != "" {
			cost -= estimate(calls) + 1 // the definition without its callers
			calls = ""
		}
		if used+cost > tokens {
			continue // a smaller entry may still fit
		}
		if f == nil {
			f = &shown{ord: len(files)}
			files[sd.path] = f
		}
		f.defs = append(f.defs, sd.def)
		if calls != "" {
			callers[sd.path+"\x00"+sd.def.Name+"\x00"+fmt.Sprint(sd.def.Line)] = calls
		}
		used += cost
	}
	if len(files) == 0 {
		return "", nil
	}
	order := make([]string, 0, len(files))
	for p := range files {
		order = append(order, p)
	}
	sort.Slice(order, func(i, j int) bool { return files[order[i]].ord < files[order[j]].ord })
	var b strings.Builder
	b.WriteString(BlockTag + "\n" + blockHead)
	items := make([]Item, 0, len(order))
	for _, p := range order {
		f := files[p]
		sort.Slice(f.defs, func(i, j int) bool { return f.defs[i].Line < f.defs[j].Line })
		start := b.Len()
		b.WriteString(p + "\n")
		for _, d := range f.defs {
			b.WriteString(defLine(d) + "\n")
			if c := callers[p+"\x00"+d.Name+"\x00"+fmt.Sprint(d.Line)]; c != "" {
				b.WriteString(c + "\n")
			}
		}
		items = append(items, Item{Block: "codemap", Source: "codemap", ID: p,
			Title:  fmt.Sprintf("%s (%d of %d definitions)", p, len(f.defs), len(s.files[p].Defs)),
			Tokens: estimate(b.String()[start:])})
	}
	b.WriteString(blockEnd)
	return b.String(), items
}

// defLine is how a definition shows in the block.
func defLine(d Def) string {
	sig := d.Signature
	if sig == "" {
		sig = d.Kind + " " + d.Name
	}
	if d.Parent != "" && !strings.Contains(sig, d.Parent) {
		sig = d.Parent + "." + sig
	}
	return fmt.Sprintf("%6d│ %s", d.Line, sig)
}

// callersLine lists the files calling name (other than its own first).
func (s *snapshot) callersLine(name, own string) string {
	cs := s.callers(name)
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].Path != own && cs[j].Path == own })
	if len(cs) == 0 {
		return ""
	}
	var parts []string
	for i, c := range cs {
		if i == maxCallers {
			parts = append(parts, fmt.Sprintf("and %d more", len(cs)-maxCallers))
			break
		}
		at := fmt.Sprintf("%s:%d", c.Path, c.Line)
		if c.In != "" {
			at += " (" + c.In + ")"
		}
		parts = append(parts, at)
	}
	return "        used by: " + strings.Join(parts, ", ")
}

// Ranked is the map ranked for task: at most n files (0: all), each with
// its definitions in line order.
func (m *Map) Ranked(ctx context.Context, task string, n int) ([]RankedFile, error) {
	s, err := m.current(ctx)
	if err != nil {
		return nil, err
	}
	rk := s.rank(task)
	out := make([]RankedFile, 0, len(rk.fileRank))
	for p, r := range rk.fileRank {
		defs := make([]Def, 0, len(s.files[p].Defs))
		for _, d := range s.files[p].Defs {
			if d.Kind != "field" { // fields show through their struct (Outline lists them)
				defs = append(defs, d)
			}
		}
		sort.Slice(defs, func(i, j int) bool { return defs[i].Line < defs[j].Line })
		out = append(out, RankedFile{Path: p, Rank: r, Defs: defs})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Rank != out[j].Rank {
			return out[i].Rank > out[j].Rank
		}
		return out[i].Path < out[j].Path
	})
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out, nil
}

// FindSymbol returns the definitions named name (a.B finds B with parent
// a too), sorted by path and line. None wraps ErrNoSymbol.
func (m *Map) FindSymbol(ctx context.Context, name string) ([]Location, error) {
	s, err := m.current(ctx)
	if err != nil {
		return nil, err
	}
	parent, base := splitQualified(name)
	var out []Location
	for _, p := range s.byName[base] {
		for _, d := range s.files[p].Defs {
			if d.Name == base && (parent == "" || d.Parent == parent || strings.HasSuffix(strings.TrimSuffix(p, "/"+lastSeg(p)), parent)) {
				out = append(out, Location{Path: p, Def: d})
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: %w", name, ErrNoSymbol)
	}
	return out, nil
}

// References returns the files that refer to name, most references first.
// None wraps ErrNoSymbol.
func (m *Map) References(ctx context.Context, name string) ([]RefLocation, error) {
	s, err := m.current(ctx)
	if err != nil {
		return nil, err
	}
	_, base := splitQualified(name)
	out := s.callers(base)
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: %w", name, ErrNoSymbol)
	}
	return out, nil
}

// Outline returns the definitions of one workspace file (rel is confined
// to the workspace). A file not in the map wraps ErrNotMapped; one left
// out says why in Skipped.
func (m *Map) Outline(ctx context.Context, p string) (Outline, error) {
	rel, _, err := tools.ConfineRel(m.root, p)
	if err != nil {
		return Outline{}, err
	}
	s, err := m.current(ctx)
	if err != nil {
		return Outline{}, err
	}
	if why, ok := s.skips[rel]; ok {
		return Outline{Path: rel, Lang: LangOf(rel), Skipped: why, Defs: []Def{}}, nil
	}
	fs, ok := s.files[rel]
	if !ok {
		return Outline{}, fmt.Errorf("%s: %w", rel, ErrNotMapped)
	}
	defs := append([]Def(nil), fs.Defs...)
	sort.Slice(defs, func(i, j int) bool { return defs[i].Line < defs[j].Line })
	return Outline{Path: rel, Lang: fs.Lang, Defs: defs}, nil
}

func splitQualified(name string) (parent, base string) {
	name = strings.TrimSpace(name)
	name = strings.TrimSuffix(name, "()")
	for _, sep := range []string{"::", "."} {
		if i := strings.LastIndex(name, sep); i > 0 {
			return name[:i], name[i+len(sep):]
		}
	}
	return "", name
}

func lastSeg(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}
