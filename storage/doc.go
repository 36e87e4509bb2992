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
//	                     plus "~rev" (change counter) and "~textindex" (full-text index snapshot)
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
//	workflow_runs        workflow runs by id, their own id space (steps, params, build per step);
//	                     created by the library migration
//	blueprints           blueprints by name (string key): current spec, versions summary, created/updated
//	blueprint_versions   every version of a blueprint's spec with its change note;
//	                     key = name + 0x00 + version (8 bytes big-endian)
//	blueprint_uses       builds made from a blueprint (version, parameters, outcome, duration, tokens);
//	                     key = name + 0x00 + build id (8 bytes big-endian); evidence is computed from them
//
// # Schema and migrations
//
// [SchemaVersion] is the version this binary writes. [Migrations] is the
// ordered list of migrations; those newer than the stored version run in one
// read-write transaction at open. A database written by a newer nova is
// refused with [ErrSchemaTooNew].
//
// Values are copied out of transactions by decoding them ([Codec.Unmarshal]
// never aliases bbolt memory); callers must not keep slices returned by
// bbolt past the end of a transaction.
package storage
