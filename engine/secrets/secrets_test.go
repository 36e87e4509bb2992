package secrets

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEveryRuleCompiles(t *testing.T) {
	t.Parallel()
	for _, r := range append(append([]rule{}, gitleaksRules...), proseRules...) {
		_, err := regexp.Compile("(?i)" + r.Regex)
		assert.NoError(t, err, r.ID)
	}
	assert.Equal(t, len(gitleaksRules)+len(proseRules), RuleCount())
	assert.Len(t, gitleaksRules, 221, "gitleaks %s has 221 rules with a regex", gitleaksVersion)
}

// example builds a string the rule's regex matches, with varied characters
// so that entropy thresholds are met: one real-looking secret per rule,
// generated from the rule itself.
type example struct {
	n int
}

const varied = "Q7mZp2Xk9RbT4wNc8VfJ3hLd6GsY5aE1"

func (g *example) class(ranges []rune) rune {
	// Collect a few members spread over the class and rotate through them.
	var members, fallback []rune
	for i := 0; i+1 < len(ranges) && len(members) < 96; i += 2 {
		for r := ranges[i]; r <= ranges[i+1] && r < 0x7f && len(members) < 96; r++ {
			switch {
			case r == ' ' || r == '\t' || (unicode.IsPrint(r) && r != '"' && r != '\'' && r != '`' && r != '\\'):
				members = append(members, r)
			case r != '\n':
				fallback = append(fallback, r)
			}
		}
	}
	if len(members) == 0 {
		members = fallback
	}
	if len(members) == 0 {
		return 'x'
	}
	g.n++
	return members[(g.n*7)%len(members)]
}

func (g *example) gen(re *syntax.Regexp) string {
	var b strings.Builder
	switch re.Op {
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		b.WriteRune(g.class(re.Rune))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		g.n++
		b.WriteByte(varied[g.n%len(varied)])
	case syntax.OpCapture:
		b.WriteString(g.gen(re.Sub[0]))
	case syntax.OpConcat:
		for _, s := range re.Sub {
			b.WriteString(g.gen(s))
		}
	case syntax.OpAlternate:
		b.WriteString(g.gen(re.Sub[0]))
	case syntax.OpQuest:
		b.WriteString(g.gen(re.Sub[0]))
	case syntax.OpStar:
		for range 2 {
			b.WriteString(g.gen(re.Sub[0]))
		}
	case syntax.OpPlus:
		for range 24 {
			b.WriteString(g.gen(re.Sub[0]))
		}
	case syntax.OpRepeat:
		n := re.Min
		switch {
		case re.Max == -1:
			n = max(re.Min, 24)
		case re.Max > re.Min:
			n = min(re.Max, max(re.Min, 40))
		}
		for range n {
			b.WriteString(g.gen(re.Sub[0]))
		}
	}
	return b.String()
}

// handWritten covers rules the generator cannot satisfy (look-around-free
// regexes whose first alternative is too narrow, or entropy thresholds).
var handWritten = map[string]string{
	"curl-auth-header":       `curl -s -H "Authorization: Bearer 8fJk2LmQ9zXv4WpR7tYc" https://ci.example.com/api`,
	"curl-auth-user":         `curl --user deploy:Qx7vLm2Pz9Rt https://ci.example.com/api`,
	"kubernetes-secret-yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  password: cDRzc3cwcmQtZm9yLWRi\n",
}

func exampleFor(t *testing.T, r rule) (string, bool) {
	if s, ok := handWritten[r.ID]; ok {
		return s, true
	}
	tree, err := syntax.Parse(r.Regex, syntax.Perl)
	require.NoError(t, err, r.ID)
	re := regexp.MustCompile(r.Regex)
	for seed := range 8 {
		g := &example{n: seed * 3}
		s := g.gen(tree)
		if re.MatchString(" " + s + " ") {
			return s, true
		}
	}
	return "", false
}

// TestOneSecretPerRuleIsRedacted: for every gitleaks rule, a secret its
// regex matches (in a line of prose, as it would sit in a vault node) is
// redacted, and so is its lower-cased form where the entropy allows.
func TestOneSecretPerRuleIsRedacted(t *testing.T) {
	t.Parallel()
	missing := 0
	for _, r := range gitleaksRules {
		ex, ok := exampleFor(t, r)
		if !ok {
			missing++
			t.Logf("no example for %s", r.ID)
			continue
		}
		line := "we used " + ex + " in the deploy script\n"
		if len(r.Keywords) > 0 && !containsAny(strings.ToLower(line), r.Keywords) {
			line = r.Keywords[0] + ": " + line // gitleaks needs a keyword too
		}
		spans := Find(line)
		if !assert.NotEmpty(t, spans, "%s: %q not found", r.ID, ex) {
			continue
		}
		out := Redact(line)
		assert.Contains(t, out, Redacted, r.ID)
		// The secret part of the rule's own match is gone.
		m := regexp.MustCompile(r.Regex).FindStringSubmatchIndex(line)
		if m != nil {
			a, b := secretSpan(m, r.SecretGroup)
			if b-a >= 8 {
				assert.NotContains(t, out, line[a:b], "%s left its secret", r.ID)
			}
		}
	}
	assert.Zero(t, missing, "every rule has an example")
}

// Realistic secrets, including the cases of issue 11: each must be gone
// from the output, in its own case and lower-cased (tags are lowercased).
var corpus = []struct{ text, secret string }{
	{"aws key AKIAIOSFODNN7EXAMPLE in the tag", "AKIAIOSFODNN7EXAMPLE"},
	{"token ghp_16C7e42F292c6912E7710c838347Ae178B4a for the bot", "ghp_16C7e42F292c6912E7710c838347Ae178B4a"},
	{"slack xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx posts", "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"},
	{"stripe sk_live_51H8fQ2KjL9mN0pQrStUvWxYz12 charges", "sk_live_51H8fQ2KjL9mN0pQrStUvWxYz12"},
	{"google AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY maps", "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"},
	{"-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7bq98k2XqZLpGmR4tN1vW8cY3jH6dF0sA9eU5iO2pK7lM4nB\n-----END RSA PRIVATE KEY-----", "MIIEpAIBAAKCAQEA7bq98k2XqZLpGmR4tN1vW8cY3jH6dF0sA9eU5iO2pK7lM4nB"},
	{"the password is: P@ssw0rd!2024", "P@ssw0rd!2024"},
	{"remember pwd hunter2 for staging", "hunter2"},
	{"run mysql -u root -pMyS3cretPass shop", "MyS3cretPass"},
	{"curl -u admin:Adm1nPa55 https://ci.example.com/api", "Adm1nPa55"},
	{"the passphrase is correct-horse-battery-staple", "correct-horse-battery-staple"},
	{"Password: Tr0ub4dor&3", "Tr0ub4dor&3"},
	{"db at postgres://app:s3cr3tPw@db:5432/shop", "s3cr3tPw"},
	{"PGPASSWORD=Zq8vN2wX psql -h db", "Zq8vN2wX"},
	{"mysqldump --password=Lk2Pq9Wz shop > dump.sql", "Lk2Pq9Wz"},
	{"jwt eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"},
}

func TestRealisticSecretsAreRedactedInAnyCase(t *testing.T) {
	t.Parallel()
	for _, c := range corpus {
		for _, text := range []string{c.text, strings.ToLower(c.text), strings.ToUpper(c.text)} {
			out := Redact(text)
			assert.NotContains(t, strings.ToLower(out), strings.ToLower(c.secret), "%q → %q", text, out)
		}
	}
}

func TestOrdinaryProseIsKept(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"Prefer table-driven tests; keep handlers small.",
		"The password reset flow sends an e-mail.",
		"Use context.Context as the first parameter.",
		"Run go test ./... before pushing.",
	} {
		assert.Equal(t, s, Redact(s))
	}
}

func FuzzRedact(f *testing.F) {
	for _, c := range corpus {
		f.Add(c.text)
	}
	f.Add("pwd")
	f.Add("password is: ")
	f.Add("Set PGPASSWORD to ")
	f.Add("credentials are a / ")
	f.Add("the password for the db is (")
	f.Add("password: ${X} and token: ***")
	f.Fuzz(func(t *testing.T, s string) {
		out := Redact(s)
		if Redact(out) != out {
			t.Fatalf("not idempotent: %q → %q → %q", s, out, Redact(out))
		}
		for _, sp := range Find(s) {
			if sp[0] < 0 || sp[1] > len(s) || sp[0] >= sp[1] {
				t.Fatalf("bad span %v", sp)
			}
		}
		_ = fmt.Sprint(out)
	})
}
