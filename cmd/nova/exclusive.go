package main

import (
	"context"
	"fmt"
)

// runExclusive runs an exclusive operation (one that needs the workspace
// database to itself: db recover) on the workspace at root.
//
// Today every nova process opens the database itself, so fn simply runs
// (the operation meets a lock held by another nova as storage.ErrInUse).
// When the owner transport lands (int-ipc), this whole file is replaced by
// its runExclusive (owner.RunExclusive: refuse with the owner's pid and
// clients while another nova owns the workspace, else own it with the
// database closed while fn runs); the callers do not change.
func runExclusive(ctx context.Context, _ *Env, _ string, _ string, fn func(ctx context.Context) error) error {
	return fn(ctx)
}

// countNoun is "1 record", "2 records".
func countNoun(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
