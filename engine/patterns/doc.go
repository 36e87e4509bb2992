// Package patterns parses markdown pattern libraries (such as the BistroLens knowledge base)
// into plain drafts that an importer later turns into taste-vault nodes. It does no storage.
//
// # Entry points
//
//   - Parse(relPath, data, opts) parses one file into a Doc.
//   - Scan(ctx, dir, opts) and ScanFS(ctx, fsys, opts) parse a whole tree (ScanFS also takes an
//     embed.FS, for the starter library shipped in the binary).
//   - Doc.Draft and Doc.SectionDrafts produce NodeDrafts; TypeForCategory and Confidence hold
//     the mapping rules.
//
// # What a file becomes
//
//   - Title: YAML front matter `title`, else the first H1, else the file name humanised
//     ("use-local-storage.md" → "Use Local Storage").
//   - Description: front matter `description`, else a prose paragraph chosen as documented on
//     (*parser).description: Overview section first, then the intro under the title, then the
//     "## Pattern…" sections, then other content sections, then an outline of the headings.
//     Plain text, at most 500 runes, cut on a word boundary with "…".
//   - Category: front matter `category`, else the parent folder without its numeric prefix
//     ("01-security" → "security"); files in the root are "general".
//   - Type: front matter `type`, else a `**Type:**` header line, else TypeForCategory.
//   - Priority: front matter, else `**Priority:** P1`; default P2. Reusability: front matter,
//     else `**Reusability:** 9/10`; default 5. Header lines are read only above the first
//     content H2 (provenance H2s such as "## Source" do not end the header).
//   - Tags: the category, then front matter tags, then a `**Tags:**` line, then one tag per H2:
//     lowercase kebab-case, at most 48 runes, first occurrence kept. Heading tags lose a
//     "Pattern N:" or "N." prefix; generic headings (overview, examples, usage, benefits,
//     anti-patterns, when to use …, related …, implementation, …) and provenance headings are
//     dropped.
//   - Language: the most frequent normalised fence language; data formats (json, yaml, …)
//     only count when no code language appears.
//
// # Markdown
//
// Only the block structure is read (see markdown.go for why this is hand-written rather than
// goldmark). It follows CommonMark for headings (ATX and setext), fences, lists, tables,
// quotes and HTML blocks, with one recovery rule: a bare ``` fence left unmatched at the end of
// the file is ignored (with a warning) instead of turning the rest of the file into code.
//
// # Errors
//
// Per-file problems are *ParseError values wrapping ErrEmpty, ErrBinary, ErrTooLarge,
// ErrNotUTF8, ErrHeadless, ErrFrontMatter, ErrUnsafePath, ErrSymlinkEscape, ErrSymlinkLoop or
// ErrNotRegular.
// A file is headless when it has no heading and no prose paragraph (lists, tables and code
// alone) and its front matter gives neither title nor description.
// Meta files (README.md, INDEX.md, KIRO-*.md, EXTRACTION-*.md) are skipped by a scan, not
// failed. Parse never panics.
package patterns
