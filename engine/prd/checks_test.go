package prd

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTaskChecksParseAndRoundTrip(t *testing.T) {
	t.Parallel()
	doc := `{"meta":{"name":"p","version":"1"},"tasks":[
 {"id":"a","title":"A","description":"","agent":"MARS","status":"pending","dependencies":[],"phase":0,"checks":["go test ./..."]},
 {"id":"b","title":"B","description":"","agent":"MARS","status":"pending","dependencies":[],"phase":0,"checks":[]},
 {"id":"c","title":"C","description":"","agent":"MARS","status":"pending","dependencies":[],"phase":0}]}`
	p, err := Parse("p.json", []byte(doc))
	require.NoError(t, err)
	require.Len(t, p.Tasks, 3)
	assert.Equal(t, []string{"go test ./..."}, p.Tasks[0].Checks)
	assert.NotNil(t, p.Tasks[1].Checks, "an empty list runs no check")
	assert.Empty(t, p.Tasks[1].Checks)
	assert.Nil(t, p.Tasks[2].Checks, "absent: the workspace's checks")
	assert.Empty(t, p.Tasks[0].Extra, "checks is a known field")
	require.NoError(t, Validate(p, nil))

	out, err := p.Marshal()
	require.NoError(t, err)
	back, err := Parse("p.json", out)
	require.NoError(t, err)
	assert.Equal(t, []string{"go test ./..."}, back.Tasks[0].Checks)
	assert.NotNil(t, back.Tasks[1].Checks, "the empty list survives a save")
	assert.Nil(t, back.Tasks[2].Checks)
	assert.NotContains(t, strings.Split(string(out), "\"id\": \"c\"")[1], "checks")

	y := "meta: {name: p, version: \"1\"}\ntasks:\n  - {id: a, title: A, agent: MARS, status: pending, checks: [\"npm test\"]}\n  - {id: b, title: B, agent: MARS, status: pending, checks: []}\n"
	p, err = Parse("p.yaml", []byte(y))
	require.NoError(t, err)
	assert.Equal(t, []string{"npm test"}, p.Tasks[0].Checks)
	assert.NotNil(t, p.Tasks[1].Checks)
}

func TestTaskChecksMalformed(t *testing.T) {
	t.Parallel()
	bad := `{"meta":{"name":"p"},"tasks":[{"id":"a","title":"A","agent":"MARS","status":"pending","checks":"go test"}]}`
	_, err := Parse("p.json", []byte(bad))
	pe := parseError(t, err)
	assert.Contains(t, pe.Field, "checks")

	p, err := Parse("p.json", []byte(`{"meta":{"name":"p"},"tasks":[{"id":"a","title":"A","agent":"MARS","status":"pending","checks":["go test", "  ", "a\u0000b"]}]}`))
	require.NoError(t, err)
	err = Validate(p, nil)
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrInvalid)
	assert.Contains(t, err.Error(), "checks[1]: a check must not be empty")
	assert.Contains(t, err.Error(), "checks[2]: a check must not contain a NUL byte")
}

func TestTaskCriticalParsesAndRoundTrips(t *testing.T) {
	t.Parallel()
	doc := `{"meta":{"name":"p","version":"1"},"tasks":[
 {"id":"a","title":"A","description":"","agent":"MARS","status":"pending","dependencies":[],"phase":0,"critical":true},
 {"id":"b","title":"B","description":"","agent":"MARS","status":"pending","dependencies":[],"phase":0}]}`
	p, err := Parse("p.json", []byte(doc))
	require.NoError(t, err)
	assert.True(t, p.Tasks[0].Critical)
	assert.False(t, p.Tasks[1].Critical)
	assert.Empty(t, p.Tasks[0].Extra, "critical is a known field")
	out, err := p.Marshal()
	require.NoError(t, err)
	back, err := Parse("p.json", out)
	require.NoError(t, err)
	assert.True(t, back.Tasks[0].Critical)
	assert.NotContains(t, strings.Split(string(out), "\"id\": \"b\"")[1], "critical", "false is left out")
	y, err := Parse("p.yaml", []byte("meta: {name: p, version: \"1\"}\ntasks:\n  - {id: a, title: A, agent: MARS, status: pending, critical: true}\n"))
	require.NoError(t, err)
	assert.True(t, y.Tasks[0].Critical)
}
