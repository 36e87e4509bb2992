package vault

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/nova-dev/nova/engine/secrets"
	"github.com/nova-dev/nova/internal/lazyre"
)

// Placeholders the sanitizer writes.
const (
	RedactedPath    = "<path>"
	RedactedSecret  = "<redacted>"
	RedactedEmail   = "<email>"
	RedactedURL     = "<url>"
	RedactedID      = "<id>"
	RedactedHost    = "<host>"
	RedactedProject = "<project>"
)

var (
	reEmail = lazyre.New(`[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}`)
	reURL   = lazyre.New(`\b(?:https?|ftp|file|ssh|git)://[^\s"'<>` + "`" + `)\]]+`)
	// key = value assignments whose key names a secret; the value goes.
	reSecretAssign = lazyre.New(`(?i)\b([\w.\-]*(?:api[_\-]?key|secret|token|passw(?:or)?d|pwd|credential|private[_\-]?key|access[_\-]?key)[\w.\-]*)(["']?\s*(?::=|=|:)\s*)("[^"\n]*"|'[^'\n]*'|` + "`[^`\n]*`" + `|[^\s,;)\]}]+)`)
	// Well-known credential shapes.
	reTokenShape = lazyre.New(`\b(?:sk-[A-Za-z0-9_\-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|AKIA[0-9A-Z]{16}|xox[abprs]-[A-Za-z0-9\-]{10,}|eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{4,})`)
	// Long opaque strings (hashes, keys); checked for letters and digits.
	reOpaque = lazyre.New(`[A-Za-z0-9+/_\-]{32,}={0,2}`)
	reUUID   = lazyre.New(`\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b`)
	reIPv4   = lazyre.New(`\b(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?\b`)
	reHost   = lazyre.New(`(?i)\b[a-z0-9\-]+(?:\.[a-z0-9\-]+)*\.(?:internal|local|corp|lan|intranet)\b`)
	// Paths: absolute or home-relative with two or more segments, ./ and ../
	// paths, Windows drive paths, and relative paths ending in a file name.
	reAbsPath  = lazyre.New(`(^|[\s(\[{"'` + "`" + `=:,])((?:~|\.{1,2})?/[\w.@\-]+(?:/[\w.@\-]+)+/?|\.{1,2}/[\w.@\-]+/?)`)
	reWinPath  = lazyre.New(`\b[A-Za-z]:\\[^\s"'<>|]+`)
	reFilePath = lazyre.New(`\b[\w.\-]+(?:/[\w.\-]+)+\.[A-Za-z][A-Za-z0-9]{0,5}\b`)
)

// scrub removes sensitive data from text: e-mails, URLs, secret
// assignments and credential-looking strings, ids, internal hosts, file
// paths and project terms.
func scrub(s string, terms []string) string {
	if s == "" {
		return s
	}
	// Credentials first, with gitleaks' rules plus nova's prose rules,
	// case-insensitively (tags are stored lowercased: an AWS key in a tag
	// used to survive as "akiaiosfodnn7example").
	s = secrets.Redact(s)
	s = reEmail.ReplaceAllString(s, RedactedEmail)
	s = reURL.ReplaceAllString(s, RedactedURL)
	s = reSecretAssign.ReplaceAllString(s, "${1}${2}"+RedactedSecret)
	s = reTokenShape.ReplaceAllString(s, RedactedSecret)
	s = reUUID.ReplaceAllString(s, RedactedID)
	s = reOpaque.ReplaceAllStringFunc(s, func(m string) string {
		if hasLetterAndDigit(m) {
			return RedactedSecret
		}
		return m
	})
	s = reIPv4.ReplaceAllString(s, RedactedHost)
	s = reHost.ReplaceAllString(s, RedactedHost)
	s = reWinPath.ReplaceAllString(s, RedactedPath)
	s = reAbsPath.ReplaceAllString(s, "${1}"+RedactedPath)
	s = reFilePath.ReplaceAllString(s, RedactedPath)
	for _, t := range terms {
		s = replaceWordFold(s, t, RedactedProject)
	}
	return s
}

func hasLetterAndDigit(s string) bool {
	var l, d bool
	for _, r := range s {
		l = l || unicode.IsLetter(r)
		d = d || unicode.IsDigit(r)
	}
	return l && d
}

// replaceWordFold replaces whole-word, case-insensitive occurrences of term.
func replaceWordFold(s, term, with string) string {
	term = strings.TrimSpace(term)
	if len(term) < 3 {
		return s
	}
	re, err := regexp.Compile(`(?i)(^|[^\pL\pN_])` + regexp.QuoteMeta(term) + `($|[^\pL\pN_])`)
	if err != nil {
		return s
	}
	// Twice, because adjacent matches share their separator.
	for range 2 {
		s = re.ReplaceAllString(s, "${1}"+with+"${2}")
	}
	return s
}

// Sanitize returns a new node fit for global wisdom: title, content and body
// scrubbed of file paths, secret-looking strings (key/secret/token/password
// assignments, known token shapes, long opaque strings), e-mails, URLs,
// ids, internal hosts and the given project terms; tags that carried such
// data dropped; user, source and meta cleared. n is never modified.
func Sanitize(n Node, projectTerms ...string) Node {
	out := n.clone()
	out.ID = 0
	out.UserID = ""
	out.Source = "global"
	out.Meta = nil
	out.IsGlobal = true
	// Scrubbed from the stored fields, before anything else touches them
	// (no lowercasing or other normalisation happens after this).
	out.Title = scrub(n.Title, projectTerms)
	out.Content = scrub(n.Content, projectTerms)
	out.Body = scrub(n.Body, projectTerms)
	out.HasBody = out.Body != ""
	// Every field that leaves is scrubbed. Short free-text fields are
	// dropped rather than rewritten when they carry anything sensitive.
	tags := []string{}
	for _, t := range n.Tags {
		if scrub(t, projectTerms) == t {
			tags = append(tags, t)
		}
	}
	out.Tags = tags
	out.Language = ""
	if l := n.Language; reLanguage.MatchString(l) && scrub(l, projectTerms) == l {
		out.Language = l
	}
	return out
}

// reLanguage is what a language field may hold when it leaves: "go",
// "typescript", "c++", "c#", "objective-c".
var reLanguage = lazyre.New(`^[A-Za-z][A-Za-z0-9+#.\-]{0,31}$`)
