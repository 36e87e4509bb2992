package yamlguard

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type keysStep struct {
	Agent string `yaml:"agent"`
	Tries int    `yaml:"tries"`
}

type keysDoc struct {
	Name  string              `yaml:"name"`
	Steps []keysStep          `yaml:"steps"`
	Env   map[string]keysStep `yaml:"env"`
	Limit *struct {
		Timeout string `yaml:"timeout"`
	} `yaml:"limit"`
}

const keysYAML = `name: demo
steps:
  - agent: coder
    tries: 2
  - agnet: tester
limit:
  tiemout: 5s
env:
  my-key:
    agent: x
    color: red
`

func TestCheckKeysReportsEveryUnknownKeyWithItsLineAndPath(t *testing.T) {
	t.Parallel()
	file, err := Parse("w.yaml", []byte(keysYAML), Limits{})
	require.NoError(t, err)
	fields := Fields{}
	got := CheckKeys(file.Docs[0].Body, reflect.TypeFor[keysDoc](), "", fields)
	assert.Equal(t, []UnknownKey{
		{Line: 5, Field: "steps[1].agnet", Name: "agnet"},
		{Line: 7, Field: "limit.tiemout", Name: "tiemout"},
		{Line: 11, Field: "env.my-key.color", Name: "color"},
	}, got)
	assert.Equal(t, 4, FieldLine(file.Docs[0].Body, "steps[0].tries"))
	assert.Equal(t, 10, FieldLine(file.Docs[0].Body, "env.my-key.agent"), "a key with a dash is quoted in the path")
	assert.Equal(t, 7, FieldLine(file.Docs[0].Body, "limit.timeout"), "an absent field falls back to its parent mapping, which starts at its first key")
	assert.Equal(t, 0, FieldLine(file.Docs[0].Body, "nothing"))
}

func TestLocateNamesTheFieldAndTheTypeAnAuthorKnows(t *testing.T) {
	t.Parallel()
	file, err := Parse("w.yaml", []byte("name: demo\nsteps:\n  - agent: coder\n    tries: [1, 2]\n"), Limits{})
	require.NoError(t, err)
	fields := Fields{}
	require.Empty(t, CheckKeys(file.Docs[0].Body, reflect.TypeFor[keysDoc](), "", fields))
	var v keysDoc
	derr := Decode("w.yaml", file.Docs[0].Body, &v)
	require.Error(t, derr)
	loc := Locate(derr, fields)
	assert.Equal(t, 4, loc.Line)
	assert.Equal(t, "steps[0].tries", loc.Field)
	assert.Contains(t, loc.Msg, "expected a whole number")

	_, perr := Parse("bad.yaml", []byte("a: [1, 2\n"), Limits{})
	require.Error(t, perr)
	assert.NotEmpty(t, Locate(perr, nil).Msg)
}
