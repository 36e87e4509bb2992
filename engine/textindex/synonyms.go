package textindex

import "slices"

// defaultSynonyms are the built-in concept groups of programming vocabulary. A query term
// that belongs to a group is expanded (one hop, down-weighted by Options.SynonymWeight) to
// the other members of every group it belongs to, so paraphrased queries still hit: "keep
// users logged in" reaches a note about sessions and authentication. Members are plain words;
// they go through the same analysis as documents, so "authenticated" and "authentication"
// need not both be listed. Members that analyse to more than one term are ignored.
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
	{"api", "endpoint", "rest", "http", "rpc", "grpc", "graphql", "handler"},
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

// synonymMap maps a term to the other terms of all its groups, sorted and deduplicated.
type synonymMap map[string][]string

func buildSynonyms(groups ...[][]string) synonymMap {
	m := synonymMap{}
	for _, gs := range groups {
		for _, g := range gs {
			var terms []string
			for _, w := range g {
				if t := Analyze(w); len(t) == 1 {
					terms = append(terms, t[0])
				}
			}
			for _, t := range terms {
				for _, u := range terms {
					if u != t {
						m[t] = append(m[t], u)
					}
				}
			}
		}
	}
	for t, us := range m {
		slices.Sort(us)
		m[t] = slices.Compact(us)
	}
	return m
}

var defaultSynonymMap = buildSynonyms(defaultSynonyms)
