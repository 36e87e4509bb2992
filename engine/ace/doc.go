// Package ace is nova's ACE playbook system (generator → reflector →
// curator) and the self-improvement protocol of its agents.
//
// # Playbooks
//
// Every agent has a [Playbook]: a versioned list of [Rule]s learned from
// build outcomes (source "learned"), written by a user ("manual") or taken
// from global wisdom ("global"). A [Manager] stores playbooks in bbolt and
// validates each record on load: a record that cannot be decoded, or that
// breaks an invariant, is logged and replaced by an empty playbook (bad
// rules alone are dropped), so bad data never crashes nova.
//
// Every change of a playbook's rules goes through [Manager.UpdatePlaybook]
// with a list of [Delta]s; it bumps the version and stores a [Version] in
// playbook_history holding the applied [Change]s (each with the rule before
// and after), so the history of a playbook is also its diff. Counters
// (appliedCount, successCount, ...) change without a version bump.
// [Manager.Diff] folds the versions between two numbers into one change per
// rule; [FilterRules] filters (source, kind, tag, text) and sorts rules for
// listings.
//
// Counters: a rule injected into a prompt is applied; a success of a task it
// was applied to adds a success and a helpful count and SuccessStep of
// confidence; a harm report (RecordHarm) removes HarmStep.
//
// # Relevance
//
// [Manager.GetActiveRules] ranks rules by
//
//	relevance = confidence × successRate × (0.1 + 0.9 × overlap)
//
// where successRate is Laplace-smoothed, (success+1)/(applied+2), so a new
// rule starts at 0.5, and overlap is the share of the task's terms found in
// the rule's content and tags, with the analysis of engine/textindex
// (stemming, stop words, identifier splitting). The 0.1 floor keeps general
// rules (that share no word with the task) eligible, behind related ones.
//
// # Generator, reflector, curator
//
// [System.Context] renders the <playbook_context> block within a token
// budget (tokens are ceil(chars/4)) and counts the rules it injected as
// applied. [Reflector.Reflect] asks the small model for [Delta]s through
// llm.Structured, drops those under confidence 0.5 and keeps 5 at most; it
// never returns an error (failures are logged and give no deltas).
// [Curator.Curate] deduplicates deltas against the playbook (Jaccard ≥ 0.65
// of the words: the delta is rejected when the existing rule is at least as
// confident, otherwise it replaces the rule), scores them
// (helpful·0.6 + confidence·0.4 − harmful·0.3, rejected under 0.4) and
// applies 3 at most per round. Rules that qualify as global candidates
// (confidence ≥ 0.85, successCount ≥ 3, not from global wisdom) and score
// ≥ 0.75 are learned by the taste vault as global nodes.
//
// # Task types
//
// Self-improvement groups outcomes by task type, a keyword class of the
// task title ([TaskType]): the first class whose keywords appear wins, in
// the order test, bugfix, security, performance, refactor, docs, data, api,
// ui, config, feature; a title matching none is "general".
//
// # Self-improvement
//
// A [Profile] per agent (bucket profiles) keeps the last 20 outcomes, the
// success rate, the average gate score and strong / weak task types (3
// samples at least). [System.RunReview] runs once 5 tasks were recorded
// since the last review and at most once in 7 days, unless forced: it
// proposes Mistake deltas for task types failing more than half the time,
// Strategy deltas for those succeeding 80 % of the time or more, and style
// rules from high-confidence Preference nodes of the vault. At most 3
// changes are kept; deltas under confidence 0.7 go to the pending queue
// (bucket playbook_pending) and are applied only when a human approves them.
//
// # User signals
//
// [System.RecordUserSignal] learns from a user approving or rejecting an
// agent's change at every autonomy level: a rule (a Preference or Mistake
// quoting the reason, or a generic Strategy / Mistake for the task type),
// applied directly since a user's word outranks any model, and, with a
// reason, a vault node. A rule that already says the same is reinforced.
//
// # Storage
//
//	playbooks         agent id → Playbook (storage.Codec v1)
//	playbook_history  agent id 0x00 8-byte version → Version (the applied changes)
//	playbook_pending  8-byte id → Pending (a delta waiting for review)
//	profiles          agent id → Profile
package ace
