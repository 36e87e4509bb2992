package run

// Status is the state of a run of any kind.
type Status string

// The states a run goes through. A run is created pending, runs, and stops
// in one of the other states; all but Done and Failed can be resumed.
const (
	Pending Status = "pending"
	Running Status = "running"
	// Waiting: the model server is unreachable; the run waits and resumes.
	Waiting Status = "waiting"
	// Paused by the user, or waiting for an answer or a choice.
	Paused Status = "paused"
	// Canceled by the user.
	Canceled Status = "canceled"
	// Interrupted: the process stopped (quit, crash) while it ran.
	Interrupted Status = "interrupted"
	Done        Status = "done"
	Failed      Status = "failed"
)

// Finished reports whether the run has ended for good.
func (s Status) Finished() bool { return s == Done || s == Failed }

// Resumable reports whether a stopped run can be run again.
func (s Status) Resumable() bool {
	switch s {
	case Pending, Waiting, Paused, Canceled, Interrupted:
		return true
	}
	return false
}

// Valid reports whether s is one of the states above.
func (s Status) Valid() bool {
	switch s {
	case Pending, Running, Waiting, Paused, Canceled, Interrupted, Done, Failed:
		return true
	}
	return false
}

// OnOpen is the state a run stored as s is in when a process opens the
// workspace: a run that was running or waiting when its process died is
// interrupted; every other state stays.
func (s Status) OnOpen() Status {
	if s == Running || s == Waiting {
		return Interrupted
	}
	return s
}
