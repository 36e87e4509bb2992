package agents

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The two researcher files of the kb.specialist/1 seed (its schema section
// and its team section) load as they are written.
func TestParseSpec_SeedResearcherFiles(t *testing.T) {
	t.Parallel()
	for _, file := range []string{"researcher.yml", "researcher-11.yml"} {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(filepath.Join("testdata", "seed", file))
			require.NoError(t, err)
			spec, errs := ParseSpec("researcher.yml", data)
			require.Empty(t, errs)
			assert.Equal(t, "researcher", spec.ID)
			assert.Contains(t, spec.Tools, ToolReadFile)
			assert.Contains(t, spec.Tools, ToolListFiles)
			assert.Contains(t, spec.Tools, ToolSearchFiles)
			assert.Contains(t, spec.Tools, ToolQueryKnowledge)
			assert.True(t, spec.ReadOnly(), "the seed's researcher neither writes nor runs commands")
			for _, tool := range spec.Tools {
				assert.True(t, IsKnownTool(tool), "tool %q left unmapped", tool)
			}
			assert.Contains(t, spec.ToolMap, ToolAlias{From: "fs:read", To: []string{ToolReadFile}})
			assert.Contains(t, spec.ToolMap, ToolAlias{From: "fs:list", To: []string{ToolListFiles, ToolSearchFiles}})
			assert.Equal(t, 3, spec.ForcedReasoningInterval)
		})
	}
}

func TestParseSpec_SeedExamplesAndFields(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("testdata", "seed", "researcher.yml"))
	require.NoError(t, err)
	spec, errs := ParseSpec("researcher.yml", data)
	require.Empty(t, errs)
	require.Len(t, spec.Examples, 2)
	assert.Equal(t, "Find how authentication works", spec.Examples[0].Input)
	assert.Contains(t, spec.Examples[0].Output, "fs:read identified auth files")
	assert.Contains(t, spec.Examples[0].Output, "Outcome: Found JWT auth in core-auth package")
	assert.Contains(t, examplesBlock(spec), "Task: Locate all API endpoints")

	data, err = os.ReadFile(filepath.Join("testdata", "seed", "researcher-11.yml"))
	require.NoError(t, err)
	spec, errs = ParseSpec("researcher.yml", data)
	require.Empty(t, errs)
	assert.Equal(t, "Researcher", spec.Display.Name)
	assert.Equal(t, TierSmall, spec.Tier)
	assert.Equal(t, "2m0s", spec.Limits.Timeout)
	assert.Equal(t, 3, spec.ForcedReasoningInterval)
	assert.Contains(t, spec.Notes, "name: read as display.name")
	assert.Contains(t, spec.Notes, "llm.tier: read as tier")
	assert.Contains(t, spec.Notes, "llm.maxTokens, llm.temperature: not used (nova takes the model and its settings from the tier's profile)")
	assert.Contains(t, spec.Notes, "limits.timeoutMs: read as limits.timeout 2m0s")
	assert.Contains(t, spec.Notes, "role: none in the file; written from capabilities and constraints")
	assert.Contains(t, spec.Role, "You are Researcher.")
	assert.Contains(t, spec.Notes, "capabilities, constraints, input, output: accepted; not used beyond the role (nova's prompt is built from role, staticContext and examples; tools are what limits an agent)")
}

func TestParseSpec_SeedShapeStillChecked(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		yaml, field string
	}{
		"typo still unknown":     {"schema: kb.specialist/1\nid: X\nrole: ok\ntols: [fs:read]\n", "tols"},
		"unknown seed tool":      {"schema: kb.specialist/1\nid: X\nrole: ok\ntools: [fs:teleport]\n", "tools[0]"},
		"seed example no task":   {"schema: kb.specialist/1\nid: X\nrole: ok\nexamples:\n  - approach: look\n    outcome: found\n", "examples[0].task"},
		"seed example no result": {"schema: kb.specialist/1\nid: X\nrole: ok\nexamples:\n  - task: find it\n", "examples[0].outcome"},
		"seed tier bad":          {"schema: kb.specialist/1\nid: X\nrole: ok\nllm:\n  tier: huge\n", "tier"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, errs := ParseSpec("", []byte(tc.yaml))
			require.NotEmpty(t, errs)
			var fields []string
			for _, e := range errs {
				var se *SpecError
				require.ErrorAs(t, e, &se)
				fields = append(fields, se.Field)
			}
			assert.Contains(t, fields, tc.field)
		})
	}
}

func TestMapSeedTools_NoDuplicates(t *testing.T) {
	t.Parallel()
	got, aliases := mapSeedTools([]string{"fs:write", "fs:edit", "editFile", "shell:exec"}, nil)
	assert.Equal(t, []string{ToolWriteFile, ToolEditFile, ToolRunCommand}, got)
	assert.Len(t, aliases, 3)
	assert.Equal(t, "fs:write → writeFile, editFile", aliases[0].String())
	again, aliases2 := mapSeedTools(got, aliases)
	assert.Equal(t, got, again)
	assert.Equal(t, aliases, aliases2)
}

// Malformed kb.specialist/1 fields are problems with a line, never a panic.
func TestParseSpec_SeedFieldsMalformed(t *testing.T) {
	t.Parallel()
	base := "schema: kb.specialist/1\nid: X\nrole: ok\n"
	for name, extra := range map[string]string{
		"llm not a mapping":      "llm: [small]\n",
		"timeoutMs not a number": "limits:\n  timeoutMs: soon\n",
		"timeoutMs negative":     "limits:\n  timeoutMs: -5\n",
		"name a list":            "name: [a, b]\n",
		"example task a map":     "examples:\n  - task: {a: 1}\n    outcome: x\n",
		"capabilities a map":     "capabilities: {read: yes}\n",
	} {
		spec, errs := ParseSpec("", []byte(base+extra))
		if name == "timeoutMs negative" {
			assert.Empty(t, errs, name)
			assert.Contains(t, spec.Notes, "limits.timeoutMs: -5 is not positive; not used", name)
			continue
		}
		require.NotEmpty(t, errs, name)
		var se *SpecError
		require.ErrorAs(t, errs[0], &se, name)
		assert.Positive(t, se.Line, name)
	}
	// Free-form seed fields take any shape.
	_, errs := ParseSpec("", []byte(base+"output:\n  read: {deep: [1, {x: y}]}\ninput:\n  schema: {task: string}\nllm:\n  tier: 3\n"))
	assert.Empty(t, errs)
}

// The seed's other specialist files load as well: the codebase expert
// (description, context.system as its role) and the migrated implementer
// (code:insert).
func TestParseSpec_SeedOtherSpecialists(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("testdata", "seed", "codebase-expert.yml"))
	require.NoError(t, err)
	spec, errs := ParseSpec("codebase-expert.yml", data)
	require.Empty(t, errs)
	assert.Equal(t, "Knows project architecture and where things are located", spec.Display.Description)
	assert.Contains(t, spec.Role, "You are a Codebase Expert")
	assert.Contains(t, spec.Notes, "context.system: read as role")
	assert.Contains(t, spec.Notes, "context.rag: not used (nova adds the workspace's knowledge to the prompt itself)")
	assert.Equal(t, TierSmall, spec.Tier)

	data, err = os.ReadFile(filepath.Join("testdata", "seed", "implementer.yml"))
	require.NoError(t, err)
	spec, errs = ParseSpec("implementer.yml", data)
	require.Empty(t, errs)
	assert.Equal(t, []string{ToolReadFile, ToolWriteFile, ToolEditFile, ToolRunCommand}, spec.Tools)
	assert.Contains(t, spec.ToolMap, ToolAlias{From: "code:insert", To: []string{ToolEditFile}})
	assert.True(t, spec.CanWrite())
}
