// Package goal runs goals (`nova run "GOAL"`): a lead agent (SUN unless
// told otherwise) loops think → delegate → evaluate until the goal is met.
//
// Each turn the lead gives one structured decision (llm structured output
// against [DecisionSchema]), validated before anything happens
// ([Validate]): delegate (an agent of the roster, a task, the board
// artifacts to include), complete (with a summary) or escalate (a question
// for the user). A decision that names an unknown agent or artifact, an
// empty or oversized task, or an action that is not one of the three is
// rejected and the lead is told why on its next turn; it never runs.
//
// A delegation is one task of the run's own build (a led build, see
// engine/build): it runs through the agent loop with the usual staging,
// gates, verification, retries and learning, shares the run's session
// board (engine/board) and ends with a handoff. Its outcome — status,
// verdict, failure kind, recovery hints, handoff — goes back to the lead.
//
// Limits (config orchestrator.*): turns, tokens and active wall time; the
// run stops early when the lead completes, and a stuck loop (the same
// delegation a third time, or three rejected decisions in a row) stops with
// a clear reason. Every turn is committed (buckets goal_runs and
// goal_turns) before its event is published, so a run killed at any moment
// resumes ([Engine.Run] again) where it stopped: an unfinished delegation
// runs on, nothing done is redone. Infrastructure failures of the lead's
// own model calls follow engine/failure: an unreachable server is waited
// for (a headless run gives up after the wait limit, interrupted and
// resumable), a misconfiguration fails at once with what to do, nothing of
// it is learned.
package goal
