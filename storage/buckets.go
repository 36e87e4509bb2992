package storage

// Bucket names. Each is documented in the package comment; keep both in step.
var (
	BucketMeta            = []byte("meta")
	BucketSettings        = []byte("settings")
	BucketVaultNodes      = []byte("vault_nodes")
	BucketVaultEdges      = []byte("vault_edges")
	BucketVaultIndex      = []byte("vault_idx")
	BucketVaultBodies     = []byte("vault_bodies")
	BucketWisdom          = []byte("wisdom")
	BucketImports         = []byte("imports")
	BucketImportFiles     = []byte("import_files")
	BucketChangesets      = []byte("changesets")
	BucketTraces          = []byte("traces")
	BucketRuns            = []byte("runs")
	BucketBuilds          = []byte("builds")
	BucketBuildTasks      = []byte("build_tasks")
	BucketPlaybooks       = []byte("playbooks")
	BucketPlaybookHistory = []byte("playbook_history")
	BucketPlaybookPending = []byte("playbook_pending")
	BucketProfiles        = []byte("profiles")
	BucketRehearsals      = []byte("rehearsals")

	// Added by migration 2.
	BucketVaultArchive    = []byte("vault_archive")
	BucketVaultTombstones = []byte("vault_tombstones")

	// Added by migration 3 (engine/knowledge). The user-level file holds
	// BucketFacts and BucketFactsIndex too (UserMigrations).
	BucketFacts      = []byte("facts")
	BucketFactsIndex = []byte("facts_idx")
	BucketDocsCache  = []byte("docs_cache")

	// Added by migration 4.
	BucketApplyJournal = []byte("apply_journal")

	// Added by migration 5 (engine/goal, engine/board).
	BucketGoalRuns       = []byte("goal_runs")
	BucketGoalTurns      = []byte("goal_turns")
	BucketBoards         = []byte("boards")
	BucketBoardArtifacts = []byte("board_artifacts")
	BucketBoardHandoffs  = []byte("board_handoffs")

	// Added by migration 6.
	BucketVaultTerms    = []byte("vault_terms")
	BucketVaultPostings = []byte("vault_postings")
	BucketVaultCounts   = []byte("vault_counts")
	BucketVaultJournal  = []byte("vault_journal")
)

// Nested buckets of BucketWisdom (created by migration 2).
var (
	WisdomPatterns   = []byte("patterns")
	WisdomSources    = []byte("sources")
	WisdomPromotions = []byte("promotions")
	WisdomOptIn      = []byte("optin")
	WisdomBundles    = []byte("bundles")

	// Added by migration 8.
	WisdomKeys    = []byte("keys")
	WisdomTrusted = []byte("trusted")
)

// wisdomNested2 are the nested buckets of BucketWisdom that migration 2
// creates.
var wisdomNested2 = [][]byte{WisdomPatterns, WisdomSources, WisdomPromotions, WisdomOptIn, WisdomBundles}

// WisdomNested lists the nested buckets of BucketWisdom.
var WisdomNested = append(append([][]byte{}, wisdomNested2...), WisdomKeys, WisdomTrusted)

// Library buckets (skills, workflows, blueprints), created by migration 7.
var (
	BucketWorkflowRuns      = []byte("workflow_runs")
	BucketBlueprints        = []byte("blueprints")
	BucketBlueprintVersions = []byte("blueprint_versions")
	BucketBlueprintUses     = []byte("blueprint_uses")
)

// BucketRunIndex is the index of every run of every kind (migration 9):
// one nested bucket per kind, RunIndexKinds, each keyed by Key(run id).
var BucketRunIndex = []byte("run_index")

// RunIndexKinds are the nested buckets of BucketRunIndex: the kinds of run
// (engine/run's Kind values).
var RunIndexKinds = [][]byte{[]byte("build"), []byte("goal"), []byte("workflow"), []byte("chat")}

// Team buckets (engine/team), created by migration 11.
var (
	BucketTeamRecords  = []byte("team_records")
	BucketTeamSubjects = []byte("team_subjects")
	BucketTeamOutbox   = []byte("team_outbox")
	BucketTeamState    = []byte("team_state")
	BucketTeamMembers  = []byte("team_members")
	BucketTeamRefused  = []byte("team_refused")
)

// TeamBuckets lists the buckets of migration 11.
var TeamBuckets = [][]byte{BucketTeamRecords, BucketTeamSubjects, BucketTeamOutbox, BucketTeamState,
	BucketTeamMembers, BucketTeamRefused}

// BucketTeamShared holds the items an author marked shared with the team
// (engine/team): "rule" 0x00 agent 0x00 rule id, or "node" 0x00 Key(node
// id), to the shared item's subject and the hash of the version last
// published. Created by migration 13.
var BucketTeamShared = []byte("team_shared")

// Buckets of the repository map (engine/codemap), created by migration 12.
var (
	BucketCodemapFiles = []byte("codemap_files")
	BucketCodemapSyms  = []byte("codemap_syms")
)

// CodemapBuckets lists the buckets of migration 12.
var CodemapBuckets = [][]byte{BucketCodemapFiles, BucketCodemapSyms}

// LibraryBuckets lists the buckets of migration 7.
var LibraryBuckets = [][]byte{BucketWorkflowRuns, BucketBlueprints, BucketBlueprintVersions, BucketBlueprintUses}

// Chat buckets (engine/chat), created by migration 9.
var (
	BucketChatSessions = []byte("chat_sessions")
	BucketChatTurns    = []byte("chat_turns")
)

// ChatBuckets lists the buckets of migration 9.
var ChatBuckets = [][]byte{BucketChatSessions, BucketChatTurns}

// registryV1 is what migration 1 creates. It never changes: later buckets
// come with their own migrations.
var registryV1 = [][]byte{
	BucketMeta, BucketSettings,
	BucketVaultNodes, BucketVaultEdges, BucketVaultIndex, BucketVaultBodies, BucketWisdom,
	BucketImports, BucketImportFiles,
	BucketChangesets, BucketTraces, BucketRuns,
	BucketBuilds, BucketBuildTasks,
	BucketPlaybooks, BucketPlaybookHistory, BucketPlaybookPending, BucketProfiles,
	BucketRehearsals,
}

// Registry lists every top-level bucket: those of migration 1 in the order
// it creates them, then those of later migrations.
var Registry = append(append([][]byte{}, registryV1...),
	BucketVaultArchive, BucketVaultTombstones, // m2
	BucketFacts, BucketFactsIndex, BucketDocsCache, // m3
	BucketApplyJournal,                                                                       // m4
	BucketGoalRuns, BucketGoalTurns, BucketBoards, BucketBoardArtifacts, BucketBoardHandoffs, // m5
	BucketVaultTerms, BucketVaultPostings, BucketVaultCounts, BucketVaultJournal, // m6
	BucketWorkflowRuns, BucketBlueprints, BucketBlueprintVersions, BucketBlueprintUses, // m7
	BucketRunIndex,                      // m9
	BucketChatSessions, BucketChatTurns, // m10
	BucketTeamRecords, BucketTeamSubjects, BucketTeamOutbox, BucketTeamState, // m11
	BucketTeamMembers, BucketTeamRefused, // m11
	BucketCodemapFiles, BucketCodemapSyms, // m12
	BucketTeamShared, // m13
)

// DerivedBuckets hold data computed from other buckets, which nova rebuilds
// when they are empty: the vault's full-text index (its first write
// transaction rebuilds it; a read-only process builds a copy in memory) and
// its counters (recounted), and the repository map (parsed again from the
// workspace's files by its next update). Recover empties them when it lost records, so
// that they never disagree with what it copied.
var DerivedBuckets = [][]byte{BucketVaultTerms, BucketVaultPostings, BucketVaultCounts, BucketCodemapFiles, BucketCodemapSyms}

// Keys inside BucketMeta.
var (
	metaSchemaKey  = []byte("schema")
	metaCreatedKey = []byte("created")
)

// SequenceBuckets are the buckets keyed by Key(id) with ids from NextID;
// Check compares their counters with their largest keys.
var SequenceBuckets = [][]byte{
	BucketVaultNodes, BucketVaultEdges, BucketImports, BucketChangesets, BucketRuns,
	BucketBuilds, BucketPlaybookPending, BucketRehearsals,
}
