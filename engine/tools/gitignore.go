package tools

import (
	"path"
	"slices"
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
	return matchSegs(r.segs, strings.Split(p, "/"))
}

// matchSegs matches pattern segments against path segments; "**" matches
// zero or more whole segments (one or more when it ends the pattern, so
// that "dir/**" matches what is inside dir but not dir itself). Patterns
// without "**" match segment by segment; the others by dynamic programming
// over (pattern, path) positions, so that many "**" cannot make it
// exponential.
func matchSegs(pat, segs []string) bool {
	if !slices.Contains(pat, "**") {
		if len(pat) != len(segs) {
			return false
		}
		for i := range pat {
			if ok, err := path.Match(pat[i], segs[i]); err != nil || !ok {
				return false
			}
		}
		return true
	}
	p, n := len(pat), len(segs)
	// next[j] holds "pat[i+1:] matches segs[j:]" while row i is computed.
	next := make([]bool, n+1)
	cur := make([]bool, n+1)
	next[n] = true
	for i := p - 1; i >= 0; i-- {
		for j := n; j >= 0; j-- {
			switch {
			case pat[i] == "**" && i == p-1:
				cur[j] = j < n
			case pat[i] == "**":
				cur[j] = next[j] || (j < n && cur[j+1])
			case j == n:
				cur[j] = false
			default:
				ok, err := path.Match(pat[i], segs[j])
				cur[j] = err == nil && ok && next[j+1]
			}
		}
		next, cur = cur, next
	}
	return next[0]
}
