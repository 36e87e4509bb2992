// Package importer turns a markdown pattern library (the BistroLens knowledge base, nova's own
// starter library in .nova/patterns, or any tree of *.md files) into taste-vault nodes, in
// batches that can be previewed, re-run and undone. Parsing is engine/patterns' job; this
// package decides what each file becomes and writes the result in one vault transaction.
//
// # Entry points
//
//   - Importer.Scan parses a source (a directory, or an fs.FS such as the embedded starter
//     library) into a Plan. Nothing is written.
//   - Importer.Preview computes, for a Plan and Options, what an import would do (a Result with
//     one NodeReport per file and section). This is the dry run.
//   - Importer.Apply does it: one bbolt write transaction holds every node, edge, file record
//     and the batch record, up to Config.ChunkFiles (1,000) files that write. A larger import
//     writes its nodes in transactions of that many files, then the full-text index range of
//     terms by range; the batch record goes with the first transaction marked pending and
//     lists what each adds, and the last completes it (see "Chunked imports"). Cancelling ctx
//     or a failure rolls the whole import back.
//   - Importer.Import is Scan followed by Preview (Options.DryRun) or Apply.
//   - Importer.Batches, Importer.Batch and Importer.Undo manage batches;
//     Importer.RecentSources and Importer.RememberSource keep the wizard's recent list.
//
// # Mapping (file → node)
//
//   - Type: front matter `type`, else a `**Type:**` header line, else
//     patterns.TypeForCategory(category). TypeForCategory checks the seed table of the
//     pattern-import issue first ("security" → Pattern, "quality-gates" → Strategy,
//     "design-system" → Preference, …). Other categories go through a keyword rule, in
//     order, first match wins. A keyword matches at the start of a hyphen-separated word of
//     the category. A prefix keyword also matches a longer word ("test" matches "testing");
//     an exact keyword must be the whole word ("ui" matches "ui-components", not "guide").
//     The keywords:
//     anti-pattern, mistake, pitfall, gotcha → Mistake;
//     decision, adr → Decision;
//     test, qa, strateg…, quality, gate(s), monitor…, observab…, steering, business,
//     prompt, workflow, process, planning → Strategy;
//     design, ui, ux, accessib…, a11y, i18n, l10n, localiz…, internationaliz…, adaptation,
//     style, theme, convention, preference, document…, docs, performance → Preference.
//     No match gives Pattern ("hooks", "utilities", "convex-patterns").
//   - Confidence: min(0.99, base + reusability×0.01), base 0.85 unless configured
//     (import.baseConfidence or Options.BaseConfidence); categories containing "adaptation" get
//     a fixed 0.95 instead (patterns.Confidence).
//   - isGlobal true; userId "bistrolens-import" unless Options.User says otherwise. The user is
//     also the namespace of the file records: the same relative path imported under two users
//     gives two nodes.
//   - Language: the most frequent language of the code fences. Source: the file's path relative
//     to the import root ("09-hooks/use-auth.md"); split sections get "file#anchor".
//   - Title, Content (the description, ≤ 500 runes), Body (the whole markdown, for retrieval)
//     and Tags (category first, at most vault.MaxTags). Meta keeps category, priority,
//     reusability, codeExamples and the content hash.
//
// # Re-import, updates and duplicates
//
// Every imported file has a record in bucket import_files (by user and source path; the layout
// is in storage/doc.go) with the SHA-256 of the file, the node id(s) and a MinHash signature. A file whose hash (and
// split mode) is unchanged is skipped: re-importing an unchanged library writes nothing and
// records no batch. A changed file replaces its node in place: same id, same edges, same
// helpful counts. New files are checked for near-duplicates, within the batch (the first in
// path order wins) and against every node already in the vault: MinHash (128 hashes over word
// 3-shingles of title and body) with LSH banding, at the Jaccard threshold
// import.dedupThreshold (default 0.8). When an embedding model answers within a bounded time,
// embeddings of title and summary add a second test (cosine ≥ EmbedThreshold). A failed or
// slow embedding call is reported as a warning and never blocks the import.
//
// # Forgotten, archived and the tier cap
//
//   - A file whose node the user forgot (vault.Vault.Remove leaves a tombstone keyed by user
//     and source) is skipped as "forgotten", whatever its hash: `nova init`, which imports the
//     starter library every time, never brings back what the user removed. The same holds for
//     split sections.
//   - A file whose node the tier cap moved to the vault's archive is skipped as "archived"
//     (restore the node instead of importing it twice).
//   - An import is a user write: on a tier with a node cap, Apply counts exactly what it would
//     add (a dry pass in the same transaction) and refuses with a *vault.CapError before the
//     first write; Preview returns the same error beside its report (Result.OverCap).
//
// # Edges
//
//   - Category: a `supports` edge from each file node to the next one of the same category
//     (path order, per user). The importer owns these edges (their ids are in the file
//     records) and re-threads a chain when files are added or removed.
//   - Split (Options.Split): a file with two or more "## Pattern…" sections also gets one node
//     per section, linked to the file's node with a `refines` edge (section → file).
//
// # Batches and undo
//
// A batch record (bucket imports) holds the source, time, options, the ids of the nodes and
// edges it added, the previous value (with body) of every node it updated or removed, the
// previous file records and the counts. Undo removes exactly what the batch added and restores
// what it changed, in one transaction; nodes of the batch that the tier cap archived are removed
// from the archive too. A batch whose nodes a later batch changed again cannot be undone before
// that later batch (ErrUndoBlocked).
//
// Batches and Batch report what is left of each batch (Batch.State, computed when read, never
// stored): "active" when every node it added is in the vault, "partial" when some were archived
// by the tier cap or forgotten, "emptied" when none is left, "undone" after an undo; Present,
// Archived and Gone count its nodes by where they are now.
//
// # Chunked imports
//
// A chunked import holds the vault's write lock from its first transaction to its last. Its
// full-text changes are collected (textindex.Plan) and written only after the last chunk, so
// until then the index holds nothing of it. Should the process die in between, the batch is
// left pending and reads as "interrupted" (Batch.Pending; Batch.Indexing once the index
// phase began): `nova import undo` removes exactly what its record lists (leaving the index
// alone, or rebuilding it when part of the import's text reached it), and the next Apply does
// the same first, deleting the record. Import (not a wizard's plan) parses split sections
// only with Options.Split and drops each doc's text once it is written.
//
// # Safety
//
// Directories are read through os.OpenRoot (patterns.Scan): a symlink that leaves the import
// root is a per-file error, never followed. The importer only writes to the workspace database.
package importer
