package engine

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
// The verbs are declared by area: each area has one file
// engine/area_<area>.go with its <Area>Verbs interface (embedded below, a
// doc comment on every verb) and the small service value that implements it
// (embedded in Local). A new verb touches its area's file only; a new area
// adds one line here and one field in Local (docs/ARCHITECTURE.md).
type Workspace interface {
	WorkspaceVerbs
	DBVerbs
	VaultVerbs
	WisdomVerbs
	ImportVerbs
	AgentVerbs
	ChangeVerbs
	BuildVerbs
	GoalVerbs
	BoardVerbs
	PlaybookVerbs
	LibraryVerbs
	RehearsalVerbs
	KnowledgeVerbs
	ChatVerbs
	TeamVerbs
	MCPVerbs
	CodeMapVerbs
}
