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
	BucketApplyJournal    = []byte("apply_journal")
)

// Registry lists every top-level bucket, in the order migration 1 creates them.
var Registry = [][]byte{
	BucketMeta, BucketSettings,
	BucketVaultNodes, BucketVaultEdges, BucketVaultIndex, BucketVaultBodies, BucketWisdom,
	BucketImports, BucketImportFiles,
	BucketChangesets, BucketTraces, BucketRuns,
	BucketBuilds, BucketBuildTasks,
	BucketPlaybooks, BucketPlaybookHistory, BucketPlaybookPending, BucketProfiles,
	BucketRehearsals,
	BucketApplyJournal,
}

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
