// Package knowledge is nova's knowledge layer: what agents can look up
// beyond the code in front of them, so that they write correct, current,
// pattern-proven code.
//
//   - Documentation (engine/knowledge/docs): local docs of the project's own
//     Go modules and npm packages at their exact versions, offline; other
//     libraries from Context7's v2 API; everything cached in bbolt with a TTL
//     and cut to a token budget. A fetch never blocks an agent.
//   - Facts (engine/knowledge/facts): scoped (user ⊃ workspace ⊃ build ⊃
//     agent), temporal, correctable statements with usefulness counters.
//   - One search ([Service.Search]) over the taste vault, the facts and the
//     cached/local docs, run in parallel (each source bounded by a timeout)
//     and merged into one ranking of hits {source, title, snippet, score
//     0–1, ref}; a failing source is reported, never hides the others.
//
// Agents get five tools ([Service.Tools], offered to every agent):
// fetchDocs(library, topic?) (2,000 tokens), queryKnowledge(query,
// maxResults?) (1,500 tokens), recall(query, scope?), remember(fact, tags?,
// confidence?) (lands at the agent's scope, or the build's in a build) and
// correct(factId, reason, replacement?).
//
// Builds use it through [Service.Hits] (promptctx.KnowledgeSource): the facts
// visible to the task's agent in its build, matching cached and local docs
// and imported patterns not already in the prompt, within
// budgets.knowledgeShare of the prompt; the ids go to the task's
// provenance. After each attempt the facts used are credited (helpful when
// it passed, not helpful when its work failed; infrastructure failures are
// never held against them), and after each build the small model extracts
// up to 5 facts (confidence ≥ 0.6) at build scope, which the user can
// promote ([Service.KnowledgeAfterBuild]).
//
// References: "fact:f12" / "fact:u3" (workspace / user-level fact),
// "vault:12" (a vault node), "docs:SOURCE:LIBRARY#TOPIC" (a docs cache
// entry); [Service.Resolve] opens any of them.
package knowledge
