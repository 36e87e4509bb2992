package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/owner"
	"github.com/nova-dev/nova/tui"
)

// tuiReconnectWait is how long a client TUI waits for its owner to answer
// again before it takes the workspace over (a killed owner is replaced
// within 2 s; a hand-over's new owner answers well within it).
const tuiReconnectWait = time.Second

// link is the TUI's tui.Link over its session.
type link struct {
	s           *session
	reconnected chan struct{}
	// serveCmd builds the command of a headless owner for a hand-over
	// (tests point it at the built binary).
	serveCmd func(root string, args ...string) (*exec.Cmd, error)
}

// joinForTUI joins the workspace as the TUI does: a client waits only
// briefly for a lost owner (then the TUI takes over), and tells the TUI
// when its event stream reconnected.
func joinForTUI(ctx context.Context, env *Env) (*session, *link, error) {
	l := &link{reconnected: make(chan struct{}, 1), serveCmd: serveCommand}
	s, err := joinWorkspace(ctx, env, func(o *joinOptions) {
		o.Client.ReconnectWait = tuiReconnectWait
		o.Client.OnReconnect = func(string) {
			select {
			case l.reconnected <- struct{}{}:
			default: // one pending refresh is enough
			}
		}
		o.Client.OnError = func(string, error) {} // the TUI sees a lost stream end; calls report their own errors
	})
	if err != nil {
		return nil, nil, err
	}
	l.s = s
	return s, l, nil
}

// serveCommand is `nova serve --workspace ROOT ARGS…` with this executable.
func serveCommand(root string, args ...string) (*exec.Cmd, error) {
	cmd, err := owner.ServeCommand(root)
	if err != nil {
		return nil, err
	}
	cmd.Args = append(cmd.Args, args...)
	return cmd, nil
}

var _ tui.Link = (*link)(nil)

// Status implements tui.Link.
func (l *link) Status(ctx context.Context) tui.LinkStatus {
	if o := l.s.owner(); o != nil {
		return tui.LinkStatus{Owner: true, OwnerPID: os.Getpid(), Clients: otherPIDs(o.Clients())}
	}
	info, err := owner.Probe(ctx, l.s.join.Root, l.s.join.Version)
	if err != nil {
		return tui.LinkStatus{Lost: true}
	}
	return tui.LinkStatus{OwnerPID: info.PID, Clients: otherPIDs(info.Clients)}
}

// otherPIDs lists the attached processes but this one (a TUI that took
// the workspace over still reaches it through its own client).
func otherPIDs(cs []owner.ClientInfo) []int {
	var out []int
	for _, c := range cs {
		if c.PID != os.Getpid() {
			out = append(out, c.PID)
		}
	}
	return out
}

// Rejoin implements tui.Link.
func (l *link) Rejoin(ctx context.Context) (tui.LinkStatus, error) {
	if err := l.s.rejoin(ctx); err != nil {
		return tui.LinkStatus{Lost: true}, err
	}
	return l.Status(ctx), nil
}

// Handover implements tui.Link: a headless `nova serve` takes the
// workspace; the work running here (builds, goal runs, workflow runs)
// stops when this process closes its engine (resumable) and the new owner
// resumes it, then exits once it ended and nobody works through it.
func (l *link) Handover(ctx context.Context, work engine.RunningWork) (string, error) {
	o := l.s.owner()
	if o == nil {
		return "", errors.New("this window does not own the workspace: nothing to hand over")
	}
	args := []string{"--until-idle"}
	for _, f := range []struct {
		flag string
		ids  []uint64
	}{{"--resume", work.Builds}, {"--resume-goal-runs", work.GoalRuns}, {"--resume-workflow-runs", work.WorkflowRuns}, {"--resume-chat", work.ChatSessions}} {
		if len(f.ids) > 0 {
			args = append(args, f.flag, joinIDs(f.ids, ","))
		}
	}
	cmd, err := l.serveCmd(l.s.join.Root, args...)
	if err != nil {
		return "", err
	}
	info, err := o.Handover(ctx, owner.HandoverOptions{Command: cmd})
	var he *owner.HandoverError
	if errors.As(err, &he) && he.Released {
		return "nova: " + err.Error(), nil // nothing to stay for: this nova no longer owns the workspace
	}
	if err != nil {
		return "", err
	}
	note := fmt.Sprintf("nova: handed the workspace over to nova serve (pid %d, log in .nova/%s)", info.PID, owner.LogName)
	switch n := work.Count(); {
	case n == 1:
		note += "; " + work.String() + " goes on there"
	case n > 1:
		note += "; " + work.String() + " go on there"
	}
	return note + "; it stops by itself once idle", nil
}

func joinIDs(ids []uint64, sep string) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatUint(id, 10)
	}
	return strings.Join(s, sep)
}

// Reconnected implements tui.Link.
func (l *link) Reconnected() <-chan struct{} { return l.reconnected }
