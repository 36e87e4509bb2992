// Package secrets finds and redacts credentials in text that is stored or
// leaves the process: vault nodes, facts (on write and on promotion),
// wisdom bundles, progress events (--json, the event stream) and stored
// tool traces all go through [Redact]; there is no second sanitizer.
//
// The rule set is gitleaks' default configuration (v8.30.1), kept as a
// generated table of its regular expressions, keywords and entropy
// thresholds (gitleaks_rules.go, with its MIT notice). Why a table and not
// the gitleaks module: the module pulls in its scanner, CLI, viper and git
// tooling (dozens of modules) for what is, for nova, data; the table is
// one file, builds offline, and a rules update is a regenerated file whose
// diff can be read. nova adds a few rules of its own for passwords written
// in prose and on command lines ("the password is: …", "pwd hunter2",
// `mysql -u root -pX`, `curl -u admin:X`, "set PGPASSWORD to X", "the
// secret being X", "credentials are admin / X", connection strings), which
// a scanner of config files does not look for, with a check that keeps
// ordinary prose ("the password is required") unchanged (prose.go).
// testdata/secrets.txt is the corpus every shape must be redacted from,
// testdata/innocent.txt the lines that must stay as they are.
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
	// Prose: the value is dropped when it reads as a word, a type name or a
	// placeholder (proseValueIsWord); Bare: also when it is letters only.
	Prose, Bare bool
	// CaseKeywords, when set, must appear as written (upper-case
	// environment variable names): a cheap gate before the regex.
	CaseKeywords []string
	// Anchors, when set, are the lower-case words every match starts with:
	// the rule runs only where one occurs (scan.go).
	Anchors []string
}

type compiled struct {
	rule
	re *regexp.Regexp
	// anchored is re anchored at the start, for rules with Anchors;
	// wordStart: the rule starts with \b (checked on the byte before).
	anchored  *regexp.Regexp
	wordStart bool
	// near: one of these (lower case) follows the anchor within nearDist
	// bytes, or the rule cannot match there (scan.go).
	near     []string
	nearDist int
	kwIDs    []int32 // Keywords in the ruleSet's index
}

// ruleSet is the compiled rules and the index of their keywords.
type ruleSet struct {
	list []compiled
	kw   *kwIndex
}

// proseRules catch secrets written the way people write them in notes,
// chat, shell history and model replies rather than in config files.
// nova's own. Value is what follows a connector: an optional quote, then
// the secret up to the next blank or quote.
//
// Rules marked Prose look at words ("the password is required" is not a
// secret): a value that reads as an English word, a type name or a
// placeholder is kept (see proseSecret). Rules marked Bare have no
// connector at all ("password hunter2") and keep a value made of letters
// only ("password field").
var proseRules = []rule{
	// "the password is X", "password: X", "passphrase was X", "the pass
	// phrase is X", "the secret being X", "api key = X", "the password for
	// the staging db is X", "token => X".
	{ID: "nova-secret-prose", Regex: `\b(?:` + secretNouns + `)s?\b` + proseFor + proseConnector + proseValue,
		Keywords: proseKeywords, Anchors: nounAnchors, Prose: true},
	// "I changed the root password to X", "rotate the API token to X".
	{ID: "nova-secret-changed-to", Regex: `\b(?:set|changed?|reset|rotated?|updated?)\s+(?:[\w\-]+\s+){0,3}?(?:` + secretNouns + `)s?\s+to\s+` + proseValue,
		Keywords: proseKeywords, Anchors: []string{"set", "chang", "reset", "rotat", "updat"}, Prose: true},
	// "password hunter2", "pwd hunter2", "passphrase c0rrect-horse".
	{ID: "nova-password-bare", Regex: `\b(?:password|passphrase|passwd|pwd|pw)\s+["'` + "`" + `]?([^\s"'` + "`" + `]{4,})`,
		Keywords: []string{"pass", "pwd", "pw"}, Anchors: []string{"pass", "pwd", "pw"}, Prose: true, Bare: true},
	// "Credentials are admin / X", "login: admin:X", "user/pass admin/X".
	{ID: "nova-credentials-pair", Regex: `\b(?:credentials?|creds|logins?|user(?:name)?\s*/\s*pass(?:word)?|(?:user(?:name)?|login)\s+and\s+pass(?:word)?)\b` +
		`(?:\s+(?:are|is|were|was|being|will\s+be)\b)?\s*[:=]?\s*["'` + "`" + `]?[^\s/:"'` + "`" + `]+["'` + "`" + `]?\s*(?:/|:|\s+and\s+)\s*["'` + "`" + `]?([^\s"'` + "`" + `]{3,})`,
		Keywords: []string{"cred", "login", "pass"}, Anchors: []string{"cred", "login", "user"}, Prose: true},
	// "set PGPASSWORD to X", "export GITHUB_TOKEN X", "setx API_KEY X",
	// "$env:AWS_SECRET_ACCESS_KEY = X", "set -x NPM_TOKEN X".
	{ID: "nova-env-set", Regex: `\b(?:set|export|setenv|setx|\$env:)\s*(?:-[a-z]+\s+)*\$?(` + envSecretName + `)\s*(?:\bto\b|\bas\b|:=|=|\s)\s*["'` + "`" + `]?([^\s"'` + "`" + `]{3,})`,
		Keywords: proseKeywords, CaseKeywords: envKeywords, Prose: true, SecretGroup: 2},
	// "GITHUB_TOKEN=X", "DB_PASSWORD: X", "STRIPE_SECRET_KEY='X'".
	{ID: "nova-env-assign", Regex: `(?:^|[^\w$])(` + envSecretName + `)(?:\s*(?::=|=|:)|\s+(?:is|was|being|(?:is\s+|was\s+)?set\s+to)\b)\s*["'` + "`" + `]?([^\s"'` + "`" + `]{3,})`,
		Keywords: proseKeywords, CaseKeywords: envKeywords, Prose: true, SecretGroup: 2},
	// "use X as the password".
	{ID: "nova-use-as", Regex: `\buse\s+["'` + "`" + `]?([^\s"'` + "`" + `]{3,})["'` + "`" + `]?\s+as\s+(?:the\s+|your\s+|my\s+|our\s+|its\s+)?(?:[\w\-]+\s+)?(?:` + secretNouns + `)\b`,
		Keywords: proseKeywords, Anchors: []string{"use"}, Prose: true},
	// "pass Kx92mQpL", "token Kx92mQpLzz81vTq in the header": no connector,
	// so the value must look random (entropy) and not be a word.
	{ID: "nova-secret-bare", Regex: `\b(?:pass|token|secret|api[\s_\-]?key|access[\s_\-]?key)\s+["'` + "`" + `]?([^\s"'` + "`" + `]{8,})`,
		Keywords: []string{"pass", "token", "secret", "key"}, Anchors: []string{"pass", "token", "secret", "api", "access"}, Prose: true, Bare: true, Entropy: 2.8},
	// Registry and cache logins: docker login -p X, redis-cli -a X,
	// sshpass -p X, htpasswd -b file user X.
	{ID: "nova-login-flag", Regex: `\b(?:(?:docker|podman|helm|oras|skopeo|buildah)\s+(?:registry\s+)?login\b[^\n]*?\s-p|redis-cli\b[^\n]*?\s-a|sshpass\s+-p)\s*["']?([^\s"']+)`,
		Keywords: []string{"docker", "podman", "helm", "oras", "skopeo", "buildah", "redis-cli", "sshpass"}},
	{ID: "nova-htpasswd", Regex: `\bhtpasswd\b[^\n]*?\s-[a-zA-Z]*b[a-zA-Z]*\s+\S+\s+\S+\s+["']?([^\s"']+)`, Keywords: []string{"htpasswd"}},
	{ID: "nova-mysql-p", Regex: `\b(?:mysql|mysqldump|mysqladmin|mariadb|mysqlsh)\b[^\n]*?\s-p([^\s"']+)`, Keywords: []string{"mysql", "mariadb"}},
	{ID: "nova-cli-password-flag", Regex: `--(?:pass(?:word)?|token|secret|api-?key|auth-token)(?:=|\s+)["']?([^\s"']+)`, Keywords: []string{"--pass", "--token", "--secret", "--api", "--auth"}, Prose: true},
	{ID: "nova-curl-user", Regex: `\b(?:curl|wget|http|https)\b[^\n]*?\s(?:-u|--user|--http-user)\s*["']?[^:\s"']+:([^\s"']+)`, Keywords: []string{"-u", "--user"}},
	// Connection strings and basic-auth URLs: scheme://user:X@host (user
	// may be empty: redis://:X@host).
	{ID: "nova-url-credentials", Regex: `\b[a-z][a-z0-9+.\-]*://[^/\s:@]*:([^/\s@]+)@`, Keywords: []string{"://"}},
	// user:X@host without a scheme ("connect as app:X@db.internal:5432").
	{ID: "nova-userinfo-host", Regex: `(?:^|[\s"'(=])[\w.\-]+:([^\s:@/"']{3,})@[\w\-]+(?:\.[\w\-]+)*(?::\d+)?(?:[/\s"')]|$)`, Keywords: []string{"@"}, Prose: true},
	// Query strings and DSNs: ?password=X&, ;Password=X;, sslpassword='X'.
	{ID: "nova-dsn-password", Regex: `[?&;\s](?:password|passwd|pwd|pass|secret|token|access_token|api_key|apikey|auth)=([^&;\s"']{3,})`, Keywords: []string{"password=", "passwd=", "pwd=", "pass=", "token=", "secret=", "key=", "auth="}},
	{ID: "nova-pgpassword-env", Regex: `\b(?:PGPASSWORD|MYSQL_PWD|REDIS_PASSWORD|[A-Z_]*PASSWORD)=["']?([^\s"']+)`, Keywords: []string{"password=", "pwd="}, Prose: true},
	// .npmrc, .yarnrc, .pypirc and docker config credentials.
	{ID: "nova-npmrc-auth", Regex: `(?:^|[\s:/])_(?:authToken|auth|password)\s*[=:]\s*["']?([^\s"']{6,})`, Keywords: []string{"_auth", "_password"}},
	{ID: "nova-docker-auth", Regex: `"(?:auth|identitytoken|registrytoken)"\s*:\s*"([^"\s]{8,})"`, Keywords: []string{`"auth"`, `token"`}},
	// Authorization headers outside curl, and bare bearer tokens.
	{ID: "nova-auth-header", Regex: `\b(?:authorization|proxy-authorization)\s*[:=]\s*["']?(?:basic|bearer|token|digest|negotiate)\s+([A-Za-z0-9+/=._~\-]{8,})`, Keywords: []string{"authorization"}},
	{ID: "nova-bearer", Regex: `\bbearer\s+([A-Za-z0-9._~+/\-]{16,}=*)`, Keywords: []string{"bearer"}, Entropy: 3},
}

// secretNouns are the words that name a secret in prose.
const secretNouns = `password|passwd|passphrase|pass[\s\-]phrase|passcode|pass\s+code|pwd|pin\s+code|` +
	`secret(?:[\s_\-]key)?|client[\s_\-]secret|(?:api|access|auth|bearer|bot|session|refresh|personal\s+access|deploy|npm|github|gitlab)[\s_\-]?tokens?|token|` +
	`api[\s_\-]?key|access[\s_\-]key(?:[\s_\-]id)?|secret[\s_\-]access[\s_\-]key|private[\s_\-]key|signing[\s_\-]key|encryption[\s_\-]key|master[\s_\-]key|license[\s_\-]key`

// nounAnchors are the first words of secretNouns.
var nounAnchors = []string{"pass", "pwd", "pin", "secret", "client", "api", "access", "auth", "bearer", "bot", "session", "refresh",
	"personal", "deploy", "npm", "github", "gitlab", "token", "private", "signing", "encryption", "master", "license"}

// envKeywords gate the rules on environment variable names.
var envKeywords = []string{"PASS", "PWD", "SECRET", "TOKEN", "KEY", "CREDENTIAL", "AUTH"}

// proseKeywords gate the prose rules (one must appear, lower case).
var proseKeywords = []string{"pass", "pwd", "secret", "token", "key", "pin c", "cred", "auth"}

// proseFor: "the password for the staging db is X" (up to four words,
// none ending a sentence).
const proseFor = `(?:\s+(?:for|of|to|on|at|in)\b(?:\s+[^\s:=]*[^\s:=.!?;,]){1,4}?)?`

// proseConnector joins the noun and the value: is, was, are, being, will
// be, should be, set to, now, colon, equals, =>, :=.
const proseConnector = `(?:\??\s+(?:it[’']s|it\s+is|(?:is\s+|was\s+|been\s+|has\s+been\s+)?(?:set|changed|reset|rotated|updated)\s+to|will\s+be|should\s+be|has\s+been|is|was|are|were|being|becomes|became|equals)(?:\s+now)?\s*[:=]?|["']?\s*(?:=>|->|:=|==|=|:))\s*`

// proseValue is the secret: an optional quote, then no blanks or quotes.
const proseValue = `["'` + "`" + `]?([^\s"'` + "`" + `]{3,})`

// envSecretName is an environment variable whose name says it holds a
// secret (PGPASSWORD, GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, API_KEY): upper
// case only, so prose ("set the token to") is not a name.
const envSecretName = `(?-i:[A-Z][A-Z0-9_]*(?:PASSWORD|PASSWD|PASSPHRASE|_PWD|SECRET|TOKEN|_KEY|APIKEY|CREDENTIALS?|_AUTH|_PASS)[A-Z0-9_]*|(?:PASSWORD|SECRET|TOKEN|APIKEY|API_KEY)[A-Z0-9_]*)`

var rules = sync.OnceValue(func() *ruleSet {
	all := make([]compiled, 0, len(gitleaksRules)+len(proseRules))
	ids := map[string]int32{}
	var words []string
	for _, r := range slices.Concat(gitleaksRules, proseRules) {
		src := trimLeadingContext(r.Regex)
		re, err := regexp.Compile("(?i)" + src)
		if err != nil {
			continue // every rule compiles (TestEveryRuleCompiles); never fail at run time
		}
		c := compiled{re: re}
		kw := make([]string, len(r.Keywords)) // never modify the shared table
		for i, k := range r.Keywords {
			kw[i] = strings.ToLower(k)
			id, ok := ids[kw[i]]
			if !ok {
				id = int32(len(words))
				ids[kw[i]] = id
				words = append(words, kw[i])
			}
			c.kwIDs = append(c.kwIDs, id)
		}
		r.Keywords = kw
		if proseChecked[r.ID] {
			r.Prose = true
		}
		if a, ok := gitleaksAnchors[r.ID]; ok {
			r.Anchors, c.near, c.nearDist = a.words, a.near, assignDist
		}
		if words, ok := assignmentAnchors(src); ok && len(r.Anchors) == 0 {
			r.Anchors, c.near, c.nearDist = words, assignNear, assignDist
		}
		switch r.ID {
		case "nova-secret-prose":
			c.near, c.nearDist = proseNear, 80
		case "nova-secret-changed-to":
			c.near, c.nearDist = []string{" to "}, 120
		case "nova-use-as":
			c.near, c.nearDist = []string{" as "}, 200
		}
		if len(r.Anchors) > 0 {
			if c.anchored, err = regexp.Compile("(?i)^(?:" + src + ")"); err != nil {
				r.Anchors = nil
			}
			c.wordStart = strings.HasPrefix(src, `\b`)
		}
		c.rule = r
		all = append(all, c)
	}
	return &ruleSet{list: all, kw: newKWIndex(words)}
})

// gitleaksAnchors: gitleaks rules that run on most text that talks about
// keys, tokens and passwords; each starts, once its leading context is
// dropped, with one of these words, and the assignment rules have one of
// near ("=", ":", ">", "|" or ",") close after it. Anchored, they cost a
// fraction.
var gitleaksAnchors = map[string]struct{ words, near []string }{
	"generic-api-key":       {[]string{"access", "api", "auth", "credential", "creds", "key", "passwd", "password", "secret", "token"}, assignNear},
	"hashicorp-tf-password": {[]string{"administrator_login_password", "password"}, assignNear},
	"jwt":                   {[]string{"ey"}, nil}, // its keyword is in "key" and "they"; a token starts a word
	"twilio-api-key":        {[]string{"sk"}, nil},
	"vault-service-token":   {[]string{"hvs.", "s."}, nil},
}

// assignmentAnchors recognises gitleaks' assignment rules, which (once
// their leading context is dropped) start with a group of plain words and
// then up to 20 name characters: "(?:twitter)(?:[ \t\w.-]{0,20})…". The
// words are the rule's anchors.
func assignmentAnchors(src string) ([]string, bool) {
	inner, rest, ok := strings.Cut(strings.TrimPrefix(src, "(?:"), ")")
	if !ok || !strings.HasPrefix(src, "(?:") || !strings.HasPrefix(rest, `(?:[ \t\w.-]{0,20})`) || inner == "" {
		return nil, false
	}
	for _, c := range inner {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' && c != '-' && c != '|' {
			return nil, false
		}
	}
	words := strings.Split(inner, "|")
	if slices.Contains(words, "") {
		return nil, false
	}
	return words, true
}

// assignNear: gitleaks' assignment rules have, after a keyword of up to
// 28 bytes, up to 20 more name characters and up to 3 quotes or blanks,
// one of these.
var assignNear = []string{"=", ":", ">", "|", ","}

const assignDist = 56

// proseNear: what proseConnector needs after the noun (and proseFor's
// words): a verb or an assignment.
var proseNear = []string{"=", ":", ">", " is ", " is\n", " was ", " was\n", " are ", " were ", " being ", " be ", " to ", " equals ",
	"it's", "it’s"}

// proseChecked are gitleaks rules whose value gets the prose check too:
// the generic rule matches "apiKey: process.env.API_KEY" and "SECRET_KEY =
// settings.SECRET_KEY", which gitleaks drops with its allowlists (left out
// of the table).
var proseChecked = map[string]bool{"generic-api-key": true}

// leadingContext is how gitleaks' generic rules start: up to 50
// identifier characters before the keyword, so that its report shows the
// whole name. Only the secret group matters here, and a lazy prefix of 50
// optional characters makes every such regex several times slower (the
// matcher carries 50 threads through the whole text), so it is dropped:
// the secret a rule finds is the same without it.
const leadingContext = `[\w.-]{0,50}?`

func trimLeadingContext(re string) string {
	for {
		switch {
		case strings.HasPrefix(re, "(?i)"):
			re = re[len("(?i)"):] // every rule is compiled case-insensitive
		case strings.HasPrefix(re, leadingContext):
			re = re[len(leadingContext):]
		case strings.HasPrefix(re, "(?i:"+leadingContext):
			re = "(?i:" + re[len("(?i:")+len(leadingContext):]
		default:
			return re
		}
	}
}

// RuleCount is the number of detectors (gitleaks' and nova's).
func RuleCount() int { return len(rules().list) }

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
	set := rules()
	lower := asciiLower(s)
	present := set.kw.present(lower)
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
	for i := range set.list {
		r := &set.list[i]
		if len(r.kwIDs) > 0 && !slices.ContainsFunc(r.kwIDs, func(id int32) bool { return present[id] }) {
			continue
		}
		if len(r.CaseKeywords) > 0 && !containsAny(s, r.CaseKeywords) {
			continue
		}
		var matches [][]int
		if r.anchored != nil {
			matches = anchoredMatches(r, s, lower)
		} else {
			matches = r.re.FindAllStringSubmatchIndex(s, -1)
		}
		for _, m := range matches {
			a, b := secretSpan(m, r.SecretGroup)
			if a < 0 || b <= a {
				continue
			}
			if r.Entropy > 0 && entropy(s[a:b]) < r.Entropy {
				continue
			}
			if r.Prose {
				v, ok := proseSecret(s[a:b], r.Bare)
				if !ok {
					continue
				}
				b = a + len(v)
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
