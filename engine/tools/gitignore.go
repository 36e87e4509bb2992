package tools

import (
	"path"
	"strings"
)

// Ignorer answers "does a .gitignore exclude this path?" for the file walks
// of listFiles and searchFiles.
//
// It is hand-written on purpose: go.mod carries no gitignore library (the
// usual one lives inside go-git and would pull the whole of it in), and nova
// needs only the matching half of git's rules: read pattern files while
// walking down, answer for one path at a time. Supported: comments, blank
// lines, negation (!), directory-only patterns (trailing /), anchoring (a
// leading or inner /), *, ?, [...] and ** in leading, trailing and inner
// positions, backslash escapes, and nested .gitignore files whose patterns
// are relative to their own directory. Not supported: core.excludesFile and
// .git/info/exclude.
//
// As in git, a file inside an excluded directory stays excluded whatever a
// later negation says, because the walk never enters that directory.
type Ignorer struct {
	rules []ignoreRule
}

type ignoreRule struct {
	base     string   // directory of the .gitignore, slash-separated, "" for the root
	segs     []string // the pattern split at "/"
	negate   bool
	dirOnly  bool
	anchored bool // matched against the whole path below base, not just the name
}

// maxIgnoreRules bounds what a hostile or generated .gitignore can cost.
const maxIgnoreRules = 4096

// Add reads the patterns of one .gitignore found in directory base (slash
// separated, relative to the walk root; "" or "." for the root). It never
// fails: lines it cannot use are skipped, as git does.
func (ig *Ignorer) Add(base string, data []byte) {
	base = strings.Trim(path.Clean("/"+base), "/")
	for line := range strings.SplitSeq(string(data), "\n") {
		if len(ig.rules) >= maxIgnoreRules {
			return
		}
		if r, ok := parseIgnoreLine(base, line); ok {
			ig.rules = append(ig.rules, r)
		}
	}
}

func parseIgnoreLine(base, line string) (ignoreRule, bool) {
	line = strings.TrimSuffix(line, "\r")
	// Trailing spaces are ignored unless escaped with a backslash.
	for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, "\\ ") {
		line = line[:len(line)-1]
	}
	if line == "" || line[0] == '#' {
		return ignoreRule{}, false
	}
	r := ignoreRule{base: base}
	switch {
	case line[0] == '!':
		r.negate = true
		line = line[1:]
	case strings.HasPrefix(line, `\!`), strings.HasPrefix(line, `\#`):
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		r.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if strings.HasPrefix(line, "/") {
		r.anchored = true
		line = strings.TrimLeft(line, "/")
	}
	if strings.Contains(line, "/") {
		r.anchored = true
	}
	for _, s := range strings.Split(line, "/") {
		switch {
		case s == "":
			continue
		case s == "**" && len(r.segs) > 0 && r.segs[len(r.segs)-1] == "**":
			continue // a/**/**/b is a/**/b
		}
		r.segs = append(r.segs, s)
	}
	if len(r.segs) == 0 {
		return ignoreRule{}, false
	}
	if !r.anchored && r.segs[0] == "**" {
		r.anchored = true
	}
	return r, true
}

// Ignored reports whether rel (slash separated, relative to the walk root)
// is excluded. isDir says whether rel is a directory. The last matching
// pattern wins, as in git.
func (ig *Ignorer) Ignored(rel string, isDir bool) bool {
	if ig == nil || len(ig.rules) == 0 {
		return false
	}
	rel = strings.Trim(rel, "/")
	ignored := false
	for i := range ig.rules {
		r := &ig.rules[i]
		if r.negate == !ignored {
			continue // cannot change the answer
		}
		if r.match(rel, isDir) {
			ignored = !r.negate
		}
	}
	return ignored
}

func (r *ignoreRule) match(rel string, isDir bool) bool {
	if r.dirOnly && !isDir {
		return false
	}
	p := rel
	if r.base != "" {
		if !strings.HasPrefix(rel, r.base+"/") {
			return false
		}
		p = rel[len(r.base)+1:]
	}
	if p == "" {
		return false
	}
	if !r.anchored {
		ok, err := path.Match(r.segs[0], path.Base(p))
		return err == nil && ok
	}
	return matchSegs(r.segs, strings.Split(p, "/"), 0)
}

// matchSegs matches pattern segments against path segments; "**" matches
// zero or more whole segments (one or more when it ends the pattern, so
// that "dir/**" matches what is inside dir but not dir itself). depth bounds
// the recursion for patterns with many "**".
func matchSegs(pat, segs []string, depth int) bool {
	if depth > 16 {
		return false
	}
	for len(pat) > 0 {
		if pat[0] == "**" {
			if len(pat) == 1 {
				return len(segs) > 0
			}
			for i := 0; i <= len(segs); i++ {
				if matchSegs(pat[1:], segs[i:], depth+1) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		ok, err := path.Match(pat[0], segs[0])
		if err != nil || !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}
