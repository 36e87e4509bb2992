package patterns

import (
	"path"
	"strings"
)

// Node types a pattern draft can become. They match the taste vault's node types.
const (
	TypePattern    = "Pattern"
	TypeStrategy   = "Strategy"
	TypePreference = "Preference"
	TypeMistake    = "Mistake"
	TypeDecision   = "Decision"
)

// NodeTypes lists the node types front matter `type:` (or a `**Type:**` line) may name.
func NodeTypes() []string {
	return []string{TypePattern, TypeStrategy, TypePreference, TypeMistake, TypeDecision}
}

// normalizeType maps "strategy", "STRATEGIES", " Preference " to the canonical type name.
func normalizeType(s string) (string, bool) {
	k := strings.ToLower(strings.TrimSpace(cleanInline(s)))
	k = strings.TrimSuffix(k, "s")
	if k == "strategie" {
		k = "strategy"
	}
	for _, t := range NodeTypes() {
		if strings.ToLower(t) == k {
			return t, true
		}
	}
	return "", false
}

// generalCategory is the category of files that sit directly in the import root.
const generalCategory = "general"

// NormalizeCategory turns a folder name into a category: the numeric ordering prefix is
// stripped and the rest is lowercased kebab-case ("01-security" → "security",
// "17-nova26-adaptations" → "nova26-adaptations", "07 Error Handling" → "error-handling").
func NormalizeCategory(folder string) string {
	c := kebab(stripNumericPrefix(strings.TrimSpace(folder)))
	if c == "" {
		c = kebab(folder)
	}
	return c
}

// categoryOf derives the category from a slash-separated path relative to the import root:
// the parent folder, normalised. Files in the root itself get "general".
func categoryOf(rel string) string {
	dir := path.Dir(rel)
	if dir == "." || dir == "/" || dir == "" {
		return generalCategory
	}
	c := NormalizeCategory(path.Base(dir))
	if c == "" {
		return generalCategory
	}
	return c
}

// seedTypes is the category → type table from the pattern-import issue.
var seedTypes = map[string]string{
	"security":            TypePattern,
	"code-governance":     TypePattern,
	"image-governance":    TypePattern,
	"api-cost-protection": TypePattern,
	"cost-protection":     TypePattern,
	"database-patterns":   TypePattern,
	"error-handling":      TypePattern,
	"deployment":          TypePattern,
	"steering-system":     TypeStrategy,
	"quality-gates":       TypeStrategy,
	"testing-strategies":  TypeStrategy,
	"monitoring":          TypeStrategy,
	"business-logic":      TypeStrategy,
	"ai-prompts":          TypeStrategy,
	"design-system":       TypePreference,
	"i18n":                TypePreference,
	"performance":         TypePreference,
	"documentation":       TypePreference,
	"nova-adaptations":    TypePreference,
}

// typeKeyword is one rule of the keyword map used for categories missing from seedTypes.
// A keyword matches at the start of a hyphen-separated word of the category; a prefix keyword
// may also match a longer word ("test" matches "testing"), an exact one must end the word too
// ("ui" matches "ui-components" but not "guide").
type typeKeyword struct {
	kw     string
	typ    string
	prefix bool
}

// typeKeywords is checked in order; the first match wins. Mistakes and decisions first (they
// are the most specific), then strategy words, then preference words. No match → Pattern.
var typeKeywords = []typeKeyword{
	{"anti-pattern", TypeMistake, true},
	{"antipattern", TypeMistake, true},
	{"mistake", TypeMistake, true},
	{"pitfall", TypeMistake, true},
	{"gotcha", TypeMistake, true},
	{"decision", TypeDecision, true},
	{"adr", TypeDecision, false},
	{"adrs", TypeDecision, false},
	{"test", TypeStrategy, true},
	{"qa", TypeStrategy, false},
	{"strateg", TypeStrategy, true},
	{"quality", TypeStrategy, true},
	{"gate", TypeStrategy, false},
	{"gates", TypeStrategy, false},
	{"monitor", TypeStrategy, true},
	{"observab", TypeStrategy, true},
	{"steering", TypeStrategy, true},
	{"business", TypeStrategy, true},
	{"prompt", TypeStrategy, true},
	{"workflow", TypeStrategy, true},
	{"process", TypeStrategy, false},
	{"planning", TypeStrategy, false},
	{"design", TypePreference, true},
	{"ui", TypePreference, false},
	{"ux", TypePreference, false},
	{"accessib", TypePreference, true},
	{"a11y", TypePreference, false},
	{"i18n", TypePreference, false},
	{"l10n", TypePreference, false},
	{"localiz", TypePreference, true},
	{"internationaliz", TypePreference, true},
	{"adaptation", TypePreference, true},
	{"style", TypePreference, true},
	{"theme", TypePreference, true},
	{"convention", TypePreference, true},
	{"preference", TypePreference, true},
	{"document", TypePreference, true},
	{"docs", TypePreference, false},
	{"performance", TypePreference, true},
}

// TypeForCategory maps a category (or a raw folder name such as "08-testing-patterns") to the
// vault node type its files become: the seed table first, then the keyword map above, then
// Pattern. Examples: "security" → Pattern, "quality-gates" → Strategy, "ui-components" →
// Preference, "testing-patterns" → Strategy, "nova26-adaptations" → Preference,
// "hooks" → Pattern.
func TypeForCategory(cat string) string {
	c := NormalizeCategory(cat)
	if t, ok := seedTypes[c]; ok {
		return t
	}
	for _, k := range typeKeywords {
		if matchKeyword(c, k) {
			return k.typ
		}
	}
	return TypePattern
}

func matchKeyword(cat string, k typeKeyword) bool {
	for i := 0; i+len(k.kw) <= len(cat); i++ {
		if i > 0 && cat[i-1] != '-' {
			continue
		}
		if !strings.HasPrefix(cat[i:], k.kw) {
			continue
		}
		rest := cat[i+len(k.kw):]
		if k.prefix || rest == "" || rest[0] == '-' {
			return true
		}
	}
	return false
}

// isAdaptation reports the adaptations folder(s), which get a fixed, higher confidence.
func isAdaptation(cat string) bool { return strings.Contains(cat, "adaptation") }

// genericTags are heading tags that say nothing about a pattern; they are dropped.
var genericTags = map[string]bool{
	"overview": true, "summary": true, "introduction": true, "intro": true, "description": true,
	"example": true, "examples": true, "usage": true, "usage-examples": true, "usage-example": true,
	"source": true, "sources": true, "provenance": true, "references": true, "reference": true,
	"credits": true, "metadata": true, "see-also": true, "notes": true, "note": true,
	"benefits": true, "related": true, "related-patterns": true, "related-files": true,
	"anti-patterns": true, "antipatterns": true, "anti-pattern": true,
	"when-to-use": true, "when-to-use-this-pattern": true, "when-to-use-these-patterns": true,
	"when-not-to-use": true, "pattern": true, "patterns": true, "core-patterns": true,
	"implementation": true, "core-implementation": true, "files-to-modify": true,
	"conclusion": true, "contents": true, "table-of-contents": true, "toc": true, "faq": true,
	"key-points": true, "best-practices": true, "details": true, "background": true,
	"dont-do-this": true, "do-this-instead": true, "do": true, "dont": true,
}

// The heading helpers below take a heading's plain text (block.plain), never raw markdown.

// isBoilerplateHeading reports provenance headings ("Source", "Adapted from …"): their content
// is never prose for the description and never a tag.
func isBoilerplateHeading(text string) bool { return isBoilerplateKebab(kebab(text)) }

// isBoilerplateKebab is isBoilerplateHeading of a heading already in kebab form.
func isBoilerplateKebab(k string) bool {
	switch k {
	case "source", "sources", "provenance", "metadata", "credits", "references":
		return true
	}
	for _, p := range []string{"adapted-from", "extracted-from", "based-on", "source-", "sources-"} {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

// isOverviewHeading reports headings whose section is preferred for the description.
func isOverviewHeading(text string) bool {
	switch kebab(text) {
	case "overview", "summary", "introduction", "intro", "description", "purpose", "about", "tldr", "tl-dr", "what-it-is", "problem":
		return true
	}
	return false
}

// patternHeadingPrefix matches "Pattern", "Pattern 2", "Pattern:" … at the start of a heading.
func isPatternHeading(text string) bool {
	t := strings.TrimSpace(text)
	if len(t) < 7 || !strings.EqualFold(t[:7], "pattern") {
		return false
	}
	if len(t) == 7 {
		return true
	}
	c := t[7]
	return (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') && c != '_'
}

// stripPatternPrefix turns "Pattern 2: Retry Logic" into "Retry Logic" and "Pattern" into "".
func stripPatternPrefix(text string) string {
	t := strings.TrimSpace(text)
	if !isPatternHeading(t) {
		return t
	}
	t = strings.TrimSpace(t[7:])
	t = strings.TrimLeft(t, "0123456789")
	t = strings.TrimLeft(t, " \t:.-–—)")
	return strings.TrimSpace(t)
}

// headingTag is the tag rule for a heading (plain text): a "Pattern N:" or "N."
// prefix removed, kebab-cased, cut to 48 runes; "" for generic, provenance, trailing ("Anti-
// Patterns (What NOT to Do)", "When to Use …", "Related …") or numeric-only headings.
func headingTag(text string) string {
	k := kebab(text)
	if isBoilerplateKebab(k) || isTrailingKebab(k) {
		return ""
	}
	t := stripPatternPrefix(text)
	t = strings.TrimLeft(stripNumericPrefix(t), " ")
	if t == text { // no prefix (most headings): its kebab form is k
		return normalizeKebab(k)
	}
	return normalizeTag(t)
}

// normalizeTag applies the tag rule to one tag: kebab-case, cut to 48 runes, and "" for
// generic or numeric-only tags.
func normalizeTag(t string) string { return normalizeKebab(kebab(t)) }

// normalizeKebab is normalizeTag of a tag already in kebab form.
func normalizeKebab(k string) string {
	k = clipTag(k)
	if k == "" || genericTags[k] || strings.Trim(k, "0123456789-") == "" {
		return ""
	}
	return k
}

// appendTags appends normalised, non-duplicate tags to dst.
func appendTags(dst []string, seen map[string]bool, tags ...string) []string {
	for _, t := range tags {
		if t == "" || seen[t] {
			continue
		}
		seen[t] = true
		dst = append(dst, t)
	}
	return dst
}
