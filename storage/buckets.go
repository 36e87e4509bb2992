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
	BucketVaultTerms      = []byte("vault_terms")
	BucketVaultPostings   = []byte("vault_postings")
	BucketVaultCounts     = []byte("vault_counts")
	BucketVaultJournal    = []byte("vault_journal")
)

// Registry lists every top-level bucket: a new database gets them all from migration 1,
// an older one gets the later ones from the migration that introduced them.
var Registry = [][]byte{
	BucketMeta, BucketSettings,
	BucketVaultNodes, BucketVaultEdges, BucketVaultIndex, BucketVaultBodies, BucketWisdom,
	BucketImports, BucketImportFiles,
	BucketChangesets, BucketTraces, BucketRuns,
	BucketBuilds, BucketBuildTasks,
	BucketPlaybooks, BucketPlaybookHistory, BucketPlaybookPending, BucketProfiles,
	BucketRehearsals,
	BucketVaultTerms, BucketVaultPostings, BucketVaultCounts, BucketVaultJournal, // migration 2
}

// Keys inside BucketMeta.
var (
	metaSchemaKey  = []byte("schema")
	metaCreatedKey = []byte("created")
)
