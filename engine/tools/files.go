package tools

import (
	"github.com/nova-dev/nova/engine/edits"
	"github.com/nova-dev/nova/internal/safefile"

	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Tool names (the same strings as engine/agents' Tool* constants).
const (
	NameReadFile    = "readFile"
	NameListFiles   = "listFiles"
	NameSearchFiles = "searchFiles"
	NameWriteFile   = "writeFile"
	NameEditFile    = "editFile"
	NameDeleteFile  = "deleteFile"
	NameRunCommand  = "runCommand"
)

// Caps of the file tools.
const (
	// MaxReadBytes is the largest file readFile and editFile load.
	MaxReadBytes = 4 << 20
	// MaxSearchFileBytes: larger files are skipped by searchFiles.
	MaxSearchFileBytes = 1 << 20
	// DefaultSearchResults / MaxSearchResults cap searchFiles' matches.
	DefaultSearchResults = 50
	MaxSearchResults     = 200
	// DefaultListResults / MaxListResults cap listFiles' entries.
	DefaultListResults = 300
	MaxListResults     = 2000
	// maxWalkFiles bounds how many files one walk visits.
	maxWalkFiles = 50000
	// maxLineShown is how much of a matching line searchFiles shows.
	maxLineShown = 200
)

// Core returns a registry holding the seven core tools.
func Core() *Registry {
	r := NewRegistry()
	for _, t := range CoreTools() {
		if err := r.Register(t); err != nil {
			panic(err) // the built-in schemas are constants; a test covers them
		}
	}
	return r
}

// CoreTools returns the definitions of the core tools.
func CoreTools() []Tool {
	// Argument names local models write for the core tools' own (Tool.Aliases).
	pathAliases := map[string]string{"file_path": "path", "filepath": "path", "filename": "path", "file": "path"}
	editAliases := map[string]string{
		"old_str": "search", "old_string": "search", "old_text": "search", "find": "search",
		"new_str": "replace", "new_string": "replace", "new_text": "replace",
	}
	contentAliases := map[string]string{"contents": "content", "text": "content", "code": "content"}
	return []Tool{
		{
			Name:        NameReadFile,
			Aliases:     pathAliases,
			Description: "Read a text file of the workspace. Shows the content staged by this run when the file was changed. Optional offset (first line, 1-based) and limit (number of lines).",
			Schema: json.RawMessage(`{"type":"object","properties":{
				"path":{"type":"string","minLength":1,"description":"file path relative to the workspace root"},
				"offset":{"type":"integer","minimum":1,"description":"first line to show (1-based)"},
				"limit":{"type":"integer","minimum":1,"description":"number of lines to show"}},
				"required":["path"],"additionalProperties":false}`),
			Timeout: 10 * time.Second,
			Run:     readFile,
		},
		{
			Name:        NameListFiles,
			Aliases:     pathAliases,
			Description: "List files under a directory of the workspace (default: the root), skipping what .gitignore excludes. recursive=false lists one level with directories ending in /.",
			Schema: json.RawMessage(`{"type":"object","properties":{
				"path":{"type":"string","description":"directory relative to the workspace root (default .)"},
				"recursive":{"type":"boolean","description":"list the whole tree (default true)"},
				"maxResults":{"type":"integer","minimum":1,"maximum":2000}},
				"additionalProperties":false}`),
			Timeout: 20 * time.Second,
			Run:     listFiles,
		},
		{
			Name:        NameSearchFiles,
			Aliases:     pathAliases,
			Description: "Search file contents with a regular expression (RE2 syntax), skipping what .gitignore excludes and binary files. Returns path:line: text for each match.",
			Schema: json.RawMessage(`{"type":"object","properties":{
				"pattern":{"type":"string","minLength":1,"description":"regular expression (RE2)"},
				"path":{"type":"string","description":"directory to search (default .)"},
				"glob":{"type":"string","description":"only files whose name matches, e.g. *.go"},
				"ignoreCase":{"type":"boolean"},
				"maxResults":{"type":"integer","minimum":1,"maximum":200}},
				"required":["pattern"],"additionalProperties":false}`),
			Timeout: 30 * time.Second,
			Run:     searchFiles,
		},
		{
			Name:        NameWriteFile,
			Aliases:     mergeAliases(pathAliases, contentAliases),
			Description: "Create or replace a file with the given content. The write is staged in the run's changeset for review; nothing reaches the disk until it is approved.",
			Schema: json.RawMessage(`{"type":"object","properties":{
				"path":{"type":"string","minLength":1,"description":"file path relative to the workspace root"},
				"content":{"type":"string","description":"the complete new content of the file"}},
				"required":["path","content"],"additionalProperties":false}`),
			Mutating: true,
			Timeout:  10 * time.Second,
			Run:      writeFile,
		},
		{
			Name:        NameEditFile,
			Aliases:     mergeAliases(pathAliases, editAliases),
			Description: "Replace a piece of text in a file (search/replace). search must match one place: exactly, or once trailing spaces, surrounding blank lines or a uniform indentation are set aside. all: true replaces every exact occurrence. Staged in the run's changeset.",
			Schema: json.RawMessage(`{"type":"object","properties":{
				"path":{"type":"string","minLength":1,"description":"file path relative to the workspace root"},
				"search":{"type":"string","minLength":1,"description":"the text to find, copied from the file (whole lines are best)"},
				"replace":{"type":"string","description":"text to put in its place"},
				"all":{"type":"boolean","description":"replace every occurrence (default false)"}},
				"required":["path","search","replace"],"additionalProperties":false}`),
			Mutating: true,
			Timeout:  10 * time.Second,
			Run:      editFile,
		},
		{
			Name:        NameDeleteFile,
			Aliases:     pathAliases,
			Description: "Delete a file. The deletion is staged in the run's changeset for review.",
			Schema: json.RawMessage(`{"type":"object","properties":{
				"path":{"type":"string","minLength":1,"description":"file path relative to the workspace root"}},
				"required":["path"],"additionalProperties":false}`),
			Mutating: true,
			Timeout:  10 * time.Second,
			Run:      deleteFile,
		},
		{
			Name:        NameRunCommand,
			Description: "Run an allowlisted command (e.g. go test ./...) in the workspace, without a shell: no pipes, redirections or variables. Returns the exit code and the output.",
			Schema: json.RawMessage(`{"type":"object","properties":{
				"command":{"type":"string","minLength":1,"description":"the command line, e.g. go test ./..."},
				"dir":{"type":"string","description":"working directory relative to the workspace root (default .)"}},
				"required":["command"],"additionalProperties":false}`),
			Mutating: false,
			Timeout:  -1, // approval first, then the configured command timeout
			Run:      runCommand,
		},
	}
}

// mergeAliases joins alias tables into a new one.
func mergeAliases(tables ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, t := range tables {
		maps.Copy(out, t)
	}
	return out
}

// --- file view ---------------------------------------------------------------

// fileView is the content of a path as the run sees it: staged content
// overlays the disk.
type fileView struct {
	rel, abs string
	content  []byte
	exists   bool
	isDir    bool
	staged   bool
}

func view(ctx context.Context, env *Env, p string) (fileView, error) {
	rel, abs, err := ConfineRel(env.Root, p)
	if err != nil {
		return fileView{}, err
	}
	if rel == ".nova/nova.db" || strings.HasPrefix(rel, ".nova/nova.db.") {
		return fileView{}, denied("%s is nova's database", rel)
	}
	v := fileView{rel: rel, abs: abs}
	if env.Stage != nil {
		sf, ok, err := env.Stage.Lookup(ctx, rel)
		if err != nil {
			return v, fmt.Errorf("read staged %s: %w", rel, err)
		}
		if ok {
			v.staged = true
			v.exists = !sf.Deleted
			v.content = sf.Content
			return v, nil
		}
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return v, nil
	case err != nil:
		return v, fmt.Errorf("stat %s: %w", rel, err)
	case fi.IsDir():
		v.exists, v.isDir = true, true
		return v, nil
	case fi.Size() > MaxReadBytes:
		return v, fmt.Errorf("%s is %d bytes, larger than the %d-byte limit of the file tools", rel, fi.Size(), MaxReadBytes)
	}
	data, err := safefile.ReadFile(abs, MaxReadBytes) // a FIFO must not block a run
	if err != nil {
		return v, fmt.Errorf("read %s: %w", rel, err)
	}
	v.exists, v.content = true, data
	return v, nil
}

// isBinary reports content nova does not show or edit as text.
func isBinary(b []byte) bool {
	head := b[:min(len(b), 8000)]
	return bytes.IndexByte(head, 0) >= 0 || !utf8.Valid(b)
}

func decodeArgs[T any](args json.RawMessage) (T, error) {
	var v T
	if err := json.Unmarshal(args, &v); err != nil {
		return v, invalid("%v", err)
	}
	return v, nil
}

// --- readFile ------------------------------------------------------------------

func readFile(ctx context.Context, env *Env, raw json.RawMessage) (Output, error) {
	a, err := decodeArgs[struct {
		Path   string `json:"path"`
		Offset int    `json:"offset"`
		Limit  int    `json:"limit"`
	}](raw)
	if err != nil {
		return Output{}, err
	}
	v, err := view(ctx, env, a.Path)
	if err != nil {
		return Output{}, err
	}
	switch {
	case !v.exists:
		return Output{}, fmt.Errorf("%w: %s (use listFiles to see what exists)", ErrFileNotFound, v.rel)
	case v.isDir:
		return Output{}, fmt.Errorf("%s is a directory; use listFiles", v.rel)
	case isBinary(v.content):
		return Output{Text: fmt.Sprintf("%s is a binary file (%d bytes); not shown", v.rel, len(v.content))}, nil
	}
	text := string(v.content)
	if a.Offset == 0 && a.Limit == 0 {
		if text == "" {
			return Output{Text: fmt.Sprintf("(%s is empty)", v.rel)}, nil
		}
		return Output{Text: text}, nil
	}
	lines := strings.SplitAfter(text, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	first := max(a.Offset, 1)
	if first > len(lines) {
		return Output{}, fmt.Errorf("%s has %d lines; offset %d is past the end", v.rel, len(lines), first)
	}
	last := len(lines)
	if a.Limit > 0 {
		last = min(last, first-1+a.Limit)
	}
	return Output{Text: fmt.Sprintf("[%s lines %d-%d of %d]\n%s", v.rel, first, last, len(lines), strings.Join(lines[first-1:last], ""))}, nil
}

// --- walking -------------------------------------------------------------------

// walkFiles calls fn for every entry below startRel (a confined, slash
// separated relative path) in lexical order, skipping .git directories,
// .nova (unless the walk starts inside it), nova's database and what
// .gitignore files exclude. Symlinks are reported but not followed.
func walkFiles(ctx context.Context, root, startRel string, fn func(rel string, d fs.DirEntry) error) error {
	rootReal, err := RealRoot(root)
	if err != nil {
		return err
	}
	ig := &Ignorer{}
	// .gitignore files of the directories above the start apply too.
	if startRel != "." {
		dir := ""
		for _, part := range strings.Split(startRel, "/") {
			loadIgnore(ig, rootReal, dir)
			dir = path.Join(dir, part)
		}
	}
	start := filepath.Join(rootReal, filepath.FromSlash(startRel))
	visited := 0
	return filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil {
			if p == start {
				return err
			}
			return nil // unreadable entry: skip it
		}
		rel, rerr := filepath.Rel(rootReal, p)
		if rerr != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			// .git is version control's; .nova is nova's own (agents may
			// still read it by naming it, or list it explicitly).
			if d.Name() == ".git" || (rel == ".nova" && startRel == ".") || (rel != startRel && ig.Ignored(rel, true)) {
				return filepath.SkipDir
			}
			if rel == "." {
				loadIgnore(ig, rootReal, "")
			} else {
				loadIgnore(ig, rootReal, rel)
			}
			if rel == startRel {
				return nil
			}
			return fn(rel, d)
		}
		if rel == ".nova/nova.db" || strings.HasPrefix(rel, ".nova/nova.db.") || ig.Ignored(rel, false) {
			return nil
		}
		visited++
		if visited > maxWalkFiles {
			return errWalkLimit
		}
		return fn(rel, d)
	})
}

var errWalkLimit = errors.New("walk limit reached")

func loadIgnore(ig *Ignorer, rootReal, dirRel string) {
	data, err := safefile.ReadFile(filepath.Join(rootReal, filepath.FromSlash(dirRel), ".gitignore"), 1<<20)
	if err == nil {
		ig.Add(dirRel, data)
	}
}

// under reports whether rel is dir or inside it ("." holds everything).
func under(dir, rel string) bool {
	return dir == "." || rel == dir || strings.HasPrefix(rel, dir+"/")
}

// --- listFiles -----------------------------------------------------------------

func listFiles(ctx context.Context, env *Env, raw json.RawMessage) (Output, error) {
	a, err := decodeArgs[struct {
		Path       string `json:"path"`
		Recursive  *bool  `json:"recursive"`
		MaxResults int    `json:"maxResults"`
	}](raw)
	if err != nil {
		return Output{}, err
	}
	recursive := a.Recursive == nil || *a.Recursive
	limit := a.MaxResults
	if limit <= 0 {
		limit = DefaultListResults
	}
	limit = min(limit, MaxListResults)
	dirRel, dirAbs, err := ConfineRel(env.Root, a.Path)
	if err != nil {
		return Output{}, err
	}
	fi, err := os.Stat(dirAbs)
	if err != nil || !fi.IsDir() {
		if errors.Is(err, fs.ErrNotExist) || err == nil {
			return Output{}, fmt.Errorf("%w: %s is not a directory", ErrFileNotFound, dirRel)
		}
		return Output{}, fmt.Errorf("list %s: %w", dirRel, err)
	}

	entries := map[string]bool{} // rel -> is a directory
	walkErr := walkFiles(ctx, env.Root, dirRel, func(rel string, d fs.DirEntry) error {
		if !recursive {
			parent := path.Dir(rel)
			if (dirRel == "." && parent != ".") || (dirRel != "." && parent != dirRel) {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			entries[rel] = d.IsDir()
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() {
			entries[rel] = false
		}
		return nil
	})
	if walkErr != nil && !errors.Is(walkErr, errWalkLimit) {
		return Output{}, fmt.Errorf("list %s: %w", dirRel, walkErr)
	}
	if env.Stage != nil {
		staged, err := env.Stage.Staged(ctx)
		if err != nil {
			return Output{}, fmt.Errorf("list staged files: %w", err)
		}
		for _, sf := range staged {
			if !under(dirRel, sf.Path) || sf.Path == dirRel {
				continue
			}
			name := sf.Path
			isDir := false
			if !recursive {
				rest := strings.TrimPrefix(sf.Path, dirRel+"/")
				if dirRel == "." {
					rest = sf.Path
				}
				if first, _, nested := strings.Cut(rest, "/"); nested {
					name = path.Join(dirRel, first)
					isDir = true
				}
			}
			if sf.Deleted && !isDir {
				delete(entries, name)
				continue
			}
			entries[name] = isDir
		}
	}
	names := make([]string, 0, len(entries))
	for n, isDir := range entries {
		if isDir {
			n += "/"
		}
		names = append(names, n)
	}
	slices.Sort(names)
	var b strings.Builder
	if len(names) == 0 {
		fmt.Fprintf(&b, "(no files under %s)", dirRel)
	}
	for i, n := range names {
		if i == limit {
			fmt.Fprintf(&b, "[%d more entries not shown; list a subdirectory or raise maxResults]\n", len(names)-limit)
			break
		}
		b.WriteString(n)
		b.WriteByte('\n')
	}
	if errors.Is(walkErr, errWalkLimit) {
		fmt.Fprintf(&b, "[stopped after %d files; list a subdirectory]\n", maxWalkFiles)
	}
	return Output{Text: strings.TrimRight(b.String(), "\n")}, nil
}

// --- searchFiles ---------------------------------------------------------------

func searchFiles(ctx context.Context, env *Env, raw json.RawMessage) (Output, error) {
	a, err := decodeArgs[struct {
		Pattern    string `json:"pattern"`
		Path       string `json:"path"`
		Glob       string `json:"glob"`
		IgnoreCase bool   `json:"ignoreCase"`
		MaxResults int    `json:"maxResults"`
	}](raw)
	if err != nil {
		return Output{}, err
	}
	expr := a.Pattern
	if a.IgnoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return Output{}, invalid("searchFiles: pattern is not a valid RE2 regular expression: %v", err)
	}
	if a.Glob != "" {
		if _, err := path.Match(a.Glob, "x"); err != nil {
			return Output{}, invalid("searchFiles: glob %q: %v", a.Glob, err)
		}
	}
	limit := a.MaxResults
	if limit <= 0 {
		limit = DefaultSearchResults
	}
	limit = min(limit, MaxSearchResults)
	dirRel, _, err := ConfineRel(env.Root, a.Path)
	if err != nil {
		return Output{}, err
	}
	staged := map[string]StagedFile{}
	if env.Stage != nil {
		list, err := env.Stage.Staged(ctx)
		if err != nil {
			return Output{}, fmt.Errorf("read staged files: %w", err)
		}
		for _, sf := range list {
			staged[sf.Path] = sf
		}
	}
	globOK := func(rel string) bool {
		if a.Glob == "" {
			return true
		}
		ok, _ := path.Match(a.Glob, path.Base(rel))
		if !ok && strings.Contains(a.Glob, "/") {
			ok, _ = path.Match(a.Glob, rel)
		}
		return ok
	}
	var hits []string
	more := false
	scan := func(rel string, content []byte) {
		if isBinary(content) {
			return
		}
		for i, line := range strings.Split(string(content), "\n") {
			if !re.MatchString(line) {
				continue
			}
			if len(hits) == limit {
				more = true
				return
			}
			line = strings.TrimRight(line, "\r")
			if utf8.RuneCountInString(line) > maxLineShown {
				line = string([]rune(line)[:maxLineShown]) + "…"
			}
			hits = append(hits, fmt.Sprintf("%s:%d: %s", rel, i+1, line))
		}
	}
	seen := map[string]bool{}
	rootReal, err := RealRoot(env.Root)
	if err != nil {
		return Output{}, err
	}
	walkErr := walkFiles(ctx, env.Root, dirRel, func(rel string, d fs.DirEntry) error {
		if more {
			return filepath.SkipAll
		}
		if d.IsDir() || !d.Type().IsRegular() || !globOK(rel) {
			return nil
		}
		seen[rel] = true
		if sf, ok := staged[rel]; ok {
			if !sf.Deleted {
				scan(rel, sf.Content)
			}
			return nil
		}
		info, err := d.Info()
		if err != nil || info.Size() > MaxSearchFileBytes {
			return nil
		}
		data, err := safefile.ReadFile(filepath.Join(rootReal, filepath.FromSlash(rel)), MaxSearchFileBytes)
		if err == nil {
			scan(rel, data)
		}
		return nil
	})
	if walkErr != nil && !errors.Is(walkErr, errWalkLimit) {
		return Output{}, fmt.Errorf("search %s: %w", dirRel, walkErr)
	}
	// Files the run created (not on disk yet).
	paths := make([]string, 0, len(staged))
	for p := range staged {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		sf := staged[p]
		if more || seen[p] || sf.Deleted || !under(dirRel, p) || !globOK(p) {
			continue
		}
		scan(p, sf.Content)
	}
	if len(hits) == 0 {
		return Output{Text: fmt.Sprintf("no matches for %q under %s", a.Pattern, dirRel)}, nil
	}
	out := strings.Join(hits, "\n")
	if more {
		out += fmt.Sprintf("\n[more matches not shown: results are capped at %d; narrow the pattern, path or glob]", limit)
	}
	return Output{Text: out}, nil
}

// --- writeFile, editFile, deleteFile --------------------------------------------

// mutable confines p for a change and refuses what agents may not change.
func mutable(ctx context.Context, env *Env, p string) (fileView, error) {
	if env.Stage == nil {
		return fileView{}, ErrNoStage
	}
	v, err := view(ctx, env, p)
	if err != nil {
		return v, err
	}
	if why := reserved(v.rel); why != "" {
		return v, denied("%s is %s; agents may not change it", v.rel, why)
	}
	if v.isDir {
		return v, fmt.Errorf("%s is a directory", v.rel)
	}
	return v, nil
}

func writeFile(ctx context.Context, env *Env, raw json.RawMessage) (Output, error) {
	a, err := decodeArgs[struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	}](raw)
	if err != nil {
		return Output{}, err
	}
	v, err := mutable(ctx, env, a.Path)
	if err != nil {
		return Output{}, err
	}
	content := []byte(a.Content)
	id, err := env.Stage.Put(ctx, v.rel, content)
	if err != nil {
		return Output{}, fmt.Errorf("stage %s: %w", v.rel, err)
	}
	what := "new file"
	if v.exists {
		what = "replaces the current content"
	}
	sum := SHA256(content)
	return Output{
		Text: fmt.Sprintf("staged %s (%d bytes, %s) in changeset %d; sha256 %s. Nothing is written to disk until the changeset is approved.",
			v.rel, len(content), what, id, sum[:12]),
		Evidence: []Evidence{{Kind: "file", Path: v.rel, SHA256: sum, ChangesetID: id}},
	}, nil
}

func editFile(ctx context.Context, env *Env, raw json.RawMessage) (Output, error) {
	a, err := decodeArgs[struct {
		Path    string `json:"path"`
		Search  string `json:"search"`
		Replace string `json:"replace"`
		All     bool   `json:"all"`
	}](raw)
	if err != nil {
		return Output{}, err
	}
	v, err := mutable(ctx, env, a.Path)
	if err != nil {
		return Output{}, err
	}
	if !v.exists {
		return Output{}, fmt.Errorf("%w: %s (use writeFile to create it)", ErrFileNotFound, v.rel)
	}
	if isBinary(v.content) {
		return Output{}, fmt.Errorf("%s is a binary file and cannot be edited", v.rel)
	}
	text := string(v.content)
	if a.Search == a.Replace {
		return Output{}, fmt.Errorf("search and replace are identical; nothing to change in %s", v.rel)
	}
	var updated []byte
	var anchor *EditAnchor
	n, rule := 1, edits.RuleExact
	if a.All {
		// all: true stays exact: every occurrence, no tolerance.
		n = strings.Count(text, a.Search)
		if n == 0 {
			return Output{}, fmt.Errorf("the search text was not found in %s (all: true matches exactly, whitespace included); read the file again and copy the text", v.rel)
		}
		updated = []byte(strings.ReplaceAll(text, a.Search, a.Replace))
	} else {
		// Blank lines the model put around the search text but not around
		// the replacement are an artifact, not part of the edit: taken
		// literally, an exact match would swallow the line break before
		// (or after) the lines and join them to their neighbours.
		a.Search, a.Replace = edits.TrimUnpairedBlankLines(a.Search, a.Replace)
		m, err := edits.Find(text, a.Search)
		if err != nil {
			hint := "read the file again and copy the lines exactly"
			if errors.Is(err, edits.ErrAmbiguous) {
				hint = "all: true replaces every exact occurrence"
			}
			return Output{}, fmt.Errorf("editFile %s: %w; %s", v.rel, err, hint)
		}
		rule = m.Rule
		updated = []byte(edits.Replace(text, m, a.Search, a.Replace))
		// The block now spans from the match's start to where the text
		// after the match begins in the updated file.
		anchor = NewEditAnchor(string(updated), m.Start, len(updated)-(len(text)-m.End))
	}
	id, err := env.Stage.Put(ctx, v.rel, updated)
	if err != nil {
		return Output{}, fmt.Errorf("stage %s: %w", v.rel, err)
	}
	sum := SHA256(updated)
	return Output{
		Text: fmt.Sprintf("staged an edit of %s (%d replacement(s), now %d bytes; matched by rule: %s) in changeset %d; sha256 %s.",
			v.rel, n, len(updated), rule, id, sum[:12]),
		Evidence: []Evidence{{Kind: "file", Path: v.rel, SHA256: sum, ChangesetID: id, Anchor: anchor}},
	}, nil
}

func deleteFile(ctx context.Context, env *Env, raw json.RawMessage) (Output, error) {
	a, err := decodeArgs[struct {
		Path string `json:"path"`
	}](raw)
	if err != nil {
		return Output{}, err
	}
	v, err := mutable(ctx, env, a.Path)
	if err != nil {
		return Output{}, err
	}
	if !v.exists {
		return Output{}, fmt.Errorf("%w: %s", ErrFileNotFound, v.rel)
	}
	id, err := env.Stage.Remove(ctx, v.rel)
	if err != nil {
		return Output{}, fmt.Errorf("stage deletion of %s: %w", v.rel, err)
	}
	return Output{
		Text:     fmt.Sprintf("staged the deletion of %s in changeset %d.", v.rel, id),
		Evidence: []Evidence{{Kind: "file", Path: v.rel, SHA256: Absent, ChangesetID: id}},
	}, nil
}

// Absent is the hash recorded for a file that does not exist.
const Absent = "absent"
