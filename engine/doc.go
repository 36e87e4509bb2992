// Package engine is nova's domain core and the one facade the TUI and the
// CLI use (Workspace). It never imports bubbletea, lipgloss, bubbles or
// glamour.
//
// # The facade by area
//
// Workspace embeds one small interface per area — VaultVerbs, WisdomVerbs,
// ImportVerbs, AgentVerbs, ChangeVerbs, BuildVerbs, GoalVerbs, BoardVerbs,
// PlaybookVerbs, LibraryVerbs, RehearsalVerbs, KnowledgeVerbs, DBVerbs and
// WorkspaceVerbs — each declared, with a doc comment on every verb, in the
// area's own file engine/area_<area>.go beside the small service value that
// implements it (vaultArea, buildArea, …). Each service value holds the
// workspace's services (core: the database, the event bus, the model client
// and the lazily built domain services — Vault, Builds, ACE, Knowledge, …).
// *Local is the composition root only: Open builds the core and Local
// embeds one service value per area, so every verb is promoted from its
// area and Local declares none. A verb is added by touching its area's
// files; a new area adds one line to Workspace and one field to Local.
//
// Why: one interface of 140 verbs implemented by one type made every
// feature touch the same files; areas keep each capability's verbs, plain
// types and behaviour together, while the wire stays one interface (the
// remote client is generated from Workspace's method set, so the names on
// the socket do not depend on how it is split).
//
// The in-process accessors (DB, LLM, Vault, Builds, ACE, Changes, Runs,
// Importer, Rehearsals, Agents, Knowledge, PromptContext, RunRegistry) are
// methods of core promoted into Local: wiring for the engine and its tests,
// never used by the TUI or the CLI.
//
// # One owner, many clients
//
// The first nova process on a workspace owns .nova/nova.db (bbolt's lock)
// and serves its *Local on .nova/nova.sock (engine/owner, engine/rpc; the
// wire is docs/PROTOCOL.md); every other nova (a CLI command, a second TUI)
// joins it as a client and gets the generated remote implementation
// (engine/remote). `nova serve` is an owner without a TUI. Long work
// requested by a client runs in the owner; its events stream back; closing
// the request (ctrl+c, a killed client) cancels it.
//
// # Verbs
//
// The rules every verb follows (TestWorkspaceIsServable and
// TestWorkspaceMethodsDocumented check them), and why:
//
//   - `ctx context.Context` first (only `Info`, `Config`, `Close` do no I/O and take none);
//   - every argument and result is plain JSON-serialisable data: structs of values, slices, maps with string
//     or integer keys, pointers to data; no funcs, channels, interfaces, service objects, no fields tagged
//     `json:"-"` (they would be lost in transit). A domain type that carries a callback or an `error`
//     (importer.Options.Progress, build.PlanFile.Err, llm.Probe.Err) gets a plain twin in
//     `engine/types.go` (or the area file) (ImportOptions, PlanFile with `Problem string`, OllamaStatus);
//   - the last result is `error`, with at most one other result (two things → a small struct, e.g. RuleResult);
//   - paths are absolute: the caller resolves them against its own directory (`ErrRelativePath` otherwise),
//     since a remote owner does not share it;
//   - long work blocks: the verb returns when the work ends, reports progress as events while it runs,
//     and stops when ctx is canceled (resumable where that applies). Callers follow their own work by an id:
//     the build id of `CreateBuild`, or an `Op` they chose (`engine.NewOp()`) in `RunOptions`/`ImportOptions`,
//     copied into every event of the call. A caller that wants it in the background runs the call in a
//     goroutine (the TUI: in a `tea.Cmd`). Examples: `RunBuild`, `RunAgent`, `Rehearse`, `ScanPatterns`,
//     `ApplyImport`, `WritePlan`;
//   - questions become events plus a verb: a command an agent wants to run is an `EventNeedsApproval`
//     (with `Approval`), answered by `AnswerApproval`; callers pick an `ApprovalPolicy` (ask, all, none) instead
//     of passing a callback. A build task that asks the user is an `EventTaskAsking` answered by `AnswerTask`;
//     `RunBuildOptions.Attended` (the TUI) keeps the run waiting for that answer and for a model server that went
//     away, while an unattended run (the CLI) ends paused on a question and gives up waiting for the server after
//     `ollama.waitLimit` (interrupted, resumable);
//   - a report is one result, not a result and an error: a dry run over the tier cap (`ImportPatterns` with
//     DryRun, `ScanPatterns`' preview, `PreviewImport`) returns the report with `Result.OverCap` set and no error,
//     so a remote caller loses nothing; the real write is refused with `vault.ErrOverCap`. Likewise
//     `FetchDocs` returns nothing found as a result (`available: false`, `source: "none"`, the fallback
//     text, `warning` = the cause), never as an error;
//   - state that must live between calls stays in the engine behind an id (`ScanPatterns` keeps the parsed
//     library and returns `ImportPlan.ID` for `PreviewImport` / `ApplyImport` / `DropImportPlan`);
//   - large listings page (`ListNodes` with Offset/Limit; the CLI pages by 1,000 and streams the JSON array).
//
// Prompt context: every kind of run that prompts a model takes its vault,
// wisdom, playbook and knowledge blocks from one provider
// (PromptContext, package engine/promptctx) within the budgets.* shares.
//
// # Errors across the socket
//
// Errors keep errors.Is / errors.As and their failure kind across the
// socket, so the CLI and the TUI branch the same way through an owner: every
// exported sentinel (package variables named Err…) and error type of the
// engine's and storage's packages is registered on the wire by the
// generator (engine/remote/zz_generated_errors.go; a new sentinel needs
// `go generate ./engine/remote`). Callers branch on, among others,
// *changes.ConflictError (with its conflicts), vault.ErrOverCap (a
// *vault.CapError), build.ErrNotWaiting, goal.ErrNotAsking,
// params.ErrUsage and ErrUsage (a bad argument: the CLI exits 2), and
// context.Canceled (never a failure). A remote client answers Info and
// Config from memory (fetched when it connects; a theme event updates the
// copy), as the interface promises.
//
// # Events
//
// `Workspace.Subscribe(ctx)` streams `engine.Event`s: `{type, time, topic, buildId, taskId, runId, goalRunId, op,
// status, text, done, total, agent, approval, nodes, chat}`, all plain data (an event crosses the socket as one NDJSON line). Each
// event is published after the state it describes is committed. Delivery: `delta` and `progress` events may be
// dropped for a slow subscriber; every other type is always delivered.
//
// Types: `delta` (token delta), `progress` (long work), `changed` (stored state changed: refresh), `task` (a build
// task moved), `done` / `failed` (a run or build ended), `needsApproval` (the user must answer), `log` (a line for
// activity views), `theme`, `ollama`, and the trust events below (lowerCamelCase nouns, each published once,
// never dropped):
//
//	| type | topic | when | fields |
//	|---|---|---|---|
//	| `nodesArchived` | `vault` | a learning write (build lesson, rehearsal preference, user signal) found the vault at its tier's cap and moved less confident nodes to the archive; once per write | done = count, nodes = the archived ids, text = the sentence with `nova vault archive list` (restore: `RestoreNode`) |
//	| `nodesNotStored` | `vault` | learned nodes were left out: the vault is at its cap and every stored node is at least as confident | done = count, text |
//	| `taskWaiting` | `build` | a task waits for something outside the work: the model server (`waiting for ollama at HOST`, retried with backoff, continues by itself), a rehearsal choice | buildId, taskId, status `waiting`, text = the reason |
//	| `taskAsking` | `build` | a task asks the user (recovery hint ask_user); answer with `AnswerTask` (TUI dialog, `nova build answer ID TASK "…"`) | buildId, taskId, text = the question |
//	| `taskEscalated` | `build` | a task is retried on a larger model tier or handed to another agent (escalate_model, switch_specialist) | buildId, taskId, text = what changed |
//	| `budgetWarning` | `build` | a build used half of `budgets.buildTokens` (once per build) | buildId, done = tokens used, total = the budget, text |
//	| `leadDecision` | `goal` | the lead's decision passed validation and is acted on | goalRunId, done = the turn, status = the action (delegate, complete, escalate), taskId = the delegation's task, text = the decision and the lead's reasoning |
//	| `decisionRejected` | `goal` | a decision was refused before anything ran (unknown agent or artifact, empty or oversized task, a stuck loop) or the reply was no decision at all; the lead is told on its next turn | goalRunId, done = the turn, status `rejected`/`invalid`, text = why |
//	| `delegation` | `goal` | a delegated task starts, or goes on after a resume | goalRunId, taskId, text = the task |
//	| `delegationOutcome` | `goal` | a delegated task ended: what goes back to the lead | goalRunId, taskId, status = the task's status, text = verdict, failure kind, hints, handoff |
//	| `goalWaiting` | `goal` | the lead's own model call waits for the model server (`waiting for ollama at HOST`) | goalRunId, status `waiting`, text |
//	| `goalAsking` | `goal` | the lead escalates: answer with `AnswerGoalRun` (TUI dialog, `nova run answer ID "…"`) | goalRunId, text = the question |
//
// Build statuses (`task` and `changed` events, `build.Build.Status`): `pending`, `running`, `waiting` (with a
// reason: the model server, an answer, a blocker on the board), `paused`, `interrupted` (a quit, ctrl+c or crash;
// resumable), `canceled`, `done`, `failed`. The text of a `changed` event that marks the end of a run starts with
// `build <status>:`; a wait or a continuation never does. A goal run's build (`Led`) ends after every delegation
// with a `changed` event, never `done`/`failed`: those belong to its goal run.
//
// Goal-run statuses (`goal.Run.Status`): `running`, `waiting` (the model server, the user's answer), `paused` (the
// lead asks the user, unattended), `interrupted` (resumable), `completed`, `stopped` (a limit or a stuck loop; resume
// after raising it), `failed` (a misconfiguration; resume once fixed). The end of a session is `done` (completed),
// `failed` (stopped or failed) or a `changed` event whose text starts with `run <status>:`. Every event of a goal run,
// its build's and its agents' included, carries `goalRunId`.
//
// Topics (`engine.Topic`, never string literals):
//
//	| topic | what | fields |
//	|---|---|---|
//	| `workspace` | theme switched (`theme`), Ollama status | text = theme name |
//	| `vault` | `changed` after every committed vault or wisdom write; `nodesArchived` / `nodesNotStored` when the tier cap acted | text = operation (add, update, remove, link, import, restore, wisdom.*); nodes |
//	| `import` | `changed` + `log` after a batch or undo; `progress` while scanning, previewing, importing | op = caller's ImportOptions.Op, status = phase, done/total |
//	| `agent` | a run's events: `delta`, `progress` (a step), `log` (tool calls, notes), `done`/`failed`; `needsApproval` | runId; op = RunOptions.Op; buildId/taskId for build tasks; agent = the agents.Event; approval = the request (answer with AnswerApproval) |
//	| `changes` | a changeset staged, applied or discarded | status = its state, text |
//	| `build` | `task` per task transition, `done`/`failed` at the end, `changed` when created/paused/canceled/resumed or when it waits/continues, `log` notes (e.g. "denied (headless): …"); `taskWaiting`, `taskAsking`, `taskEscalated`, `budgetWarning` | buildId, taskId, status, done/total |
//	| `playbooks` | `changed` after playbook or pending-queue writes; `log` diagnostics | text = playbook/pending, status = agent |
//	| `rehearsal` | `changed` when a session changes, `needsApproval` when one waits | taskId, buildId, status |
//	| `skill` | `log` per step of a `RunSkill`, then `done`/`failed` | runId (the agent run holding the traces), op, taskId = step, status |
//	| `workflow` | `step` per step transition, `changed` when a run is created/running/paused and when a step's build is created (taskId + buildId, before it runs), `done`/`failed` at the end | runId (workflow run), op, taskId = step, buildId, status, done/total |
//	| `blueprint` | `changed`: added, used for a build (buildId), a build made from it finished (status done/failed) | status, buildId, text |
//	| `knowledge` | `changed` after every committed facts or docs-cache write (user, agent `remember`/`correct`, facts learned after a build), `log` diagnostics (a source that failed, facts extracted after a build) | text = `facts` or `docs` |
//	| `board` | `changed` after every committed session-board write (a goal run's or a build's) | text = the board key (`run:3`, `build:7`), status = decision, blocker, resolved, goal, artifact, handoff, summary; buildId or goalRunId |
//	| `goal` | a goal run: `leadDecision`, `decisionRejected`, `delegation`, `delegationOutcome`, `goalWaiting`, `goalAsking`, `changed` (created, goes on, waits, answered, ends), `done`/`failed` at the end | goalRunId, buildId, taskId, status, done = the turn |
//	| `chat` | a chat session (engine/chat, `ChatVerbs` in area_chat.go): `progress` when a turn starts or changes state, `done` when it ends, `delta` streamed answer text, `log` tool calls, waits for the model server, compaction of older turns into the session summary, session changes (/agent, /tier, /new) | op = ChatSendArgs.Op; status = the turn's run status; chat = the chat.Event. A turn is a run of kind `chat` in the run registry: ChatCancel cancels it, a quit interrupts it (ChatResume, `nova chat resume`, `nova serve --resume-chat`) |
//
// A page gets events as `common.EventMsg` from the root (which subscribes once and broadcasts); a component
// following its own long work may subscribe itself inside its `tea.Cmd` (the run view does, filtered by its op).
//
// # Storage
//
// The database's buckets, keys and values are documented once, in package
// storage's schema tree (storage/doc.go).
//
//   - Exclusive operations are package functions, not verbs: `engine.Compact`, `engine.RecoverDB` (reads a damaged
//     file directly). The CLI runs them through `runExclusive` (cmd/nova), the owner's seam.
//   - The apply journal (bucket `apply_journal`, `changes.Applied`) is the one record of what an apply replaced: the
//     recoverable apply completes interrupted applies from it at open (`TakeRecoveredApplies` tells the user once),
//     and `RevertChange` restores from it (a revert is a changeset of its own, learned once like a rejection).
//   - `core.Publish(engine.Event{...})` publishes after the state is committed; `Summary` counts what Home and
//     `nova doctor` show (extend it when your capability has counts).
package engine
