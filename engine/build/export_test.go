package build

// Test hooks into the package's internals.

var (
	JSONProblem = jsonProblem
	SafeName    = safeName
)

// SetTaskStatus overwrites a stored task's status (simulates a crash in
// the middle of a run).
func (e *Engine) SetTaskStatus(id uint64, taskID string, st TaskStatus) error {
	_, err := e.store.updateBuild(id, func(b *Build, ts []Task) ([]Task, error) {
		for _, t := range ts {
			if t.ID == taskID {
				t.Status = st
				t.History = append(t.History, Attempt{N: t.Attempts + 1})
				return []Task{t}, nil
			}
		}
		return nil, nil
	})
	return err
}

// SetBuildStatus overwrites a stored build's status (simulates a process
// killed while the build ran).
func (e *Engine) SetBuildStatus(id uint64, st Status) error {
	_, err := e.store.updateBuild(id, func(b *Build, _ []Task) ([]Task, error) {
		b.Status = st
		return nil, nil
	})
	return err
}
