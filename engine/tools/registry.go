// Package tools is the permissioned tool registry the agent loop calls:
// every tool declares a JSON Schema for its arguments (validated before the
// tool runs), which agents may or may not use it, a timeout, and whether it
// mutates the workspace.
//
// The core tools are readFile, listFiles, searchFiles, writeFile, editFile,
// deleteFile and runCommand ([Core]). Every path they touch goes through
// [Confine]: it must resolve inside the workspace root. Mutating tools never
// write to disk; they stage into the run's changeset through the [Stage]
// interface (implemented by engine/changes), and reads see what the run has
// staged. runCommand runs only allowlisted commands, without a shell, after
// an approval below autonomy 4.
//
// Failures are values, not panics: [Registry.Execute] always returns a
// [Result] whose Kind says what went wrong (validation_failed,
// policy_denied, tool_error, timeout), so the agent loop can feed it back to
// the model as an observation.
package tools

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/nova-dev/nova/engine/llm"
)

// DefaultTimeout bounds a tool that declares no timeout of its own... except
// runCommand, which waits for an approval first and then applies the
// configured command timeout itself (Tool.Timeout < 0).
const DefaultTimeout = 30 * time.Second

// Tool is one registered tool.
type Tool struct {
	// Name is what the model calls (e.g. "readFile").
	Name string
	// Description tells the model what the tool does.
	Description string
	// Schema is the JSON Schema (draft 2020-12) of the arguments object.
	Schema json.RawMessage
	// Mutating tools change the workspace (through the changeset).
	Mutating bool
	// Timeout bounds one invocation; 0 means DefaultTimeout, negative means
	// the tool manages its own timeout.
	Timeout time.Duration
	// AllowedAgents, when non-empty, are the only agents (ids, any case)
	// that may call the tool. BlockedAgents may never call it.
	AllowedAgents []string
	BlockedAgents []string
	// AllAgents offers the tool to every agent whatever its spec's `tools`
	// list says (the knowledge tools: they never touch workspace files;
	// runSkill: it runs every step with the agent's own permissions;
	// generateUIComponent: it only returns text).
	// AllowedAgents and BlockedAgents still apply.
	AllAgents bool
	// OutputCap is how many characters of the tool's output the model sees
	// when that is more than budgets.toolOutput (fetchDocs: 2,000 tokens; runSkill: 1,000 characters);
	// 0 keeps the configured cap.
	OutputCap int
	// Aliases maps argument names models often write to the tool's own
	// (alias -> canonical, e.g. "file_path" -> "path"). Execute renames them
	// before validating; a canonical name already present wins and the
	// alias is ignored. Either way the output gets a note line.
	Aliases map[string]string
	// Board marks a session-board tool (engine/board): it works only in a
	// run that has a board (Env.Board: a build task, a goal run's
	// delegation); the agent loop leaves it out of other runs.
	Board bool
	// Run executes the tool with arguments already validated against Schema.
	Run func(ctx context.Context, env *Env, args json.RawMessage) (Output, error)
}

// Output is what a tool's Run returns on success.
type Output struct {
	// Text is the full output shown to the model (the loop truncates it).
	Text string
	// Evidence backs claims made from this output (the verifier reads it).
	Evidence []Evidence
	// Failed marks an invocation that ran but did not succeed (a command
	// exiting non-zero): the status is StatusFailed, not StatusError.
	Failed bool
}

// Evidence is a verifiable fact produced by a tool invocation.
type Evidence struct {
	// Kind is "file" (a staged write or deletion) or "command".
	Kind string `json:"kind"`
	// Path is the workspace-relative path of a file.
	Path string `json:"path,omitempty"`
	// SHA256 is the hex digest of the staged content, or "absent" for a
	// staged deletion.
	SHA256 string `json:"sha256,omitempty"`
	// ChangesetID is the changeset the file was staged in.
	ChangesetID uint64 `json:"changesetId,omitempty"`
	// Command and ExitCode describe a runCommand invocation.
	Command  string `json:"command,omitempty"`
	ExitCode *int   `json:"exitCode,omitempty"`
	// Anchor is an edit's claim of where its block sits (editFile with
	// one replacement): checked against the staged file by the verifier.
	Anchor *EditAnchor `json:"anchor,omitempty"`
}

// Status is the outcome of one invocation, as recorded in traces.
type Status string

// Invocation statuses.
const (
	StatusOK      Status = "ok"      // ran and succeeded
	StatusFailed  Status = "failed"  // ran and reported failure (non-zero exit)
	StatusError   Status = "error"   // the tool failed (KindToolError)
	StatusDenied  Status = "denied"  // refused by policy (KindPolicyDenied)
	StatusInvalid Status = "invalid" // unknown tool or bad arguments (KindValidation)
	StatusTimeout Status = "timeout" // ran out of time (KindTimeout)
)

// Call is one tool call requested by the model.
type Call struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

// Result is the outcome of Execute. It is never a Go error: failures are
// described by Status, Kind and Err so that they can be shown to the model.
type Result struct {
	Tool     string        `json:"tool"`
	Args     string        `json:"args"` // canonical JSON of the arguments
	ArgsHash string        `json:"argsHash"`
	Status   Status        `json:"status"`
	Kind     Kind          `json:"kind,omitempty"`
	Output   string        `json:"output"` // full output, or the error message
	Evidence []Evidence    `json:"evidence,omitempty"`
	Duration time.Duration `json:"duration"`
	Mutating bool          `json:"mutating,omitempty"`
	// Notes say what Execute changed in the arguments before running the
	// tool (an alias renamed, an unknown argument dropped); their NoteLine
	// ends Output.
	Notes []string `json:"notes,omitempty"`
	// Err is the error behind a non-OK status.
	Err error `json:"-"`
}

// OK reports whether the tool ran and succeeded.
func (r Result) OK() bool { return r.Status == StatusOK }

// Registry holds tools by name. It is safe for concurrent use once built.
type Registry struct {
	mu    sync.RWMutex
	tools map[string]*entry
	order []string
}

type entry struct {
	tool   Tool
	schema *jsonschema.Schema
	// props are the declared argument names with their JSON type ("" when
	// the schema gives none or several); closed: additionalProperties false.
	props  map[string]string
	closed bool
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{tools: map[string]*entry{}} }

// Register adds a tool, compiling its schema. A duplicate name, a missing
// Run, or a schema that does not compile is an error.
func (r *Registry) Register(t Tool) error {
	if strings.TrimSpace(t.Name) == "" {
		return errors.New("register tool: empty name")
	}
	if t.Run == nil {
		return fmt.Errorf("register tool %s: no Run function", t.Name)
	}
	schema := t.Schema
	if len(bytes.TrimSpace(schema)) == 0 {
		schema = json.RawMessage(`{"type":"object"}`)
		t.Schema = schema
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return fmt.Errorf("register tool %s: schema is not JSON: %w", t.Name, err)
	}
	url := "mem:///nova/tools/" + t.Name + ".schema.json"
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, doc); err != nil {
		return fmt.Errorf("register tool %s: %w", t.Name, err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		return fmt.Errorf("register tool %s: schema: %w", t.Name, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.tools[t.Name]; dup {
		return fmt.Errorf("register tool %s: already registered", t.Name)
	}
	props, closed := schemaShape(schema)
	r.tools[t.Name] = &entry{tool: t, schema: sch, props: props, closed: closed}
	r.order = append(r.order, t.Name)
	return nil
}

// Get returns the tool with this name.
func (r *Registry) Get(name string) (Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.tools[name]
	if !ok {
		return Tool{}, false
	}
	return e.tool, true
}

// Names lists the registered tools in registration order.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.order)
}

// Permit reports whether agent may call the tool: it must be registered,
// listed in offered (the agent's spec; nil means every tool) unless it is
// AllAgents, and pass the
// tool's AllowedAgents/BlockedAgents. The error wraps ErrUnknownTool or
// ErrPolicyDenied.
func (r *Registry) Permit(agent string, offered []string, name string) error {
	t, ok := r.Get(name)
	if !ok {
		return fmt.Errorf("%w %q", ErrUnknownTool, name)
	}
	if offered != nil && !t.AllAgents && !slices.Contains(offered, name) {
		return denied("agent %s may not use %s (not in its tools)", agent, name)
	}
	if containsFold(t.BlockedAgents, agent) {
		return denied("agent %s is blocked from %s", agent, name)
	}
	if len(t.AllowedAgents) > 0 && !containsFold(t.AllowedAgents, agent) {
		return denied("%s is reserved for %s", name, strings.Join(t.AllowedAgents, ", "))
	}
	return nil
}

// For lists the tools agent may call among offered (nil: all), in
// registration order.
func (r *Registry) For(agent string, offered []string) []Tool {
	var out []Tool
	for _, name := range r.Names() {
		if r.Permit(agent, offered, name) == nil {
			t, _ := r.Get(name)
			out = append(out, t)
		}
	}
	return out
}

// LLMTools converts tools to the llm package's native tool definitions.
func LLMTools(ts []Tool) []llm.Tool {
	out := make([]llm.Tool, 0, len(ts))
	for _, t := range ts {
		out = append(out, llm.Tool{Name: t.Name, Description: t.Description, Parameters: t.Schema})
	}
	return out
}

// Validate checks args against the tool's schema. The error wraps
// ErrUnknownTool or ErrInvalidArgs and says what is wrong in words a model
// can act on.
func (r *Registry) Validate(name string, args json.RawMessage) error {
	r.mu.RLock()
	e, ok := r.tools[name]
	r.mu.RUnlock()
	if !ok {
		return fmt.Errorf("%w %q (available: %s)", ErrUnknownTool, name, strings.Join(r.Names(), ", "))
	}
	if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
		args = json.RawMessage(`{}`)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return invalid("%s: arguments are not valid JSON: %v", name, err)
	}
	if err := e.schema.Validate(inst); err != nil {
		return invalid("%s: %s", name, schemaMessage(err))
	}
	return nil
}

// schemaMessage flattens a jsonschema validation error into one line per
// problem, without the schema URLs.
func schemaMessage(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	var msgs []string
	var walk func(u *jsonschema.OutputUnit)
	walk = func(u *jsonschema.OutputUnit) {
		// A unit with children only summarises them; keep the specifics.
		if u.Error != nil && len(u.Errors) == 0 {
			loc := u.InstanceLocation
			if loc == "" {
				loc = "arguments"
			} else {
				loc = "argument " + strings.TrimPrefix(loc, "/")
			}
			msgs = append(msgs, loc+": "+u.Error.String())
		}
		for i := range u.Errors {
			walk(&u.Errors[i])
		}
	}
	out := ve.BasicOutput()
	walk(out)
	if len(msgs) == 0 {
		return ve.Error()
	}
	return strings.Join(msgs, "; ")
}

// Execute permits, validates and runs one call. It never panics on the
// model's input and never returns a Go error: see Result.
func (r *Registry) Execute(ctx context.Context, env *Env, call Call) (res Result) {
	start := time.Now()
	canon, hash := CanonicalArgs(call.Args)
	res = Result{Tool: call.Name, Args: canon, ArgsHash: hash}
	defer func() {
		res.Duration = time.Since(start)
		if p := recover(); p != nil {
			res.Status, res.Kind = StatusError, KindToolError
			res.Err = fmt.Errorf("tool %s crashed: %v", call.Name, p)
			res.Output = res.Err.Error()
		}
		if line := NoteLine(res.Notes); line != "" {
			if res.Output != "" && !strings.HasSuffix(res.Output, "\n") {
				res.Output += "\n"
			}
			res.Output += line
		}
	}()
	fail := func(err error) Result {
		res.Err = err
		res.Kind = KindOf(err)
		res.Output = err.Error()
		switch res.Kind {
		case KindPolicyDenied:
			res.Status = StatusDenied
		case KindValidation:
			res.Status = StatusInvalid
		case KindTimeout:
			res.Status = StatusTimeout
		default:
			res.Status = StatusError
		}
		return res
	}
	if env == nil {
		env = &Env{}
	}
	if err := r.Permit(env.Agent, env.Tools, call.Name); err != nil {
		if errors.Is(err, ErrUnknownTool) {
			var names []string
			for _, t := range r.For(env.Agent, env.Tools) {
				names = append(names, t.Name)
			}
			err = fmt.Errorf("%w %q (available: %s)", ErrUnknownTool, call.Name, strings.Join(names, ", "))
		}
		return fail(err)
	}
	t, _ := r.Get(call.Name)
	res.Mutating = t.Mutating
	args, notes := r.NormalizeArgs(call.Name, call.Args)
	if len(notes) > 0 || !bytes.Equal(args, call.Args) {
		res.Notes = notes
		res.Args, res.ArgsHash = CanonicalArgs(args)
	}
	if err := r.Validate(call.Name, args); err != nil {
		return fail(err)
	}
	if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
		args = json.RawMessage(`{}`)
	}
	timeout := t.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	runCtx, cancel := ctx, context.CancelFunc(func() {})
	if timeout > 0 {
		runCtx, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()
	out, err := t.Run(runCtx, env, args)
	if err != nil {
		if ctx.Err() == nil && errors.Is(runCtx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("%w: %s did not finish within %s", ErrToolTimeout, call.Name, timeout)
		}
		return fail(err)
	}
	res.Output = out.Text
	res.Evidence = out.Evidence
	res.Status = StatusOK
	if out.Failed {
		res.Status = StatusFailed
		res.Kind = KindToolError
	}
	return res
}

// NormalizeArgs returns the arguments of a call to name the way Execute
// runs them, and a note for each change: an alias of the tool
// (Tool.Aliases) is renamed to its canonical argument, or dropped when the
// canonical one is given too; an argument the schema does not declare is
// dropped when the schema has additionalProperties false; a string given
// for an argument declared integer, number or boolean is read as one when
// it spells one ("12", "true"). Arguments that are not a JSON object, and
// calls that need no change, are returned as they are with no notes.
func (r *Registry) NormalizeArgs(name string, args json.RawMessage) (json.RawMessage, []string) {
	r.mu.RLock()
	e, ok := r.tools[name]
	r.mu.RUnlock()
	trimmed := bytes.TrimSpace(args)
	if !ok || len(trimmed) == 0 || trimmed[0] != '{' {
		return args, nil
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(trimmed, &obj) != nil || obj == nil {
		return args, nil
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var notes []string
	changed := false
	for _, k := range keys {
		if _, declared := e.props[k]; declared {
			continue
		}
		if canon, ok := e.tool.Aliases[k]; ok && canon != k {
			if _, has := obj[canon]; has {
				notes = append(notes, fmt.Sprintf("argument %q ignored (%q was given)", k, canon))
			} else {
				obj[canon] = obj[k]
				notes = append(notes, fmt.Sprintf("argument %q read as %q", k, canon))
			}
			delete(obj, k)
			changed = true
			continue
		}
		if e.closed {
			delete(obj, k)
			notes = append(notes, fmt.Sprintf("unknown argument %q ignored", k))
			changed = true
		}
	}
	for k, v := range obj {
		if c, ok := coerce(e.props[k], v); ok {
			obj[k] = c
			changed = true
		}
	}
	if !changed {
		return args, nil
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return args, nil
	}
	return out, notes
}

// NoteLine is the line Execute appends to a tool's output for its notes
// ("note: argument "file_path" read as "path"; unknown argument "x"
// ignored"), or "" when there are none.
func NoteLine(notes []string) string {
	if len(notes) == 0 {
		return ""
	}
	return "note: " + strings.Join(notes, "; ")
}

// coerce reads a JSON string as the scalar type an argument is declared
// with, when it spells one.
func coerce(typ string, v json.RawMessage) (json.RawMessage, bool) {
	if typ != "integer" && typ != "number" && typ != "boolean" {
		return nil, false
	}
	var s string
	if len(v) == 0 || v[0] != '"' || json.Unmarshal(v, &s) != nil {
		return nil, false
	}
	s = strings.TrimSpace(s)
	switch typ {
	case "integer":
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return json.RawMessage(strconv.FormatInt(n, 10)), true
		}
	case "number":
		if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return json.RawMessage(strconv.FormatFloat(f, 'g', -1, 64)), true
		}
	case "boolean":
		switch strings.ToLower(s) {
		case "true":
			return json.RawMessage("true"), true
		case "false":
			return json.RawMessage("false"), true
		}
	}
	return nil, false
}

// schemaShape reads the declared properties of an object schema (name ->
// type when the schema gives a single one) and whether additionalProperties
// is false.
func schemaShape(schema json.RawMessage) (map[string]string, bool) {
	var doc struct {
		Properties map[string]struct {
			Type json.RawMessage `json:"type"`
		} `json:"properties"`
		AdditionalProperties json.RawMessage `json:"additionalProperties"`
	}
	if json.Unmarshal(schema, &doc) != nil {
		return nil, false
	}
	props := make(map[string]string, len(doc.Properties))
	for name, p := range doc.Properties {
		var typ string
		_ = json.Unmarshal(p.Type, &typ) // an array of types leaves ""
		props[name] = typ
	}
	return props, string(bytes.TrimSpace(doc.AdditionalProperties)) == "false"
}

// CanonicalArgs returns the arguments as canonical JSON (keys sorted, no
// insignificant space) and its sha256, so that two calls with the same
// arguments written differently compare equal. Arguments that are not JSON
// are hashed as they are.
func CanonicalArgs(args json.RawMessage) (string, string) {
	trimmed := bytes.TrimSpace(args)
	canon := string(trimmed)
	if len(trimmed) == 0 {
		canon = "{}"
	} else {
		var v any
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.UseNumber()
		if err := dec.Decode(&v); err == nil {
			if b, err := json.Marshal(v); err == nil {
				canon = string(b)
			}
		}
	}
	sum := sha256.Sum256([]byte(canon))
	return canon, hex.EncodeToString(sum[:])
}

// SHA256 returns the hex digest of b.
func SHA256(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
