package lazyre_test

import (
	"regexp"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/nova-dev/nova/internal/lazyre"
)

// An RE answers as the regexp it stands for, compiled once even when first
// used from many goroutines at the same time.
func TestREMatchesItsRegexp(t *testing.T) {
	t.Parallel()
	const pattern = `(?i)\b(\w+)@(\w+)\.com\b`
	r := lazyre.New(pattern)
	want := regexp.MustCompile(pattern)
	text := "mail Ann@Example.com or bob@test.com, not carol@test.org"

	var wg sync.WaitGroup
	got := make([]*regexp.Regexp, 8)
	for i := range got {
		wg.Go(func() { got[i] = r.Re() })
	}
	wg.Wait()
	for _, g := range got {
		assert.Same(t, got[0], g, "compiled once")
	}
	assert.Equal(t, pattern, r.String())
	assert.Equal(t, want.FindAllStringSubmatch(text, -1), r.FindAllStringSubmatch(text, -1))
	assert.Equal(t, want.ReplaceAllString(text, "<$1>"), r.ReplaceAllString(text, "<$1>"))
	assert.Equal(t, want.FindStringIndex(text), r.FindStringIndex(text))
	assert.Equal(t, want.Split(text, -1), r.Split(text, -1))
	assert.True(t, r.MatchString(text))
	assert.False(t, r.Match([]byte("nothing here")))
	assert.Equal(t, 2, r.NumSubexp())
}

// A bad pattern does not panic when declared; CompileAll names it (the
// binary's test compiles every pattern so a bad one never reaches a user).
func TestCompileAllNamesABadPattern(t *testing.T) {
	t.Parallel()
	bad := lazyre.New(`(unclosed`)
	assert.Contains(t, lazyre.CompileAll(), `(unclosed: error parsing regexp: missing closing ): `+"`(unclosed`")
	assert.Panics(t, func() { bad.MatchString("x") }, "first use of a bad pattern panics, as MustCompile did")
}
