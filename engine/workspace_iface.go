package engine

import (
	"context"

	"github.com/nova-dev/nova/engine/ace"
	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/board"
	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/engine/goal"
	"github.com/nova-dev/nova/engine/importer"
	"github.com/nova-dev/nova/engine/knowledge"
	"github.com/nova-dev/nova/engine/knowledge/docs"
	"github.com/nova-dev/nova/engine/knowledge/facts"
	"github.com/nova-dev/nova/engine/library/blueprint"
	"github.com/nova-dev/nova/engine/library/workflow"
	"github.com/nova-dev/nova/engine/rehearsal"
	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/engine/workspace"
)

// Workspace is the facade over one open workspace: the one interface the TUI
// and the CLI use. It is a set of verbs over plain values, so any
// implementation can serve it: *Local runs the engine in this process; a
// remote implementation forwards every call to the process that owns the
// database (docs/ARCHITECTURE.md, "Add a verb").
//
// The rules every method follows (TestWorkspaceIsServable enforces them):
//   - ctx is the first parameter of every method that may do I/O (all but
//     Info, Config and Close);
//   - every argument and result is plain JSON-serialisable data: no funcs,
//     channels, interfaces or service objects, no fields hidden from JSON;
//   - the last result is an error; there is at most one other result;
//   - paths are absolute (the caller resolves them against its own working
//     directory, which a remote owner does not share);
//   - long work (RunAgent, RunBuild, Rehearse, ImportPatterns, ScanPatterns,
//     ApplyImport, WritePlan, ...) is a blocking call: it returns when the
//     work ends, reports its progress as events while it runs (follow them
//     with Subscribe, matched by the ids the call was given or returned), and
//     stops when ctx is canceled (a build or run stopped that way is
//     resumable). A caller that wants it in the background runs the call in
//     a goroutine (the TUI: in a tea.Cmd);
//   - questions to the user during long work (a command an agent wants to
//     run) are events (EventNeedsApproval) answered by a verb
//     (AnswerApproval), never callbacks;
//   - Subscribe is the one streaming method.
//
// Methods are grouped by area; keep new verbs in their group, with a doc
// comment each.
type Workspace interface {
	// CodeMapVerbs: the repository map (area_codemap.go).
	CodeMapVerbs

	// ---- Workspace ----

	// Info describes the workspace. It does no I/O (a remote implementation
	// fetches it once when it connects).
	//rpc:idempotent
	Info() Info
	// Config returns the effective configuration. It does no I/O; it
	// changes only through SetTheme (EventThemeChanged).
	//rpc:idempotent
	Config() workspace.Config
	// Subscribe streams every event published from now on until ctx is done.
	// Droppable events (deltas, progress) may be lost under load; all others
	// are always delivered.
	Subscribe(ctx context.Context) <-chan Event
	// Summary counts what the workspace holds (Home, `nova doctor`).
	//rpc:idempotent
	Summary(ctx context.Context) (Summary, error)
	// Ollama probes the model server once and checks the tier models. An
	// unreachable server is a status (Reachable false), not an error.
	//rpc:idempotent
	Ollama(ctx context.Context) (OllamaStatus, error)
	// SetTheme persists the theme name in config.yaml (EventThemeChanged).
	SetTheme(ctx context.Context, name string) error
	// Close releases the workspace (for a remote one: the connection).
	Close() error

	// ---- Database ----

	// BackupDB writes a consistent copy of the database to path. An existing
	// file is refused (ErrExists) unless o.Force.
	BackupDB(ctx context.Context, path string, o BackupOptions) (BackupReport, error)
	// CheckDB verifies every page of the database, runs bbolt's consistency
	// check and nova's counter check; problems are in the report (Damaged,
	// Counter say of which kind).
	//rpc:idempotent
	CheckDB(ctx context.Context) (CheckReport, error)

	// ---- Vault (taste vault: graph memory) ----

	// LearnNode adds a node the way builds learn: an equivalent node is
	// reinforced instead, a full tier evicts, contradictions are linked.
	LearnNode(ctx context.Context, n vault.Node) (vault.LearnResult, error)
	// UpdateNode changes the fields set in the patch.
	UpdateNode(ctx context.Context, id uint64, p vault.Patch) (vault.Node, error)
	// GetNode returns one node with its body.
	//rpc:idempotent
	GetNode(ctx context.Context, id uint64) (vault.Node, error)
	// GetNodes returns the nodes of ids that exist, in the order given.
	//rpc:idempotent
	GetNodes(ctx context.Context, ids []uint64, withBody bool) ([]vault.Node, error)
	// ListNodes returns one page of nodes (without bodies). Page through a
	// large vault with Offset and Limit (the CLI pages by 1,000).
	//rpc:idempotent
	ListNodes(ctx context.Context, o vault.ListOptions) (vault.Page, error)
	// SearchNodes ranks nodes for a free-text query, best first.
	//rpc:idempotent
	SearchNodes(ctx context.Context, query string, o vault.SearchOptions) ([]vault.Scored, error)
	// NodeNeighbours returns a node's edges grouped by relation, out and in.
	//rpc:idempotent
	NodeNeighbours(ctx context.Context, id uint64) ([]vault.RelationGroup, error)
	// NodeEdges returns every edge touching a node.
	//rpc:idempotent
	NodeEdges(ctx context.Context, id uint64) ([]vault.Edge, error)
	// GetEdge returns one edge.
	//rpc:idempotent
	GetEdge(ctx context.Context, id uint64) (vault.Edge, error)
	// TraverseNodes walks the graph breadth first from a node.
	//rpc:idempotent
	TraverseNodes(ctx context.Context, id uint64, o vault.TraverseOptions) ([]vault.Step, error)
	// LinkNodes adds an edge from → to.
	LinkNodes(ctx context.Context, from, to uint64, rel vault.Relation, strength float64) (vault.Edge, error)
	// UnlinkEdge removes an edge.
	UnlinkEdge(ctx context.Context, edgeID uint64) error
	// ReinforceNode raises a node's confidence by 0.05.
	ReinforceNode(ctx context.Context, id uint64) (vault.Node, error)
	// DemoteNode lowers a node's confidence by 0.1.
	DemoteNode(ctx context.Context, id uint64) (vault.Node, error)
	// ForgetNode removes a node and its edges.
	ForgetNode(ctx context.Context, id uint64) error
	// ListConflicts returns the pairs of nodes joined by a contradicts edge.
	//rpc:idempotent
	ListConflicts(ctx context.Context) ([]vault.Conflict, error)
	// VaultStats counts nodes, edges, types, tags and conflicts.
	//rpc:idempotent
	VaultStats(ctx context.Context) (vault.Stats, error)
	// ListTags returns the tags with their node counts.
	//rpc:idempotent
	ListTags(ctx context.Context) ([]vault.TagCount, error)
	// ExportVault writes every node and edge as JSONL to path (a temporary
	// file renamed into place: a failed export leaves no partial file).
	ExportVault(ctx context.Context, path string) (vault.ExportStats, error)
	// ImportVault reads a JSONL export from path: the whole file or nothing.
	ImportVault(ctx context.Context, path string) (vault.ImportReport, error)
	// VaultContext previews the vault block a prompt for a task would get.
	//rpc:idempotent
	VaultContext(ctx context.Context, req VaultContextRequest) (vault.VaultContext, error)
	// WarmVault starts building the search index in the background.
	//rpc:idempotent
	WarmVault(ctx context.Context) error
	// VaultCapacity reports the node count against the tier's cap (tier,
	// cap, nodes, free, archived).
	//rpc:idempotent
	VaultCapacity(ctx context.Context) (vault.Capacity, error)
	// ListArchived lists the nodes the tier cap moved to the archive (with
	// their edges), newest first.
	//rpc:idempotent
	ListArchived(ctx context.Context) ([]vault.ArchivedNode, error)
	// GetArchived returns one archived node with its body and edges.
	//rpc:idempotent
	GetArchived(ctx context.Context, id uint64) (vault.ArchivedNode, error)
	// RestoreNode brings an archived node back with its id and the edges
	// whose other end exists. It is a user write: over the tier cap it is
	// refused (vault.ErrOverCap) and nothing changes.
	RestoreNode(ctx context.Context, id uint64) (vault.RestoreResult, error)

	// ---- Global wisdom ----

	// ListWisdom returns the wisdom patterns (of one status, "" = all).
	//rpc:idempotent
	ListWisdom(ctx context.Context, status vault.WisdomStatus) ([]vault.WisdomPattern, error)
	// PromoteWisdom shares a vault node as a wisdom pattern.
	PromoteWisdom(ctx context.Context, nodeID uint64) (vault.PromoteResult, error)
	// EndorseWisdom backs a pattern as the workspace identity (other
	// people's backing arrives only in their bundles, ImportWisdom).
	EndorseWisdom(ctx context.Context, id uint64) (vault.WisdomPattern, error)
	// ReportWisdomHarm reports, as the workspace identity, that a pattern
	// did harm.
	ReportWisdomHarm(ctx context.Context, id uint64, reason string) (vault.WisdomPattern, error)
	// WisdomStats counts patterns by status, backers and harm reports.
	//rpc:idempotent
	WisdomStats(ctx context.Context) (vault.WisdomStats, error)
	// WisdomCandidates lists the nodes Collect would promote.
	//rpc:idempotent
	WisdomCandidates(ctx context.Context) ([]vault.Node, error)
	// CollectWisdom promotes every eligible node.
	CollectWisdom(ctx context.Context) (vault.CollectReport, error)
	// SetWisdomOptIn records whether the workspace identity shares.
	SetWisdomOptIn(ctx context.Context, on bool) error
	// ExportWisdom writes a wisdom bundle to path (the patterns the
	// workspace identity backs or reported, under its pseudonymous author
	// id; written to a temporary file renamed into place).
	ExportWisdom(ctx context.Context, path string) (vault.Bundle, error)
	// ImportWisdom reads another author's bundle from path: its author backs
	// (or reports) each pattern it carries; the same bundle counts once.
	ImportWisdom(ctx context.Context, path string) (vault.BundleImport, error)
	// ListWisdomBundles lists the bundles imported so far, newest first.
	//rpc:idempotent
	ListWisdomBundles(ctx context.Context) ([]vault.BundleImport, error)
	// WisdomKey is the workspace's public signing key (made on first use):
	// what another user passes to `nova wisdom trust`.
	WisdomKey(ctx context.Context) (string, error)
	// TrustWisdomKey trusts a public key: backing in bundles it signed counts
	// towards activation (those imported before included).
	TrustWisdomKey(ctx context.Context, key, note string) (vault.TrustedKey, error)
	// UntrustWisdomKey stops trusting a key (ErrNotFound when it was not).
	UntrustWisdomKey(ctx context.Context, key string) error
	// TrustedWisdomKeys lists the workspace's own key and the keys it trusts.
	//rpc:idempotent
	TrustedWisdomKeys(ctx context.Context) ([]vault.TrustedKey, error)

	// ---- Pattern-library import ----

	// ImportPatterns imports every *.md file under dir in one undoable batch
	// (or reports what it would do, DryRun). Progress: TopicImport
	// EventProgress events carrying o.Op. An import over the tier's node cap
	// is refused before anything is written (vault.ErrOverCap); a dry run
	// over the cap is a report with Result.OverCap set, not an error (the
	// same holds for ScanPatterns' preview, PreviewImport and a dry
	// ApplyImport).
	ImportPatterns(ctx context.Context, dir string, o ImportOptions) (importer.Result, error)
	// ImportStarterPatterns imports the workspace's starter library
	// (.nova/patterns, else the copy the binary carries); a no-op when
	// unchanged.
	ImportStarterPatterns(ctx context.Context) (importer.Result, error)
	// ScanPatterns reads and parses a library without writing and keeps the
	// plan in the engine for PreviewImport / ApplyImport (drop it with
	// DropImportPlan). Progress as for ImportPatterns.
	ScanPatterns(ctx context.Context, dir string, o ImportOptions) (ImportPlan, error)
	// PreviewImport reports what applying a scanned plan with o would do.
	//rpc:idempotent
	PreviewImport(ctx context.Context, planID string, o ImportOptions) (importer.Result, error)
	// ApplyImport imports a scanned plan in one batch and remembers its
	// folder among the recent sources.
	ApplyImport(ctx context.Context, planID string, o ImportOptions) (importer.Result, error)
	// ImportPlanBody returns the markdown body of one file of a plan.
	//rpc:idempotent
	ImportPlanBody(ctx context.Context, planID, sourceFile string) (string, error)
	// DropImportPlan forgets a scanned plan.
	DropImportPlan(ctx context.Context, planID string) error
	// ImportDefaults returns the options an import uses when none are given.
	//rpc:idempotent
	ImportDefaults(ctx context.Context) (ImportOptions, error)
	// RecentImportSources lists the folders imported from, newest first.
	//rpc:idempotent
	RecentImportSources(ctx context.Context) ([]string, error)
	// ListImports lists the import batches, newest first.
	//rpc:idempotent
	ListImports(ctx context.Context) ([]importer.Batch, error)
	// GetImport returns one import batch.
	//rpc:idempotent
	GetImport(ctx context.Context, id uint64) (importer.Batch, error)
	// UndoImport reverts a batch: what it added goes, what it changed comes
	// back.
	UndoImport(ctx context.Context, id uint64) (importer.UndoResult, error)

	// ---- Agents, runs and approvals ----

	// ListAgents loads the roster from .nova/agents: the agents that load and
	// the problems of the files that do not.
	//rpc:idempotent
	ListAgents(ctx context.Context) (Roster, error)
	// RunAgent runs one task through an agent (blocking). Progress:
	// TopicAgent events carrying o.Op and the run's id; a command the agent
	// wants to run follows o.Approvals. Writes are staged in a changeset. A
	// run that fails is not an error: see RunResult.Outcome.
	RunAgent(ctx context.Context, agentID, task string, o RunOptions) (RunResult, error)
	// ListRuns lists stored agent runs, newest first.
	//rpc:idempotent
	ListRuns(ctx context.Context, f agents.RunFilter) ([]agents.Run, error)
	// GetRunTrace returns one stored agent run with its tool calls in order
	// (an error wrapping agents.ErrRunNotFound for an unknown id).
	//rpc:idempotent
	GetRunTrace(ctx context.Context, runID uint64) (RunTrace, error)
	// RunEvents replays the recent events (no deltas) of a run this engine
	// started; empty for other runs.
	//rpc:idempotent
	RunEvents(ctx context.Context, runID uint64) ([]agents.Event, error)
	// PendingApprovals lists the approval requests waiting for an answer.
	//rpc:idempotent
	PendingApprovals(ctx context.Context) ([]tools.ApprovalRequest, error)
	// AnswerApproval answers an EventNeedsApproval request by its id.
	AnswerApproval(ctx context.Context, id string, approve bool) error

	// ---- Changesets ----

	// ListChanges lists changesets, newest first.
	//rpc:idempotent
	ListChanges(ctx context.Context, f changes.Filter) ([]changes.Changeset, error)
	// GetChange returns a changeset with its files' contents.
	//rpc:idempotent
	GetChange(ctx context.Context, id uint64) (changes.Changeset, error)
	// ApplyChange writes a pending changeset as the user's decision (learned
	// by the agent's playbook and, with a reason, the vault).
	ApplyChange(ctx context.Context, id uint64, o changes.ApplyOptions, reason string) (changes.ApplyReport, error)
	// DiscardChange discards a pending changeset as the user's decision.
	DiscardChange(ctx context.Context, id uint64, reason string) (changes.Changeset, error)
	// RevertChange undoes an applied changeset as the user's decision: every
	// file it wrote gets back its content from before the apply (files it
	// created are removed), through a new changeset that can be reverted in
	// turn. A file changed since the apply stops it (*changes.ConflictError,
	// Revert set) unless o.Force. Undoing a change is learned once, like a
	// rejection (the agent's playbook, the rules and vault nodes that shaped
	// it); bringing it back by reverting the revert is not learned.
	RevertChange(ctx context.Context, id uint64, o changes.RevertOptions, reason string) (changes.RevertReport, error)
	// EditChange replaces the proposed content of one file of a pending
	// changeset with the user's version: what gets applied is the edit.
	EditChange(ctx context.Context, id uint64, path, content string) (changes.Changeset, error)
	// TakeRecoveredApplies reports, once, the applies that a crash
	// interrupted and that opening the workspace completed (or left pending
	// because a file changed meanwhile): the first caller gets them, to tell
	// the user; later calls get none.
	TakeRecoveredApplies(ctx context.Context) (Recovery, error)

	// ---- Plans and builds ----

	// ListPlans lists the plans in .nova/prds/, each parsed and validated.
	//rpc:idempotent
	ListPlans(ctx context.Context) ([]PlanFile, error)
	// WritePlan asks SUN for a PRD for a goal, validates it and saves it
	// (blocking; to out, or under .nova/prds/).
	WritePlan(ctx context.Context, goal, out string) (WrittenPlan, error)
	// ListBuilds lists builds, newest first.
	//rpc:idempotent
	ListBuilds(ctx context.Context) ([]build.Build, error)
	// GetBuild returns one build.
	//rpc:idempotent
	GetBuild(ctx context.Context, id uint64) (build.Build, error)
	// BuildTasks returns a build's tasks in plan order.
	//rpc:idempotent
	BuildTasks(ctx context.Context, id uint64) ([]build.Task, error)
	// CreateBuild loads and validates a PRD and stores a new build of it;
	// nothing runs until RunBuild.
	CreateBuild(ctx context.Context, prdPath string, o BuildOptions) (build.Build, error)
	// RunBuild runs (or resumes) a build to its end (blocking): done tasks
	// are not re-run. Progress: TopicBuild events with its id. Canceling ctx
	// stops it, interrupted and resumable. Unattended (the default) it gives
	// up waiting for the model server after ollama.waitLimit and ends paused
	// when tasks ask the user; o.Attended waits for both until stopped.
	RunBuild(ctx context.Context, id uint64, o RunBuildOptions) (build.Build, error)
	// AnswerTask answers a build task that asks the user (EventTaskAsking):
	// the answer goes into its next attempt. It reports whether the build
	// runs here and continues at once; otherwise RunBuild resumes it.
	// build.ErrNotWaiting when the task asks nothing.
	AnswerTask(ctx context.Context, buildID uint64, taskID, text string) (resumed bool, err error)
	// RunningBuilds lists the builds running in the process that owns the
	// workspace (quitting it interrupts them, resumable).
	//rpc:idempotent
	RunningBuilds(ctx context.Context) ([]uint64, error)
	// PauseBuild stops a running build after its current tasks.
	PauseBuild(ctx context.Context, id uint64) error
	// CancelBuild stops a running build now (resumable).
	CancelBuild(ctx context.Context, id uint64) error

	// ---- Goal runs (`nova run "GOAL"`) ----

	// CreateGoalRun stores a new goal run and its build (nothing runs until
	// RunGoal); the lead must be on the team.
	CreateGoalRun(ctx context.Context, text string, o GoalRunOptions) (goal.Run, error)
	// RunGoal runs (or resumes) a goal run to its end (blocking): the lead
	// decides turn by turn, delegations run as tasks of the run's build.
	// Progress: TopicGoal events with its id (and the build's and agents'
	// events, which carry it too). Canceling ctx stops it, interrupted and
	// resumable. A completed run is returned as it is.
	RunGoal(ctx context.Context, id uint64, o RunGoalOptions) (goal.Run, error)
	// ListGoalRuns lists goal runs, newest first.
	//rpc:idempotent
	ListGoalRuns(ctx context.Context) ([]goal.Run, error)
	// GetGoalRun returns a goal run with its turns, board and handoffs.
	//rpc:idempotent
	GetGoalRun(ctx context.Context, id uint64) (goal.Detail, error)
	// AnswerGoalRun answers the lead's question (EventGoalAsking). It
	// reports whether the run waits here and goes on at once; otherwise
	// RunGoal resumes it. goal.ErrNotAsking when the lead asked nothing.
	AnswerGoalRun(ctx context.Context, id uint64, text string) (resumed bool, err error)
	// CancelGoalRun stops a goal run running in the owning process now
	// (resumable).
	CancelGoalRun(ctx context.Context, id uint64) error
	// RunningGoalRuns lists the goal runs running in the owning process.
	//rpc:idempotent
	RunningGoalRuns(ctx context.Context) ([]uint64, error)
	// RunningWork lists the work running in the owning process: its goal
	// runs, its workflow runs, and the builds running on their own (not a
	// goal run's or a workflow step's). Quitting it interrupts them,
	// resumable; a hand-over resumes exactly these in the new owner.
	//rpc:idempotent
	RunningWork(ctx context.Context) (RunningWork, error)

	// ---- Session boards ----

	// GetBoard returns a session board ("run:3" for a goal run, "build:7" for
	// a build) with its handoffs, oldest first. A board nobody wrote yet is
	// empty.
	//rpc:idempotent
	GetBoard(ctx context.Context, key string) (BoardView, error)
	// ReadArtifact returns one board artifact with its full content.
	//rpc:idempotent
	ReadArtifact(ctx context.Context, id uint64) (board.Artifact, error)
	// ResolveBlocker resolves an open blocker of a board as the user (with
	// a note); the tasks that waited on it continue.
	ResolveBlocker(ctx context.Context, key, id, note string) (board.Blocker, error)

	// ---- Playbooks ----

	// ListPlaybooks lists the playbooks: agent, version, rules, success.
	//rpc:idempotent
	ListPlaybooks(ctx context.Context) ([]ace.Summary, error)
	// GetPlaybook returns an agent's playbook.
	//rpc:idempotent
	GetPlaybook(ctx context.Context, agent string) (ace.Playbook, error)
	// PlaybookHistory lists an agent's versions, newest first.
	//rpc:idempotent
	PlaybookHistory(ctx context.Context, agent string) ([]ace.Version, error)
	// PlaybookDiff says how an agent's rules changed between two versions.
	//rpc:idempotent
	PlaybookDiff(ctx context.Context, agent string, from, to int) ([]ace.Change, error)
	// ListPendingDeltas lists the deltas waiting for review.
	//rpc:idempotent
	ListPendingDeltas(ctx context.Context) ([]ace.Pending, error)
	// ApproveDelta applies a pending delta (a new playbook version).
	ApproveDelta(ctx context.Context, id uint64) (ace.Playbook, error)
	// RejectDelta drops a pending delta.
	RejectDelta(ctx context.Context, id uint64) (ace.Pending, error)
	// AddRule adds a manual rule to an agent's playbook.
	AddRule(ctx context.Context, agent, content string, tags []string, confidence float64) (RuleResult, error)
	// EditRule changes a rule's text, tags (nil = keep) or confidence (0 =
	// keep).
	EditRule(ctx context.Context, agent, ruleID, content string, tags []string, confidence float64) (ace.Rule, error)
	// DeleteRule removes a rule from an agent's playbook.
	DeleteRule(ctx context.Context, agent, ruleID string) error
	// ReviewPlaybook runs the self-improvement review of an agent (ace.ErrNotDue
	// unless due or forced; the report is returned with that error too).
	ReviewPlaybook(ctx context.Context, agent string, force bool) (ace.ReviewReport, error)
	// RecordUserSignal learns from a user approving or rejecting an agent's
	// change, with an optional reason, at every autonomy level.
	RecordUserSignal(ctx context.Context, agent, taskType string, approved bool, reason string) (ace.SignalReport, error)

	// ---- Library: skills, workflows, blueprints ----

	// ListSkills lists the skills (built-ins, then .nova/skills/) by name
	// with the problems of files that did not load; with agent set, only
	// those that agent may run (an unknown agent wraps agents.ErrUnknownAgent).
	ListSkills(ctx context.Context, agent string) (SkillList, error)
	// GetSkill returns one skill with its YAML (skills.ErrNotFound wrapped,
	// listing the skills, when none).
	GetSkill(ctx context.Context, name string) (SkillDetail, error)
	// RunSkill runs a skill's tool steps with an agent's permissions
	// (blocking; TopicSkill events carrying o.Op), recorded as an agent run
	// with one trace per step. Bad or missing inputs wrap params.ErrUsage
	// and name the input, before anything runs; a failed step is a result
	// (Success false, FailedStep), not an error.
	RunSkill(ctx context.Context, name string, o SkillRunOptions) (SkillRunResult, error)
	// ListWorkflows lists the workflows (shipped, then .nova/workflows/) by
	// id with the problems of files that did not load.
	ListWorkflows(ctx context.Context) (WorkflowList, error)
	// GetWorkflow returns one workflow with its YAML (workflow.ErrNotFound
	// wrapped when none).
	GetWorkflow(ctx context.Context, id string) (WorkflowDetail, error)
	// MatchWorkflows returns the workflows a request triggers, best first,
	// with parameter values read from the text ([] when none).
	MatchWorkflows(ctx context.Context, text string) ([]workflow.Match, error)
	// CreateWorkflowRun checks a workflow's parameters (a missing or bad
	// one wraps params.ErrUsage and names it) and stores a new run; nothing
	// runs until RunWorkflow.
	CreateWorkflowRun(ctx context.Context, id string, o WorkflowOptions) (workflow.Run, error)
	// RunWorkflow runs or resumes a workflow run (blocking): agent steps as
	// one-task builds, skill steps through RunSkill; TopicWorkflow events
	// (EventStep per step) carrying o.Op, and the steps' TopicBuild events.
	// It ends done, failed, or paused (a step's build stopped, or ctx was
	// canceled: resumable; done and skipped steps never run again).
	RunWorkflow(ctx context.Context, runID uint64, o RunWorkflowOptions) (workflow.Run, error)
	// CancelWorkflowRun stops a run running in the owning process; it
	// pauses, resumable.
	CancelWorkflowRun(ctx context.Context, runID uint64) error
	// ListWorkflowRuns lists workflow runs, newest first (limit 0: all). A
	// run stored as running but not Active was interrupted: resumable.
	ListWorkflowRuns(ctx context.Context, limit int) ([]workflow.Run, error)
	// GetWorkflowRun returns one workflow run with its steps.
	GetWorkflowRun(ctx context.Context, runID uint64) (workflow.Run, error)
	// AddBlueprint stores a blueprint file (an absolute path) as a new
	// blueprint or a new version of one (an unchanged spec adds none; note
	// describes the change). Problems of the file wrap blueprint.ErrInvalid
	// ("file:line: field: message"); a PRD template that does not render
	// with the defaults wraps blueprint.ErrRender.
	AddBlueprint(ctx context.Context, path, note string) (blueprint.AddResult, error)
	// SaveBlueprint turns a finished build's PRD into a blueprint: whole
	// string values equal to a parameter's default become its placeholder
	// (a bad declaration wraps params.ErrUsage).
	SaveBlueprint(ctx context.Context, buildID uint64, o SaveBlueprintOptions) (SaveBlueprintResult, error)
	// ListBlueprints lists the blueprints by name with status and evidence.
	ListBlueprints(ctx context.Context) ([]blueprint.Summary, error)
	// ShowBlueprint returns a blueprint with its status, evidence and uses
	// (blueprint.ErrNotFound wrapped when none).
	ShowBlueprint(ctx context.Context, name string) (blueprint.Details, error)
	// BlueprintHistory returns every version of a blueprint, oldest first.
	BlueprintHistory(ctx context.Context, name string) ([]blueprint.VersionRecord, error)
	// UseBlueprint renders a blueprint to a PRD (a bad, unknown or missing
	// parameter wraps params.ErrUsage and names it), writes it to o.Out
	// (an absolute path; an existing file wraps ErrExists unless
	// o.Overwrite) and with o.Build creates its build (run it with
	// RunBuild); the build counts toward the blueprint's evidence.
	UseBlueprint(ctx context.Context, name string, o UseOptions) (UseResult, error)

	// ---- Rehearsals ----

	// Rehearse generates, scores and stores 2–3 alternative branches for a
	// task (blocking; TopicRehearsal events).
	Rehearse(ctx context.Context, req rehearsal.Request) (rehearsal.Session, error)
	// ListRehearsals lists sessions, newest first (without file contents).
	//rpc:idempotent
	ListRehearsals(ctx context.Context, f rehearsal.Filter) ([]rehearsal.Session, error)
	// GetRehearsal returns a session with its branches' files.
	//rpc:idempotent
	GetRehearsal(ctx context.Context, id uint64) (rehearsal.Session, error)
	// ApproveRehearsal writes one branch (an id or a 1-based number) through
	// the changeset path and learns the choice.
	ApproveRehearsal(ctx context.Context, id uint64, branch string, o rehearsal.ApproveOptions) (rehearsal.Session, error)
	// RejectRehearsal rejects every branch of a session.
	RejectRehearsal(ctx context.Context, id uint64, reason string) (rehearsal.Session, error)
	// RegenerateRehearsal rejects a pending session and rehearses its task
	// again (blocking).
	RegenerateRehearsal(ctx context.Context, id uint64) (rehearsal.Session, error)

	// ---- Knowledge (docs, facts, one search; TopicKnowledge events) ----

	// FetchDocs finds documentation for a library and optional topic: the
	// project's own dependencies at their exact versions first (Go module
	// cache, node_modules; offline), then the cache, then Context7. Nothing
	// found is a report (Available false, Source "none", the fallback text,
	// Warning the cause), not an error; docs.ErrInvalid for an empty or
	// oversized name.
	FetchDocs(ctx context.Context, library, topic string, o docs.FetchOptions) (docs.Result, error)
	// DocsList lists the cached docs (all, or one library's), newest first.
	//rpc:idempotent
	DocsList(ctx context.Context, library string) ([]docs.EntryInfo, error)
	// DocsClear removes one library's cached docs, or all of them with "",
	// and returns how many entries went.
	DocsClear(ctx context.Context, library string) (int, error)
	// DocsRemove removes one cached entry by its ref ("docs:SOURCE:LIB#TOPIC").
	DocsRemove(ctx context.Context, ref string) error
	// DocsStats summarises the docs cache (entries, stale, bytes, by source).
	//rpc:idempotent
	DocsStats(ctx context.Context) (docs.Stats, error)
	// AddFact records a fact (default scope workspace, source user);
	// facts.ErrInvalid for bad input, facts.ErrUserUnavailable when a
	// user-scope fact cannot reach the user-level file.
	AddFact(ctx context.Context, in facts.NewFact) (facts.Fact, error)
	// SearchFacts ranks the facts visible at o.Scope (zero: every scope);
	// warnings say when the user-level file was left out.
	//rpc:idempotent
	SearchFacts(ctx context.Context, query string, o facts.SearchOptions) (facts.SearchResult, error)
	// ListFacts lists facts of one scope (zero: all), broadest scope first,
	// newest first.
	//rpc:idempotent
	ListFacts(ctx context.Context, o facts.ListOptions) (facts.ListResult, error)
	// CorrectFact closes a fact with a reason and, with a replacement text,
	// records the linked replacement; nothing is overwritten or deleted
	// (facts.ErrNotFound, facts.ErrAlreadyInvalidated).
	CorrectFact(ctx context.Context, id, reason, replacement string) (facts.Correction, error)
	// FactHistory is the newest facts.DefaultHistoryLimit entries of a
	// fact's correction chain, oldest first.
	//rpc:idempotent
	FactHistory(ctx context.Context, id string) ([]facts.Fact, error)
	// FactHistoryPage pages a fact's correction chain from its newest end
	// (o.Limit entries, older than o.Before) and says whether older entries
	// exist. `nova facts history ID --limit N --before ID`.
	//rpc:idempotent
	FactHistoryPage(ctx context.Context, id string, o facts.HistoryOptions) (facts.HistoryPage, error)
	// PromoteFact moves a fact to a broader scope, closing the original with
	// a link to the copy.
	PromoteFact(ctx context.Context, id string, to facts.Scope) (facts.Correction, error)
	// ReaffirmFact says a fact still holds: restored from the archive, its
	// review flag cleared.
	ReaffirmFact(ctx context.Context, id string) (facts.Fact, error)
	// SweepFacts archives unhelpful and unused facts and flags those naming
	// changed files (it also runs after every build).
	SweepFacts(ctx context.Context) (facts.SweepReport, error)
	// SearchKnowledge is the one search over the vault, facts and cached or
	// local docs, merged into one ranking; a failing source is a warning,
	// never hides the others.
	//rpc:idempotent
	SearchKnowledge(ctx context.Context, query string, limit int) (knowledge.Result, error)
	// KnowledgeItem opens a knowledge reference ("fact:f3", "vault:12",
	// "docs:…"): what a provenance link or a search hit shows.
	//rpc:idempotent
	KnowledgeItem(ctx context.Context, ref string) (knowledge.Item, error)
}
