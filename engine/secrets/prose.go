package secrets

import (
	"strings"
	"sync"
	"unicode"
)

// proseSecret decides whether the value a prose rule captured is a secret,
// and returns it without trailing sentence punctuation. It says no to
// words ("the password is required", "the token is valid for an hour"),
// type names ("password: string"), placeholders and references
// ("<your-password>", "${DB_PASSWORD}", "$TOKEN", "os.Getenv(", "***"),
// paths, short numbers ("MAX_TOKENS=4096") and, for bare rules, anything
// made of letters only ("password field").
//
// Hand-written rather than a library: it is a few word lists and suffixes
// tuned on the corpus in testdata/, and a dictionary would be megabytes.
func proseSecret(v string, bare bool) (string, bool) {
	v = strings.TrimRight(v, ".,;:!?)]}>")
	core := strings.TrimLeft(v, "([{")
	if len(core) < 3 || core != v && strings.ContainsAny(v[:1], "([{") {
		return v, false
	}
	switch core[0] {
	case '<', '$', '%', '/', '~', '#', '@', '&', '*', '!':
		return v, false // a placeholder, a variable, a path, a reference, a YAML tag
	}
	if strings.HasPrefix(core, "./") || strings.HasPrefix(core, "..") || strings.ContainsAny(core, "([") ||
		strings.Contains(core, "{{") || strings.HasPrefix(core, "process.env") {
		return v, false
	}
	if strings.Trim(core, "*xX.-_•…#?") == "" {
		return v, false // ***, xxx, ...
	}
	letters, digits, other := 0, 0, 0
	for _, r := range core {
		switch {
		case unicode.IsLetter(r):
			letters++
		case unicode.IsDigit(r):
			digits++
		default:
			other++
		}
	}
	if letters == 0 && other == 0 && digits <= 6 {
		return v, false // a count or a port, not a secret
	}
	if isReference(core) {
		return v, false
	}
	if digits > 0 {
		return v, true
	}
	wordish := true
	for _, r := range core {
		if !unicode.IsLetter(r) && r != '-' && r != '\'' && r != '_' {
			wordish = false
			break
		}
	}
	if !wordish {
		return v, true
	}
	if bare {
		return v, false // "password field", "password reset-link"
	}
	parts := strings.FieldsFunc(strings.ToLower(core), func(r rune) bool { return r == '-' || r == '_' || r == '\'' })
	if len(parts) == 0 {
		return v, false
	}
	if len(parts) > 2 {
		return v, true // correct-horse-battery-staple
	}
	if isProseWord(parts[0]) || isProseWord(parts[len(parts)-1]) {
		return v, false
	}
	return v, true
}

// isReference: a dotted identifier (config.db.password, req.body.token,
// settings.SECRET_KEY) names where a secret lives, it is not one.
func isReference(s string) bool {
	if !strings.Contains(s, ".") || strings.HasSuffix(s, ".") {
		return false
	}
	for _, part := range strings.Split(s, ".") {
		if part == "" {
			return false
		}
		for _, r := range part {
			if r != '_' && !unicode.IsLetter(r) {
				return false // digits: a secret such as "p4ss.w0rd", not a name
			}
		}
	}
	return true
}

// isProseWord: a word that follows "the password is" in ordinary writing.
func isProseWord(w string) bool {
	if proseWords()[w] {
		return true
	}
	if len(w) < 5 {
		return false
	}
	for _, suf := range proseSuffixes {
		if strings.HasSuffix(w, suf) {
			return true
		}
	}
	return false
}

// proseSuffixes: participles, adverbs and abstract nouns ("hashed",
// "being", "securely", "validation", "configurable").
var proseSuffixes = []string{"ed", "ing", "ly", "tion", "sion", "ment", "ness", "able", "ible", "ive", "ous", "ful", "less", "ity", "ance", "ence", "ise", "ize", "ist"}

// proseWords is built on first use (nothing at start-up).
var proseWords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		a an the this that these those it its it's is are was were be been being not no nor never always also only
		still now then here there just even too very so such same different other another any some every each all
		both either neither none nothing something anything everything one two three first last next new old
		and or but if when while because since until unless than as at by for from in into of on onto to with
		within without about above below under over after before between through per via
		i you he she we they me him her us them my your his our their mine yours who whom whose which what where why how
		can could may might must shall should will would do does did done has have had get gets got set sets
		use uses used make makes made take takes keep keeps go goes see sees say says let lets put puts
		required optional mandatory needed missing empty blank null nil none undefined unset default defaults
		true false yes ok okay fine good bad wrong right correct incorrect invalid valid weak strong short long
		secure insecure safe unsafe unique random sensitive visible hidden secret private public plain plaintext
		hash salt stored sent kept shown masked encrypted hashed reset rotated changed expired revoked leaked
		string str int integer number bool boolean bytes byte text char varchar any object array list map dict
		type types field fields value values key keys column property attribute param parameter argument option
		env environment variable config configuration file files header headers cookie cookies form input
		same-origin case length limit minimum maximum min max least most characters chars digits letters symbols
		user users admin account accounts login logins server client service app application database db
		there's here's yet ever again already soon later back out up down off away together
		enough little less more much many few several lot lots kind sort way part place point
		stale fresh current previous original initial final real fake dummy example sample placeholder test
		too-short free cheap easy hard simple complex long-lived short-lived read-only write-only single
		supplied provided passed given generated verified checked compared read write issued granted
		open closed ready available unavailable present absent active inactive enabled disabled on off
		http https json yaml xml base jwt rsa sha md bcrypt argon scrypt
		vault keychain keyring store manager prompt
		await async new return yield lambda func function fn self this typeof whatever whichever
		config settings env os process getpass input secrets params args opts options ctx req request`) {
		m[w] = true
	}
	return m
})
