package engine

import "github.com/nova-dev/nova/engine/workspace"

// projectStack is the workspace's languages, frameworks and dependencies:
// detected once from its manifests (workspace.DetectStack), the languages
// and frameworks of config.yaml's stack: in place of the detected ones.
// Patterns about other stacks stay out of prompts; docs of its dependencies
// weigh more in knowledge searches.
func (l *core) projectStack() workspace.Stack {
	l.vs.stackOnce.Do(func() {
		l.vs.stack = l.Config().Stack.Merge(workspace.DetectStack(l.ws.Root))
	})
	return l.vs.stack
}
