package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/parser"

	"github.com/nova-dev/nova/internal/lazyre"
	"github.com/nova-dev/nova/internal/yamlguard"
)

// ErrConfig marks every configuration problem.
var ErrConfig = errors.New("invalid config")

// Tier names.
const (
	TierFree    = "free"
	TierPremium = "premium"
)

// Config is .nova/config.yaml. Every field has a typed default (Defaults).
type Config struct {
	Version   int             `yaml:"version" json:"version"`
	Tier      string          `yaml:"tier" json:"tier"`
	Autonomy  int             `yaml:"autonomy" json:"autonomy"`
	Theme     string          `yaml:"theme" json:"theme"`
	UserID    string          `yaml:"userId" json:"userId"`
	Ollama    OllamaConfig    `yaml:"ollama" json:"ollama"`
	Models    ModelsConfig    `yaml:"models" json:"models"`
	Budgets   BudgetsConfig   `yaml:"budgets" json:"budgets"`
	Checks    []string        `yaml:"checks" json:"checks"`
	Commands  CommandsConfig  `yaml:"commands" json:"commands"`
	Build     BuildConfig     `yaml:"build" json:"build"`
	Rehearsal RehearsalConfig `yaml:"rehearsal" json:"rehearsal"`
	Vault     VaultConfig     `yaml:"vault" json:"vault"`
	Import    ImportConfig    `yaml:"import" json:"import"`
	Verify    VerifyConfig    `yaml:"verify" json:"verify"`
	Docs      DocsConfig      `yaml:"docs" json:"docs"`
	Git       GitConfig       `yaml:"git" json:"git"`
	// Orchestrator governs goal runs (`nova run "GOAL"`).
	Orchestrator OrchestratorConfig `yaml:"orchestrator" json:"orchestrator"`
	// Agents governs how agent runs talk to their models.
	Agents AgentsConfig `yaml:"agents" json:"agents"`
	// MCP lists Model Context Protocol servers whose tools agents may opt
	// into (engine/mcp).
	MCP MCPConfig `yaml:"mcp" json:"mcp"`
	// Chat governs chat sessions (`nova chat`, the Chat screen).
	Chat ChatConfig `yaml:"chat" json:"chat"`
	// Team is how the workspace shares with its team over NATS JetStream
	// (engine/team); empty: nothing is shared.
	Team TeamConfig `yaml:"team" json:"team"`
	// Stack names the project's languages and frameworks when detection
	// (DetectStack) gets them wrong: patterns about other stacks stay out
	// of prompts.
	Stack StackConfig `yaml:"stack" json:"stack"`
	// Providers are model servers by name (ProviderConfig); tier models
	// name one as "NAME/MODEL". Empty: only the ollama: section's server.
	Providers map[string]ProviderConfig `yaml:"providers" json:"providers,omitempty"`
	// CodeMap governs the repository map (engine/codemap).
	CodeMap CodeMapConfig `yaml:"codemap" json:"codemap"`
	// LSP governs the language servers whose diagnostics check an agent's
	// edits (engine/lsp).
	LSP LSPConfig `yaml:"lsp" json:"lsp"`
}

// ChatConfig is the chat: section.
type ChatConfig struct {
	// Agent is the agent every turn goes to ("" lets the router pick: a
	// writing specialist for a change, a read-only one for a question).
	Agent string `yaml:"agent" json:"agent"`
	// HistoryShare is the part of the prompt budget the session history may
	// take; older turns are compacted into a visible summary past it.
	HistoryShare float64 `yaml:"historyShare" json:"historyShare"`
	// AttachShare is the part of the prompt budget @path attachments may take.
	AttachShare float64 `yaml:"attachShare" json:"attachShare"`
}

// CodeMapConfig is the codemap: section.
type CodeMapConfig struct {
	// Off leaves the map out of prompts and turns its tools off.
	Off bool `yaml:"off" json:"off,omitempty"`
	// MaxFiles bounds the source files mapped (default 20000).
	MaxFiles int `yaml:"maxFiles" json:"maxFiles,omitempty"`
	// Exclude are glob patterns of paths (or base names) never mapped, on
	// top of .gitignore.
	Exclude []string `yaml:"exclude" json:"exclude,omitempty"`
}

// LSPConfig is the lsp: section. Without servers, nova looks for gopls,
// pyright (or basedpyright), typescript-language-server and rust-analyzer
// on the PATH.
type LSPConfig struct {
	// Off turns language servers off.
	Off bool `yaml:"off" json:"off,omitempty"`
	// Timeout bounds starting a server and each wait for its diagnostics
	// (default 10s).
	Timeout Duration `yaml:"timeout" json:"timeout,omitempty"`
	// Servers by name replace or add to the built-in ones (a built-in name
	// with off: true turns that one off).
	Servers map[string]LSPServerConfig `yaml:"servers" json:"servers,omitempty"`
}

// LSPServerConfig is one language server started over stdio.
type LSPServerConfig struct {
	Command string   `yaml:"command" json:"command,omitempty"`
	Args    []string `yaml:"args" json:"args,omitempty"`
	// Languages it serves: go, python, javascript, typescript, tsx, rust, java.
	Languages []string `yaml:"languages" json:"languages,omitempty"`
	Off       bool     `yaml:"off" json:"off,omitempty"`
}

// DefaultLSPTimeout bounds a language server's start and each wait for its
// diagnostics when lsp.timeout is not set.
const DefaultLSPTimeout = 10 * time.Second

// MCPConfig is the mcp: section.
type MCPConfig struct {
	// Servers by name; the name prefixes the server's tools (name.tool).
	Servers map[string]MCPServerConfig `yaml:"servers" json:"servers,omitempty"`
}

// MCPServerConfig is one MCP server: either a program nova starts and talks
// to over stdin/stdout (command, args, env), or a streamable HTTP endpoint
// (url, headers). Values of env and headers may reference ${VAR} from
// nova's environment.
type MCPServerConfig struct {
	Command string            `yaml:"command" json:"command,omitempty"`
	Args    []string          `yaml:"args" json:"args,omitempty"`
	Env     map[string]string `yaml:"env" json:"env,omitempty"`
	URL     string            `yaml:"url" json:"url,omitempty"`
	Headers map[string]string `yaml:"headers" json:"headers,omitempty"`
	// Timeout bounds initialize and each call (default 30s).
	Timeout Duration `yaml:"timeout" json:"timeout,omitempty"`
	// Tools, when set, are the only tools of the server nova offers.
	Tools []string `yaml:"tools" json:"tools,omitempty"`
}

// Provider types (providers.NAME.type).
const (
	ProviderOllama = "ollama" // Ollama's native API
	ProviderOpenAI = "openai" // any OpenAI-compatible server
)

// ProviderConfig is one model provider: one or more hosts of one kind. The
// ollama: section's timeouts, retries, idle timeout, keep-alive and reply cap
// apply to every provider. A provider named "ollama" replaces the ollama:
// section's single host for models without a provider prefix.
type ProviderConfig struct {
	// Type is "ollama" (native API, num_ctx per request) or "openai"
	// (OpenAI-compatible chat completions).
	Type string `yaml:"type" json:"type"`
	// Hosts are the servers; calls go to the least busy one that has the
	// model. For openai, each is a base URL (…/v1).
	Hosts []string `yaml:"hosts" json:"hosts,omitempty"`
	// BaseURL is one openai server (added to Hosts).
	BaseURL string `yaml:"baseURL" json:"baseURL,omitempty"`
	// APIKey is sent as a bearer token (openai); ${VAR} is read from the
	// environment. Prefer ${VAR} to a literal key in the file.
	APIKey string `yaml:"apiKey" json:"-"`
	// ContextSize is the context nova fits prompts to when the server does
	// not report one (openai), or num_ctx (ollama; 0: ollama.numCtx).
	ContextSize int `yaml:"contextSize" json:"contextSize,omitempty"`
	// Slots is how many requests one host serves at once (default 1).
	Slots int `yaml:"slots" json:"slots,omitempty"`
}

// URLs are the provider's hosts, BaseURL last.
func (p ProviderConfig) URLs() []string {
	out := append([]string{}, p.Hosts...)
	if strings.TrimSpace(p.BaseURL) != "" {
		out = append(out, p.BaseURL)
	}
	return out
}

// ProviderNames returns the configured provider names, sorted.
func (c Config) ProviderNames() []string {
	names := make([]string, 0, len(c.Providers))
	for n := range c.Providers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func (c Config) validateProviders(bad func(field, format string, a ...any)) {
	for _, name := range c.ProviderNames() {
		p := c.Providers[name]
		field := "providers." + name
		if !mcpNamePattern.MatchString(name) {
			bad(field, "provider name %q must start with a letter and hold only letters, digits, '-' or '_' (at most 32)", name)
		}
		switch p.Type {
		case ProviderOllama, ProviderOpenAI:
		default:
			bad(field+".type", "must be %s or %s, got %q", ProviderOllama, ProviderOpenAI, p.Type)
		}
		urls := p.URLs()
		if len(urls) == 0 {
			bad(field, "needs hosts (a list of servers) or baseURL")
		}
		if len(urls) > 32 {
			bad(field+".hosts", "at most 32 hosts, got %d", len(urls))
		}
		for i, h := range urls {
			u, err := url.Parse(strings.TrimSpace(h))
			switch {
			case p.Type == ProviderOllama:
				if _, err := NormalizeHost(h); err != nil {
					bad(fmt.Sprintf("%s.hosts[%d]", field, i), "%v", err)
				}
			case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
				bad(fmt.Sprintf("%s.hosts[%d]", field, i), "want an http:// or https:// base URL such as http://127.0.0.1:1234/v1, got %q", h)
			}
		}
		if p.APIKey != "" && p.Type == ProviderOllama {
			bad(field+".apiKey", "applies to type openai only")
		}
		if p.ContextSize < 0 || p.ContextSize > 1<<24 {
			bad(field+".contextSize", "must be between 0 and %d tokens, got %d", 1<<24, p.ContextSize)
		}
		if p.Slots < 0 || p.Slots > 64 {
			bad(field+".slots", "must be between 0 and 64, got %d", p.Slots)
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// DefaultMCPTimeout bounds an MCP server's initialize and each call when
// its timeout is not set.
const DefaultMCPTimeout = 30 * time.Second

// MCPServerNames returns the configured MCP server names, sorted.
func (c MCPConfig) MCPServerNames() []string {
	names := make([]string, 0, len(c.Servers))
	for n := range c.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

var mcpNamePattern = lazyre.New(`^[A-Za-z][A-Za-z0-9_-]{0,31}$`)

func (c MCPConfig) validate(bad func(field, format string, a ...any)) {
	for _, name := range c.MCPServerNames() {
		s := c.Servers[name]
		field := "mcp.servers." + name
		if !mcpNamePattern.MatchString(name) {
			bad(field, "server name %q must start with a letter and hold only letters, digits, '-' or '_' (at most 32)", name)
		}
		hasCmd, hasURL := strings.TrimSpace(s.Command) != "", strings.TrimSpace(s.URL) != ""
		switch {
		case hasCmd && hasURL:
			bad(field, "set either command (stdio) or url (streamable HTTP), not both")
		case !hasCmd && !hasURL:
			bad(field, "needs a command (stdio) or a url (streamable HTTP)")
		case hasURL:
			u, err := url.Parse(s.URL)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				bad(field+".url", "want an http:// or https:// URL, got %q", s.URL)
			}
			if len(s.Args) > 0 || len(s.Env) > 0 {
				bad(field, "args and env apply to a command, not to a url")
			}
		case hasCmd:
			if len(s.Headers) > 0 {
				bad(field+".headers", "headers apply to a url, not to a command")
			}
		}
		if s.Timeout == invalidDuration || s.Timeout < 0 {
			bad(field+".timeout", "want a duration like 30s or 5m")
		}
		for i, t := range s.Tools {
			if strings.TrimSpace(t) == "" {
				bad(fmt.Sprintf("%s.tools[%d]", field, i), "must not be empty")
			}
		}
	}
}

// Edit formats (agents.editFormat). engine/agents has the same values as
// agents.EditFormat; they are repeated here so that reading a config does
// not pull the agent runtime in.
const (
	EditFormatAuto  = "auto"
	EditFormatTools = "tools"
	EditFormatWhole = "whole"
	EditFormatDiff  = "diff"
)

// EditFormats lists the values agents.editFormat accepts.
func EditFormats() []string {
	return []string{EditFormatAuto, EditFormatTools, EditFormatWhole, EditFormatDiff}
}

// AgentsConfig governs agent runs.
type AgentsConfig struct {
	// EditFormat is how models write file changes: tools (writeFile,
	// editFile), whole (the whole new file in a fenced block), diff
	// (SEARCH/REPLACE blocks) or auto (whole on the small tier, tools on
	// medium and large).
	EditFormat string `yaml:"editFormat" json:"editFormat"`
}

// GitConfig is the optional git integration.
type GitConfig struct {
	// CommitOnApply makes every apply of a changeset (reverts included) one
	// git commit of exactly the files it wrote, with a message built from
	// its task; nothing else in the index or the working tree is committed.
	CommitOnApply bool `yaml:"commitOnApply" json:"commitOnApply"`
}

// OrchestratorConfig governs goal runs: who leads and when a run stops.
type OrchestratorConfig struct {
	// Lead is the agent that decides (default SUN).
	Lead string `yaml:"lead" json:"lead"`
	// MaxTurns bounds the lead's decisions per run.
	MaxTurns int `yaml:"maxTurns" json:"maxTurns"`
	// MaxTokens bounds the tokens of a run, the lead's and the delegations'
	// (0 = no limit).
	MaxTokens int `yaml:"maxTokens" json:"maxTokens"`
	// MaxDuration bounds a run's active wall time (0 = no limit).
	MaxDuration Duration `yaml:"maxDuration" json:"maxDuration"`
	// MinConfidence: when the lead says it is less sure than this (0 to
	// 1) of a delegation or a completion, the user is asked first (0 =
	// never ask).
	MinConfidence float64 `yaml:"minConfidence" json:"minConfidence"`
	// BudgetShares split maxTokens between the lead, the specialists that
	// only read (research) and those that change files (implement), in
	// percent; 0 leaves a role uncapped.
	BudgetShares BudgetShares `yaml:"budgetShares" json:"budgetShares"`
}

// BudgetShares are orchestrator.budgetShares (the seed's 10/30/60).
type BudgetShares struct {
	Lead      int `yaml:"lead" json:"lead"`
	Research  int `yaml:"research" json:"research"`
	Implement int `yaml:"implement" json:"implement"`
}

// VerifyConfig governs how builds read the verifier's verdicts.
type VerifyConfig struct {
	// Inconclusive is what an inconclusive verdict does to a task: "retry"
	// (once, with the verifier's evidence; then the task is blocked with it),
	// "warn" (done, with a visible warning) or "fail" (blocked at once). An
	// unverified verdict (consistent work nothing executed) leaves the task
	// done but not Verified under retry and warn, and blocks it under fail.
	Inconclusive string `yaml:"inconclusive" json:"inconclusive"`
}

// DefaultMaxReply is ollama.maxReply's default (4 MiB); MinMaxReply is the
// smallest accepted (64 KiB: less would cut ordinary answers).
const (
	DefaultMaxReply = 4 << 20
	MinMaxReply     = 64 << 10
)

// OllamaConfig is how nova reaches the model server.
type OllamaConfig struct {
	Host    string   `yaml:"host" json:"host"`
	Timeout Duration `yaml:"timeout" json:"timeout"`
	// IdleTimeout bounds the wait for the first byte of an answer and for
	// each next chunk of a streamed reply (a stalled server).
	IdleTimeout Duration `yaml:"idleTimeout" json:"idleTimeout"`
	NumCtx      int      `yaml:"numCtx" json:"numCtx"`
	KeepAlive   Duration `yaml:"keepAlive" json:"keepAlive"`
	Retries     int      `yaml:"retries" json:"retries"`
	// WaitLimit is how long a headless build waits for an unreachable
	// server before it gives up, leaving the build resumable.
	WaitLimit Duration `yaml:"waitLimit" json:"waitLimit"`
	// MaxReply bounds one model reply in bytes (content, thinking and tool
	// call arguments; default 4 MiB). A longer reply is cut there and fails
	// like a reply that hit the token limit.
	MaxReply int `yaml:"maxReply" json:"maxReply"`
}

// ModelsConfig maps tiers to model names.
type ModelsConfig struct {
	Small  string `yaml:"small" json:"small"`
	Medium string `yaml:"medium" json:"medium"`
	Large  string `yaml:"large" json:"large"`
	Embed  string `yaml:"embed" json:"embed"`
}

// BudgetsConfig holds token budgets.
// A share of 0 turns that context off.
type BudgetsConfig struct {
	PromptTokens  int     `yaml:"promptTokens" json:"promptTokens"`
	VaultShare    float64 `yaml:"vaultShare" json:"vaultShare"`
	PlaybookShare float64 `yaml:"playbookShare" json:"playbookShare"`
	// KnowledgeShare is the part of a build prompt given to knowledge
	// (facts, docs, patterns); 0 turns build knowledge off.
	KnowledgeShare float64 `yaml:"knowledgeShare" json:"knowledgeShare"`
	// RulesShare is the part of every prompt given to the project's rule
	// files (AGENTS.md, CLAUDE.md, CONVENTIONS.md, .cursorrules,
	// .github/copilot-instructions.md); 0 leaves them out.
	RulesShare float64 `yaml:"rulesShare" json:"rulesShare"`
	// MapShare is the part of a prompt given to the repository map
	// (engine/codemap); 0 leaves the map out.
	MapShare    float64 `yaml:"mapShare" json:"mapShare"`
	BuildTokens int     `yaml:"buildTokens" json:"buildTokens"`
	ToolOutput  int     `yaml:"toolOutput" json:"toolOutput"`
	// ReplyReserve is the room (tokens) every prompt leaves for the reply
	// inside the model's context.
	ReplyReserve int `yaml:"replyReserve" json:"replyReserve"`
}

// CommandsConfig governs runCommand.
type CommandsConfig struct {
	Allow   []string `yaml:"allow" json:"allow"`
	Timeout Duration `yaml:"timeout" json:"timeout"`
	// Sandbox is "on" (default: commands write only beneath the workspace,
	// the temp dir and the toolchains' caches, with no network, where the
	// platform can confine them) or "off".
	Sandbox string `yaml:"sandbox" json:"sandbox"`
	// Network leaves the network on inside the sandbox (without root, tests
	// that start local servers need it: only a root nova gives commands a
	// namespace with their own loopback).
	Network bool `yaml:"network" json:"network"`
}

// BuildConfig governs builds.
type BuildConfig struct {
	Parallelism int  `yaml:"parallelism" json:"parallelism"`
	Judge       bool `yaml:"judge" json:"judge"`
	// MaxEscalations caps model-tier escalations per task; MaxLargeCalls
	// caps the attempts one build escalates to the large tier.
	MaxEscalations int `yaml:"maxEscalations" json:"maxEscalations"`
	MaxLargeCalls  int `yaml:"maxLargeCalls" json:"maxLargeCalls"`
}

// RehearsalConfig governs rehearsal.
type RehearsalConfig struct {
	Branches    int `yaml:"branches" json:"branches"`
	Concurrency int `yaml:"concurrency" json:"concurrency"`
}

// VaultConfig governs the taste vault.
type VaultConfig struct {
	OptInGlobal bool `yaml:"optInGlobal" json:"optInGlobal"`
}

// ImportConfig governs pattern imports.
type ImportConfig struct {
	DedupThreshold float64 `yaml:"dedupThreshold" json:"dedupThreshold"`
	BaseConfidence float64 `yaml:"baseConfidence" json:"baseConfidence"`
}

// DocsConfig governs documentation lookups (engine/knowledge/docs).
type DocsConfig struct {
	// TTL is how long fetched docs are served from the cache before a
	// refresh is tried.
	TTL Duration `yaml:"ttl" json:"ttl"`
	// MaxTokens cuts one fetch (ceil(chars/4) tokens).
	MaxTokens int            `yaml:"maxTokens" json:"maxTokens"`
	Context7  Context7Config `yaml:"context7" json:"context7"`
}

// Context7Config is the Context7 docs API. Env CONTEXT7_API_URL and
// CONTEXT7_API_KEY override it.
type Context7Config struct {
	// URL is the API's base URL ("" or "off" disables network docs).
	URL string `yaml:"url" json:"url"`
	// APIKey is sent as a bearer token when set (never printed).
	APIKey string `yaml:"apiKey" json:"-"`
}

// Duration is a time.Duration written as "90s" / "5m" in YAML and JSON.
type Duration time.Duration

// invalidDuration marks a value that did not parse.
const invalidDuration = Duration(-1)

// D returns the time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// MarshalYAML implements yaml.BytesMarshaler.
func (d Duration) MarshalYAML() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// UnmarshalYAML implements yaml.BytesUnmarshaler.
func (d *Duration) UnmarshalYAML(b []byte) error {
	s := strings.Trim(strings.TrimSpace(string(b)), `"'`)
	v, err := time.ParseDuration(s)
	if err != nil || v < 0 {
		// Reported by validate, which knows the field name and so the line.
		*d = invalidDuration
		return nil
	}
	*d = Duration(v)
	return nil
}

// MarshalText implements encoding.TextMarshaler (JSON output).
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler, so that a config read
// as JSON (from `--json` output, or from the owning nova over its socket)
// comes back as it was written.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(strings.TrimSpace(string(b)))
	if err != nil {
		return fmt.Errorf("duration %q: %w", b, err)
	}
	*d = Duration(v)
	return nil
}

// Defaults returns the built-in configuration.
func Defaults() Config {
	return Config{
		Version:  1,
		Tier:     TierFree,
		Autonomy: 2,
		Theme:    "nova-dark",
		UserID:   "local",
		Ollama: OllamaConfig{
			Host:        "http://127.0.0.1:11434",
			Timeout:     Duration(5 * time.Minute),
			IdleTimeout: Duration(60 * time.Second),
			NumCtx:      8192,
			KeepAlive:   Duration(5 * time.Minute),
			Retries:     2,
			WaitLimit:   Duration(10 * time.Minute),
			MaxReply:    DefaultMaxReply,
		},
		Models: ModelsConfig{
			Small:  "qwen2.5-coder:1.5b",
			Medium: "qwen2.5-coder:7b",
			Large:  "qwen2.5-coder:14b",
			Embed:  "nomic-embed-text",
		},
		Budgets: BudgetsConfig{
			PromptTokens:   7168, // numCtx 8192 minus the 1024-token reply reserve
			VaultShare:     0.15,
			PlaybookShare:  0.10,
			KnowledgeShare: 0.10,
			RulesShare:     0.05,
			MapShare:       0.10,
			ToolOutput:     800,
			ReplyReserve:   1024,
		},
		Checks: []string{},
		Commands: CommandsConfig{
			Allow:   []string{"go build", "go test", "go vet", "gofmt -l", "npm test", "npx tsc --noEmit"},
			Timeout: Duration(2 * time.Minute),
			Sandbox: "on",
		},
		Build:     BuildConfig{Parallelism: 1, MaxEscalations: 2, MaxLargeCalls: 3},
		Rehearsal: RehearsalConfig{Branches: 2, Concurrency: 1},
		Import:    ImportConfig{DedupThreshold: 0.8, BaseConfidence: 0.85},
		Verify:    VerifyConfig{Inconclusive: "retry"},
		Docs: DocsConfig{
			TTL:       Duration(7 * 24 * time.Hour),
			MaxTokens: 2000,
			Context7:  Context7Config{URL: "https://context7.com"},
		},
		Orchestrator: OrchestratorConfig{Lead: "SUN", MaxTurns: 12, MaxTokens: 200000,
			MaxDuration: Duration(30 * time.Minute), MinConfidence: 0.3,
			BudgetShares: BudgetShares{Lead: 10, Research: 30, Implement: 60}},
		Agents: AgentsConfig{EditFormat: EditFormatAuto},
		Chat:   ChatConfig{HistoryShare: 0.35, AttachShare: 0.25},
		LSP:    LSPConfig{Timeout: Duration(DefaultLSPTimeout)},
	}
}

// ConfigError names the file, line and field of a configuration problem.
type ConfigError struct {
	File  string
	Line  int
	Field string
	Msg   string
	// Err is the cause when there is one (e.g. a *yamlguard.LimitError).
	Err error
}

func (e *ConfigError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Field != "" {
		fmt.Fprintf(&b, ": %s", e.Field)
	}
	fmt.Fprintf(&b, ": %s", e.Msg)
	return b.String()
}

// Unwrap makes errors.Is(err, ErrConfig) hold, and exposes the cause.
func (e *ConfigError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrConfig, e.Err}
	}
	return []error{ErrConfig}
}

// ParseConfig decodes and validates config data on top of the defaults.
// file is only used in messages.
func ParseConfig(file string, data []byte) (Config, error) {
	cfg := Defaults()
	if len(bytes.TrimSpace(data)) == 0 {
		return cfg, nil
	}
	if err := yamlguard.Unmarshal(file, data, &cfg, configLimits, yaml.Strict()); err != nil {
		return Defaults(), yamlError(file, err)
	}
	if errs := cfg.validate(); len(errs) > 0 {
		for i := range errs {
			errs[i].File = file
			errs[i].Line = lineOf(data, errs[i].Field)
		}
		// Report the first problem in file order, so messages are stable.
		sort.SliceStable(errs, func(i, j int) bool { return errs[i].Line < errs[j].Line })
		return Defaults(), errs[0]
	}
	return cfg, nil
}

// MaxConfigSize bounds config.yaml; a real one is a few KB.
const MaxConfigSize = 256 << 10

var configLimits = yamlguard.Limits{MaxBytes: MaxConfigSize}

// yamlError turns a goccy/go-yaml error (or a yamlguard limit) into a
// ConfigError.
func yamlError(file string, err error) error {
	var le *yamlguard.LimitError
	if errors.As(err, &le) {
		return &ConfigError{File: file, Line: le.Line, Msg: le.Limit.Error() + ": " + le.Msg, Err: err}
	}
	var ye yaml.Error
	if errors.As(err, &ye) {
		ce := &ConfigError{File: file, Msg: ye.GetMessage()}
		if tok := ye.GetToken(); tok != nil && tok.Position != nil {
			ce.Line = tok.Position.Line
			ce.Field = fieldNear(tok.Value, ye)
		}
		return ce
	}
	return &ConfigError{File: file, Msg: err.Error(), Err: err}
}

func fieldNear(tokValue string, err error) string {
	var uf *yaml.UnknownFieldError
	if errors.As(err, &uf) {
		return tokValue
	}
	var te *yaml.TypeError
	if errors.As(err, &te) {
		if te.StructFieldName != nil {
			return *te.StructFieldName
		}
	}
	return ""
}

// lineOf finds the line of a dotted field (e.g. "ollama.host") in data.
func lineOf(data []byte, field string) int {
	p, err := yaml.PathString("$." + field)
	if err != nil {
		return 0
	}
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		return 0
	}
	n, err := p.FilterFile(f)
	if err != nil || n == nil || n.GetToken() == nil || n.GetToken().Position == nil {
		return 0
	}
	return n.GetToken().Position.Line
}

func (c *Config) validate() []*ConfigError {
	var errs []*ConfigError
	bad := func(field, format string, a ...any) {
		errs = append(errs, &ConfigError{Field: field, Msg: fmt.Sprintf(format, a...)})
	}
	if c.Tier != TierFree && c.Tier != TierPremium {
		bad("tier", "must be %q or %q, got %q", TierFree, TierPremium, c.Tier)
	}
	if c.Autonomy < 0 || c.Autonomy > 5 {
		bad("autonomy", "must be between 0 and 5, got %d", c.Autonomy)
	}
	if strings.TrimSpace(c.Theme) == "" {
		bad("theme", "must not be empty")
	}
	if _, err := NormalizeHost(c.Ollama.Host); err != nil {
		bad("ollama.host", "%v", err)
	}
	for field, d := range map[string]Duration{"ollama.timeout": c.Ollama.Timeout, "ollama.idleTimeout": c.Ollama.IdleTimeout,
		"ollama.keepAlive": c.Ollama.KeepAlive, "ollama.waitLimit": c.Ollama.WaitLimit, "commands.timeout": c.Commands.Timeout,
		"docs.ttl": c.Docs.TTL, "orchestrator.maxDuration": c.Orchestrator.MaxDuration} {
		if d == invalidDuration {
			bad(field, "want a duration like 30s or 5m")
		}
	}
	if c.Ollama.NumCtx < 0 {
		bad("ollama.numCtx", "must not be negative")
	}
	if c.Ollama.Retries < 0 || c.Ollama.Retries > 10 {
		bad("ollama.retries", "must be between 0 and 10")
	}
	for name, v := range map[string]string{"models.small": c.Models.Small, "models.medium": c.Models.Medium, "models.large": c.Models.Large} {
		if strings.TrimSpace(v) == "" {
			bad(name, "must name a model (e.g. qwen2.5-coder:7b)")
		}
	}
	if c.Budgets.PromptTokens < 512 {
		bad("budgets.promptTokens", "must be at least 512, got %d", c.Budgets.PromptTokens)
	}
	if c.Budgets.VaultShare < 0 || c.Budgets.VaultShare > 0.15 {
		bad("budgets.vaultShare", "must be between 0 and 0.15, got %g", c.Budgets.VaultShare)
	}
	if c.Budgets.PlaybookShare < 0 || c.Budgets.PlaybookShare > 0.10 {
		bad("budgets.playbookShare", "must be between 0 and 0.10, got %g", c.Budgets.PlaybookShare)
	}
	if c.Budgets.KnowledgeShare < 0 || c.Budgets.KnowledgeShare > 0.10 {
		bad("budgets.knowledgeShare", "must be between 0 and 0.10 (0 turns build knowledge off), got %g", c.Budgets.KnowledgeShare)
	}
	if c.Budgets.RulesShare < 0 || c.Budgets.RulesShare > 0.10 {
		bad("budgets.rulesShare", "must be between 0 and 0.10 (0 leaves the project's rule files out), got %g", c.Budgets.RulesShare)
	}
	if c.Chat.HistoryShare < 0 || c.Chat.HistoryShare > 0.6 {
		bad("chat.historyShare", "must be between 0 and 0.6, got %g", c.Chat.HistoryShare)
	}
	if c.Chat.AttachShare < 0 || c.Chat.AttachShare > 0.5 {
		bad("chat.attachShare", "must be between 0 and 0.5, got %g", c.Chat.AttachShare)
	}
	if c.Budgets.MapShare < 0 || c.Budgets.MapShare > 0.25 {
		bad("budgets.mapShare", "must be between 0 and 0.25 (0 leaves the code map out), got %g", c.Budgets.MapShare)
	}
	if c.CodeMap.MaxFiles < 0 {
		bad("codemap.maxFiles", "must not be negative (0 means the default, 20000)")
	}
	for i, pat := range c.CodeMap.Exclude {
		if _, err := path.Match(pat, ""); err != nil {
			bad(fmt.Sprintf("codemap.exclude[%d]", i), "bad glob %q: %v", pat, err)
		}
	}
	if c.LSP.Timeout == invalidDuration || c.LSP.Timeout < 0 {
		bad("lsp.timeout", "want a duration like 10s")
	}
	for _, name := range sortedKeys(c.LSP.Servers) {
		sv := c.LSP.Servers[name]
		if !sv.Off && strings.TrimSpace(sv.Command) == "" && !slices.Contains([]string{"gopls", "pyright", "typescript", "rust-analyzer"}, name) {
			bad("lsp.servers."+name+".command", "must name the server's program")
		}
	}
	if c.Docs.MaxTokens < 100 || c.Docs.MaxTokens > 32000 {
		bad("docs.maxTokens", "must be between 100 and 32000, got %d", c.Docs.MaxTokens)
	}
	if err := checkDocsURL(c.Docs.Context7.URL); err != nil {
		bad("docs.context7.url", "%v", err)
	}
	if c.Budgets.BuildTokens < 0 {
		bad("budgets.buildTokens", "must not be negative (0 means no limit)")
	}
	if c.Budgets.ReplyReserve < 64 {
		bad("budgets.replyReserve", "must be at least 64 tokens, got %d", c.Budgets.ReplyReserve)
	}
	if c.Ollama.MaxReply < MinMaxReply {
		bad("ollama.maxReply", "must be at least %d bytes (64 KiB), got %d", MinMaxReply, c.Ollama.MaxReply)
	}
	if c.Ollama.IdleTimeout != invalidDuration && c.Ollama.IdleTimeout > 0 && c.Ollama.IdleTimeout.D() < time.Second {
		bad("ollama.idleTimeout", "must be at least 1s (or 0 for none), got %s", c.Ollama.IdleTimeout.D())
	}
	if c.Budgets.ToolOutput < 100 {
		bad("budgets.toolOutput", "must be at least 100 characters")
	}
	for i, chk := range c.Checks {
		if strings.TrimSpace(chk) == "" {
			bad(fmt.Sprintf("checks[%d]", i), "must not be empty")
		}
	}
	if c.Build.Parallelism < 1 || c.Build.Parallelism > 16 {
		bad("build.parallelism", "must be between 1 and 16, got %d", c.Build.Parallelism)
	}
	if c.Build.MaxEscalations < 0 || c.Build.MaxEscalations > 5 {
		bad("build.maxEscalations", "must be between 0 and 5, got %d", c.Build.MaxEscalations)
	}
	if c.Build.MaxLargeCalls < 0 || c.Build.MaxLargeCalls > 100 {
		bad("build.maxLargeCalls", "must be between 0 and 100, got %d", c.Build.MaxLargeCalls)
	}
	switch c.Commands.Sandbox {
	case "on", "off":
	default:
		bad("commands.sandbox", "must be on or off, got %q", c.Commands.Sandbox)
	}
	switch c.Verify.Inconclusive {
	case "retry", "warn", "fail":
	default:
		bad("verify.inconclusive", "must be retry, warn or fail, got %q", c.Verify.Inconclusive)
	}
	if c.Agents.EditFormat != "" && !slices.Contains(EditFormats(), c.Agents.EditFormat) { // "" is auto
		bad("agents.editFormat", "must be auto, tools, whole or diff, got %q", c.Agents.EditFormat)
	}
	if strings.TrimSpace(c.Orchestrator.Lead) == "" {
		bad("orchestrator.lead", "must name an agent (e.g. SUN)")
	}
	if c.Orchestrator.MaxTurns < 1 || c.Orchestrator.MaxTurns > 200 {
		bad("orchestrator.maxTurns", "must be between 1 and 200, got %d", c.Orchestrator.MaxTurns)
	}
	for k, v := range map[string]int{"lead": c.Orchestrator.BudgetShares.Lead, "research": c.Orchestrator.BudgetShares.Research,
		"implement": c.Orchestrator.BudgetShares.Implement} {
		if v < 0 || v > 100 {
			bad("orchestrator.budgetShares."+k, "must be a percentage from 0 to 100 (0: no cap), got %d", v)
		}
	}
	if c.Orchestrator.MinConfidence < 0 || c.Orchestrator.MinConfidence > 1 {
		bad("orchestrator.minConfidence", "must be between 0 and 1, got %g", c.Orchestrator.MinConfidence)
	}
	if c.Orchestrator.MaxTokens < 0 {
		bad("orchestrator.maxTokens", "must not be negative (0 means no limit)")
	}
	if c.Rehearsal.Branches < 2 || c.Rehearsal.Branches > 3 {
		bad("rehearsal.branches", "must be 2 or 3, got %d", c.Rehearsal.Branches)
	}
	if c.Rehearsal.Concurrency < 1 || c.Rehearsal.Concurrency > 3 {
		bad("rehearsal.concurrency", "must be between 1 and 3, got %d", c.Rehearsal.Concurrency)
	}
	if c.Import.DedupThreshold <= 0 || c.Import.DedupThreshold > 1 {
		bad("import.dedupThreshold", "must be in (0, 1], got %g", c.Import.DedupThreshold)
	}
	if c.Import.BaseConfidence < 0 || c.Import.BaseConfidence > 1 {
		bad("import.baseConfidence", "must be between 0 and 1, got %g", c.Import.BaseConfidence)
	}
	c.MCP.validate(bad)
	c.Team.validate(bad)
	c.validateProviders(bad)
	return errs
}

// checkDocsURL accepts "", "off" or an http(s) URL with a host.
func checkDocsURL(s string) error {
	s = strings.TrimSpace(s)
	if s == "" || strings.EqualFold(s, "off") {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("want an http(s) URL such as https://context7.com, or off; got %q", s)
	}
	return nil
}

// NormalizeHost applies Ollama's OLLAMA_HOST rules: scheme defaults to http,
// port to 11434 (80/443 when a scheme is given without port), host to
// 127.0.0.1; 0.0.0.0 is reached through loopback.
func NormalizeHost(s string) (string, error) {
	s = strings.TrimSpace(strings.Trim(strings.TrimSpace(s), `"'`))
	if s == "" {
		return "http://127.0.0.1:11434", nil
	}
	scheme, hostport, ok := strings.Cut(s, "://")
	defaultPort := "11434"
	if !ok {
		scheme, hostport = "http", s
	} else {
		switch scheme {
		case "http":
			defaultPort = "80"
		case "https":
			defaultPort = "443"
		default:
			return "", fmt.Errorf("unsupported scheme %q (use http or https)", scheme)
		}
	}
	hostport, path, _ := strings.Cut(hostport, "/")
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = hostport, defaultPort
		if i := strings.LastIndex(hostport, ":"); i >= 0 && !strings.Contains(hostport, "]") && strings.Count(hostport, ":") == 1 {
			host, port = hostport[:i], hostport[i+1:]
		}
	}
	if host == "" || host == "0.0.0.0" {
		host = "127.0.0.1"
	}
	if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
		return "", fmt.Errorf("invalid port %q", port)
	}
	u := url.URL{Scheme: scheme, Host: net.JoinHostPort(host, port)}
	if path != "" {
		u.Path = "/" + path
	}
	return u.String(), nil
}

// Override records one environment variable that changed the config.
type Override struct {
	Env   string `json:"env"`
	Field string `json:"field"`
	Value string `json:"value"`
}

// ApplyEnv applies environment overrides (OLLAMA_HOST, NOVA_TIER or
// NOVA26_TIER, NOVA_AUTONOMY, CONTEXT7_API_URL, CONTEXT7_API_KEY) and
// reports what changed (a key's value is reported as "(set)", never shown).
func (c *Config) ApplyEnv(getenv func(string) string) ([]Override, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	var out []Override
	if v := getenv("OLLAMA_HOST"); v != "" {
		h, err := NormalizeHost(v)
		if err != nil {
			return out, &ConfigError{File: "environment", Field: "OLLAMA_HOST", Msg: err.Error()}
		}
		c.Ollama.Host = h
		out = append(out, Override{Env: "OLLAMA_HOST", Field: "ollama.host", Value: h})
	}
	for _, env := range []string{"NOVA26_TIER", "NOVA_TIER"} { // NOVA_TIER wins
		if v := strings.ToLower(strings.TrimSpace(getenv(env))); v != "" {
			if v != TierFree && v != TierPremium {
				return out, &ConfigError{File: "environment", Field: env, Msg: fmt.Sprintf("must be free or premium, got %q", v)}
			}
			c.Tier = v
			out = append(out, Override{Env: env, Field: "tier", Value: v})
		}
	}
	if v := strings.TrimSpace(getenv("NOVA_AUTONOMY")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 5 {
			return out, &ConfigError{File: "environment", Field: "NOVA_AUTONOMY", Msg: fmt.Sprintf("must be a whole number from 0 to 5, got %q", v)}
		}
		c.Autonomy = n
		out = append(out, Override{Env: "NOVA_AUTONOMY", Field: "autonomy", Value: v})
	}
	if v := strings.TrimSpace(getenv("CONTEXT7_API_URL")); v != "" {
		if err := checkDocsURL(v); err != nil {
			return out, &ConfigError{File: "environment", Field: "CONTEXT7_API_URL", Msg: err.Error()}
		}
		c.Docs.Context7.URL = v
		out = append(out, Override{Env: "CONTEXT7_API_URL", Field: "docs.context7.url", Value: v})
	}
	if v := strings.TrimSpace(getenv("CONTEXT7_API_KEY")); v != "" {
		c.Docs.Context7.APIKey = v
		out = append(out, Override{Env: "CONTEXT7_API_KEY", Field: "docs.context7.apiKey", Value: "(set)"})
	}
	return out, nil
}
