package codemap

import (
	"bytes"
	"path"
	"strings"
	"unicode/utf8"
)

// Languages the map reads.
const (
	LangGo         = "go"
	LangPython     = "python"
	LangJavaScript = "javascript"
	LangTypeScript = "typescript"
	LangTSX        = "tsx"
	LangRust       = "rust"
	LangJava       = "java"
)

// LangOf is the language of a file by its name ("" for none the map reads).
func LangOf(name string) string {
	switch strings.ToLower(path.Ext(name)) {
	case ".go":
		return LangGo
	case ".py", ".pyi":
		return LangPython
	case ".js", ".mjs", ".cjs", ".jsx":
		return LangJavaScript
	case ".ts", ".mts", ".cts":
		return LangTypeScript
	case ".tsx":
		return LangTSX
	case ".rs":
		return LangRust
	case ".java":
		return LangJava
	}
	return ""
}

// skipDirs are directories never mapped: dependencies, build output,
// caches.
var skipDirs = map[string]bool{
	".git": true, ".nova": true, "node_modules": true, "vendor": true, "dist": true, "build": true,
	"target": true, "__pycache__": true, ".venv": true, "venv": true, ".mypy_cache": true,
	".next": true, ".cache": true, "coverage": true, ".idea": true, ".gradle": true, "bower_components": true,
}

// Why a file is left out before parsing.
const (
	SkipTooLarge = "too large"
	SkipMinified = "minified"
	SkipBinary   = "binary"
	SkipNotUTF8  = "not UTF-8"
	SkipParse    = "does not parse"
	SkipRead     = "unreadable"
)

// screen says why src is not worth parsing ("" when it is).
func screen(name string, src []byte) string {
	if len(src) > MaxFileBytes {
		return SkipTooLarge
	}
	if bytes.IndexByte(src, 0) >= 0 {
		return SkipBinary
	}
	if !utf8.Valid(src) {
		return SkipNotUTF8
	}
	lower := strings.ToLower(name)
	if strings.Contains(lower, ".min.") || strings.HasSuffix(lower, "-min.js") {
		return SkipMinified
	}
	if minified(src) {
		return SkipMinified
	}
	return ""
}

// minified reports a file of very long lines: bundled or minified code
// (its "signatures" are whole programs).
func minified(src []byte) bool {
	if len(src) < 4096 {
		return false
	}
	lines := bytes.Count(src, []byte{'\n'}) + 1
	if len(src)/lines > 400 {
		return true
	}
	longest, start := 0, 0
	for i, c := range src {
		if c == '\n' {
			longest = max(longest, i-start)
			start = i + 1
		}
	}
	longest = max(longest, len(src)-start)
	return longest > 20000
}
