package params

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func f(v float64) *float64 { return &v }
func b(v bool) *bool       { return &v }

var decl = []Param{
	{Name: "name", Type: String},
	{Name: "devs", Type: Integer, Default: 3, Min: f(1), Max: f(10)},
	{Name: "ratio", Type: Number, Default: 0.5, Min: f(0), Max: f(1)},
	{Name: "strict", Type: Boolean, Default: false},
	{Name: "tier", Type: Enum, Values: []any{"budget", "standard", "premium"}, Default: "standard"},
	{Name: "scope", Required: b(false)},
}

func TestResolveAppliesDefaultsAndTypes(t *testing.T) {
	t.Parallel()
	got, err := Resolve(decl, map[string]any{"name": "api", "devs": "4", "strict": "yes", "ratio": "0.25"})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"name": "api", "devs": 4, "ratio": 0.25, "strict": true, "tier": "standard", "scope": ""}, got)
}

func TestResolveNamesTheBadParameter(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		given map[string]any
		param string
		msg   string
	}{
		"missing":      {map[string]any{}, "name", "is required and has no default"},
		"unknown":      {map[string]any{"name": "x", "colour": "red"}, "colour", "unknown parameter (known: name, devs"},
		"wrong type":   {map[string]any{"name": "x", "devs": "three"}, "devs", `"three" is not a whole number`},
		"fraction":     {map[string]any{"name": "x", "devs": 2.5}, "devs", "not a whole number"},
		"below":        {map[string]any{"name": "x", "devs": "0"}, "devs", "below the minimum 1"},
		"above":        {map[string]any{"name": "x", "ratio": "1.5"}, "ratio", "above the maximum 1"},
		"not a number": {map[string]any{"name": "x", "ratio": "NaN"}, "ratio", "not a finite number"},
		"enum":         {map[string]any{"name": "x", "tier": "gold"}, "tier", `"gold" is not one of budget, standard, premium`},
		"boolean":      {map[string]any{"name": "x", "strict": "maybe"}, "strict", "not true or false"},
	} {
		_, err := Resolve(decl, tc.given)
		require.Error(t, err, name)
		assert.ErrorIs(t, err, ErrUsage, name)
		var pe *Error
		require.ErrorAs(t, err, &pe, name)
		assert.Equal(t, tc.param, pe.Param, name)
		assert.Contains(t, err.Error(), tc.msg, name)
	}
}

func TestCheckDeclarations(t *testing.T) {
	t.Parallel()
	bad := []Param{
		{Name: "ok"},
		{Name: "ok"},
		{Name: "has-dash"},
		{Name: "t", Type: "colour"},
		{Name: "e", Type: Enum},
		{Name: "s", Values: []any{"a"}},
		{Name: "i", Type: Integer, Min: f(5), Max: f(1)},
		{Name: "d", Type: Integer, Default: "x"},
		{Name: "en", Type: Enum, Values: []any{"a", "a"}},
		{Name: "r", Required: b(true), Default: "x"},
		{Name: "m", Type: String, Min: f(1)},
	}
	errs := Check(bad)
	got := map[int]string{}
	for _, e := range errs {
		got[e.Index] = e.Field
		assert.ErrorIs(t, e.Err, ErrUsage)
	}
	assert.Equal(t, map[int]string{1: "name", 2: "name", 3: "type", 4: "values", 5: "values", 6: "min", 7: "default", 8: "values", 9: "required", 10: "min"}, got)
	assert.Empty(t, Check(decl))
}

func TestMissingAndQuestions(t *testing.T) {
	t.Parallel()
	ps := []Param{{Name: "feature", Required: b(true), Prompt: "Which feature?"}, {Name: "tier", Type: Enum, Values: []any{"a", 2}}}
	miss := Missing(ps, map[string]any{})
	require.Len(t, miss, 2)
	assert.Equal(t, "Which feature?", miss[0].Question())
	assert.Equal(t, "tier (a, 2)", miss[1].Question())
	v, err := ps[1].Convert("2")
	require.NoError(t, err)
	assert.Equal(t, 2, v, "enum values keep their declared type")
}

func TestParseAssignments(t *testing.T) {
	t.Parallel()
	got, err := ParseAssignments([]string{"a=1", "b=x=y", "c="})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"a": "1", "b": "x=y", "c": ""}, got)
	_, err = ParseAssignments([]string{"novalue"})
	assert.ErrorIs(t, err, ErrUsage)
	_, err = ParseAssignments([]string{"a=1", "a=2"})
	assert.ErrorIs(t, err, ErrUsage)
}
