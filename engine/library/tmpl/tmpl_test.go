package tmpl

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func render(t *testing.T, src string, data map[string]any) (string, error) {
	t.Helper()
	return Render(context.Background(), src, data)
}

func TestRenderSeedSyntax(t *testing.T) {
	t.Parallel()
	cond := "{% if tier == 'premium' %}anthropic{% else %}ollama{% endif %}"
	out, err := render(t, cond, map[string]any{"tier": "premium"})
	require.NoError(t, err)
	assert.Equal(t, "anthropic", out)
	out, err = render(t, cond, map[string]any{"tier": "budget"})
	require.NoError(t, err)
	assert.Equal(t, "ollama", out)

	out, err = render(t, "You write {{ language }} code.", map[string]any{"language": "go"})
	require.NoError(t, err)
	assert.Equal(t, "You write go code.", out)

	out, err = render(t, "{% for f in files %}{{ loop.index }}:{{ f }} {% endfor %}", map[string]any{"files": []any{"a.go", "b.go"}})
	require.NoError(t, err)
	assert.Equal(t, "1:a.go 2:b.go ", out)
}

func TestPlainTextIsNotRendered(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "plain", "a } b {", "50% off", "{ not: a template }"} {
		out, err := render(t, s, nil)
		require.NoError(t, err)
		assert.Equal(t, s, out)
		assert.False(t, Has(s), s)
	}
	assert.True(t, Has("{{ x }}"))
	assert.True(t, Has("{% if x %}{% endif %}"))
	assert.True(t, Has("{# note #}"))
}

// Values are data: whatever a value contains is printed as it is, never
// evaluated.
func TestValuesAreNeverEvaluated(t *testing.T) {
	t.Parallel()
	attacks := []string{
		"{{ 7*7 }}",
		"{% for i in range(9999) %}x{% endfor %}",
		"{% include '/etc/passwd' %}",
		"{{ secret }}",
		"{# comment #}",
		"{{ ''.__class__ }}",
		"}}{{ name }}{{",
		"{% raw %}{{ x }}{% endraw %}",
	}
	for _, v := range attacks {
		out, err := render(t, "[{{ v }}]", map[string]any{"v": v, "secret": "LEAK", "name": "LEAK"})
		require.NoError(t, err, v)
		assert.Equal(t, "["+v+"]", out, "value %q must render verbatim", v)
		assert.NotContains(t, out, "LEAK")
		assert.NotContains(t, out, "49")
	}
	// Nested values (lists and maps) are data too.
	out, err := render(t, "{{ m.k }}|{{ l[0] }}", map[string]any{"m": map[string]any{"k": "{{ 1+1 }}"}, "l": []any{"{% if true %}y{% endif %}"}})
	require.NoError(t, err)
	assert.Equal(t, "{{ 1+1 }}|{% if true %}y{% endif %}", out)
}

func TestSandboxRefusesFilesMacrosAndPadding(t *testing.T) {
	t.Parallel()
	for _, src := range []string{
		"{% include 'x.txt' %}",
		"{% import 'x.txt' as x %}",
		"{% from 'x' import y %}",
		"{% extends 'base' %}",
		"{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}",
		"{% call f() %}{% endcall %}",
		"{% block b %}{% endblock %}",
		"{{ 'x' * 3 }}",
		"{{ n * m }}",
		"{{ n * 100 * 1000 }}",
	} {
		_, err := Parse(src)
		require.Error(t, err, src)
		assert.ErrorIs(t, err, ErrSyntax, src)
	}
	for _, src := range []string{"{{ x | center(99999) }}", "{{ x.ljust(99999) }}", "{{ x | format(1) }}", "{{ x | random }}"} {
		_, err := render(t, src, map[string]any{"x": "a"})
		require.Error(t, err, src)
		assert.ErrorIs(t, err, ErrRender, src)
	}
	out, err := render(t, "{{ n * 3 }}", map[string]any{"n": 4})
	require.NoError(t, err)
	assert.Equal(t, "12", out)
}

func TestLimits(t *testing.T) {
	t.Parallel()
	_, err := render(t, "{% for i in range(100000) %}{% endfor %}", nil)
	assert.ErrorIs(t, err, ErrLimit)
	_, err = render(t, "{% for i in range(5000) %}{% for j in range(5000) %}{% endfor %}{% endfor %}", nil)
	assert.ErrorIs(t, err, ErrLimit, "range's budget is per render, nested loops included")
	big := strings.Repeat("x", 300<<10)
	_, err = render(t, "{% for i in range(5) %}{{ v }}{% endfor %}", map[string]any{"v": big})
	assert.ErrorIs(t, err, ErrLimit, "output over 1 MiB")
	_, err = Parse("{{ x }}" + strings.Repeat(" ", MaxSource))
	assert.ErrorIs(t, err, ErrLimit)
	// A runtime panic inside the engine is an error, not a crash.
	_, err = render(t, "{{ 1 % 0 }}", nil)
	assert.ErrorIs(t, err, ErrRender)
}

func TestTimeoutAndCancel(t *testing.T) {
	t.Parallel()
	tp, err := Parse("{% for i in range(9000) %}{{ v | upper | lower }}{% endfor %}")
	require.NoError(t, err)
	_, err = tp.Render(context.Background(), map[string]any{"v": "abc"}, time.Nanosecond)
	assert.ErrorIs(t, err, ErrLimit)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = tp.Render(ctx, nil, 0)
	assert.ErrorIs(t, err, context.Canceled)
}

func TestUndefinedNamesAreErrors(t *testing.T) {
	t.Parallel()
	_, err := render(t, "hello {{ nam }}", map[string]any{"name": "x"})
	require.ErrorIs(t, err, ErrRender)
	assert.Contains(t, err.Error(), `"nam" is not defined`)
	out, err := render(t, "{{ inputs.dir | default('.') }}", map[string]any{"inputs": map[string]any{}})
	require.NoError(t, err)
	assert.Equal(t, ".", out)
}

func TestSyntaxErrorsNameTheLine(t *testing.T) {
	t.Parallel()
	_, err := Parse("line one\n{% if x %}\nno end")
	require.ErrorIs(t, err, ErrSyntax)
	var te *Error
	require.ErrorAs(t, err, &te)
	assert.Positive(t, te.Line)
	_, err = Parse("{{ x }")
	assert.ErrorIs(t, err, ErrSyntax)
}

func TestRefs(t *testing.T) {
	t.Parallel()
	tp, err := Parse(`{{ research.output }} {{ plan['output'] | firstline }}
{% set n = 3 %}{% for f in files %}{{ f }}{{ loop.index }}{% endfor %}{{ n }}
{% if x is defined and y is not none %}{{ dict(a=1) }}{{ title | default(name) }}{% endif %}`)
	require.NoError(t, err)
	got := map[string]string{}
	for _, r := range tp.Refs() {
		got[r.Name] = r.Attr
	}
	assert.Equal(t, map[string]string{"research": "output", "plan": "output", "files": "", "x": "", "y": "", "title": "", "name": ""}, got)
	assert.Equal(t, []string{"research", "plan", "files", "x", "y", "title", "name"}, Names(tp.Refs()))
}

func TestExpr(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	data := map[string]any{"test": map[string]any{"status": "failed", "failed": true}, "n": 0}
	for src, want := range map[string]bool{
		"test.status == 'failed'":     true,
		"{{ test.failed }}":           true,
		"not test.failed":             false,
		"test.status == 'done' or n":  false,
		"test.status in ['failed']":   true,
		"n == 0 and test.failed":      true,
		"test.status != 'failed'":     false,
		"{{ test.status }} == 'done'": false, // refused below
	} {
		x, err := ParseExpr(src)
		if strings.Count(src, "{{") == 1 && !strings.HasSuffix(strings.TrimSpace(src), "}}") {
			assert.ErrorIs(t, err, ErrSyntax, "mixing {{ }} with an operator is refused: %s", src)
			continue
		}
		require.NoError(t, err, src)
		got, err := x.Eval(ctx, data)
		require.NoError(t, err, src)
		assert.Equal(t, want, got, src)
	}
	for _, bad := range []string{"", "   ", "a %} {% b", "(", "x ==", "{% if x %}"} {
		_, err := ParseExpr(bad)
		assert.ErrorIs(t, err, ErrSyntax, bad)
	}
	x, err := ParseExpr("missing.status == 'x'")
	require.NoError(t, err)
	assert.Equal(t, []string{"missing"}, Names(x.Refs()))
	_, err = x.Eval(ctx, nil)
	assert.ErrorIs(t, err, ErrRender)
}

func TestNovaFilters(t *testing.T) {
	t.Parallel()
	data := map[string]any{
		"hits":  "no path\nsrc/a.go:12: boom\nsrc/b.go:3: boom",
		"plain": "\n\n  first  \nsecond",
		"p":     "src/pkg/file.test.ts",
		"re":    "undefined: foo(",
	}
	for src, want := range map[string]string{
		"{{ hits | firstpath }}":       "src/a.go",
		"{{ plain | firstline }}":      "first",
		"{{ plain | lines | length }}": "2",
		"{{ p | basename }}":           "file.test.ts",
		"{{ p | dirname }}":            "src/pkg",
		"{{ p | stem }}":               "src/pkg/file.test",
		"{{ p | ext }}":                ".ts",
		"{{ re | regexquote }}":        `undefined: foo\(`,
		"{{ '' | firstpath }}":         "",
	} {
		out, err := render(t, src, data)
		require.NoError(t, err, src)
		assert.Equal(t, want, out, src)
	}
	assert.Equal(t, "plain line", FirstPath("plain line\nother"))
}

func TestConcurrentRenders(t *testing.T) {
	t.Parallel()
	tp, err := Parse("{% for i in range(n) %}{{ i }}{% endfor %}")
	require.NoError(t, err)
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			out, err := tp.Render(context.Background(), map[string]any{"n": i}, 0)
			if err == nil && len(out) != i {
				err = errors.New("wrong output " + out)
			}
			errs <- err
		}()
	}
	for range 8 {
		assert.NoError(t, <-errs)
	}
}
