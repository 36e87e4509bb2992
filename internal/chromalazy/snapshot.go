// Package chromalazy checks the chroma fork in third_party/chroma, whose lexer
// and style registries load their embedded XML on first use instead of at
// init (issue 16: ~20 ms of every nova process's start-up). Take records every
// lookup nova and glamour make of those registries; the test compares it with
// the same record taken from upstream chroma v2.27.0, whose registries load
// eagerly (testdata/eager, a module of its own without the replace).
package chromalazy

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"sort"
	"strings"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
)

// Snapshot is what the registries answer. Lexers and styles are recorded by
// name (styles also by a hash of their XML), so two processes can compare.
type Snapshot struct {
	LexerNames   []string          `json:"lexerNames"`
	LexerAliases []string          `json:"lexerAliases"`
	Get          map[string]string `json:"get"`      // lexers.Get(key)
	Match        map[string]string `json:"match"`    // lexers.Match(filename)
	MimeType     map[string]string `json:"mimeType"` // lexers.MatchMimeType(type)
	Analyse      map[string]string `json:"analyse"`  // lexers.Analyse(text)
	StyleNames   []string          `json:"styleNames"`
	Styles       map[string]string `json:"styles"` // styles.Get(name) -> name + sha256 of its XML
	Fallback     string            `json:"fallback"`
}

// filenames that nova's diff view and glamour's code fences commonly meet,
// on top of one sample per glob of every lexer.
var filenames = []string{
	"main.go", "x.py", "Makefile", "Dockerfile", "README.md", "app.tsx", "x.ts", "x.js",
	"config.yaml", "x.yml", "x.sh", ".bashrc", "lib.rs", "x.c", "x.h", "x.cpp", "x.hpp",
	"x.json", "go.mod", "go.sum", "x.sql", "x.html", "x.css", "x.toml", "x.txt", "x.diff",
	"x.rb", "x.java", "x.kt", "x.swift", "CMakeLists.txt", "x.zone", "x.bak", "x.py.orig", "noext",
}

// languages are code-fence names (glamour calls lexers.Get with them).
var languages = []string{
	"go", "golang", "py", "python", "js", "javascript", "ts", "typescript", "tsx", "md",
	"markdown", "diff", "patch", "yaml", "yml", "sh", "bash", "shell", "console", "json",
	"sql", "html", "css", "rust", "c", "cpp", "toml", "text", "plaintext", "", "nosuchlang",
}

// texts exercise Analyse, including the analysers the lexers package sets in
// its init functions (dns, mysql, Zed), which the fork defers.
var texts = []string{
	"@ IN SOA ns.example.com. admin.example.com. 1 2 3 4 5\n",
	"SELECT `id`, `name` FROM `users` WHERE `id` = 1;",
	"definition user {}\ndefinition doc { relation viewer: user\n permission view = viewer }",
	"#!/bin/bash\necho hi\n",
	"<?php echo 1; ?>",
	"package main\n\nfunc main() {}\n",
	"<!DOCTYPE html><html></html>",
	"#!/usr/bin/env python\nprint(1)\n",
	"plain words only",
}

// Take records the registries' answers.
func Take() Snapshot {
	s := Snapshot{
		LexerNames:   lexers.Names(false),
		LexerAliases: lexers.Aliases(false),
		Get:          map[string]string{},
		Match:        map[string]string{},
		MimeType:     map[string]string{},
		Analyse:      map[string]string{},
		StyleNames:   styles.Names(),
		Styles:       map[string]string{},
		Fallback:     styles.Fallback.Name,
	}
	files := append([]string(nil), filenames...)
	mimes := []string{"text/x-nosuch"}
	keys := append([]string(nil), languages...)
	for _, name := range s.LexerNames {
		l := lexers.Get(name)
		if l == nil {
			continue
		}
		c := l.Config()
		keys = append(keys, c.Name, strings.ToUpper(c.Name))
		keys = append(keys, c.Aliases...)
		for _, glob := range append(append([]string(nil), c.Filenames...), c.AliasFilenames...) {
			files = append(files, sample(glob), "dir/"+sample(glob)+"~")
		}
		mimes = append(mimes, c.MimeTypes...)
	}
	for _, k := range keys {
		s.Get[k] = nameOf(lexers.Get(k))
	}
	for _, f := range files {
		s.Match[f] = nameOf(lexers.Match(f))
	}
	for _, m := range mimes {
		s.MimeType[m] = nameOf(lexers.MatchMimeType(m))
	}
	for _, t := range texts {
		s.Analyse[t] = nameOf(lexers.Analyse(t))
	}
	for _, name := range append(s.StyleNames, "nosuchstyle", "SWAPOFF", "Dracula") {
		s.Styles[name] = fingerprint(styles.Get(name))
	}
	return s
}

// sample turns a filename glob into a name it matches: * and ? become x, a
// character class its first character.
func sample(glob string) string {
	var b strings.Builder
	for i := 0; i < len(glob); i++ {
		switch c := glob[i]; c {
		case '*', '?':
			b.WriteByte('x')
		case '[':
			end := strings.IndexByte(glob[i:], ']')
			if end < 2 {
				b.WriteByte(c)
				continue
			}
			b.WriteByte(glob[i+1])
			i += end
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func nameOf(l chroma.Lexer) string {
	if l == nil {
		return ""
	}
	return l.Config().Name
}

func fingerprint(st *chroma.Style) string {
	if st == nil {
		return ""
	}
	out, err := xml.Marshal(st)
	if err != nil {
		return st.Name + " !" + err.Error()
	}
	sum := sha256.Sum256(out)
	return st.Name + " " + hex.EncodeToString(sum[:8])
}

// Sorted returns the keys of m in order (for readable failure output).
func Sorted(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
