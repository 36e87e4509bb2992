package agents

// DisplayStatus is the status a user sees for a run or a task: status as it
// is, except "done (unverified)" for a done one that changed files without
// being Verified (no check or command ran the changed code and passed).
//
// The same helper comes with branch verify (engine/agents/run.go); the
// merge keeps one copy.
func DisplayStatus(status string, changedFiles int, verified bool) string {
	if status == string(RunDone) && changedFiles > 0 && !verified {
		return "done (unverified)"
	}
	return status
}
