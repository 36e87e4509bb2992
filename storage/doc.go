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
// This is the one schema tree of the database: every bucket, nested ones
// included, with its keys and values. Top-level buckets are declared in
// buckets.go and listed in [Registry]; each is created by the migration named
// beside it (nothing creates a bucket outside a migration). Keys are
// big-endian uint64 sequence numbers ([Key], [ParseKey]) unless noted; values
// are versioned JSON ([Codec]) unless noted.
//
//	meta                 (m1) string keys: "schema" (the schema version, decimal text),
//	                     "created" (RFC 3339 time of creation)
//	settings             (m1) string keys: "import.recentSources" (the import wizard's recent
//	                     directories, a JSON list)
//	vault_nodes          (m1) taste-vault nodes by id, without their body (HasBody says one exists)
//	vault_edges          (m1) vault edges by id
//	vault_idx            (m1) secondary indexes of the vault; index keys are
//	                     name 0x00 value 0x00 id (8 bytes), values empty (see [Index]):
//	                       type   node type                         → node ids
//	                       tag    lower-case tag                    → node ids
//	                       user   user id                           → node ids
//	                       conf   8-byte big-endian float64 bits of the confidence → node ids
//	                       core   hash of the statement core        → node ids
//	                       efrom  8-byte source node id             → edge ids
//	                       eto    8-byte target node id             → edge ids
//	                       erel   relation                          → edge ids
//	                     plus "~rev" without 0x00 (the change counter, 8 bytes); the full-text
//	                     snapshot "~textindex" that schemas 1–5 kept here is dropped by migration 6
//	vault_bodies         (m1) long node bodies by node id: 'b' 0x01 + raw UTF-8 (not JSON)
//	vault_archive        (m2) nodes moved out of the vault by a tier cap's eviction, by node id:
//	                     the node with its body and the edges it had (restored with the same ids)
//	vault_tombstones     (m2) nodes the user forgot, so an import does not bring them back;
//	                     key = user id 0x00 source (the import_files key layout)
//	vault_terms          (m6) the vault's full-text index (engine/textindex), one record per term:
//	                     term → version, document frequency, flags, first document of the
//	                     term's last chunk and, when the flags say inline (index record version
//	                     2), the term's only chunk itself (a posting list of one chunk of at
//	                     most 64 bytes, which then has no key in vault_postings); plus 0xff
//	                     "meta" → the index record (version, analyzer fingerprint, documents,
//	                     field-length totals, reference averages). Version 1 records (no inline
//	                     lists) are read as they are; a nova that knows only version 1 rebuilds
//	                     the index. Kept current by every vault write
//	vault_postings       (m6) its posting lists: term 0x00 first document (8 bytes big-endian)
//	                     → a chunk of up to 512 postings from that document on; term 0x01 →
//	                     the term's champion list (frequent terms only)
//	vault_counts         (m6) vault counters kept by every vault write: "nodes", "edges",
//	                     "conf" (sum, millionths), "tags" (distinct), "type"/"tag"/"erel"
//	                     0x00 value → count, "~ok" once complete; 8-byte big-endian
//	vault_journal        (m6) journal of a large JSONL import written in several transactions:
//	                     "~import" while one runs; 'n'/'e' + id → the node or edge record the
//	                     id held before (empty: none), 'b' + id → its body. Empty unless an
//	                     import is under way or was interrupted
//	wisdom               (m1) global wisdom; only nested buckets (m2):
//	  patterns           pattern id → WisdomPattern (a sanitized node, backers, harm reports)
//	  sources            8-byte vault node id → 8-byte pattern id (what was promoted)
//	  promotions         user 0x00 8-byte unix-ns time 8-byte node id → 8-byte pattern id
//	                     (the weekly promotion limit)
//	  optin              user id → "1" or "0"
//	  bundles            bundle id (sha-256 hex of the bundle) → import record of a wisdom bundle
//	  keys               (m8) "self" → the workspace's ed25519 signing key (32-byte seed);
//	                     it never leaves the database
//	  trusted            (m8) public key ("ed25519:" base64) → TrustedKey (who trusted it, when,
//	                     a note): authors whose bundles this key signed count towards activation
//	imports              (m1) pattern-import batches by id; "pending" (and "indexing") while a
//	                     chunked import is still writing one: read after a crash, it is
//	                     interrupted, and undo or the next import removes it
//	import_files         (m1) content hash, node ids and MinHash signature per imported source
//	                     file; key = user id 0x00 source path
//	changesets           (m1) staged file changes by id
//	traces               (m1) tool traces of agent runs; key = run id + trace id (8+8 bytes)
//	runs                 (m1) agent runs (outcome, tokens, verdict) by id
//	builds               (m1) builds by id
//	build_tasks          (m1) per-task state of builds; key = build id (8 bytes) + task ordinal (8 bytes)
//	playbooks            (m1) ACE playbooks; key = agent id (string)
//	playbook_history     (m1) playbook versions; key = agent id 0x00 version (8 bytes)
//	playbook_pending     (m1) deltas waiting for human review, by id
//	profiles             (m1) self-improvement profiles; key = agent id (string)
//	rehearsals           (m1) rehearsal sessions by id
//	facts                (m3) scoped temporal facts (engine/knowledge/facts) by id; shown as "f<id>"
//	facts_idx            (m3) secondary indexes of facts ([Index] layout): "scope" (scope string,
//	                     e.g. "build:7") and "file" (workspace-relative path a fact names) → fact
//	                     ids; plus "~rev", a change counter bumped by every write (the in-memory
//	                     search index is rebuilt when another process wrote)
//	docs_cache           (m3) documentation (engine/knowledge/docs) by cache key
//	                     source 0x00 library 0x00 topic (sanitised: no control bytes, each part
//	                     ≤ 200 bytes, longer ones end in a hash); source is "local" (go.mod /
//	                     node_modules docs at the exact version) or "context7"; plus "~rev"
//	apply_journal        (m4) what applying a changeset changed on disk, by changeset id
//	                     (changes.Applied): the state (applying, applied, partial, reverted) and,
//	                     per file, its content and mode right before the apply (in full, binary
//	                     too, or "absent"), the hash the apply wrote and whether it is done;
//	                     committed before the first file is written, kept after the apply; read
//	                     by recoverable apply (changes.Store.Recover) and by revert
//	goal_runs            (m5) orchestrator runs (`nova run "GOAL"`) by id, an id space of their own
//	                     (agent runs keep runs): goal, lead, status, limits, token and turn counts
//	goal_turns           (m5) the lead's turns of a goal run; key = run id (8 bytes) + turn number
//	                     (8 bytes): the decision (or why it was rejected), the delegation's build
//	                     task and its outcome, the user's answer to an escalation
//	boards               (m5) session boards; key = owner kind ('r' a goal run, 'b' a build) +
//	                     owner id (8 bytes): goal, key decisions (≤ 5), open blockers (≤ 3), history
//	                     summary, the newest artifact references (engine/board)
//	board_artifacts      (m5) artifacts registered on boards by id (global sequence): the reference
//	                     (type, 200-char preview, token size, who made it) and the full content,
//	                     loaded only on demand (includeArtifacts, readArtifact)
//	board_handoffs       (m5) task handoffs; key = board key (9 bytes) + handoff id (8 bytes):
//	                     summary, artifacts, constraints for the next agent, suggested next agent,
//	                     open questions
//	workflow_runs        (m7) workflow runs by id, their own id space (steps, params, build per step)
//	blueprints           (m7) blueprints by name (string key): current spec, versions summary,
//	                     created/updated
//	blueprint_versions   (m7) every version of a blueprint's spec with its change note;
//	                     key = name 0x00 version (8 bytes)
//	blueprint_uses       (m7) builds made from a blueprint (version, parameters, outcome, duration,
//	                     tokens); key = name 0x00 build id (8 bytes); evidence is computed from them
//	run_index            (m9) every run of every kind (engine/run's Record): one nested bucket a kind
//	  build              (build, goal, workflow, chat), key = run id (8 bytes) → kind, id, status
//	  goal               (the one status machine), title, reason, created, updated and the parent run
//	  workflow           (a goal run's build, a workflow step's build); written by each engine in the
//	  chat               transaction that changes its own record; running runs read as interrupted
//	                     on open (Status.OnOpen); hand-over and Home read it
//	chat_sessions        (m10) chat sessions by id (engine/chat): title, chosen agent and tier, the
//	                     visible summary of compacted turns, turn count; the bucket's sequence numbers
//	                     the turns' runs (run.KindChat)
//	chat_turns           (m10) the turns of a chat session; key = session id (8 bytes) + turn number
//	                     (8 bytes): request, attachments, routed agent, answer, tool calls, changeset,
//	                     verdict, provenance of the prompt context
//	team_records         (m11) shared team records (engine/team) by record hash (32 bytes, the
//	                     SHA-256 of the record's canonical encoding) → the canonical record;
//	                     this workspace's and its teammates', each stored once
//	team_subjects        (m11) index of team_records: kind 0x00 subject 0x00 record hash → empty
//	                     (every record of one shared item, merged when read)
//	team_outbox          (m11) records written here and not yet acknowledged by the hub;
//	                     key = 8-byte sequence → record hash; written in the transaction that
//	                     made the record, deleted once JetStream acknowledged it
//	team_state           (m11) sync state: "hlc" (the hybrid logical clock), "pos" (the stream
//	                     sequence applied, written with the records it brought), "stream" (the
//	                     stream's creation time, to notice a stream made anew), "lastSync",
//	                     "refused.<reason>" counters (8 bytes), "admin" (the team's admin key)
//	                     and links "link" 0x00 namespace 0x00 key: "w" pattern subject → 8-byte
//	                     wisdom pattern id, "f" fact subject 0x00 version id → local fact id
//	team_members         (m11) the team's membership list as the admin signed it: key "doc" → the
//	                     signed document; public key ("ed25519:" base64) → "1" for each member
//	team_refused         (m11) the newest refused records (bad signature, non-member, future
//	                     clock, too large); key = 8-byte sequence → reason and record summary
//	codemap_files        (m12) the repository map (engine/codemap): one record per source file seen,
//	                     key = workspace-relative slash path: size, modification time, sha-256 of
//	                     the content, language, and why it is left out of the map (too large,
//	                     minified, not UTF-8, does not parse); a file gone from disk loses its key.
//	                     Derived: emptied, the next map parses every file again
//	codemap_syms         (m12) the definitions (name, kind, line, signature) and references (name,
//	                     count, first line, enclosing definition) of each mapped file, by the same
//	                     key; a file left out has none
//	team_shared          (m13) the items an author marked shared with the team: "rule" 0x00 agent
//	                     0x00 rule id, or "node" 0x00 8-byte node id → JSON {subject, hash of the
//	                     version last published}; an edit of a marked item is published as a new
//	                     version in the edit's transaction; unmarking deletes the key
//
// # The user-level file
//
// Facts at `user` scope live outside any workspace, in
// $NOVA_HOME/user.db (else $XDG_DATA_HOME/nova/user.db, else
// ~/.local/share/nova/user.db). It is opened briefly per operation with a
// short lock timeout and its own migrations ([UserMigrations]):
//
//	meta                 schema version of the user file
//	facts                user-scope facts by id (shown as "u<id>")
//	facts_idx            as in a workspace (scope, file, "~rev")
//
// # Schema and migrations
//
// [SchemaVersion] is the version this binary writes. [Migrations] is the
// ordered list of migrations; those newer than the stored version run in one
// read-write transaction at open:
//
//	1  create buckets: every bucket marked m1 above
//	2  trust: vault_archive, vault_tombstones and the nested buckets of wisdom
//	3  knowledge: facts, facts_idx and docs_cache
//	4  create apply_journal
//	5  orchestrator: goal_runs, goal_turns, boards, board_artifacts, board_handoffs
//	6  vault full-text index, counters and import journal: vault_terms, vault_postings,
//	   vault_counts, vault_journal; drops the full-text snapshot "~textindex" of
//	   vault_idx. The vault fills the new buckets from the nodes in its first write
//	   transaction.
//	7  library: workflow_runs, blueprints, blueprint_versions, blueprint_uses
//	8  signed wisdom: the nested buckets keys and trusted of wisdom
//	9  run index: run_index and its kind buckets, filled from builds, goal_runs and
//	   workflow_runs (a goal run's completed is done, its stopped failed)
//	10  chat: chat_sessions, chat_turns
//	11  team: team_records, team_subjects, team_outbox, team_state, team_members,
//	    team_refused
//	12  repository map: codemap_files, codemap_syms
//	13  team: team_shared (the items an author marked shared)
//
// Each migration has a test in migrate_test.go. A database written by a newer nova is
// refused with [ErrSchemaTooNew].
//
// # Damage, and what an open verifies
//
// bbolt trusts its pages: a damaged one faults, panics, or sends its cursor
// round a loop until the process is killed. So every access runs guarded (a
// fault or a panic inside bbolt becomes [ErrCorrupt] and the handle refuses
// writes from then on), and every [Open] checks the file before bbolt maps
// it, with a bounds-checked reader of its own (rawpages.go): the meta pages,
// the length (a cut file), the freelist, and every page of every bucket tree.
// [DB.Check] (`nova db check`) always does all of it; [Recover] copies what is
// readable from a damaged file with the same reader.
//
// Walking every page costs about 0.6 ms per MB, so Open walks them only when
// the file is not exactly as a nova left it. A writable handle that closes
// cleanly records a fingerprint of the file in a sidecar beside it,
// nova.db.fingerprint (JSON: device, inode, size, modification and change
// times, the newest meta page's transaction id and checksum; its
// modification time is first moved back one nanosecond, a value no later
// write can produce). An open whose file matches it runs only the cheap
// checks; anything else (no sidecar, a crash, a copy, a restore, an outside
// edit, damage) walks every page. Read-only handles never write it; a handle
// that met damage removes it. The reasoning and the limits are at the top of
// fingerprint.go.
//
// Values are copied out of transactions by decoding them ([Codec.Unmarshal]
// never aliases bbolt memory); callers must not keep slices returned by
// bbolt past the end of a transaction.
package storage
