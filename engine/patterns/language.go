package patterns

import "strings"

// langAliases normalises fence info strings to one name per language.
var langAliases = map[string]string{
	"ts": "typescript", "tsx": "typescript", "typescript": "typescript", "mts": "typescript", "cts": "typescript",
	"js": "javascript", "jsx": "javascript", "javascript": "javascript", "mjs": "javascript", "cjs": "javascript", "node": "javascript",
	"sh": "shell", "bash": "shell", "zsh": "shell", "shell": "shell", "console": "shell", "shell-session": "shell", "shellsession": "shell", "fish": "shell",
	"ps1": "powershell", "pwsh": "powershell", "powershell": "powershell",
	"py": "python", "python": "python", "python3": "python",
	"go": "go", "golang": "go",
	"rb": "ruby", "ruby": "ruby",
	"rs": "rust", "rust": "rust",
	"kt": "kotlin", "kotlin": "kotlin",
	"cs": "csharp", "csharp": "csharp", "c#": "csharp",
	"c++": "cpp", "cpp": "cpp", "cxx": "cpp", "hpp": "cpp",
	"yml": "yaml", "yaml": "yaml",
	"json": "json", "jsonc": "json", "json5": "json",
	"md": "markdown", "markdown": "markdown", "mdx": "markdown",
	"txt": "text", "text": "text", "plaintext": "text", "plain": "text", "output": "text", "log": "text",
	"htm": "html", "html": "html", "xhtml": "html",
	"gql": "graphql", "graphql": "graphql",
	"env": "dotenv", "dotenv": "dotenv",
	"docker": "dockerfile", "dockerfile": "dockerfile",
	"patch": "diff", "diff": "diff",
	"vue": "vue", "svelte": "svelte",
}

// notCode languages never decide Doc.Language; dataLangs decide it only when no code language
// appears in the file.
var (
	notCode   = map[string]bool{"": true, "text": true, "markdown": true, "diff": true, "mermaid": true}
	dataLangs = map[string]bool{"json": true, "yaml": true, "toml": true, "xml": true, "csv": true, "dotenv": true, "ini": true, "gherkin": true, "graphql": true}
)

// NormalizeLanguage maps a fence info string to a language name: the first word, lowercased,
// attributes such as "{1,3}" or "title=x" dropped, aliases folded (ts/tsx → typescript,
// js/jsx → javascript, sh/bash → shell, yml → yaml, …). Unknown names are kept lowercased.
func NormalizeLanguage(info string) string {
	f := strings.Fields(info)
	if len(f) == 0 {
		return ""
	}
	w := strings.ToLower(f[0])
	if i := strings.IndexAny(w, "{,:="); i >= 0 {
		w = w[:i]
	}
	w = strings.TrimPrefix(w, ".")
	w = strings.TrimPrefix(w, "language-")
	if a, ok := langAliases[w]; ok {
		return a
	}
	// Keep only characters a language name uses; "[language]" placeholders become "".
	var b strings.Builder
	for _, r := range w {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '+' || r == '#' || r == '-' || r == '_' || r == '.' {
			b.WriteRune(r)
		} else {
			return ""
		}
	}
	return b.String()
}

// majorityLanguage returns the most frequent code language (ties → the one seen first). Data formats
// (json, yaml, …) count only when no code language occurs; text/markdown/diff never count.
func majorityLanguage(examples []CodeExample) string {
	pick := func(wantData bool) string {
		counts := map[string]int{}
		var order []string
		for _, ex := range examples {
			l := ex.Language
			if notCode[l] || dataLangs[l] != wantData {
				continue
			}
			if counts[l] == 0 {
				order = append(order, l)
			}
			counts[l]++
		}
		best := ""
		for _, l := range order {
			if counts[l] > counts[best] {
				best = l
			}
		}
		return best
	}
	if l := pick(false); l != "" {
		return l
	}
	return pick(true)
}
