package facts_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/knowledge/facts"
)

// The team scope sits between user and workspace: a narrower search sees
// team facts, a team search never sees workspace ones.
func TestTeamScopeIsBetweenUserAndWorkspace(t *testing.T) {
	t.Parallel()
	assert.True(t, facts.User().Broader(facts.Team()))
	assert.True(t, facts.Team().Broader(facts.Workspace()))
	for _, narrow := range []facts.Scope{facts.Workspace(), facts.Build("7"), facts.Agent("CODER")} {
		assert.True(t, facts.Visible(facts.Team(), facts.Chain(narrow, "7")), narrow.String())
	}
	team := facts.Chain(facts.Team(), "")
	assert.True(t, facts.Visible(facts.User(), team))
	assert.False(t, facts.Visible(facts.Workspace(), team))
	assert.False(t, facts.Visible(facts.Team(), facts.Chain(facts.User(), "")))
}

func TestParseScope(t *testing.T) {
	t.Parallel()
	good := map[string]facts.Scope{
		"user": facts.User(), "Team": facts.Team(), " Workspace ": facts.Workspace(), "build:42": facts.Build("42"),
		"BUILD:b-7.x": facts.Build("b-7.x"), "agent:mars": facts.Agent("MARS"), "agent:Code_Reviewer-2": facts.Agent("CODE_REVIEWER-2"),
	}
	for in, want := range good {
		got, err := facts.ParseScope(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
		back, err := facts.ParseScope(got.String())
		require.NoError(t, err)
		assert.Equal(t, got, back)
	}
	for _, in := range []string{"", "team:x", "user:me", "workspace:x", "build:", "build:../x", "agent:", "agent:9lives",
		"agent:a b", "build:" + strings.Repeat("9", 80), "platform", "agent:\x00"} {
		_, err := facts.ParseScope(in)
		require.ErrorIs(t, err, facts.ErrInvalid, "%q", in)
		assert.Contains(t, err.Error(), facts.ScopeHelp)
	}
	var s facts.Scope
	require.Error(t, json.Unmarshal([]byte(`"galaxy"`), &s))
	b, err := json.Marshal(facts.Build("9"))
	require.NoError(t, err)
	assert.JSONEq(t, `"build:9"`, string(b))
}

func TestParseID(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"f12": "f12", "F12": "f12", "u3": "u3", "7": "f7", "fact:u9": "u9"} {
		got, err := facts.ParseID(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got)
	}
	for _, in := range []string{"", "f", "f0", "x12", "f-1", "u1.5", "f99999999999999999999999"} {
		_, err := facts.ParseID(in)
		require.ErrorIs(t, err, facts.ErrInvalid, in)
	}
}

// FuzzParseScope: the scope parser never panics; what it accepts prints
// back to itself and is visible from itself.
func FuzzParseScope(f *testing.F) {
	for _, s := range []string{"user", "workspace", "build:1", "agent:MARS", "agent:", "build:../x", ":", "USER", "agent:a:b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := facts.ParseScope(in)
		if err != nil {
			if !errors.Is(err, facts.ErrInvalid) {
				t.Fatalf("unclassified error %v", err)
			}
			return
		}
		back, err := facts.ParseScope(s.String())
		if err != nil || back != s {
			t.Fatalf("%q → %q → %v %v", in, s.String(), back, err)
		}
		chain := facts.Chain(s, "1")
		if !facts.Visible(s, chain) || !facts.Visible(facts.User(), chain) {
			t.Fatalf("chain of %s misses itself or user: %v", s, chain)
		}
		if s.Level != facts.LevelAgent && facts.Visible(facts.Agent("ZZ"), chain) {
			t.Fatalf("a broad search sees a narrower fact: %s", s)
		}
	})
}
