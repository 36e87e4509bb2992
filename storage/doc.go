// Package storage is nova's persistence layer: one bbolt file per workspace
// (.nova/nova.db).
//
// # Opening
//
// [Open] always uses a lock timeout ([DefaultLockTimeout]) so a second nova
// process never hangs: it gets [ErrInUse] naming the file. Read-only opens
// ([Options.ReadOnly]) take a shared lock and can run side by side with other
// readers. A file that is not a bbolt database (or is damaged) gives
// [ErrCorrupt], never a panic.
//
// # Buckets
//
// Every top-level bucket is declared in buckets.go and listed in [Registry];
// migration 1 creates them all. Keys are big-endian uint64 sequence numbers
// ([Key], [ParseKey]) unless noted; values are versioned JSON ([Codec]).
//
//	meta                 schema version ("schema") and workspace facts; string keys
//	settings             small user settings (recent import sources, UI state); string keys
//	vault_nodes          taste-vault nodes by id
//	vault_edges          vault edges by id
//	vault_idx            secondary indexes of the vault (type, tag, user, edge endpoints);
//	                     keys are index-name/value/0x00/id, values empty (see [Index])
//	                     plus "~rev" (change counter)
//	vault_bodies         long node bodies stored beside the short summary, by node id
//	wisdom               global-wisdom records (promotions, harm reports, backers) by node id
//	imports              pattern-import batches by id
//	import_files         content hash and node id per imported source file; key = user id + 0x00 + source path
//	changesets           staged file changes by id
//	traces               tool traces of agent runs; key = run id + trace id (8+8 bytes big-endian)
//	runs                 agent runs (outcome, tokens, verdict) by id
//	builds               builds by id
//	build_tasks          per-task state of builds; key = build id + task ordinal
//	playbooks            ACE playbooks by agent id (string key)
//	playbook_history     playbook versions; key = agent id + 0x00 + version
//	playbook_pending     deltas waiting for human review, by id
//	profiles             self-improvement profiles by agent id (string key)
//	rehearsals           rehearsal sessions by id
//	vault_terms          the vault's full-text index (engine/textindex), one record per term:
//	                     term → version, document frequency, flags; plus 0xff "meta" → the
//	                     index record (analyzer fingerprint, documents, field-length totals,
//	                     reference averages). Kept current by every vault write (migration 2)
//	vault_postings       its posting lists: term 0x00 chunk (8 bytes big-endian; ids >> 12)
//	                     → the postings of the documents in that id range; term 0x01 → the
//	                     term's champion list (frequent terms only)
//	vault_counts         vault counters kept by every vault write (migration 2): "nodes",
//	                     "edges", "conf" (sum, millionths), "tags" (distinct), "type"/"tag"/
//	                     "erel" 0x00 value → count, "~ok" once complete; 8-byte big-endian
//	vault_journal        journal of a large JSONL import written in several transactions
//	                     (migration 2): "~import" while one runs; 'n'/'e' + id → the node or
//	                     edge record the id held before (empty: none), 'b' + id → its body.
//	                     Empty unless an import is under way or was interrupted
//
// # Schema and migrations
//
// [SchemaVersion] is the version this binary writes. [Migrations] is the
// ordered list of migrations; those newer than the stored version run in one
// read-write transaction at open. A database written by a newer nova is
// refused with [ErrSchemaTooNew].
//
//	1  create buckets: every bucket of [Registry]
//	2  vault full-text index, counters and import journal: vault_terms, vault_postings,
//	   vault_counts, vault_journal; drops the full-text snapshot "~textindex" of
//	   vault_idx. The vault fills the new buckets from the nodes in its first write
//	   transaction.
//
// Values are copied out of transactions by decoding them ([Codec.Unmarshal]
// never aliases bbolt memory); callers must not keep slices returned by
// bbolt past the end of a transaction.
package storage
