package engine

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strings"

	"github.com/nova-dev/nova/engine/ace"
	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/engine/importer"
	"github.com/nova-dev/nova/engine/prd"
)

// The plain values the Workspace verbs take and return beside the domain
// packages' own value types. None holds a func, channel, interface or
// service: they cross a process boundary as JSON unchanged.

// NewOp returns a fresh operation id for RunOptions.Op / ImportOptions.Op.
func NewOp() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand never fails on supported platforms
	return hex.EncodeToString(b[:])
}

// BackupReport is the result of BackupDB.
type BackupReport struct {
	File  string `json:"file"`
	Bytes int64  `json:"bytes"`
	// DBPath is the database that was copied.
	DBPath string `json:"dbPath"`
}

// BackupOptions configures BackupDB.
type BackupOptions struct {
	// Force replaces an existing file at the target path (otherwise it is
	// refused with ErrExists).
	Force bool `json:"force,omitempty"`
}

// Recovery is what opening the workspace did with changeset applies that a
// crash interrupted (TakeRecoveredApplies).
type Recovery struct {
	// Applies has one entry per interrupted apply: the files it completed,
	// those already written, and conflicts left pending for review.
	Applies []changes.Recovered `json:"applies"`
	// Problem is the error that stopped the recovery (those changesets
	// stay pending; the next open tries again).
	Problem string `json:"problem,omitempty"`
}

// CheckReport is the result of CheckDB.
type CheckReport struct {
	DBPath string `json:"dbPath"`
	// Schema is the database's schema version.
	Schema   int      `json:"schema"`
	OK       bool     `json:"ok"`
	Problems []string `json:"problems"`
	// Damaged is set when a problem is damage to the file (ErrDamaged): copy
	// what is readable with `nova db recover FILE`.
	Damaged bool `json:"damaged"`
	// Counter is set when an id counter is below its bucket's largest id
	// (the next new record would replace one).
	Counter bool `json:"counter"`
}

// VaultContextRequest asks VaultContext for the block a prompt would get.
type VaultContextRequest struct {
	Task  string `json:"task"`
	Agent string `json:"agent,omitempty"`
	// Tier is free or premium ("" = the workspace's tier).
	Tier string `json:"tier,omitempty"`
	// Budget is the prompt token budget (0 = budgets.promptTokens).
	Budget int `json:"budget,omitempty"`
}

// ImportOptions tunes one pattern-library import (importer.Options without
// its progress callback: progress arrives as events carrying Op).
type ImportOptions struct {
	DryRun         bool     `json:"dryRun,omitempty"`
	Split          bool     `json:"split,omitempty"`
	User           string   `json:"user,omitempty"`
	BaseConfidence float64  `json:"baseConfidence,omitempty"`
	DedupThreshold float64  `json:"dedupThreshold,omitempty"`
	NoDedup        bool     `json:"noDedup,omitempty"`
	Exclude        []string `json:"exclude,omitempty"`
	// Op is copied into the progress events of the call.
	Op string `json:"op,omitempty"`
}

func (o ImportOptions) importer() importer.Options {
	return importer.Options{DryRun: o.DryRun, Split: o.Split, User: o.User, BaseConfidence: o.BaseConfidence,
		DedupThreshold: o.DedupThreshold, NoDedup: o.NoDedup, Exclude: o.Exclude}
}

func importOptionsOf(o importer.Options) ImportOptions {
	return ImportOptions{DryRun: o.DryRun, Split: o.Split, User: o.User, BaseConfidence: o.BaseConfidence,
		DedupThreshold: o.DedupThreshold, NoDedup: o.NoDedup, Exclude: o.Exclude}
}

// ImportPlan is a scanned library kept by the engine (ScanPatterns).
type ImportPlan struct {
	// ID names the plan in PreviewImport, ApplyImport, ImportPlanBody and
	// DropImportPlan.
	ID string `json:"id"`
	// Source is the absolute directory scanned.
	Source string `json:"source"`
	// Files counts the *.md files parsed.
	Files int `json:"files"`
	// Preview is what importing with the scan's options would do.
	Preview importer.Result `json:"preview"`
}

// ErrRelativePath: a path argument of a verb must be absolute (the caller
// resolves it: a remote owner does not share the caller's directory).
var ErrRelativePath = errors.New("path must be absolute")

// ErrUsage marks an error about arguments the user gave badly: a verb that
// validates a user's input wraps it (fmt.Errorf("%w: …", ErrUsage)), and the
// CLI exits 2 for it, as for its own usage errors. It is a sentinel of the
// engine, so it keeps its meaning across the owner's socket.
var ErrUsage = errors.New("bad usage")

// ErrNoSuchPlan: an import plan id the engine does not hold (dropped, or
// the engine restarted).
var ErrNoSuchPlan = errors.New("no such import plan (scan the folder again)")

// Roster is the workspace's agents (ListAgents).
type Roster struct {
	// Dir is the agents directory read.
	Dir string `json:"dir"`
	// Files counts the agent files found.
	Files int `json:"files"`
	// Agents are the specs that loaded, sorted by id.
	Agents []agents.Spec `json:"agents"`
	// Problems are the files that did not load, or did not validate.
	Problems []AgentProblem `json:"problems"`
	// ImplicitTools are, by agent id, the tools offered to the agent beyond
	// its spec's list (tools.Tool.AllAgents within their allow lists:
	// runSkill, the knowledge tools, VENUS's generateUIComponent). Set by
	// ListAgents (a workspace's registry); LoadRoster leaves it empty.
	ImplicitTools map[string][]string `json:"implicitTools,omitempty"`
}

// Has reports whether the roster has an agent id (case-insensitive).
func (r Roster) Has(id string) bool {
	_, ok := r.Get(id)
	return ok
}

// Get returns an agent by id (case-insensitive).
func (r Roster) Get(id string) (agents.Spec, bool) {
	for _, s := range r.Agents {
		if strings.EqualFold(s.ID, id) {
			return s, true
		}
	}
	return agents.Spec{}, false
}

// IDs lists the agent ids.
func (r Roster) IDs() []string {
	ids := make([]string, len(r.Agents))
	for i, s := range r.Agents {
		ids[i] = s.ID
	}
	return ids
}

// AgentProblem is one problem of an agent file.
type AgentProblem struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Field   string `json:"field"`
	Message string `json:"message"`
	// Text is the whole message as the loader wrote it (file:line: field: …).
	Text string `json:"text"`
}

// ApprovalPolicy says how the commands an agent wants to run are answered.
type ApprovalPolicy string

// Approval policies.
const (
	// ApproveAsk publishes EventNeedsApproval and waits for AnswerApproval
	// (or the end of ctx). The default.
	ApproveAsk ApprovalPolicy = ""
	// ApproveAll allows every command the autonomy level puts to the user.
	ApproveAll ApprovalPolicy = "all"
	// ApproveNone denies them (headless runs), with an EventLog line each.
	ApproveNone ApprovalPolicy = "none"
)

// RunOptions configures RunAgent.
type RunOptions struct {
	// Tier overrides the agent's starting tier ("small", "medium", "large").
	Tier string `json:"tier,omitempty"`
	// Approvals answers the commands the agent wants to run.
	Approvals ApprovalPolicy `json:"approvals,omitempty"`
	// Op is copied into every event of the run.
	Op string `json:"op,omitempty"`
}

// RunResult is a finished (or failed) agent run: outcome with tokens,
// verdict, changeset id and staged files.
type RunResult = agents.Run

// PlanFile is one plan in .nova/prds/ (ListPlans).
type PlanFile struct {
	Path  string `json:"path"`
	Name  string `json:"name"`
	Title string `json:"title"`
	Tasks int    `json:"tasks"`
	// Problem says why the plan cannot start (parse or validation); empty
	// when it can.
	Problem string `json:"problem,omitempty"`
}

// WrittenPlan is the result of WritePlan.
type WrittenPlan struct {
	Path string  `json:"path"`
	PRD  prd.PRD `json:"prd"`
	// Warnings say what was dropped from the planner's reply (dependency
	// ids naming no task), each once.
	Warnings []string `json:"warnings,omitempty"`
}

// BuildOptions configures CreateBuild.
type BuildOptions struct {
	// Autonomy overrides the configured level (nil = config).
	Autonomy *int `json:"autonomy,omitempty"`
	// Rehearse forces rehearsal of every task (premium tier).
	Rehearse bool `json:"rehearse,omitempty"`
}

// RunBuildOptions configures RunBuild.
type RunBuildOptions struct {
	// Approvals answers the commands the build's agents want to run.
	Approvals ApprovalPolicy `json:"approvals,omitempty"`
	// Attended: someone can answer (the TUI). The build then waits for an
	// unreachable model server until it is stopped, and waits for the
	// answers of tasks that ask the user (AnswerTask) instead of ending
	// paused. Unattended runs give up after ollama.waitLimit.
	Attended bool `json:"attended,omitempty"`
}

// RuleResult is the result of AddRule: the new rule and its playbook.
type RuleResult struct {
	Rule     ace.Rule     `json:"rule"`
	Playbook ace.Playbook `json:"playbook"`
}

// RunTrace is a stored agent run with its tool calls (GetRunTrace): the
// stored traces, and the same calls as people read them (arguments on one
// line, the result clipped, an edit's matching rule, a text call's form).
type RunTrace struct {
	Run    agents.Run         `json:"run"`
	Traces []agents.Trace     `json:"traces"`
	Lines  []agents.TraceLine `json:"lines"`
}
