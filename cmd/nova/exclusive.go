package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/owner"
)

// runExclusive runs an exclusive operation (db compact, db recover): this
// process must own the workspace with no other nova attached; fn runs with
// the database closed (it opens the file itself). Another owner: refused
// (exit 1) with a message naming it, its age and its clients.
//
// A damaged database cannot be opened, so no nova can own (or serve) the
// workspace: when owning it fails for that reason, no owner answered, and
// fn runs on the file directly (db recover reads it under its own lock,
// which still refuses a process that holds the file).
func runExclusive(ctx context.Context, env *Env, root, op string, fn func(ctx context.Context) error) error {
	ran := false
	err := owner.RunExclusive(ctx, ownerOptions(env, root), op, func(ctx context.Context) error {
		ran = true
		return fn(ctx)
	})
	if err != nil && !ran && errors.Is(err, engine.ErrDamaged) {
		return fn(ctx)
	}
	return err
}

// countNoun is "1 record", "2 records".
func countNoun(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
