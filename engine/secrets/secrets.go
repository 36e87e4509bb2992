// Package secrets finds and redacts credentials in text that leaves the
// machine (global wisdom, later team sync).
//
// The rule set is gitleaks' default configuration (v8.30.1), kept as a
// generated table of its regular expressions, keywords and entropy
// thresholds (gitleaks_rules.go, with its MIT notice). Why a table and not
// the gitleaks module: the module pulls in its scanner, CLI, viper and git
// tooling (dozens of modules) for what is, for nova, data; the table is
// one file, builds offline, and a rules update is a regenerated file whose
// diff can be read. nova adds a few rules of its own for passwords written
// in prose and on command lines ("the password is: …", "pwd hunter2",
// `mysql -u root -pX`, `curl -u admin:X`, "passphrase is …"), which a
// scanner of config files does not look for.
//
// Every rule is applied case-insensitively, so a key that was lowercased
// somewhere (vault tags are) is still found; over-redaction is the safe
// side for text that leaves the machine.
package secrets

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Redacted replaces every secret found.
const Redacted = "<redacted>"

// rule is one detector: a regular expression, the keywords one of which
// must appear (lower case) for the rule to run, the capture group that
// holds the secret (0: the first non-empty group, or the whole match), and
// the Shannon entropy the secret must reach (0: none).
type rule struct {
	ID          string
	Regex       string
	Keywords    []string
	Entropy     float64
	SecretGroup int
}

type compiled struct {
	rule
	re *regexp.Regexp
}

// proseRules catch passwords written the way people write them in notes,
// chat and shell history rather than in config files. nova's own.
var proseRules = []rule{
	{ID: "nova-password-prose", Regex: `\b(?:password|passphrase|passwd|passcode|pwd)s?\b(?:\s+(?:is|was|are|=)\s*:?|\s*[:=])\s*["'` + "`" + `]?([^\s"'` + "`" + `]{3,})`,
		Keywords: []string{"pass", "pwd"}},
	{ID: "nova-password-bare", Regex: `\b(?:pwd|passwd|pw)\s+([^\s"'` + "`" + `]{4,})`, Keywords: []string{"pwd", "passwd", "pw"}, Entropy: 2},
	{ID: "nova-mysql-p", Regex: `\b(?:mysql|mysqldump|mysqladmin|mariadb|mysqlsh)\b[^\n]*?\s-p([^\s"']+)`, Keywords: []string{"mysql", "mariadb"}},
	{ID: "nova-cli-password-flag", Regex: `--pass(?:word)?(?:=|\s+)["']?([^\s"']+)`, Keywords: []string{"--pass"}},
	{ID: "nova-curl-user", Regex: `\b(?:curl|wget|http|https)\b[^\n]*?\s(?:-u|--user|--http-user)\s*["']?[^:\s"']+:([^\s"']+)`, Keywords: []string{"-u", "--user"}},
	{ID: "nova-url-credentials", Regex: `\b[a-z][a-z0-9+.\-]*://[^/\s:@]+:([^/\s@]+)@`, Keywords: []string{"://"}},
	{ID: "nova-pgpassword-env", Regex: `\b(?:PGPASSWORD|MYSQL_PWD|REDIS_PASSWORD|[A-Z_]*PASSWORD)=["']?([^\s"']+)`, Keywords: []string{"password", "pwd"}},
}

var rules = sync.OnceValue(func() []compiled {
	all := make([]compiled, 0, len(gitleaksRules)+len(proseRules))
	for _, r := range slices.Concat(gitleaksRules, proseRules) {
		re, err := regexp.Compile("(?i)" + r.Regex)
		if err != nil {
			continue // every rule compiles (TestEveryRuleCompiles); never fail at run time
		}
		kw := make([]string, len(r.Keywords)) // never modify the shared table
		for i, k := range r.Keywords {
			kw[i] = strings.ToLower(k)
		}
		r.Keywords = kw
		all = append(all, compiled{rule: r, re: re})
	}
	return all
})

// RuleCount is the number of detectors (gitleaks' and nova's).
func RuleCount() int { return len(rules()) }

// Redact replaces every secret in s with Redacted. Only the secret part of
// a match goes ("password is: <redacted>"), so the text still reads. It
// repeats until nothing more is found (a rule such as `mysql … -pX` finds
// one flag per command per pass), so Redact(Redact(s)) == Redact(s).
func Redact(s string) string {
	for range 8 {
		next := redactOnce(s)
		if next == s {
			return s
		}
		s = next
	}
	return s
}

func redactOnce(s string) string {
	spans := Find(s)
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		b.WriteString(s[last:sp[0]])
		b.WriteString(Redacted)
		last = sp[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// Find returns the byte spans of the secrets in s, sorted and merged.
func Find(s string) [][2]int {
	if s == "" {
		return nil
	}
	lower := strings.ToLower(s)
	// Placeholders left by an earlier pass are never secrets themselves,
	// so Redact(Redact(s)) == Redact(s).
	var placeholders [][2]int
	for i := 0; ; {
		j := strings.Index(s[i:], Redacted)
		if j < 0 {
			break
		}
		placeholders = append(placeholders, [2]int{i + j, i + j + len(Redacted)})
		i += j + len(Redacted)
	}
	var spans [][2]int
	for _, r := range rules() {
		if len(r.Keywords) > 0 && !containsAny(lower, r.Keywords) {
			continue
		}
		for _, m := range r.re.FindAllStringSubmatchIndex(s, -1) {
			a, b := secretSpan(m, r.SecretGroup)
			if a < 0 || b <= a {
				continue
			}
			if r.Entropy > 0 && entropy(s[a:b]) < r.Entropy {
				continue
			}
			if overlapsAny(a, b, placeholders) {
				continue
			}
			spans = append(spans, [2]int{a, b})
		}
	}
	return merge(spans)
}

// secretSpan picks the secret out of a match: the rule's group, else the
// first group that matched, else the whole match (as gitleaks does).
func secretSpan(m []int, group int) (int, int) {
	if group > 0 && 2*group+1 < len(m) {
		return m[2*group], m[2*group+1]
	}
	for g := 1; 2*g+1 < len(m); g++ {
		if m[2*g] >= 0 && m[2*g+1] > m[2*g] {
			return m[2*g], m[2*g+1]
		}
	}
	return m[0], m[1]
}

func overlapsAny(a, b int, spans [][2]int) bool {
	for _, sp := range spans {
		if a < sp[1] && sp[0] < b {
			return true
		}
	}
	return false
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

func merge(spans [][2]int) [][2]int {
	if len(spans) < 2 {
		return spans
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
	out := spans[:1]
	for _, sp := range spans[1:] {
		last := &out[len(out)-1]
		if sp[0] <= last[1] {
			last[1] = max(last[1], sp[1])
			continue
		}
		out = append(out, sp)
	}
	return out
}

// entropy is the Shannon entropy of s in bits per byte, as gitleaks
// computes it.
func entropy(s string) float64 {
	if s == "" {
		return 0
	}
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	n := float64(len(s))
	e := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			e -= p * math.Log2(p)
		}
	}
	return e
}
