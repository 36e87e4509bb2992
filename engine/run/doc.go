// Package run is nova's one engine for runs of every kind: builds, goal
// runs, workflow runs and chat turns.
//
// A kind of run is a planner: it decides which task runs next and what a
// task does. Everything about a run being alive in this process is here,
// once: the Registry of active runs (claim, release, pause, cancel, answer,
// wake, wait, shutdown, running) and the Status machine every kind shares.
//
// A run's goroutine claims its Key, runs until it stops, and releases the
// Control; any other caller (a CLI command over the socket, a second window,
// quitting with a hand-over) acts on it through the Registry by its Key.
//
// Every run of every kind is also in one Index (bucket run_index/<kind>):
// kind, id, status, title, reason, times and the run it works for (a goal
// run's build, a workflow step's build). Each kind's store writes the
// Record with Put in the transaction that changes its own record, so the
// index never disagrees with the runs. Opening the workspace interrupts
// what was running when its process died (Interrupt, Status.OnOpen); Home's
// counts and the hand-over read it (List, Resumable).
package run
