package docs

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/nova-dev/nova/internal/lazyre"
)

// npmName is a valid npm package name: an optional @scope/ and a name of
// lower-case URL-safe characters (at most 214 in all). Nothing else ever
// reaches a file path.
var npmName = lazyre.New(`^(@[a-z0-9~-][a-z0-9._~-]*/)?[a-z0-9~-][a-z0-9._~-]*$`)

// Bounds of what an npm lookup reads.
const (
	maxReadmeBytes = 512 << 10
	maxDTSBytes    = 1 << 20
)

// npmDocs reads installed npm packages: node_modules/<pkg>/package.json
// (the exact version), the README and the type declarations (the package's
// "types"/"typings" file, index.d.ts, or @types/<pkg>).
type npmDocs struct{ root string }

type packageJSON struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Types   string `json:"types"`
	Typings string `json:"typings"`
	Desc    string `json:"description"`
}

// Lookup returns the documentation of an installed package, narrowed to
// the README sections and declarations that mention topic when one is
// given.
func (n *npmDocs) Lookup(library, topic string) (LocalDoc, error) {
	name := strings.TrimSpace(library)
	if len(name) > 214 || !npmName.MatchString(name) {
		return LocalDoc{}, errNotLocal
	}
	modules := filepath.Join(n.root, "node_modules")
	dir := filepath.Join(modules, filepath.FromSlash(name))
	if !isDir(dir) || !within(modules, dir) {
		return LocalDoc{}, errNotLocal
	}
	var pj packageJSON
	if data, err := readCapped(filepath.Join(dir, "package.json"), 1<<20); err == nil {
		_ = json.Unmarshal(data, &pj)
	}
	if pj.Version == "" {
		return LocalDoc{}, fmt.Errorf("%w: %s has no readable package.json", errLocalMissing, name)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "npm package %s %s (node_modules/%s; the installed version)\n", name, pj.Version, name)
	if d := CleanName(pj.Desc); d != "" {
		b.WriteString(d + "\n")
	}
	found := false
	if readme := findReadme(dir); readme != "" {
		if data, err := readCapped(readme, maxReadmeBytes); err == nil {
			if sec := readmeSections(cleanText(string(data)), topic); sec != "" {
				b.WriteString("\n" + sec + "\n")
				found = true
			}
		}
	}
	if dts, rel := n.declarations(dir, name, pj); dts != "" {
		if decl := declarations(cleanText(dts), topic); decl != "" {
			fmt.Fprintf(&b, "\nType declarations (%s):\n%s\n", rel, decl)
			found = true
		}
	}
	if !found {
		return LocalDoc{}, fmt.Errorf("%w: %s has no README or type declarations", errLocalMissing, name)
	}
	return LocalDoc{Library: name, Topic: topic, Version: pj.Version, Origin: "node_modules", Title: name + " " + pj.Version,
		Content: b.String()}, nil
}

// declarations finds the package's .d.ts: its own "types"/"typings" file,
// index.d.ts, or node_modules/@types/<name>/index.d.ts; paths must stay
// inside their package.
func (n *npmDocs) declarations(dir, name string, pj packageJSON) (string, string) {
	cands := []string{}
	for _, t := range []string{pj.Types, pj.Typings} {
		if t = strings.TrimSpace(t); t != "" && !filepath.IsAbs(t) {
			cands = append(cands, filepath.Join(dir, filepath.FromSlash(t)))
		}
	}
	cands = append(cands, filepath.Join(dir, "index.d.ts"))
	typesName := strings.ReplaceAll(strings.TrimPrefix(name, "@"), "/", "__")
	typesDir := filepath.Join(n.root, "node_modules", "@types", typesName)
	cands = append(cands, filepath.Join(typesDir, "index.d.ts"))
	for _, c := range cands {
		base := dir
		if strings.HasPrefix(c, typesDir) {
			base = typesDir
		}
		if !isFile(c) || !within(base, c) {
			continue
		}
		data, err := readCapped(c, maxDTSBytes)
		if err != nil {
			continue
		}
		rel, _ := filepath.Rel(filepath.Join(n.root, "node_modules"), c)
		return string(data), filepath.ToSlash(rel)
	}
	return "", ""
}

func findReadme(dir string) string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, want := range []string{"readme.md", "readme.markdown", "readme", "readme.txt"} {
		for _, e := range ents {
			if !e.IsDir() && strings.ToLower(e.Name()) == want {
				return filepath.Join(dir, e.Name())
			}
		}
	}
	return ""
}

func readCapped(p string, limit int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	return io.ReadAll(io.LimitReader(f, limit))
}

// readmeSections returns the README (without a topic) or the sections whose
// heading or text mentions topic, headings first, in document order; the
// introduction when none does.
func readmeSections(text, topic string) string {
	type section struct{ head, body string }
	var secs []section
	cur := section{}
	inFence := false
	for _, line := range strings.SplitAfter(text, "\n") {
		trim := strings.TrimSpace(line)
		if strings.HasPrefix(trim, "```") || strings.HasPrefix(trim, "~~~") {
			inFence = !inFence
		}
		if !inFence && strings.HasPrefix(trim, "#") {
			secs = append(secs, cur)
			cur = section{head: trim}
		}
		cur.body += line
	}
	secs = append(secs, cur)
	if topic == "" {
		return strings.TrimSpace(text)
	}
	low := strings.ToLower(topic)
	var heads, bodies []int
	for i, s := range secs {
		switch {
		case strings.Contains(strings.ToLower(s.head), low):
			heads = append(heads, i)
		case strings.Contains(strings.ToLower(s.body), low):
			bodies = append(bodies, i)
		}
	}
	pickIdx := heads
	if len(pickIdx) == 0 {
		pickIdx = bodies
	}
	if len(pickIdx) == 0 {
		intro := strings.TrimSpace(secs[0].body)
		if intro == "" && len(secs) > 1 {
			intro = strings.TrimSpace(secs[1].body)
		}
		return intro
	}
	var b strings.Builder
	for _, i := range pickIdx {
		b.WriteString(strings.TrimSpace(secs[i].body) + "\n\n")
	}
	return strings.TrimSpace(b.String())
}

// declarations returns a .d.ts file (without a topic) or the exported
// declarations that mention topic, each with the doc comment above it.
func declarations(dts, topic string) string {
	if topic == "" {
		return strings.TrimSpace(dts)
	}
	low := strings.ToLower(topic)
	lines := strings.Split(dts, "\n")
	var b strings.Builder
	var comment []string
	inComment := false
	for _, line := range lines {
		trim := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trim, "/**"):
			comment = []string{line}
			inComment = !strings.Contains(trim, "*/")
			continue
		case inComment:
			comment = append(comment, line)
			if strings.Contains(trim, "*/") {
				inComment = false
			}
			continue
		}
		if strings.Contains(strings.ToLower(line), low) && isDeclLine(trim) {
			for _, c := range comment {
				b.WriteString(c + "\n")
			}
			b.WriteString(line + "\n")
		}
		if trim != "" {
			comment = nil
		}
	}
	return strings.TrimSpace(b.String())
}

func isDeclLine(trim string) bool {
	for _, p := range []string{"export ", "declare ", "function ", "interface ", "type ", "class ", "const ", "let ", "var ", "enum ", "namespace "} {
		if strings.HasPrefix(trim, p) {
			return true
		}
	}
	// Members of interfaces and classes: name(…): T; or name: T;
	return strings.HasSuffix(trim, ";") && strings.Contains(trim, ":")
}
