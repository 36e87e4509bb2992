// Package team shares what one workspace learns with its teammates' novas
// over NATS JetStream, without a home-made sync protocol.
//
// # What is shared
//
// Only shared kinds, and only when asked: global-wisdom backing and harm
// reports (KindWisdomBack, KindWisdomHarm), facts at the team scope
// (KindFact, KindFactCorrect), playbook rules an author marks shared
// (KindRule) and vault nodes an author marks shared (KindVaultNode). Every
// text field of a record passes through engine/secrets' redaction before the
// record is signed: nothing else leaves the machine.
//
// # Records
//
// A Record is signed by its author's ed25519 key (the workspace key of
// engine/vault's signed wisdom) and carries a hybrid logical clock. Its
// canonical encoding is compact JSON in a fixed field order; Decode accepts
// only that encoding (re-encoding gives the same bytes), at most
// MaxRecordBytes, with a clock at most MaxClockSkew ahead of the reader's.
// A record's id is the SHA-256 of its encoding: JetStream de-duplicates on
// it (Nats-Msg-Id) and every workspace stores a record once under it.
//
// # Each workspace is the source of truth for itself
//
// A local write commits to bbolt first and enters the outbox in the same
// transaction (Store.WriteTx). The publisher sends the outbox to the stream
// with the record id as message id and deletes an entry once JetStream
// acknowledged it. A durable consumer per workspace brings the team's records
// in; a batch of records and the stream position they reach are committed in
// one transaction before the messages are acknowledged. A crash at any point
// neither loses a record (the outbox and the unacknowledged messages are sent
// again) nor doubles one (the message id and the record id).
//
// # Merges that converge
//
// Views are computed from the set of records of one subject, in the order
// (clock, author, id), so every replica holding the same records computes the
// same views whatever order they arrived in: wisdom backers and harm reports
// are sets of authors (a pattern is active once BackersToActivate members
// back it, demoted once HarmReportsToDemote members reported it); a fact is a
// chain of versions (a correction never overwrites, the newest by clock then
// author holds); shared rules and nodes keep every version.
//
// # Shared rules and nodes
//
// An author marks a playbook rule or a vault node shared once (MarkTx,
// storage migration 13); every later edit of it is published as a new
// version in the edit's own transaction (PublishMarkedTx, called from the
// playbooks' and the vault's hooks) until it is unmarked. engine/team/teamlink
// merges a teammate's versions into the local playbook of the agent the rule
// names (source "team", its author) and into the vault (source "team", Meta
// team.author): the version that holds is the newest of the subject's first
// author; a version never overwrites a local edit (the newer one is noted
// and taken on request); a team item the user removed stays removed.
//
// # Retention
//
// See retention.go: the stream keeps records for MaxAge and up to MaxBytes;
// a compacted snapshot bucket keeps what the team holds, and a workspace
// behind retention reads it again.
//
// Only records of the team's members count (the membership list is a signed
// document in a JetStream key-value bucket: only the admin key's signature is
// accepted). A record with a bad signature, a clock too far ahead or too large
// is refused and counted; one from a key that is not a member is kept, counted
// as refused and left out of every view (it counts if the admin adds the key).
package team
