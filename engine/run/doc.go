// Package run is nova's one engine for runs of every kind: builds, goal
// runs, workflow runs and chat turns.
//
// A kind of run is a planner: it decides which task runs next and what a
// task does. Everything about a run being alive in this process is here,
// once: the Registry of active runs (claim, release, pause, cancel, answer,
// wait, shutdown, running) and the Status machine every kind shares.
//
// A run's goroutine claims its Key, runs until it stops, and releases the
// Control; any other caller (a CLI command over the socket, a second window,
// quitting with a hand-over) acts on it through the Registry by its Key.
package run
