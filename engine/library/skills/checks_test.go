package skills

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const checkedSkill = `schema: nova.skill/1
name: checked
version: 1.0.0
description: reads a file and checks the project
agents: [MARS]
checks: ["go test ./...", "go vet ./..."]
steps:
  - name: read
    tool: readFile
    args:
      path: main.go
`

func TestSkillChecksParse(t *testing.T) {
	t.Parallel()
	reg := registry(t, NewRegistry())
	s, errs := Parse("checked.yaml", []byte(checkedSkill), reg.Get, nil)
	require.Empty(t, errs)
	assert.Equal(t, []string{"go test ./...", "go vet ./..."}, s.Checks)

	s, errs = Parse("checked.yaml", []byte(strings.Replace(checkedSkill, "checks: [\"go test ./...\", \"go vet ./...\"]\n", "", 1)), reg.Get, nil)
	require.Empty(t, errs)
	assert.Nil(t, s.Checks, "absent: none of its own")
}

func TestSkillChecksMalformed(t *testing.T) {
	t.Parallel()
	reg := registry(t, NewRegistry())
	_, errs := Parse("checked.yaml", []byte(strings.Replace(checkedSkill, `"go vet ./..."`, `"   "`, 1)), reg.Get, nil)
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0].Error(), "checks[1]")
	assert.Contains(t, errs[0].Error(), "must not be empty")

	_, errs = Parse("checked.yaml", []byte(strings.Replace(checkedSkill, `checks: ["go test ./...", "go vet ./..."]`, `checks: go test`, 1)), reg.Get, nil)
	require.NotEmpty(t, errs)
	assert.Contains(t, errs[0].Error(), "checks")
}
