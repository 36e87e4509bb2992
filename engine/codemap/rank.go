package codemap

import (
	"math"
	"path"
	"sort"
	"strings"

	"github.com/nova-dev/nova/internal/lazyre"
)

// Ranking constants.
const (
	damping    = 0.85
	iterations = 30
	// mentionBoost multiplies the weight of references to an identifier
	// the task names.
	mentionBoost = 10.0
	// commonDefs: a name defined in more files than this is generic
	// (New, String, init): references to it weigh little.
	commonDefs = 5
	// maxDefiners: references to a name defined in more files than this
	// make no edges at all.
	maxDefiners = 50
)

var (
	identPattern = lazyre.New(`[A-Za-z_][A-Za-z0-9_]*`)
	pathPattern  = lazyre.New(`[A-Za-z0-9_./-]+\.[A-Za-z0-9]+`)
)

// mentions are the files and identifiers a task names.
type mentions struct {
	files  map[string]bool
	idents map[string]bool
	// folded are identifiers named only in another case (total for
	// Total): they count, less than exact ones.
	folded map[string]bool
}

// mentioned finds in task the mapped files it names (by path or base name)
// and the defined identifiers it names (exactly, or, for names of five
// characters or more, in any case; a.B names B too).
func (s *snapshot) mentioned(task string) mentions {
	mn := mentions{files: map[string]bool{}, idents: map[string]bool{}, folded: map[string]bool{}}
	if strings.TrimSpace(task) == "" {
		return mn
	}
	byBase := map[string][]string{}
	for p := range s.files {
		byBase[path.Base(p)] = append(byBase[path.Base(p)], p)
	}
	for _, tok := range pathPattern.FindAllString(task, 200) {
		tok = strings.Trim(strings.TrimPrefix(tok, "./"), "./")
		if _, ok := s.files[tok]; ok {
			mn.files[tok] = true
			continue
		}
		if ps := byBase[path.Base(tok)]; len(ps) > 0 && len(ps) <= 3 {
			for _, p := range ps {
				if strings.HasSuffix(p, tok) {
					mn.files[p] = true
				}
			}
		}
	}
	var lower map[string][]string
	for _, tok := range identPattern.FindAllString(task, 2000) {
		if len(tok) < 3 || commonNames[tok] {
			continue
		}
		if _, ok := s.byName[tok]; ok {
			if codeLike(tok) {
				mn.idents[tok] = true
			} else {
				mn.folded[tok] = true // "rule", "empty": more often a word than a name
			}
			continue
		}
		if len(tok) < 5 {
			continue
		}
		if lower == nil {
			lower = map[string][]string{}
			for name := range s.byName {
				if len(name) >= 5 {
					l := strings.ToLower(name)
					lower[l] = append(lower[l], name)
				}
			}
		}
		for _, name := range lower[strings.ToLower(tok)] {
			mn.folded[name] = true
		}
	}
	return mn
}

// codeLike reports whether a task's word looks like an identifier rather
// than English: a capital letter (Lookup, SaveOrder, parseURL), an
// underscore or a digit (save_order, utf8).
func codeLike(tok string) bool {
	for _, r := range tok {
		if r == '_' || r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' {
			return true
		}
	}
	return false
}

// ranked is the outcome of ranking: files by rank and definitions by
// score.
type ranked struct {
	fileRank map[string]float64
	defs     []scoredDef
	mn       mentions
}

type scoredDef struct {
	path  string
	def   Def
	score float64
}

// rank runs a personalised PageRank over the file graph (an edge from a
// file to each file defining a name it refers to) and scores every
// definition by the rank flowing to it.
func (s *snapshot) rank(task string) ranked {
	mn := s.mentioned(task)
	paths := make([]string, 0, len(s.files))
	for p := range s.files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	idx := make(map[string]int, len(paths))
	for i, p := range paths {
		idx[p] = i
	}
	type edge struct {
		to   int
		name string
		w    float64
	}
	out := make([][]edge, len(paths))
	outW := make([]float64, len(paths))
	for i, p := range paths {
		for _, r := range s.files[p].Refs {
			defs := s.byName[r.Name]
			if len(defs) == 0 || len(defs) > maxDefiners {
				continue // a name defined everywhere (ID, Name) says nothing, and would cost an edge per definer
			}
			w := math.Sqrt(float64(r.Count))
			if mn.idents[r.Name] {
				w *= mentionBoost
			} else if mn.folded[r.Name] {
				w *= mentionBoost / 3
			}
			if len(defs) > commonDefs {
				w *= 0.1
			}
			if strings.HasPrefix(r.Name, "_") {
				w *= 0.1
			}
			w /= float64(len(defs))
			for _, d := range defs {
				j := idx[d]
				if j == i {
					continue
				}
				out[i] = append(out[i], edge{to: j, name: r.Name, w: w})
				outW[i] += w
			}
		}
	}
	pers := make([]float64, len(paths))
	total := 0.0
	for p := range mn.files {
		if i, ok := idx[p]; ok {
			pers[i] += 1
			total++
		}
	}
	for name := range mn.idents {
		for _, p := range s.byName[name] {
			pers[idx[p]] += 1
			total++
		}
	}
	for name := range mn.folded {
		for _, p := range s.byName[name] {
			pers[idx[p]] += 0.3
			total += 0.3
		}
	}
	if total == 0 {
		for i := range pers {
			pers[i] = 1
		}
		total = float64(len(pers))
	}
	for i := range pers {
		pers[i] /= total
	}
	rank := append([]float64(nil), pers...)
	next := make([]float64, len(paths))
	for range iterations {
		dangling := 0.0
		for i := range next {
			next[i] = 0
		}
		for i, es := range out {
			if outW[i] == 0 {
				dangling += rank[i]
				continue
			}
			for _, e := range es {
				next[e.to] += damping * rank[i] * e.w / outW[i]
			}
		}
		for i := range next {
			next[i] += (1-damping)*pers[i] + damping*dangling*pers[i]
		}
		rank, next = next, rank
	}
	defScore := map[string]float64{} // path \x00 name
	for i, es := range out {
		if outW[i] == 0 {
			continue
		}
		for _, e := range es {
			defScore[paths[e.to]+"\x00"+e.name] += rank[i] * e.w / outW[i]
		}
	}
	rk := ranked{fileRank: make(map[string]float64, len(paths)), mn: mn}
	for i, p := range paths {
		rk.fileRank[p] = rank[i]
		for _, d := range s.files[p].Defs {
			if d.Kind == "field" && !mn.idents[d.Name] {
				continue // shown through its struct
			}
			sc := defScore[p+"\x00"+d.Name] + rank[i]*0.05
			bonus := 10.0
			if d.Kind == "field" {
				bonus = 2 // "orders" in a task is more often a word than a field
			}
			if mn.idents[d.Name] {
				sc += bonus
			} else if mn.folded[d.Name] {
				sc += bonus / 3
			}
			if mn.files[p] {
				sc += 1
			}
			rk.defs = append(rk.defs, scoredDef{path: p, def: d, score: sc})
		}
	}
	sort.SliceStable(rk.defs, func(a, b int) bool {
		x, y := rk.defs[a], rk.defs[b]
		if x.score != y.score {
			return x.score > y.score
		}
		if x.path != y.path {
			return x.path < y.path
		}
		return x.def.Line < y.def.Line
	})
	return rk
}

// callers are the files that refer to name, most references first.
func (s *snapshot) callers(name string) []RefLocation {
	var out []RefLocation
	for p, fs := range s.files {
		i := sort.Search(len(fs.Refs), func(i int) bool { return fs.Refs[i].Name >= name })
		if i < len(fs.Refs) && fs.Refs[i].Name == name {
			out = append(out, RefLocation{Path: p, Ref: fs.Refs[i]})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Path < out[j].Path
	})
	return out
}
