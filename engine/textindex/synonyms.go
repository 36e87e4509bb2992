package textindex

import (
	"slices"
	"strconv"
)

// defaultSynonyms are the built-in concept groups of programming vocabulary. A query term
// that belongs to a group also matches, down-weighted by Options.SynonymWeight, documents
// that contain any member of the group (see conceptMap), so paraphrased queries still hit:
// "keep users logged in" reaches a note about sessions and authentication. Members are plain
// words; they go through the same analysis as documents, so "authenticated" and
// "authentication" need not both be listed. Members that analyse to more than one term are
// ignored.
var defaultSynonyms = [][]string{
	{"auth", "authn", "authentication", "authenticate", "login", "logon", "logout", "signin",
		"signon", "signout", "signup", "sso", "oauth", "session", "credential", "jwt", "identity"},
	{"authz", "authorization", "authorize", "permission", "role", "rbac", "acl", "privilege",
		"access"},
	{"db", "database", "sql", "query", "storage", "persist", "persistence", "datastore",
		"repository", "orm", "table", "bbolt", "sqlite", "postgres"},
	{"err", "error", "failure", "fail", "exception", "panic", "crash", "fault", "throw"},
	{"test", "spec", "assert", "assertion", "verify", "verification", "unittest", "e2e",
		"testify", "mock", "fixture"},
	{"ui", "interface", "component", "screen", "view", "widget", "layout", "frontend", "tui"},
	{"perf", "performance", "speed", "latency", "fast", "slow", "optimize", "throughput",
		"efficient", "benchmark", "bottleneck"},
	{"secret", "token", "key", "password", "credential", "apikey", "passphrase"},
	{"delete", "deletion", "remove", "removal", "erase", "purge", "softdelete", "trash",
		"destroy"},
	{"cache", "memoize", "memoization", "memo", "lru", "ttl"},
	{"retry", "backoff", "resilience", "resilient", "reconnect", "idempotent", "circuitbreaker"},
	{"deploy", "deployment", "release", "ship", "rollout", "publish", "ci", "pipeline"},
	{"i18n", "internationalization", "translation", "translate", "locale", "localization",
		"l10n"},
	{"a11y", "accessibility", "accessible", "contrast", "aria", "screenreader", "wcag"},
	{"security", "secure", "vulnerability", "xss", "csrf", "injection", "exploit", "attack",
		"encrypt", "encryption", "sanitize"},
	{"log", "logging", "logger", "trace", "tracing", "telemetry", "monitor", "metric",
		"observability"},
	{"config", "configuration", "setting", "option", "env", "environment"},
	{"concurrency", "concurrent", "parallel", "async", "goroutine", "thread", "race", "mutex",
		"lock", "deadlock"},
	{"validate", "validation", "validator", "sanitize", "schema", "constraint"},
	{"ratelimit", "throttle", "throttling", "quota", "ratelimiter"},
	{"route", "routing", "router", "navigation", "navigate", "url"},
	{"api", "endpoint", "rest", "http", "rpc", "grpc", "graphql"},
	{"fetch", "request", "download", "load", "loader"},
	{"docs", "documentation", "readme", "docstring", "godoc", "comment"},
	{"style", "css", "theme", "color", "colour", "palette", "lipgloss"},
	{"form", "input", "field", "submit"},
	{"dependency", "package", "module", "library", "vendor"},
	{"migration", "migrate", "upgrade", "schema"},
	{"pagination", "paginate", "paging", "cursor", "offset"},
	{"notification", "toast", "alert", "notify", "banner"},
	{"upload", "attachment", "blob", "file"},
	{"refactor", "refactoring", "cleanup", "restructure", "simplify"},
	{"payment", "billing", "subscription", "checkout", "invoice", "stripe"},
	{"search", "find", "lookup", "retrieval", "index", "rank"},
	{"date", "time", "timestamp", "timezone", "datetime", "duration"},
	{"loading", "spinner", "skeleton", "placeholder", "pending"},
	{"state", "store", "redux", "zustand", "context"},
	{"bug", "defect", "regression", "issue", "fix", "hotfix"},
}

// conceptMap maps an analysed term to the concept groups it belongs to.
//
// Synonyms are indexed, not expanded at query time: every occurrence of a group member also
// counts as an occurrence of the group's concept term (named conceptTerm(g), which no text
// can produce), and a query term adds the concept terms of its groups, down-weighted. So a
// group behaves like one pooled term with its own document frequency, as Lucene's
// SynonymQuery scores synonyms, and a query stays a handful of posting lists instead of one
// per group member.
type conceptMap map[string][]int32

func buildConcepts(groups ...[][]string) conceptMap {
	m := conceptMap{}
	g := int32(0)
	for _, gs := range groups {
		for _, group := range gs {
			for _, w := range group {
				if t := Analyze(w); len(t) == 1 && !slices.Contains(m[t[0]], g) {
					m[t[0]] = append(m[t[0]], g)
				}
			}
			g++
		}
	}
	return m
}

// conceptTerm names the concept term of group g; the NUL byte keeps it out of reach of the
// analyzer, of prefix and of fuzzy matching.
func conceptTerm(g int) string { return "\x00" + strconv.Itoa(g) }

func isConceptTerm(t string) bool { return t != "" && t[0] == 0 }

var defaultConcepts = buildConcepts(defaultSynonyms)
