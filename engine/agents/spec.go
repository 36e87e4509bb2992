// Package agents holds nova's agent definitions: the Spec read from
// .nova/agents/<ID>.yaml, its validation, and the Roster the engine looks
// agents up in.
//
// The file format is compatible with the kb.specialist/1 schema (schema, id,
// version, display, role, tools, forcedReasoningInterval, staticContext,
// examples) and extends it with tier, maxTier, limits and domain.
//
// Loading never stops at the first bad file: every problem is returned as a
// *SpecError naming the file, the line when it is known, and the field.
package agents

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/nova-dev/nova/internal/lazyre"
)

// SchemaV1 is the only schema value accepted in an agent file.
const SchemaV1 = "kb.specialist/1"

// Defaults applied to limits a file leaves out.
const (
	DefaultMaxSteps     = 12
	DefaultMaxToolCalls = 24
	DefaultTimeout      = 5 * time.Minute
	DefaultTier         = TierMedium
)

// Sentinel errors callers branch on.
var (
	// ErrUnknownAgent is returned by Roster.Get for an id that is not in the roster.
	ErrUnknownAgent = errors.New("unknown agent")
	// ErrInvalidSpec is wrapped by every *SpecError.
	ErrInvalidSpec = errors.New("invalid agent spec")
)

// Tool names an agent may list in `tools`. They are the names of the engine's
// tool registry.
const (
	ToolReadFile    = "readFile"
	ToolListFiles   = "listFiles"
	ToolSearchFiles = "searchFiles"
	ToolWriteFile   = "writeFile"
	ToolEditFile    = "editFile"
	ToolDeleteFile  = "deleteFile"
	ToolRunCommand  = "runCommand"
)

// Shared tools: every agent is offered them on the medium and large tiers
// whatever its `tools` list says (tools.Tool.AllAgents; registered by
// engine/knowledge, engine/library/skills and engine/board, which name them
// too). The small tier is offered only those its spec lists.
const (
	ToolFetchDocs           = "fetchDocs"
	ToolQueryKnowledge      = "queryKnowledge"
	ToolRecall              = "recall"
	ToolRemember            = "remember"
	ToolCorrect             = "correct"
	ToolRunSkill            = "runSkill"
	ToolGenerateUIComponent = "generateUIComponent"
	ToolAddDecision         = "addDecision"
	ToolAddBlocker          = "addBlocker"
	ToolResolveBlocker      = "resolveBlocker"
	ToolSetGoal             = "setGoal"
	ToolReadArtifact        = "readArtifact"
	// The code-map tools (engine/tools.CodeTools): read-only answers from
	// the repository map.
	ToolFindSymbol = "findSymbol"
	ToolReferences = "references"
	ToolOutline    = "outline"
)

// CoreTools returns the workspace tools a spec grants, in a stable order.
func CoreTools() []string {
	return []string{
		ToolReadFile, ToolListFiles, ToolSearchFiles,
		ToolWriteFile, ToolEditFile, ToolDeleteFile,
		ToolRunCommand,
	}
}

// SharedTools returns the shared tools' names, in a stable order.
func SharedTools() []string {
	return []string{
		ToolFetchDocs, ToolQueryKnowledge, ToolRecall, ToolRemember, ToolCorrect,
		ToolRunSkill, ToolGenerateUIComponent,
		ToolAddDecision, ToolAddBlocker, ToolResolveBlocker, ToolSetGoal, ToolReadArtifact,
		ToolFindSymbol, ToolReferences, ToolOutline,
	}
}

// KnownTools returns every tool name a spec may use, in a stable order: the
// core tools, then the shared ones.
func KnownTools() []string {
	return append(CoreTools(), SharedTools()...)
}

// IsKnownTool reports whether name is a tool a spec may list.
func IsKnownTool(name string) bool {
	return slices.Contains(KnownTools(), name)
}

// mcpToolPattern is the shape of an MCP tool an agent may list:
// "server.tool" or "server.*" (engine/mcp names them so).
var mcpToolPattern = lazyre.New(`^[A-Za-z][A-Za-z0-9_-]{0,31}\.(\*|[A-Za-z0-9_-]{1,64})$`)

// IsMCPToolName reports whether name is shaped like a tool of an MCP server
// ("server.tool", or "server.*" for all of its tools). Such tools are
// offered only to agents that list them; the engine checks, when the agent
// runs, that the server is under mcp.servers and offers the tool.
func IsMCPToolName(name string) bool { return mcpToolPattern.MatchString(name) }

// IsWriteTool reports whether the tool changes files (through a changeset).
func IsWriteTool(name string) bool {
	return name == ToolWriteFile || name == ToolEditFile || name == ToolDeleteFile
}

// Tier is the model size class an agent runs on.
type Tier string

// Tier values.
const (
	TierSmall  Tier = "small"
	TierMedium Tier = "medium"
	TierLarge  Tier = "large"
)

// Rank orders tiers: small 1, medium 2, large 3; 0 for anything else.
func (t Tier) Rank() int {
	switch t {
	case TierSmall:
		return 1
	case TierMedium:
		return 2
	case TierLarge:
		return 3
	}
	return 0
}

// Valid reports whether t is one of the three tier values.
func (t Tier) Valid() bool { return t.Rank() > 0 }

// Spec is one agent definition, mirroring .nova/agents/<ID>.yaml.
type Spec struct {
	Schema                  string    `yaml:"schema" json:"schema"`
	ID                      string    `yaml:"id" json:"id"`
	Version                 string    `yaml:"version,omitempty" json:"version,omitempty"`
	Display                 Display   `yaml:"display" json:"display"`
	Domain                  string    `yaml:"domain,omitempty" json:"domain,omitempty"`
	Tier                    Tier      `yaml:"tier,omitempty" json:"tier,omitempty"`
	MaxTier                 Tier      `yaml:"maxTier,omitempty" json:"maxTier,omitempty"`
	Tools                   []string  `yaml:"tools" json:"tools"`
	ForcedReasoningInterval int       `yaml:"forcedReasoningInterval" json:"forcedReasoningInterval"`
	Limits                  Limits    `yaml:"limits" json:"limits"`
	Role                    string    `yaml:"role" json:"role"`
	StaticContext           string    `yaml:"staticContext,omitempty" json:"staticContext,omitempty"`
	Examples                []Example `yaml:"examples,omitempty" json:"examples,omitempty"`

	// Fields written by kb.specialist/1 files that nova reads but does not
	// run on (see seed.go): name and llm.tier fill display.name and tier
	// when those are empty; the rest is accepted and noted.
	SeedName         string         `yaml:"name,omitempty" json:"name,omitempty"`
	SeedLLM          map[string]any `yaml:"llm,omitempty" json:"llm,omitempty"`
	SeedDescription  string         `yaml:"description,omitempty" json:"description,omitempty"`
	SeedContext      map[string]any `yaml:"context,omitempty" json:"context,omitempty"`
	SeedCapabilities []string       `yaml:"capabilities,omitempty" json:"capabilities,omitempty"`
	SeedConstraints  []string       `yaml:"constraints,omitempty" json:"constraints,omitempty"`
	SeedInput        map[string]any `yaml:"input,omitempty" json:"input,omitempty"`
	SeedOutput       map[string]any `yaml:"output,omitempty" json:"output,omitempty"`

	// ToolMap records the kb.specialist/1 tool names (fs:read, shell:exec,
	// …) the file listed and the nova tools they were mapped onto; Tools
	// holds the nova names. Filled by WithDefaults.
	ToolMap []ToolAlias `yaml:"-" json:"toolMap,omitempty"`
	// Notes are what nova says about fields it accepted but reads
	// differently or not at all (set by ParseSpec).
	Notes []string `yaml:"-" json:"notes,omitempty"`

	// Source is the file the spec was read from, as passed to the loader
	// ("" for a spec built in code). Validate uses it to check that the
	// file name matches the id.
	Source string `yaml:"-" json:"source,omitempty"`
}

// Display is how the TUI and CLI present an agent.
type Display struct {
	Name        string `yaml:"name" json:"name"`
	Description string `yaml:"description" json:"description"`
	Emoji       string `yaml:"emoji,omitempty" json:"emoji,omitempty"`
}

// Limits bound one run of the agent loop. Zero values mean "use the default".
type Limits struct {
	MaxSteps     int `yaml:"maxSteps,omitempty" json:"maxSteps,omitempty"`
	MaxToolCalls int `yaml:"maxToolCalls,omitempty" json:"maxToolCalls,omitempty"`
	// Timeout is a Go duration string such as "5m" or "90s".
	Timeout string `yaml:"timeout,omitempty" json:"timeout,omitempty"`

	// The kb.specialist/1 forms: timeoutMs fills timeout and
	// forcedReasoningInterval the top-level field when those are empty.
	TimeoutMs               int `yaml:"timeoutMs,omitempty" json:"timeoutMs,omitempty"`
	ForcedReasoningInterval int `yaml:"forcedReasoningInterval,omitempty" json:"forcedReasoningInterval,omitempty"`
}

// TimeoutDuration returns the parsed timeout, or DefaultTimeout when it is
// empty or does not parse (Validate reports the latter).
func (l Limits) TimeoutDuration() time.Duration {
	if l.Timeout == "" {
		return DefaultTimeout
	}
	d, err := time.ParseDuration(l.Timeout)
	if err != nil || d <= 0 {
		return DefaultTimeout
	}
	return d
}

// Example is one worked input/output pair shown to the model. A
// kb.specialist/1 file writes it as task, approach and outcome instead;
// WithDefaults folds that shape into Input and Output.
type Example struct {
	Input  string `yaml:"input" json:"input"`
	Output string `yaml:"output" json:"output"`

	Task     string `yaml:"task,omitempty" json:"task,omitempty"`
	Approach string `yaml:"approach,omitempty" json:"approach,omitempty"`
	Outcome  string `yaml:"outcome,omitempty" json:"outcome,omitempty"`
}

// folded returns the example with Input and Output filled from the
// task/approach/outcome shape when they are empty.
func (ex Example) folded() Example {
	if strings.TrimSpace(ex.Input) == "" {
		ex.Input = ex.Task
	}
	if strings.TrimSpace(ex.Output) == "" {
		approach, outcome := strings.TrimSpace(ex.Approach), strings.TrimSpace(ex.Outcome)
		switch {
		case approach != "" && outcome != "":
			ex.Output = "Approach:\n" + approach + "\nOutcome: " + outcome
		case outcome != "":
			ex.Output = outcome
		default:
			ex.Output = approach
		}
	}
	return ex
}

// HasTool reports whether the spec lists the tool.
func (s Spec) HasTool(name string) bool {
	for _, t := range s.Tools {
		if t == name {
			return true
		}
	}
	return false
}

// CanWrite reports whether the agent may stage file changes.
func (s Spec) CanWrite() bool {
	for _, t := range s.Tools {
		if IsWriteTool(t) {
			return true
		}
	}
	return false
}

// ReadOnly reports whether the agent can neither change files nor run commands.
func (s Spec) ReadOnly() bool {
	return !s.CanWrite() && !s.HasTool(ToolRunCommand)
}

// WithDefaults returns a copy with what a file may leave out filled in:
// limits, tier, maxTier (defaults to tier) and display name (defaults to the
// id).
func (s Spec) WithDefaults() Spec {
	if s.Limits.MaxSteps == 0 {
		s.Limits.MaxSteps = DefaultMaxSteps
	}
	if s.Limits.MaxToolCalls == 0 {
		s.Limits.MaxToolCalls = DefaultMaxToolCalls
	}
	if s.Limits.Timeout == "" {
		s.Limits.Timeout = DefaultTimeout.String()
	}
	if s.Tier == "" {
		s.Tier = DefaultTier
	}
	if s.MaxTier == "" {
		s.MaxTier = s.Tier
	}
	if s.Display.Name == "" {
		s.Display.Name = s.ID
	}
	if len(s.Examples) > 0 {
		exs := make([]Example, len(s.Examples))
		for i, ex := range s.Examples {
			exs[i] = ex.folded()
		}
		s.Examples = exs
	}
	s.Tools, s.ToolMap = mapSeedTools(s.Tools, s.ToolMap)
	return s
}

// clone returns a deep copy so that callers of Roster cannot mutate it.
func (s Spec) clone() Spec {
	c := s
	c.Tools = append([]string(nil), s.Tools...)
	c.Examples = append([]Example(nil), s.Examples...)
	c.ToolMap = slices.Clone(s.ToolMap)
	c.Notes = slices.Clone(s.Notes)
	return c
}

// SpecError is one problem with one agent file.
type SpecError struct {
	// File is the path of the agent file as given to the loader; empty for a
	// spec built in code.
	File string
	// Line is 1-based; 0 when unknown.
	Line int
	// Field is the YAML path of the offending field, e.g. "limits.timeout"
	// or "tools[2]"; empty for problems with the whole file.
	Field string
	// Msg says what is wrong.
	Msg string
	// Err is the underlying cause (a YAML syntax error, …), if any.
	Err error
}

// Error formats as "file:line: field: message".
func (e *SpecError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
		}
		b.WriteString(": ")
	} else if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap makes errors.Is(err, ErrInvalidSpec) hold, and exposes the cause.
func (e *SpecError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrInvalidSpec, e.Err}
	}
	return []error{ErrInvalidSpec}
}

var idPattern = lazyre.New(`^[A-Za-z][A-Za-z0-9_-]{0,63}$`)

// Validate checks one spec on its own (uniqueness across files is the
// loader's job). It does not apply defaults: zero limits and an empty tier are
// accepted because WithDefaults fills them. Every problem is reported.
func Validate(s Spec) []error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, &SpecError{File: s.Source, Field: field, Msg: fmt.Sprintf(format, args...)})
	}

	switch {
	case s.Schema == "":
		bad("schema", "is required (want %q)", SchemaV1)
	case s.Schema != SchemaV1:
		bad("schema", "unsupported schema %q (want %q)", s.Schema, SchemaV1)
	}

	switch {
	case s.ID == "":
		bad("id", "is required")
	case !idPattern.MatchString(s.ID):
		bad("id", "%q must start with a letter and contain only letters, digits, '-' or '_' (at most 64)", s.ID)
	case s.Source != "":
		base := path.Base(strings.ReplaceAll(s.Source, "\\", "/"))
		stem := strings.TrimSuffix(base, path.Ext(base))
		if !strings.EqualFold(stem, s.ID) {
			bad("id", "%q does not match the file name %q (want %s.yaml)", s.ID, base, s.ID)
		}
	}

	if strings.TrimSpace(s.Role) == "" {
		bad("role", "is required and must not be blank")
	}

	seen := make(map[string]bool, len(s.Tools))
	for i, t := range s.Tools {
		field := fmt.Sprintf("tools[%d]", i)
		switch {
		case !IsKnownTool(t) && !IsMCPToolName(t) && !isSeedTool(t):
			bad(field, "unknown tool %q (known: %s; or SERVER.TOOL / SERVER.* for a server under mcp.servers)", t, strings.Join(KnownTools(), ", "))
		case seen[t]:
			bad(field, "tool %q is listed twice", t)
		}
		seen[t] = true
	}

	if s.Tier != "" && !s.Tier.Valid() {
		bad("tier", "unknown tier %q (want small, medium or large)", s.Tier)
	}
	if s.MaxTier != "" && !s.MaxTier.Valid() {
		bad("maxTier", "unknown tier %q (want small, medium or large)", s.MaxTier)
	}
	tier := s.Tier
	if tier == "" {
		tier = DefaultTier
	}
	if s.MaxTier.Valid() && tier.Valid() && s.MaxTier.Rank() < tier.Rank() {
		bad("maxTier", "%q is below tier %q", s.MaxTier, tier)
	}

	if s.Limits.MaxSteps < 0 {
		bad("limits.maxSteps", "must be positive, got %d", s.Limits.MaxSteps)
	}
	if s.Limits.MaxToolCalls < 0 {
		bad("limits.maxToolCalls", "must be positive, got %d", s.Limits.MaxToolCalls)
	}
	if s.Limits.Timeout != "" {
		d, err := time.ParseDuration(s.Limits.Timeout)
		switch {
		case err != nil:
			bad("limits.timeout", "%q is not a Go duration (e.g. \"5m\", \"90s\")", s.Limits.Timeout)
		case d <= 0:
			bad("limits.timeout", "must be positive, got %q", s.Limits.Timeout)
		}
	}

	if s.ForcedReasoningInterval < 0 {
		bad("forcedReasoningInterval", "must be 0 (off) or more, got %d", s.ForcedReasoningInterval)
	}

	for i, ex := range s.Examples {
		seedShape := ex.Task != "" || ex.Approach != "" || ex.Outcome != ""
		ex = ex.folded()
		in, out := "input", "output"
		if seedShape {
			in, out = "task", "outcome"
		}
		if strings.TrimSpace(ex.Input) == "" {
			bad(fmt.Sprintf("examples[%d].%s", i, in), "must not be blank")
		}
		if strings.TrimSpace(ex.Output) == "" {
			bad(fmt.Sprintf("examples[%d].%s", i, out), "must not be blank")
		}
	}
	return errs
}
