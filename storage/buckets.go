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
)

// Library buckets (skills, workflows, blueprints), created by the library
// migration.
var (
	BucketWorkflowRuns      = []byte("workflow_runs")
	BucketBlueprints        = []byte("blueprints")
	BucketBlueprintVersions = []byte("blueprint_versions")
	BucketBlueprintUses     = []byte("blueprint_uses")
)

// LibraryBuckets lists the library migration's buckets.
var LibraryBuckets = [][]byte{BucketWorkflowRuns, BucketBlueprints, BucketBlueprintVersions, BucketBlueprintUses}

// Registry lists every top-level bucket, in the order migration 1 creates them.
var Registry = [][]byte{
	BucketMeta, BucketSettings,
	BucketVaultNodes, BucketVaultEdges, BucketVaultIndex, BucketVaultBodies, BucketWisdom,
	BucketImports, BucketImportFiles,
	BucketChangesets, BucketTraces, BucketRuns,
	BucketBuilds, BucketBuildTasks,
	BucketPlaybooks, BucketPlaybookHistory, BucketPlaybookPending, BucketProfiles,
	BucketRehearsals,
	BucketWorkflowRuns, BucketBlueprints, BucketBlueprintVersions, BucketBlueprintUses,
}

// Keys inside BucketMeta.
var (
	metaSchemaKey  = []byte("schema")
	metaCreatedKey = []byte("created")
)
