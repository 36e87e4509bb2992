package tools

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// The tables of the programs nova knows. Each check gets the index of the
// first argument after the program and returns "" or why the command needs
// approval. Reasons name what the option or subcommand does, so the user
// can judge the request.

type programCheck func(c *argvCheck, i int) string

var argvPrograms = sync.OnceValue(func() map[string]programCheck {
	return map[string]programCheck{
		"go":      checkGo,
		"gofmt":   checkGofmt,
		"npm":     func(c *argvCheck, i int) string { return c.checkPackageManager(i, npmSpec()) },
		"pnpm":    func(c *argvCheck, i int) string { return c.checkPackageManager(i, pnpmSpec()) },
		"yarn":    func(c *argvCheck, i int) string { return c.checkPackageManager(i, yarnSpec()) },
		"npx":     checkNpx,
		"node":    checkNode,
		"python":  checkPython,
		"python3": checkPython,
		"pytest":  func(c *argvCheck, i int) string { _, r := c.scan(i, pytestSpec()); return r },
		"git":     checkGit,
		"cargo":   checkCargo,
		"tsc":     func(c *argvCheck, i int) string { _, r := c.scan(i, tscSpec()); return r },
	}
})

func bools(m map[string]opt, names ...string) {
	for _, n := range names {
		m[n] = opt{kind: optBool}
	}
}

func values(m map[string]opt, names ...string) {
	for _, n := range names {
		m[n] = opt{kind: optValue}
	}
}

func paths(m map[string]opt, names ...string) {
	for _, n := range names {
		m[n] = opt{kind: optPath}
	}
}

// --- Go -------------------------------------------------------------------

// goBuildFlags are the build flags shared by go build, test, vet and list
// (Go style: one or two dashes, -name=value or -name value).
func goBuildFlags() map[string]opt {
	m := map[string]opt{
		"toolexec":   deny("runs another program for every toolchain step"),
		"exec":       deny("runs the built program through another program"),
		"vettool":    deny("runs another program as the analyzer"),
		"ldflags":    {kind: optLdflags},
		"gcflags":    deny("passes options to the compiler, which nova does not check"),
		"asmflags":   deny("passes options to the assembler, which nova does not check"),
		"gccgoflags": deny("passes options to gccgo, which nova does not check"),
		"compiler":   deny("picks another compiler"),
		"overlay":    deny("replaces source files with the files a JSON file names"),
		"modfile":    deny("reads another go.mod, whose replace lines can bring in code from anywhere"),
	}
	bools(m, "a", "n", "race", "msan", "asan", "v", "x", "work", "trimpath", "linkshared", "modcacherw", "cover", "buildvcs", "json")
	values(m, "p", "tags", "covermode", "coverpkg", "pgo", "mod", "buildmode", "installsuffix")
	paths(m, "C", "o", "pkgdir")
	return m
}

func goSpec(name string, extra func(m map[string]opt)) *argSpec {
	m := goBuildFlags()
	if extra != nil {
		extra(m)
	}
	return &argSpec{name: name, style: styleGo, opts: m, pos: posGo, afterDash: posGo}
}

func goTestSpec() *argSpec {
	return goSpec("go test", func(m map[string]opt) {
		test := map[string]opt{}
		bools(test, "benchmem", "short", "failfast", "fullpath", "json", "c", "v", "cover")
		values(test, "run", "skip", "bench", "benchtime", "count", "cpu", "parallel", "timeout", "shuffle",
			"list", "fuzz", "fuzztime", "fuzzminimizetime", "vet", "memprofilerate", "blockprofilerate",
			"mutexprofilefraction", "covermode", "coverpkg")
		paths(test, "coverprofile", "cpuprofile", "memprofile", "blockprofile", "mutexprofile", "trace", "outputdir", "o")
		test["args"] = deny("passes the words after it to the test binary unchecked")
		for k, v := range test {
			m[k] = v
			if k != "args" {
				m["test."+k] = v
			}
		}
	})
}

// goVetAnalyzers are go vet's analyzer switches.
var goVetAnalyzers = []string{"all", "appends", "asmdecl", "assign", "atomic", "bools", "buildtag", "cgocall",
	"composites", "copylocks", "defers", "directive", "errorsas", "framepointer", "httpresponse",
	"ifaceassert", "loopclosure", "lostcancel", "nilfunc", "printf", "shift", "sigchanyzer", "slog",
	"stdmethods", "stdversion", "stringintconv", "structtag", "testinggoroutine", "tests", "timeformat",
	"unmarshal", "unreachable", "unsafeptr", "unusedresult", "waitgroup", "hostport", "json"}

func checkGo(c *argvCheck, i int) string {
	if i >= len(c.argv) {
		return ""
	}
	sub := c.argv[i]
	var spec *argSpec
	switch sub {
	case "build":
		spec = goSpec("go build", nil)
	case "test":
		spec = goTestSpec()
	case "vet":
		spec = goSpec("go vet", func(m map[string]opt) {
			bools(m, goVetAnalyzers...)
			values(m, "c", "printf.funcs")
		})
	case "list":
		spec = goSpec("go list", func(m map[string]opt) {
			bools(m, "m", "u", "versions", "retracted", "deps", "test", "e", "find", "export", "compiled", "json")
			values(m, "f")
		})
	case "version":
		spec = &argSpec{name: "go version", style: styleGo, opts: map[string]opt{}, pos: posPath}
		bools(spec.opts, "m", "v", "json")
	case "doc":
		spec = &argSpec{name: "go doc", style: styleGo, opts: map[string]opt{}, pos: posAny}
		bools(spec.opts, "all", "c", "cmd", "short", "src", "u")
	case "env":
		spec = &argSpec{name: "go env", style: styleGo, pos: posAny, opts: map[string]opt{
			"w": deny("changes go's configuration (go env -w GOFLAGS=-toolexec=… would run another program)"),
			"u": deny("changes go's configuration"),
		}}
		bools(spec.opts, "json", "changed")
	case "mod":
		return checkGoMod(c, i+1)
	case "run":
		return "`go run` builds and runs a program"
	case "generate":
		return "`go generate` runs the commands of //go:generate lines"
	case "tool":
		return "`go tool` runs another program"
	case "fmt":
		return "`go fmt` rewrites files in place, outside the changeset"
	case "get", "install":
		return "`go " + sub + "` changes go.mod or installs programs outside the workspace"
	case "clean":
		return "`go clean` deletes files and caches"
	default:
		return "`go " + sub + "` is not a subcommand nova knows to be safe"
	}
	_, r := c.scan(i+1, spec)
	return r
}

func checkGoMod(c *argvCheck, i int) string {
	if i >= len(c.argv) {
		return ""
	}
	switch sub := c.argv[i]; sub {
	case "download", "graph", "verify", "why":
		spec := &argSpec{name: "go mod " + sub, style: styleGo, opts: map[string]opt{}, pos: posGo}
		bools(spec.opts, "json", "x", "m", "vendor")
		values(spec.opts, "go")
		paths(spec.opts, "reuse")
		_, r := c.scan(i+1, spec)
		return r
	default:
		return "`go mod " + sub + "` writes go.mod or go.sum outside the changeset"
	}
}

func checkGofmt(c *argvCheck, i int) string {
	spec := &argSpec{name: "gofmt", style: styleGo, pos: posPath, afterDash: posPath, opts: map[string]opt{
		"w": deny("rewrites files in place, outside the changeset"),
	}}
	bools(spec.opts, "l", "d", "e", "s")
	values(spec.opts, "r")
	paths(spec.opts, "cpuprofile")
	_, r := c.scan(i, spec)
	return r
}

// --- npm, pnpm, yarn, npx -----------------------------------------------

// pmSpec describes a package manager: its options, and what each
// subcommand is.
type pmSpec struct {
	name string
	opts map[string]opt
	// script lists subcommands that run one package.json script by
	// name (run); test lists those that run the test script.
	script, test []string
	// denied maps subcommands to why they are not approval-free.
	denied map[string]string
}

func pmOptions() map[string]opt {
	m := map[string]opt{
		"--node-options":  deny("passes options to node (--require runs any file)"),
		"--script-shell":  deny("runs the scripts with another program"),
		"--shell":         deny("runs commands with another program"),
		"-c":              deny("runs the command it is given"),
		"--call":          deny("runs the command it is given"),
		"--userconfig":    deny("reads another configuration file, which can set the script shell"),
		"--globalconfig":  deny("reads another configuration file, which can set the script shell"),
		"--config":        deny("sets configuration, which can set the script shell"),
		"--package":       deny("installs and runs another package"),
		"--yes":           deny("lets it download and run a package that is not installed"),
		"-y":              deny("lets it download and run a package that is not installed"),
		"--unsafe-perm":   deny("runs scripts with more privileges"),
		"--ignore-engine": {kind: optBool},
	}
	bools(m, "--silent", "-s", "--quiet", "-q", "--if-present", "--json", "--no-color",
		"--workspaces", "--include-workspace-root", "--ignore-scripts", "--offline", "--no-audit", "--no-fund",
		"--recursive", "-r", "--parallel", "--stream", "--verbose", "--color")
	values(m, "--loglevel", "--workspace", "-w", "--filter", "--reporter")
	paths(m, "--prefix", "--dir", "-C", "--cwd")
	return m
}

func npmSpec() pmSpec {
	return pmSpec{name: "npm", opts: pmOptions(),
		test: []string{"test", "t", "tst"}, script: []string{"run", "run-script", "rum", "urn"},
		denied: map[string]string{
			"exec": "runs a package's program (npm exec downloads and runs any package)", "x": "runs a package's program (npm exec downloads and runs any package)",
			"explore": "runs a shell in a package", "init": "runs a create-* package", "create": "runs a create-* package",
			"install": "installs packages and runs their install scripts", "i": "installs packages and runs their install scripts",
			"ci": "installs packages and runs their install scripts", "add": "installs packages and runs their install scripts",
			"update": "installs packages and runs their install scripts", "rebuild": "runs the packages' install scripts",
			"publish": "publishes the package", "config": "changes npm's configuration (the script shell, node options)",
		}}
}

func pnpmSpec() pmSpec {
	s := npmSpec()
	s.name = "pnpm"
	s.denied["dlx"] = "downloads and runs a package"
	s.denied["exec"] = "runs any program with the packages' binaries on PATH"
	s.script = append(s.script, "run")
	return s
}

func yarnSpec() pmSpec {
	s := npmSpec()
	s.name = "yarn"
	s.denied["dlx"] = "downloads and runs a package"
	s.denied["exec"] = "runs any program"
	s.denied["node"] = "runs node with any arguments"
	return s
}

// checkPackageManager checks npm/pnpm/yarn: the test script or a named
// script (package.json is the user's configuration); arguments after --
// go to the script and must not be options.
func (c *argvCheck) checkPackageManager(i int, pm pmSpec) string {
	global := &argSpec{name: pm.name, style: styleGNU, opts: pm.opts, pos: posStopFirst}
	j, r := c.scan(i, global)
	if r != "" || j >= len(c.argv) {
		return r
	}
	sub := c.argv[j]
	if why, ok := pm.denied[sub]; ok {
		return "`" + pm.name + " " + sub + "` " + why
	}
	spec := &argSpec{name: pm.name + " " + sub, style: styleGNU, opts: pm.opts, pos: posNone, afterDash: posPath}
	switch {
	case contains(pm.test, sub):
	case contains(pm.script, sub):
		spec.pos = posName
	default:
		return "`" + pm.name + " " + sub + "` is not a subcommand nova knows to be safe"
	}
	_, r = c.scan(j+1, spec)
	return r
}

func checkNpx(c *argvCheck, i int) string {
	global := &argSpec{name: "npx", style: styleGNU, opts: pmOptions(), pos: posStopFirst}
	global.opts["-p"] = deny("installs and runs another package")
	bools(global.opts, "--no-install", "--no")
	j, r := c.scan(i, global)
	if r != "" || j >= len(c.argv) {
		return r
	}
	bin := c.argv[j]
	if strings.ContainsAny(bin, "/\\@") || !c.localBin(bin) {
		return "`npx " + bin + "` downloads and runs the package when node_modules/.bin has no " + bin
	}
	sub := &argvCheck{root: c.root, dir: c.dir, argv: c.argv[j:], pinned: max(c.pinned-j, 0)}
	if bin == "tsc" {
		_, r := sub.scan(1, tscSpec())
		return r
	}
	return sub.generic(1)
}

// localBin reports whether node_modules/.bin/name exists in the command's
// directory or one of its parents inside the workspace.
func (c *argvCheck) localBin(name string) bool {
	_, abs, err := ConfineRel(c.root, filepath.FromSlash(c.dir))
	if err != nil {
		return false
	}
	rootReal, err := RealRoot(c.root)
	if err != nil {
		return false
	}
	for d := abs; within(rootReal, d); d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, "node_modules", ".bin", name)); err == nil {
			return true
		}
		if d == rootReal {
			break
		}
	}
	return false
}

func tscSpec() *argSpec {
	m := map[string]opt{
		"--watch": deny("keeps running until it is stopped"),
		"-w":      deny("keeps running until it is stopped"),
	}
	bools(m, "--noemit", "--strict", "--skiplibcheck", "--incremental", "--listfiles", "--listemittedfiles",
		"--noemitonerror", "--declaration", "--emitdeclarationonly", "-b", "--build", "--verbose", "--force",
		"--extendeddiagnostics", "--diagnostics", "--version", "-v", "--showconfig", "--pretty", "--noimplicitany",
		"--allowjs", "--checkjs", "--esmoduleinterop", "--sourcemap", "--dry", "--clean")
	values(m, "--target", "-t", "--module", "-m", "--lib", "--jsx", "--moduleresolution", "--locale")
	paths(m, "--project", "-p", "--outdir", "--outfile", "--rootdir", "--tsbuildinfofile", "--generatetrace", "--declarationdir")
	return &argSpec{name: "tsc", style: styleGNU, fold: true, opts: m, pos: posPath, afterDash: posPath}
}

// --- node, python, pytest -------------------------------------------------

func checkNode(c *argvCheck, i int) string {
	m := map[string]opt{
		"-e": deny("runs code given on the command line"), "--eval": deny("runs code given on the command line"),
		"-p": deny("runs code given on the command line"), "--print": deny("runs code given on the command line"),
		"-r": deny("loads any module first (--require)"), "--require": deny("loads any module first"),
		"--import": deny("loads any module first"), "--loader": deny("loads a module loader, which runs its code"),
		"--experimental-loader": deny("loads a module loader, which runs its code"),
		"--env-file":            deny("reads environment variables (NODE_OPTIONS) from a file"),
		"-i":                    deny("opens an interactive session"), "--interactive": deny("opens an interactive session"),
	}
	bools(m, "--test", "-c", "--check", "--version", "-v", "--no-warnings", "--enable-source-maps", "--test-only",
		"--trace-warnings", "--experimental-strip-types", "--no-deprecation")
	values(m, "--test-name-pattern", "--test-reporter", "--test-concurrency")
	spec := &argSpec{name: "node", style: styleGNU, opts: m, pos: posStopFirst}
	j, r := c.scan(i, spec)
	if r != "" || j >= len(c.argv) {
		return r
	}
	// node SCRIPT ARGS...: the script must be a workspace file; its
	// arguments are its own.
	if c.argv[j] == "-" {
		return "`node -` runs code read from standard input"
	}
	return c.path(c.argv[j])
}

func pythonSpec() *argSpec {
	m := map[string]opt{
		"-c": deny("runs code given on the command line"),
		"-i": deny("opens an interactive session"),
	}
	bools(m, "-B", "-u", "-I", "-E", "-s", "-S", "-O", "-q", "-b", "-v", "-x", "-P", "--version", "-V")
	values(m, "-W", "-X")
	return &argSpec{name: "python", style: styleGNU, opts: m, pos: posStopFirst}
}

func checkPython(c *argvCheck, i int) string {
	// python [options] -m MODULE args | python [options] SCRIPT args
	for j := i; j < len(c.argv); j++ {
		a := c.argv[j]
		if a == "--" || !strings.HasPrefix(a, "-") || a == "-" {
			break
		}
		if a == "-m" || (strings.HasPrefix(a, "-m") && !strings.HasPrefix(a, "--")) {
			pre := &argvCheck{root: c.root, dir: c.dir, argv: c.argv[:j], pinned: c.pinned}
			if _, r := pre.scan(i, pythonSpec()); r != "" {
				return r
			}
			mod, next := a[2:], j+1
			if mod == "" {
				if next >= len(c.argv) {
					return "option -m needs a module"
				}
				mod, next = c.argv[next], next+1
			}
			return c.pythonModule(mod, next)
		}
	}
	j, r := c.scan(i, pythonSpec())
	if r != "" || j >= len(c.argv) {
		return r
	}
	if c.argv[j] == "-" {
		return "`python -` runs code read from standard input"
	}
	return c.path(c.argv[j])
}

func (c *argvCheck) pythonModule(mod string, i int) string {
	switch mod {
	case "pytest":
		_, r := c.scan(i, pytestSpec())
		return r
	case "unittest":
		m := map[string]opt{}
		bools(m, "-v", "-q", "-f", "-c", "-b", "--locals", "--durations")
		values(m, "-k", "-p")
		paths(m, "-s", "-t")
		_, r := c.scan(i, &argSpec{name: "python -m unittest", style: styleGNU, opts: m, pos: posAny, afterDash: posAny})
		return r
	case "py_compile", "compileall":
		return c.generic(i)
	case "pip":
		return "`python -m pip` installs packages and runs their build scripts"
	}
	return "`python -m " + mod + "` runs a module nova has no rules for"
}

func pytestSpec() *argSpec {
	m := map[string]opt{
		"-p":               deny("loads a plugin module, which runs its code"),
		"-o":               deny("overrides ini options (addopts can load plugins)"),
		"--override-ini":   deny("overrides ini options (addopts can load plugins)"),
		"--pdb":            deny("opens an interactive debugger"),
		"--pdbcls":         deny("loads a debugger class, which runs its code"),
		"--trace":          deny("opens an interactive debugger"),
		"--debug":          deny("writes a debug log"),
		"--pastebin":       deny("sends the output to a web service"),
		"--import-mode":    {kind: optValue},
		"--confcutdir":     {kind: optPath},
		"--ignore-glob":    {kind: optValue},
		"--deselect":       {kind: optValue},
		"--cache-clear":    {kind: optBool},
		"--strict-markers": {kind: optBool},
	}
	bools(m, "-q", "--quiet", "-v", "--verbose", "-x", "--exitfirst", "-s", "-l", "--showlocals", "--lf", "--last-failed",
		"--ff", "--failed-first", "--nf", "--new-first", "--sw", "--stepwise", "--co", "--collect-only", "--no-header",
		"--no-summary", "--disable-warnings", "--strict", "--runxfail", "--setup-show", "--version", "-V", "--full-trace")
	values(m, "-k", "-m", "--tb", "--maxfail", "--durations", "-r", "-n", "--capture", "--color", "-W", "--timeout", "--count")
	paths(m, "--junitxml", "--junit-xml", "--rootdir", "-c", "--config-file", "--basetemp", "--ignore")
	return &argSpec{name: "pytest", style: styleGNU, opts: m, pos: posPytest, afterDash: posPytest}
}

// --- git --------------------------------------------------------------------

var gitDenied = map[string]string{
	"difftool": "runs a configured diff tool", "mergetool": "runs a configured merge tool",
	"submodule":     "runs shell commands (submodule foreach) and fetches from remotes",
	"filter-branch": "runs shell commands", "filter-repo": "runs code it is given",
	"rebase": "runs shell commands (--exec) and rewrites history", "bisect": "runs a command (bisect run)",
	"clone":     "talks to a remote, whose transport can be a command (ext::, upload-pack)",
	"fetch":     "talks to a remote, whose transport can be a command (ext::, upload-pack)",
	"pull":      "talks to a remote, whose transport can be a command (ext::, upload-pack)",
	"push":      "talks to a remote, whose transport can be a command (ext::, receive-pack)",
	"ls-remote": "talks to a remote, whose transport can be a command", "archive": "can talk to a remote (--remote)",
	"config": "changes git's configuration (core.sshCommand, core.pager and ! aliases run programs)",
	"daemon": "serves the repository on the network", "instaweb": "starts a web server", "web--browse": "runs a browser",
	"send-email": "sends mail", "credential": "reads stored credentials", "hook": "runs the repository's hooks",
}

func checkGit(c *argvCheck, i int) string {
	g := map[string]opt{
		"-c":           deny("sets configuration such as core.sshCommand or core.pager, which runs another program"),
		"--config-env": deny("sets configuration such as core.sshCommand or core.pager, which runs another program"),
		"--exec-path":  deny("runs git's commands from another directory"),
		"-p":           deny("runs the pager"), "--paginate": deny("runs the pager"),
		"--upload-pack": deny("runs another program as the remote's upload-pack"),
	}
	g["--git-dir"] = deny("points git at another repository, whose configuration can run programs")
	g["--work-tree"] = deny("points git at another work tree")
	g["--bare"] = deny("treats the directory as a repository, whose configuration can run programs")
	bools(g, "--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs", "--no-replace-objects")
	paths(g, "-C")
	j, r := c.scan(i, &argSpec{name: "git", style: styleGNU, opts: g, pos: posStopFirst})
	if r != "" || j >= len(c.argv) {
		return r
	}
	if r := c.gitRepository(i, j); r != "" {
		return r
	}
	sub := c.argv[j]
	if why, ok := gitDenied[sub]; ok {
		return "`git " + sub + "` " + why
	}
	m := map[string]opt{
		"--ext-diff":             deny("runs the external diff program"),
		"-O":                     deny("runs the pager on the matching files"),
		"--open-files-in-pager":  deny("runs the pager on the matching files"),
		"--upload-pack":          deny("runs another program as the remote's upload-pack"),
		"--exec":                 deny("runs another program"),
		"--receive-pack":         deny("runs another program as the remote's receive-pack"),
		"--textconv":             deny("runs the configured text conversion programs"),
		"--filters":              deny("runs the configured filter programs"),
		"--output":               {kind: optPath},
		"--no-textconv":          {kind: optBool},
		"--no-ext-diff":          {kind: optBool},
		"--exclude-standard":     {kind: optBool},
		"--ignore-space-at-eol":  {kind: optBool},
		"--ignore-space-change":  {kind: optBool},
		"--ignore-all-space":     {kind: optBool},
		"--ignore-blank-lines":   {kind: optBool},
		"--show-current-patch":   {kind: optBool},
		"--untracked-files":      {kind: optBool}, // --untracked-files=no
		"--abbrev-commit":        {kind: optBool},
		"--show-toplevel":        {kind: optBool},
		"--show-prefix":          {kind: optBool},
		"--is-inside-work-tree":  {kind: optBool},
		"--abbrev-ref":           {kind: optBool},
		"--symbolic-full-name":   {kind: optBool},
		"--show-current":         {kind: optBool},
		"--name-only":            {kind: optBool},
		"--name-status":          {kind: optBool},
		"--no-renames":           {kind: optBool},
		"--first-parent":         {kind: optBool},
		"--no-merges":            {kind: optBool},
		"--no-decorate":          {kind: optBool},
		"--full-name":            {kind: optBool},
		"--ignore-submodules":    {kind: optBool},
		"--no-patch":             {kind: optBool},
		"--word-diff":            {kind: optBool},
		"--color-words":          {kind: optBool},
		"--find-renames":         {kind: optBool},
		"--diff-filter":          {kind: optValue},
		"--max-count":            {kind: optValue},
		"--pretty":               {kind: optBool}, // --pretty=format
		"--format":               {kind: optValue},
		"--grep":                 {kind: optValue},
		"--author":               {kind: optValue},
		"--committer":            {kind: optValue},
		"--since":                {kind: optValue},
		"--until":                {kind: optValue},
		"--after":                {kind: optValue},
		"--before":               {kind: optValue},
		"--date":                 {kind: optValue},
		"--skip":                 {kind: optValue},
		"--unified":              {kind: optValue},
		"--abbrev":               {kind: optBool}, // --abbrev=N
		"--color":                {kind: optBool}, // --color=never
		"--no-color":             {kind: optBool},
		"--decorate":             {kind: optBool},
		"--porcelain":            {kind: optBool},
		"--short":                {kind: optBool},
		"--long":                 {kind: optBool},
		"--branch":               {kind: optBool},
		"--stat":                 {kind: optBool},
		"--shortstat":            {kind: optBool},
		"--numstat":              {kind: optBool},
		"--summary":              {kind: optBool},
		"--oneline":              {kind: optBool},
		"--graph":                {kind: optBool},
		"--all":                  {kind: optBool},
		"--cached":               {kind: optBool},
		"--staged":               {kind: optBool},
		"--patch":                {kind: optBool},
		"--raw":                  {kind: optBool},
		"--check":                {kind: optBool},
		"--reverse":              {kind: optBool},
		"--merges":               {kind: optBool},
		"--tags":                 {kind: optBool},
		"--always":               {kind: optBool},
		"--dirty":                {kind: optBool},
		"--others":               {kind: optBool},
		"--modified":             {kind: optBool},
		"--deleted":              {kind: optBool},
		"--ignored":              {kind: optBool},
		"--verify":               {kind: optBool},
		"--quiet":                {kind: optBool},
		"--ignore-case":          {kind: optBool},
		"--line-number":          {kind: optBool},
		"--count":                {kind: optBool},
		"--files-with-matches":   {kind: optBool},
		"--extended-regexp":      {kind: optBool},
		"--fixed-strings":        {kind: optBool},
		"--word-regexp":          {kind: optBool},
		"--numbered":             {kind: optBool},
		"--email":                {kind: optBool},
		"--show-email":           {kind: optBool},
		"--root":                 {kind: optBool},
		"--full-history":         {kind: optBool},
		"--follow":               {kind: optBool},
		"--recursive":            {kind: optBool},
		"--name-only-no-renames": {kind: optBool},
	}
	bools(m, "-p", "-s", "-b", "-z", "-q", "-i", "-l", "-w", "-c", "-E", "-F", "-r", "-t", "-u", "-M", "-a", "-o", "-d", "-m")
	values(m, "-U", "-L", "-e")
	switch sub {
	case "grep":
		bools(m, "-n")
	case "status", "diff", "log", "show", "blame", "ls-files", "ls-tree", "rev-parse", "shortlog", "describe", "whatchanged", "rev-list", "cat-file", "diff-tree", "diff-index", "diff-files", "annotate":
		values(m, "-n")
	default:
		return "`git " + sub + "` is not a read-only subcommand nova knows (it may change the repository or run programs)"
	}
	_, r = c.scan(j+1, &argSpec{name: "git " + sub, style: styleGNU, opts: m, pos: posGitRefs, afterDash: posPath})
	return r
}

// gitRepository checks the repository git will find: starting in the
// command's directory (moved by each -C among argv[i:j]) and walking up, the
// first directory with a .git, or that is itself a bare repository, must be
// the workspace root's .git (agents cannot write .git/) or lie above the
// workspace. A repository an agent wrote inside the workspace (sub/.git/config,
// or HEAD, objects/ and a config with core.fsmonitor) would make a read-only
// git command run the program its configuration names.
func (c *argvCheck) gitRepository(i, j int) string {
	rootReal, err := RealRoot(c.root)
	if err != nil {
		return "the workspace root does not resolve"
	}
	rel := filepath.FromSlash(c.dir)
	for k := i; k < j; k++ {
		switch a := c.argv[k]; {
		case a == "-C" && k+1 < j:
			rel = filepath.Join(rel, c.argv[k+1])
			k++
		case strings.HasPrefix(a, "-C") && len(a) > 2:
			rel = filepath.Join(rel, a[2:])
		}
	}
	_, start, err := ConfineRel(c.root, rel)
	if err != nil {
		return "git's directory " + quote(rel) + " is outside the workspace"
	}
	for d := start; within(rootReal, d); d = filepath.Dir(d) {
		gitAt := exists(filepath.Join(d, ".git"))
		bare := exists(filepath.Join(d, "HEAD")) && exists(filepath.Join(d, "objects"))
		if d == rootReal {
			if !gitAt && bare {
				return "the workspace root looks like a bare git repository, whose configuration can run programs"
			}
			return ""
		}
		if gitAt || bare {
			return "git would use the repository in " + quote(relOr(rootReal, d)) + " inside the workspace, whose configuration can run programs"
		}
	}
	return ""
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// --- cargo ------------------------------------------------------------------

func cargoOptions() map[string]opt {
	m := map[string]opt{
		"--config": deny("sets configuration such as build.rustc-wrapper, which runs another program"),
		"-Z":       deny("turns on unstable options"),
	}
	bools(m, "-q", "--quiet", "-v", "--verbose", "--offline", "--locked", "--frozen", "--release", "-r",
		"--all-targets", "--workspace", "--all", "--lib", "--bins", "--tests", "--examples", "--benches",
		"--no-run", "--all-features", "--no-default-features", "--check", "--doc", "--no-fail-fast", "--no-deps",
		"--keep-going", "--future-incompat-report")
	values(m, "--message-format", "-p", "--package", "--features", "-F", "--test", "--bin", "--example", "--bench",
		"-j", "--jobs", "--target", "--color", "--profile", "--exclude")
	paths(m, "--manifest-path", "--target-dir", "-C")
	return m
}

func checkCargo(c *argvCheck, i int) string {
	j, r := c.scan(i, &argSpec{name: "cargo", style: styleGNU, opts: cargoOptions(), pos: posStopFirst})
	if r != "" || j >= len(c.argv) {
		return r
	}
	sub := c.argv[j]
	spec := &argSpec{name: "cargo " + sub, style: styleGNU, opts: cargoOptions(), pos: posNone, afterDash: posNone}
	switch sub {
	case "build", "b", "check", "c", "doc", "d":
	case "test", "t", "bench":
		// a test-name filter; after -- the harness's options (the harness
		// is the workspace's code)
		spec.pos, spec.afterDash = posAny, posAny
	case "clippy":
		// after -- come rustc options (-C linker=… runs another program)
	case "fmt":
		spec.afterDash = posPath
	case "run", "r":
		return "`cargo run` builds and runs a program"
	case "install":
		return "`cargo install` installs programs outside the workspace"
	default:
		return "`cargo " + sub + "` is not a subcommand nova knows to be safe"
	}
	_, r = c.scan(j+1, spec)
	return r
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
