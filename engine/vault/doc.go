// Package vault is nova's taste vault: a graph memory of strategies,
// mistakes, preferences, patterns and decisions learned in a workspace, the
// retrieval that injects it into prompts, and the global-wisdom pipeline that
// shares the best of it.
//
// # Graph memory
//
// A [Node] has a type, a short content (the summary), an optional title and
// long body, a confidence (0–1), a helpful count, tags, a user, a language
// and a source (an imported file's path, "build:ID/task:ID", or "manual").
// An [Edge] links two nodes with a relation (supports, contradicts, refines,
// replaces, depends_on) and a strength. [Vault.Add], [Vault.Update] (a
// [Patch] of pointers), [Vault.Remove] (which removes the node's edges),
// [Vault.Link], [Vault.Reinforce], [Vault.Demote] and [Vault.IncrementHelpful]
// are the writes; [Vault.List] (paged, by type, tag, user or substring),
// [Vault.Related], [Vault.Neighbours], [Vault.Traverse], [Vault.Conflicts],
// [Vault.Stats] and [Vault.Tags] are the reads. Bad input returns errors
// matching [ErrInvalid]; missing records [ErrNotFound].
//
// # Storage
//
// Everything lives in the workspace's bbolt file, in the vault_* buckets
// and wisdom, created by storage migrations. Their keys and values are
// documented once, in the schema tree of package storage (storage/doc.go).
// Why they look that way: bodies are raw UTF-8 outside the node records
// (the index rebuild reads every body; a listing reads none); the conf
// index key is the confidence's float bits in big-endian order, which is
// numeric order, so high-confidence and eviction queries are range scans;
// the core index (a hash of the statement core, see DetectConflict) finds
// duplicates and contradictions without a scan; the counters (counters.go)
// make Stats and the tier cap O(1).
//
// Every write is one bbolt transaction (nodes, bodies, index entries, the
// full-text index, the counters and the revision together), so a process
// killed at any moment leaves the vault consistent, and whichever process
// wrote last, the next one finds everything current. Options.OnChange is
// called after the commit.
//
// # Retrieval
//
// [Vault.Search] and [Vault.GetRelevantPatterns] rank with BM25F from
// engine/textindex over title, content, tags and the full body (so a
// paraphrased query reaches a node through its body and the synonym map),
// blended with confidence and helpful count; a node sharing no term with the
// query never ranks. When an [Embedder] and a model are configured the top
// results are re-ranked by embedding similarity within a bounded timeout;
// any failure falls back silently (and embeddings are skipped for 30 s).
//
// The index is persisted per term (vault_terms, vault_postings) and written in
// the same transaction as the nodes, so no process ever rebuilds it: a search
// reads the records of its few terms (a frequent term through its champion
// list), a write rewrites the posting chunks of the terms it touches. Counters
// (vault_counts) answer [Vault.Stats], [Vault.Tags] and [NodeCounts] in a few
// reads. A database written before the index existed gets it (and the
// counters) in its first write transaction; a read-only handle meanwhile
// searches a copy built in memory once. [Vault.RebuildIndex] rebuilds the index
// from the nodes when a record of it is damaged ([ErrIndexCorrupt]).
//
// # Taste vault
//
// [Vault.Learn] adds a node the taste-vault way: duplicates are reinforced
// and contradictions get a contradicts edge. [Vault.LearnAs] says who asks
// (ByUser or ByLearning), which decides what the tier cap does.
//
// # Tier caps
//
// The free tier keeps 500 nodes ([TierLimits]); premium has no cap. One
// function applies the rule to every write that adds nodes ([CheckCap] is the
// rule, reserve applies it inside the write's transaction):
//
//   - user writes ([Vault.Add], [Vault.AddBatch], [Vault.Import], [Vault.Learn],
//     the importer's [ImportTx], [Vault.Restore]) that would go over the cap
//     are refused before anything is written, with a *[CapError] ([ErrOverCap])
//     naming the tier, the cap, the count the vault would reach and how to
//     switch tier;
//   - learning ([Vault.LearnAs] with ByLearning: build lessons, rehearsal
//     preferences, user approvals, playbook promotion) moves the least
//     confident node whose confidence is below the incoming one's to the
//     archive, with its edges, one node per learned node; when no node is less
//     confident the learned node is not stored ([LearnResult.NotStored]).
//     [Change.Archived] and [Change.NotStored] report both once per write.
//
// [Vault.Archived] lists the archive; [Vault.Restore] brings a node back with
// its id and the edges whose other end exists (edges to a node that is still
// archived wait in that node's record). Wisdom patterns live in their own
// bucket and do not count against the cap. [Vault.Remove] is the user
// forgetting a node: an imported node leaves a [Tombstone] so that importing
// its source again does not bring it back. [Vault.LearnFromBuildResult] applies the build
// heuristics ([BuildLessons], [DetectPatterns]); [Vault.BuildVaultContext]
// renders the <taste_vault_context> block within 15 % of a token budget and
// returns what it injected, which [Vault.ReinforceInjected] credits after a
// success.
//
// # Global wisdom
//
// [Wisdom] promotes high-confidence nodes of opted-in users as sanitized
// copies ([Sanitize]), merges near-duplicates (Jaccard ≥ 0.7), limits each
// user to 5 promotions a week, keeps a pattern pending until 3 users back
// it, demotes it after 3 harm reports, and serves the best active patterns
// per tier ([Wisdom.ForTier]).
package vault
