package agents_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/board"
	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/tools"
)

// formatMarkers are phrases only one format's instructions contain.
var formatMarkers = map[agents.EditFormat][]string{
	agents.EditTools: {"with editFile (its exact current text", "rewrite a whole one with writeFile"},
	agents.EditWhole: {"then the whole new file in a fenced block", "Always write the complete file"},
	agents.EditDiff:  {"<<<<<<< SEARCH", "=======\n", ">>>>>>> REPLACE", "leave SEARCH empty"},
}

func TestSystemPromptCarriesOnlyTheRunsFormat(t *testing.T) {
	t.Parallel()
	all := tools.CoreTools()
	for _, textMode := range []bool{false, true} {
		for _, format := range []agents.EditFormat{agents.EditTools, agents.EditWhole, agents.EditDiff} {
			for _, tier := range []llm.Tier{llm.TierSmall, llm.TierMedium} {
				in := agents.PromptInput{Spec: spec(), Task: "Write hello.txt.", TextMode: textMode, Tier: tier, Format: format,
					Tools: agents.SelectTools(all, spec(), tier, format)}
				p := agents.SystemPrompt(in)
				for f, markers := range formatMarkers {
					for _, m := range markers {
						if f == format {
							assert.Contains(t, p, m, "%s on %s (text mode %v)", format, tier, textMode)
						} else {
							assert.NotContains(t, p, m, "%s on %s (text mode %v) explains %s", format, tier, textMode, f)
						}
					}
				}
			}
		}
	}
}

func TestSystemPromptFormatFollowsTheTierWhenAuto(t *testing.T) {
	t.Parallel()
	small := agents.SystemPrompt(agents.PromptInput{Spec: spec(), Tier: llm.TierSmall})
	assert.Contains(t, small, formatMarkers[agents.EditWhole][0])
	assert.Contains(t, small, "## Rules\n", "the small tier's short rules")
	assert.NotContains(t, small, "## Working in this workspace")
	medium := agents.SystemPrompt(agents.PromptInput{Spec: spec(), Tier: llm.TierMedium, Format: agents.EditAuto,
		Tools: tools.CoreTools()})
	assert.Contains(t, medium, formatMarkers[agents.EditTools][0])
	assert.Contains(t, medium, "## Working in this workspace")
	assert.Less(t, len(small), len(medium))
}

func TestReadOnlyAgentsGetNoFormatInstructions(t *testing.T) {
	t.Parallel()
	ro := spec(func(s *agents.Spec) { s.Tools = []string{"readFile", "listFiles", "searchFiles"} })
	for _, format := range []agents.EditFormat{agents.EditTools, agents.EditWhole, agents.EditDiff} {
		p := agents.SystemPrompt(agents.PromptInput{Spec: ro, Format: format, Tier: llm.TierMedium,
			Tools: agents.SelectTools(tools.CoreTools()[:3], ro, llm.TierMedium, format)})
		for _, markers := range formatMarkers {
			for _, m := range markers {
				assert.NotContains(t, p, m, format)
			}
		}
		assert.NotContains(t, p, "## Changing files")
	}
}

func TestBlocksStandInForWriteToolsTheRoleNames(t *testing.T) {
	t.Parallel()
	s := spec(func(s *agents.Spec) { s.Role = "You write docs with writeFile." })
	const note = "Where this prompt names writeFile or editFile, write blocks like these instead."
	for _, format := range []agents.EditFormat{agents.EditWhole, agents.EditDiff} {
		p := agents.SystemPrompt(agents.PromptInput{Spec: s, Format: format, Tier: llm.TierSmall})
		assert.Contains(t, p, note, format)
		assert.Less(t, strings.Index(p, "## Changing files"), strings.Index(p, note), "the note follows the instructions")
	}
	assert.NotContains(t, agents.SystemPrompt(agents.PromptInput{Spec: spec(), Format: agents.EditWhole}), note,
		"said only when the role names a write tool")
	assert.NotContains(t, agents.SystemPrompt(agents.PromptInput{Spec: s, Format: agents.EditTools, Tools: tools.CoreTools()}), note)
}

func TestParseAndResolveEditFormat(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]agents.EditFormat{"": agents.EditAuto, "auto": agents.EditAuto, "tools": agents.EditTools,
		" Whole ": agents.EditWhole, "diff": agents.EditDiff} {
		got, err := agents.ParseEditFormat(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	_, err := agents.ParseEditFormat("udiff")
	require.Error(t, err)
	assert.Equal(t, `unknown edit format "udiff" (want auto, tools, whole or diff)`, err.Error())

	assert.Equal(t, agents.EditWhole, agents.ResolveEditFormat(agents.EditAuto, llm.TierSmall))
	assert.Equal(t, agents.EditTools, agents.ResolveEditFormat(agents.EditAuto, llm.TierMedium))
	assert.Equal(t, agents.EditTools, agents.ResolveEditFormat("", llm.TierLarge))
	assert.Equal(t, agents.EditDiff, agents.ResolveEditFormat(agents.EditDiff, llm.TierSmall))
	assert.Equal(t, agents.EditTools, agents.ResolveEditFormat(agents.EditTools, llm.TierSmall))
	assert.Equal(t, agents.EditWhole, agents.ResolveEditFormat(agents.EditWhole, llm.TierLarge))
}

// fullRegistry is the core tools with a tool offered to every agent and
// the board's tools, as the engine registers them.
func fullRegistry(t *testing.T) *tools.Registry {
	t.Helper()
	reg := tools.Core()
	require.NoError(t, reg.Register(tools.Tool{
		Name: "lookUp", Description: "Look something up in what the team knows. It answers with the best hits.", AllAgents: true,
		Schema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string","description":"what to look up"}},"required":["q"]}`),
		Run: func(context.Context, *tools.Env, json.RawMessage) (tools.Output, error) {
			return tools.Output{Text: "nothing"}, nil
		},
	}))
	require.NoError(t, board.Register(reg))
	return reg
}

func names(ts []tools.Tool) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return out
}

func TestSmallTierIsOfferedAMinimalCompactToolSet(t *testing.T) {
	t.Parallel()
	all := fullRegistry(t).For("MARS", allTools)
	require.Greater(t, len(all), 10, "core, knowledge and board tools")
	mars := spec()

	small := agents.SelectTools(all, mars, llm.TierSmall, agents.EditWhole)
	assert.Equal(t, []string{"readFile", "listFiles", "searchFiles", "writeFile", "editFile", "runCommand"}, names(small),
		"the write tools stay offered in the whole format: a native call must not be lost")
	smallTools := agents.SelectTools(all, mars, llm.TierSmall, agents.EditTools)
	assert.Equal(t, names(small), names(smallTools), "the tools format has the same write path on the small tier")
	full, _ := json.Marshal(tools.LLMTools(agents.SelectTools(all, mars, llm.TierMedium, agents.EditTools)[:len(small)]))
	compact, _ := json.Marshal(tools.LLMTools(small))
	assert.Less(t, len(compact)*2, len(full), "compact schemas are under half the size")
	for _, tl := range small {
		assert.NotContains(t, string(tl.Schema), "description", tl.Name)
		assert.Less(t, len(tl.Description), 90, tl.Name)
		var s struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		require.NoError(t, json.Unmarshal(tl.Schema, &s), tl.Name)
		assert.Equal(t, "object", s.Type)
		assert.NotEmpty(t, s.Properties, tl.Name)
	}
	assert.Contains(t, string(small[0].Schema), `"required":["path"]`)

	medium := agents.SelectTools(all, mars, llm.TierMedium, agents.EditTools)
	assert.Equal(t, names(all), names(medium), "medium and large keep every tool")
	assert.Equal(t, all[0].Description, medium[0].Description, "in full")
	mediumWhole := names(agents.SelectTools(all, mars, llm.TierMedium, agents.EditWhole))
	assert.Contains(t, mediumWhole, "writeFile", "a native write call still works in the whole format")
	assert.Contains(t, mediumWhole, "editFile")
	assert.Contains(t, mediumWhole, "deleteFile")
	assert.Contains(t, mediumWhole, "lookUp")

	// A shared tool the spec lists stays on the small tier (compact); a
	// core tool beyond the minimal set does not.
	listing := spec(func(s *agents.Spec) { s.Tools = append(s.Tools, agents.ToolSetGoal) })
	smallListed := agents.SelectTools(all, listing, llm.TierSmall, agents.EditWhole)
	assert.Equal(t, []string{"readFile", "listFiles", "searchFiles", "writeFile", "editFile", "runCommand", "setGoal"}, names(smallListed))
	assert.NotContains(t, string(smallListed[6].Schema), "description")
}

func TestCompactToolKeepsWhatItCannotRead(t *testing.T) {
	t.Parallel()
	odd := tools.Tool{Name: "odd", Description: "Does a thing. And more.", Schema: json.RawMessage(`{"type":"string"}`)}
	c := agents.CompactTool(odd)
	assert.Equal(t, "Does a thing.", c.Description)
	assert.JSONEq(t, `{"type":"string"}`, string(c.Schema))
	bad := tools.Tool{Name: "bad", Schema: json.RawMessage(`{"type":"object","properties":[1]}`)}
	assert.Equal(t, string(bad.Schema), string(agents.CompactTool(bad).Schema), "malformed: kept as it is")
}

// The small tier's run starts in the whole format with four tools; after
// escalating to medium the same run is offered the write tools and told to
// use them, and the whole-file instructions are gone.
func TestEscalationToMediumSwitchesToTheToolsFormat(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.srv.Enqueue(
		tc("frobnicate", map[string]any{"x": 1}),
		tc("frobnicate", map[string]any{"x": 2}),
		tc("writeFile", map[string]any{"path": "hello.txt", "content": "hi\n"}),
		ollamatest.Text("Files changed: hello.txt (new)."),
	)
	s := spec(func(s *agents.Spec) { s.Tier, s.MaxTier = agents.TierSmall, agents.TierMedium })
	run := h.run("Write hello.txt.", s)
	require.Equal(t, agents.RunDone, run.Status, "%+v", run.Outcome.Failure)
	assert.Equal(t, 1, run.Outcome.Meta.Escalations)
	assert.Equal(t, "tools", run.Outcome.Meta.EditFormat)

	reqs := h.srv.ChatRequests()
	require.Len(t, reqs, 4)
	first, after := reqs[0], reqs[2]
	assert.Equal(t, smallModel, first.Model)
	assert.Equal(t, []string{"readFile", "listFiles", "searchFiles", "writeFile", "editFile", "runCommand"}, offered(first))
	assert.Contains(t, systemOf(first), formatMarkers[agents.EditWhole][0])
	assert.Equal(t, mediumModel, after.Model)
	assert.Contains(t, offered(after), "writeFile")
	assert.Contains(t, offered(after), "editFile")
	assert.Contains(t, systemOf(after), formatMarkers[agents.EditTools][0])
	assert.NotContains(t, systemOf(after), formatMarkers[agents.EditWhole][0])
}

func TestConfiguredFormatHoldsOnEveryTier(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withSettings(func(s *agents.Settings) { s.EditFormat = agents.EditDiff }))
	h.srv.Enqueue(ollamatest.Text("Nothing to change."))
	run := h.run("Explain main.go.", spec())
	require.Equal(t, agents.RunDone, run.Status, "%+v", run.Outcome.Failure)
	assert.Equal(t, "diff", run.Outcome.Meta.EditFormat)
	req := h.srv.ChatRequests()[0]
	assert.Contains(t, offered(req), "writeFile", "offered in every format")
	assert.Contains(t, offered(req), "deleteFile", "medium keeps its other tools")
	assert.Contains(t, systemOf(req), "<<<<<<< SEARCH")
}

func systemOf(req api.ChatRequest) string {
	for _, m := range req.Messages {
		if m.Role == "system" {
			return m.Content
		}
	}
	return ""
}

// FuzzCompactTool: any schema, readable or not, gives valid JSON back and
// never a panic; an object schema keeps its required list.
func FuzzCompactTool(f *testing.F) {
	for _, tl := range tools.CoreTools() {
		f.Add(string(tl.Schema))
	}
	f.Add(`{"type":"object","properties":{"a":{"type":["string","null"],"enum":["x"]}},"required":["a"]}`)
	f.Add(`{"type":"object","properties":null}`)
	f.Add(`[1,2`)
	f.Fuzz(func(t *testing.T, schema string) {
		c := agents.CompactTool(tools.Tool{Name: "t", Description: "One. Two.", Schema: json.RawMessage(schema)})
		if !json.Valid([]byte(schema)) {
			return
		}
		require.True(t, json.Valid(c.Schema), "compact schema of %q is %q", schema, c.Schema)
		var in, out struct {
			Required []string `json:"required"`
		}
		if json.Unmarshal([]byte(schema), &in) == nil && json.Unmarshal(c.Schema, &out) == nil && len(in.Required) > 0 {
			assert.Equal(t, in.Required, out.Required)
		}
	})
}
