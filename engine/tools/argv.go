package tools

import (
	"path/filepath"
	"strings"
)

// Argv rules: an allowlist entry ("go test", "gofmt -l", "npx tsc --noEmit")
// names a program and the words a command must start with, as before; what
// follows those words is no longer taken on trust. Every argument is checked
// against the table of the program (argvPrograms): options nova knows to be
// harmless pass, options that run another program (go vet -toolexec, npm
// --node-options, git -c core.sshCommand=…) and options nova does not know
// make the command need approval at every autonomy level, with the reason
// shown to the user. Paths among the arguments must stay inside the
// workspace. Shells and interpreters of arbitrary text (sh, bash, make, env,
// xargs, …) can be allowlisted but always ask.

// CommandRule is one parsed allowlist entry.
type CommandRule struct {
	// Entry is the entry as configured.
	Entry string
	// Words are its words: the program, then the subcommand and options a
	// command must start with.
	Words []string
}

// ParseCommandRule parses an allowlist entry. An empty entry, one with
// shell syntax or an unbalanced quote, or one whose program is an option or
// contains a NUL byte is an error.
func ParseCommandRule(entry string) (CommandRule, error) {
	words, err := SplitCommand(entry)
	if err != nil {
		return CommandRule{}, err
	}
	prog := words[0]
	switch {
	case strings.HasPrefix(prog, "-"):
		return CommandRule{}, invalid("allowlist entry %q starts with an option, not a program", entry)
	case strings.ContainsRune(entry, 0):
		return CommandRule{}, invalid("allowlist entry %q contains a NUL byte", entry)
	}
	return CommandRule{Entry: entry, Words: words}, nil
}

// Matches reports whether argv starts with the rule's words.
func (r CommandRule) Matches(argv []string) bool {
	if len(r.Words) == 0 || len(r.Words) > len(argv) {
		return false
	}
	for i, w := range r.Words {
		if argv[i] != w {
			return false
		}
	}
	return true
}

// ArgvVerdict is what the command policy decides about one argv.
type ArgvVerdict struct {
	// Entry is the allowlist entry argv matched ("" when none did).
	Entry string
	// Listed says argv matched an entry; an unlisted command never runs.
	Listed bool
	// Safe says every argument is one nova vouches for: from
	// ApprovalAutonomy the command runs without asking.
	Safe bool
	// Reason says why a listed command is not Safe, e.g. "option -toolexec
	// runs another program".
	Reason string
}

// CheckArgv decides whether argv, run in the workspace-relative directory
// dir of root, is on the allowlist and whether every argument is allowed.
// Entries that do not parse are skipped. Of several matching entries, a
// Safe verdict wins.
func (p CommandPolicy) CheckArgv(root, dir string, argv []string) ArgvVerdict {
	var first ArgvVerdict
	for _, entry := range p.Allow {
		rule, err := ParseCommandRule(entry)
		if err != nil || !rule.Matches(argv) {
			continue
		}
		reason := checkArgv(root, dir, argv, len(rule.Words))
		v := ArgvVerdict{Entry: entry, Listed: true, Safe: reason == "", Reason: reason}
		if v.Safe {
			return v
		}
		if !first.Listed {
			first = v
		}
	}
	return first
}

// Allowed returns the allowlist entry that argv matches: the entry's words
// must equal argv's first words. It says nothing about the rest of argv;
// CheckArgv does.
func (p CommandPolicy) Allowed(argv []string) (string, bool) {
	for _, entry := range p.Allow {
		rule, err := ParseCommandRule(entry)
		if err == nil && rule.Matches(argv) {
			return entry, true
		}
	}
	return "", false
}

// argvCheck carries what checking one argv needs.
type argvCheck struct {
	root, dir string
	// pinned is how many leading words of argv the allowlist entry spelled
	// out: options among them count as known (a deny still applies).
	pinned int
	argv   []string
}

// checkArgv returns "" when every argument of argv is allowed, or the
// reason it is not.
func checkArgv(root, dir string, argv []string, pinned int) string {
	if len(argv) == 0 {
		return "empty command"
	}
	c := &argvCheck{root: root, dir: dir, pinned: pinned, argv: argv}
	prog := argv[0]
	if strings.ContainsRune(prog, '/') || strings.ContainsRune(prog, filepath.Separator) {
		// A program named by path runs that file: it must be in the
		// workspace, and nova knows nothing of its options.
		if r := c.path(prog); r != "" {
			return r
		}
		return c.generic(1)
	}
	if why, ok := alwaysAsk[prog]; ok {
		return "`" + prog + "` " + why
	}
	// Versioned names (python3.12, perl5.36) follow the unversioned rules.
	unversioned := strings.TrimRightFunc(prog, func(r rune) bool { return r >= '0' && r <= '9' || r == '.' })
	if why, ok := alwaysAsk[unversioned]; ok {
		return "`" + prog + "` " + why
	}
	if check, ok := argvPrograms()[prog]; ok {
		return check(c, 1)
	}
	if unversioned == "python" {
		return checkPython(c, 1)
	}
	return c.generic(1)
}

// alwaysAsk lists programs whose arguments are programs or code: no
// allowlist entry makes them approval-free.
var alwaysAsk = map[string]string{
	"sh": "runs any command it is given", "bash": "runs any command it is given",
	"zsh": "runs any command it is given", "dash": "runs any command it is given",
	"ksh": "runs any command it is given", "fish": "runs any command it is given",
	"busybox": "runs any command it is given", "env": "runs another program",
	"xargs": "runs another program", "sudo": "runs another program", "doas": "runs another program",
	"nice": "runs another program", "nohup": "runs another program", "timeout": "runs another program",
	"time": "runs another program", "strace": "runs another program", "watch": "runs another program",
	"setsid": "runs another program", "chroot": "runs another program", "unshare": "runs another program",
	"ssh":  "runs commands on another machine",
	"make": "runs the Makefile's recipes, which are shell commands", "gmake": "runs the Makefile's recipes, which are shell commands",
	"find": "runs programs with -exec", "awk": "runs programs with system()", "gawk": "runs programs with system()",
	"sed": "runs programs with its e command", "perl": "runs code given on the command line",
	"ruby": "runs code given on the command line", "php": "runs code given on the command line",
	"eval": "runs any command it is given", "exec": "runs another program", "command": "runs another program",
	"pnpx": "downloads and runs a package", "bunx": "downloads and runs a package",
	"deno": "runs code given on the command line", "bun": "runs code given on the command line",
}

// Option kinds of a program's table.
type optKind uint8

const (
	optBool    optKind = iota + 1 // no value
	optValue                      // a value (attached or the next word)
	optPath                       // a path value, confined to the workspace
	optDeny                       // never approval-free; why says what it does
	optEnd                        // ends option parsing: the rest goes elsewhere
	optLdflags                    // go's -ldflags: only -s, -w and -X name=value
)

type opt struct {
	kind optKind
	why  string
}

func deny(why string) opt { return opt{kind: optDeny, why: why} }

// Positional-argument kinds.
type posKind uint8

const (
	posNone      posKind = iota // no positional arguments
	posPath                     // paths confined to the workspace
	posGo                       // Go package patterns: import paths, or paths confined
	posAny                      // anything (arguments of the program the model wrote)
	posName                     // a plain name (a script of package.json)
	posPytest                   // pytest node ids: a confined path, optionally ::name
	posGitRefs                  // git revisions and paths (paths after -- confined)
	posStopFirst                // stop at the first positional (a subcommand follows)
)

// flagStyle says how a program spells options.
type flagStyle uint8

const (
	styleGo  flagStyle = iota // -name, --name, -name=v; no clusters
	styleGNU                  // --long[=v], -s, -abc clusters, -kVALUE
)

// argSpec is the table of one program or subcommand.
type argSpec struct {
	name  string // for messages: "go test"
	style flagStyle
	opts  map[string]opt // keys as spelled: "-v", "--json"; Go style keys without dashes
	// fold lowercases option names before lookup (tsc).
	fold      bool
	pos       posKind
	afterDash posKind // what may follow "--"
}

// scan checks c.argv[i:] against spec. With posStopFirst it returns the
// index of the first positional argument; otherwise len(argv).
func (c *argvCheck) scan(i int, spec *argSpec) (int, string) {
	for ; i < len(c.argv); i++ {
		a := c.argv[i]
		pinned := i < c.pinned
		if a == "--" {
			for j := i + 1; j < len(c.argv); j++ {
				w := c.argv[j]
				if strings.HasPrefix(w, "-") && spec.afterDash != posAny && j >= c.pinned {
					return len(c.argv), "option " + w + " after -- goes to `" + spec.name + "`'s program unchecked"
				}
				if r := c.positional(w, spec.afterDash, spec.name, j < c.pinned); r != "" {
					return len(c.argv), r
				}
			}
			return len(c.argv), ""
		}
		if len(a) < 2 || a[0] != '-' {
			if spec.pos == posStopFirst {
				return i, ""
			}
			if r := c.positional(a, spec.pos, spec.name, pinned); r != "" {
				return len(c.argv), r
			}
			continue
		}
		next, r := c.option(i, spec)
		if r != "" {
			return len(c.argv), r
		}
		if next < 0 { // optEnd
			return i + 1, ""
		}
		i = next
	}
	return len(c.argv), ""
}

// option checks the option at c.argv[i] and returns the index of the last
// word it used (its value may be the next word), -1 for optEnd.
func (c *argvCheck) option(i int, spec *argSpec) (int, string) {
	a := c.argv[i]
	pinned := i < c.pinned
	if spec.style == styleGo || strings.HasPrefix(a, "--") {
		name, val, hasVal := strings.Cut(a, "=")
		key := name
		if spec.style == styleGo {
			key = strings.TrimLeft(name, "-")
		}
		if spec.fold {
			key = strings.ToLower(key)
		}
		o, known := spec.opts[key]
		return c.useOpt(i, spec, name, o, known, val, hasVal, pinned)
	}
	// GNU short options: -abc is -a -b -c; -kVALUE is -k VALUE.
	for j := 1; j < len(a); j++ {
		name := "-" + string(a[j])
		key := name
		if spec.fold {
			key = strings.ToLower(key)
		}
		o, known := spec.opts[key]
		if !known || o.kind != optBool {
			rest := a[j+1:]
			return c.useOpt(i, spec, name, o, known, rest, rest != "", pinned)
		}
	}
	return i, ""
}

func (c *argvCheck) useOpt(i int, spec *argSpec, name string, o opt, known bool, val string, hasVal, pinned bool) (int, string) {
	switch {
	case known && o.kind == optDeny:
		return i, "option " + name + " " + o.why
	case !known && pinned:
		return i, "" // spelled out in the allowlist entry
	case !known:
		return i, "option " + name + " of `" + spec.name + "` is not one nova knows to be safe"
	case o.kind == optEnd:
		return -1, ""
	case o.kind == optBool:
		if hasVal && spec.style == styleGo {
			switch val {
			case "true", "false", "1", "0", "t", "f", "TRUE", "FALSE", "True", "False", "T", "F":
			default:
				return i, "option " + name + " takes no value"
			}
		}
		return i, ""
	}
	next := i
	if !hasVal {
		if i+1 >= len(c.argv) {
			return i, "option " + name + " needs a value"
		}
		next = i + 1
		val = c.argv[next]
		if spec.style == styleGNU && len(val) > 1 && val[0] == '-' {
			// Programs differ on whether "-x" here is the value or the next
			// option; a value nova skips must not be an option the
			// program runs.
			return i, "option " + name + " is followed by " + quote(val) + ", which may be read as an option"
		}
	}
	switch o.kind {
	case optPath:
		if r := c.path(val); r != "" {
			return i, "option " + name + ": " + r
		}
	case optLdflags:
		if r := ldflagsSafe(val); r != "" {
			return i, "option " + name + " " + r
		}
	}
	return next, ""
}

// positional checks one positional argument.
func (c *argvCheck) positional(a string, kind posKind, prog string, pinned bool) string {
	if pinned {
		return ""
	}
	switch kind {
	case posAny:
		return ""
	case posPath:
		return c.path(a)
	case posPytest:
		p, _, _ := strings.Cut(a, "::")
		return c.path(p)
	case posName:
		if a == "" || strings.ContainsAny(a, "/\\") || strings.HasPrefix(a, ".") {
			return "`" + prog + "` takes a script name, not " + quote(a)
		}
		return ""
	case posGo:
		return c.goPattern(a)
	case posGitRefs:
		// a revision (HEAD~1, main..topic, origin/main) or a path
		if filepath.IsAbs(a) || strings.HasPrefix(a, ".") || strings.Contains(a, "/..") || strings.Contains(a, "../") {
			return c.path(a)
		}
		return ""
	}
	return "`" + prog + "` takes no argument " + quote(a) + " nova knows to be safe"
}

// goPattern checks a Go package pattern: a path (./x/..., /abs, x.go) must
// be inside the workspace; an import path must look like one.
func (c *argvCheck) goPattern(a string) string {
	p := strings.TrimSuffix(strings.TrimSuffix(a, "..."), "/")
	if p == "" {
		p = "."
	}
	if strings.HasPrefix(a, ".") || filepath.IsAbs(a) || strings.HasSuffix(a, ".go") {
		return c.path(p)
	}
	for _, r := range a {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._~/-+", r)
		if !ok {
			return "package pattern " + quote(a) + " is not an import path"
		}
	}
	if strings.Contains(strings.TrimSuffix(a, "..."), "..") || strings.HasPrefix(a, "-") {
		return "package pattern " + quote(a) + " is not an import path"
	}
	return ""
}

// path checks that a path argument (relative to the command's directory)
// resolves inside the workspace.
func (c *argvCheck) path(p string) string {
	if p == "" {
		return "empty path"
	}
	if strings.HasPrefix(p, "~") {
		return "path " + quote(p) + " is outside the workspace"
	}
	rel := p
	if !filepath.IsAbs(p) {
		rel = filepath.Join(filepath.FromSlash(c.dir), p)
	}
	if _, _, err := ConfineRel(c.root, rel); err != nil {
		return "path " + quote(p) + " is outside the workspace"
	}
	return ""
}

// generic checks the arguments of a program nova has no table for:
// positional arguments must be paths inside the workspace, options need
// approval unless the allowlist entry spelled them out.
func (c *argvCheck) generic(i int) string {
	spec := &argSpec{name: c.argv[0], style: styleGNU, pos: posPath, afterDash: posPath}
	_, r := c.scan(i, spec)
	return r
}

func quote(s string) string {
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return "\"" + s + "\""
}

// ldflagsSafe accepts the linker options that only strip or set strings
// (-s, -w, -X importpath.name=value); anything else (-extld, -linkmode,
// -extldflags, …) may run another program. The value is split on spaces,
// as go does for unquoted flag lists; a quote makes it unknown.
func ldflagsSafe(v string) string {
	v = strings.TrimPrefix(v, "all=")
	if strings.ContainsAny(v, "'\"") {
		return "passes quoted options to the linker, which nova does not check"
	}
	words := strings.Fields(v)
	for i := 0; i < len(words); i++ {
		w := strings.TrimPrefix(words[i], "-")
		switch {
		case w == "s" || w == "w" || w == "s=true" || w == "w=true":
		case w == "X" && i+1 < len(words) && strings.Contains(words[i+1], "="):
			i++
		case strings.HasPrefix(w, "X=") && strings.Count(w, "=") >= 2:
		default:
			return "passes " + quote(words[i]) + " to the linker (its -extld runs another program)"
		}
	}
	return ""
}
