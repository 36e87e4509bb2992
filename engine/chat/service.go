package chat

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/failure"
	"github.com/nova-dev/nova/engine/promptctx"
	"github.com/nova-dev/nova/engine/run"
)

// RunRequest is one agent run of a turn.
type RunRequest struct {
	Agent, Task, Tier, Op string
	// Title is the user's message: what the run is about in listings (its
	// Task carries the session's history too).
	Title string
	// Extra are the system-prompt context blocks (rules, vault, playbook,
	// knowledge, wisdom).
	Extra   []string
	OnEvent func(agents.Event)
}

// ChangeOps are the user's decisions on a changeset, through the same path
// as the Changes screen (so they teach the vault and playbooks).
type ChangeOps interface {
	// Status is a changeset's status (pending, applied, discarded, reverted).
	Status(ctx context.Context, id uint64) (string, error)
	// Revert undoes an applied changeset (learned like an undo on Changes).
	Revert(ctx context.Context, id uint64, reason string) error
	// Discard drops a changeset nobody will review (a failed attempt).
	Discard(ctx context.Context, id uint64) error
}

// Deps are what a Service works with.
type Deps struct {
	Store *Store
	// Runs is the workspace's one run registry: a turn is a run.KindChat.
	Runs *run.Registry
	// Roster returns the agents a turn may go to.
	Roster func() []agents.Spec
	// Run runs one agent run (the facade's RunAgent path).
	Run func(ctx context.Context, req RunRequest) (agents.Run, error)
	// Context builds the workspace's context blocks (nil: none).
	Context promptctx.Provider
	// Root is the workspace root (mentions resolve inside it).
	Root string
	// DefaultAgent takes every turn a message or the session does not give
	// to another (config chat.agent; "" lets the router pick).
	DefaultAgent string
	// PromptTokens is budgets.promptTokens; HistoryShare and AttachShare
	// the parts of it the history and attachments may take.
	PromptTokens              int
	HistoryShare, AttachShare float64
	// Ping reports whether the model server answers; Host names it.
	Ping func(ctx context.Context) error
	Host string
	// WaitBackoff is the first pause between two pings of a server that
	// went away (doubling to 30 s); WaitLimit gives up (0 = never).
	WaitBackoff, WaitLimit time.Duration
	Changes                ChangeOps
	// Rehearse starts a rehearsal of a request (/rehearse); Plan writes a
	// PRD for a goal (/plan). Nil turns the command off.
	Rehearse func(ctx context.Context, agent, request string) (uint64, error)
	Plan     func(ctx context.Context, goal string) (string, error)
	// Publish hears every chat event.
	Publish func(Event)
}

// Service runs chat sessions.
type Service struct {
	d Deps

	mu sync.Mutex
	// tail is, per session, the done channel of its last queued turn: a
	// turn starts after the one before it ends (two windows sending at
	// once get two turns, in order).
	tail map[uint64]chan struct{}
	// active is, per session, the run key of its running turn.
	active map[uint64]uint64
	// ops are the Ops of the calls running turns, by run key.
	ops map[uint64]string
}

func (s *Service) setOp(key uint64, op string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if op == "" {
		delete(s.ops, key)
		return
	}
	s.ops[key] = op
}

func (s *Service) opOf(key uint64) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ops[key]
}

// New returns a service; defaults fill what d leaves out.
func New(d Deps) *Service {
	if d.Runs == nil {
		d.Runs = run.NewRegistry()
	}
	if d.Roster == nil {
		d.Roster = func() []agents.Spec { return nil }
	}
	if d.PromptTokens <= 0 {
		d.PromptTokens = 7168
	}
	if d.HistoryShare <= 0 {
		d.HistoryShare = 0.35
	}
	if d.AttachShare <= 0 {
		d.AttachShare = 0.25
	}
	if d.WaitBackoff <= 0 {
		d.WaitBackoff = time.Second
	}
	if d.Publish == nil {
		d.Publish = func(Event) {}
	}
	return &Service{d: d, tail: map[uint64]chan struct{}{}, active: map[uint64]uint64{}, ops: map[uint64]string{}}
}

// Store is the service's store.
func (s *Service) Store() *Store { return s.d.Store }

// SendOptions configure one message.
type SendOptions struct {
	// Op is copied into the agent run's events.
	Op string
}

// Reply is what a message came to: a turn, or a command's answer.
type Reply struct {
	Session Session `json:"session"`
	// Turn is the turn a request ran (nil for most commands).
	Turn *Turn `json:"turn,omitempty"`
	// Command is the `/` command that ran ("" for a request).
	Command string `json:"command,omitempty"`
	// Text is the command's answer.
	Text string `json:"text,omitempty"`
	// Sessions is /sessions' list.
	Sessions []Session `json:"sessions,omitempty"`
	// RehearsalID is /rehearse's session; PlanPath /plan's PRD.
	RehearsalID uint64 `json:"rehearsalId,omitempty"`
	PlanPath    string `json:"planPath,omitempty"`
}

// Send handles one message of a session (0 = a new session): a `/`
// command, or a request that becomes a turn. A turn blocks until it ends;
// a turn that fails is not an error (see Turn.Status and Turn.Error).
func (s *Service) Send(ctx context.Context, session uint64, msg string, o SendOptions) (Reply, error) {
	if strings.TrimSpace(msg) == "" {
		return Reply{}, ErrEmptyMessage
	}
	sess, err := s.session(ctx, session)
	if err != nil {
		return Reply{}, err
	}
	cmd, isCmd, err := ParseCommand(msg)
	if err != nil {
		return Reply{Session: sess}, err
	}
	if isCmd {
		return s.command(ctx, sess, cmd, o)
	}
	t, err := s.turn(ctx, sess, msg, o)
	sess, _ = s.d.Store.Get(context.WithoutCancel(ctx), sess.ID)
	if err != nil {
		return Reply{Session: sess}, err
	}
	return Reply{Session: sess, Turn: &t}, nil
}

func (s *Service) session(ctx context.Context, id uint64) (Session, error) {
	if id == 0 {
		sess, err := s.d.Store.Create(ctx, "")
		if err == nil {
			s.d.Publish(Event{Type: EventSession, Session: sess.ID})
		}
		return sess, err
	}
	return s.d.Store.Get(ctx, id)
}

// Cancel cancels the running turn of a session (the session stays).
func (s *Service) Cancel(session uint64) error {
	s.mu.Lock()
	key, ok := s.active[session]
	s.mu.Unlock()
	if !ok {
		return fmt.Errorf("session %d: %w", session, run.ErrNotActive)
	}
	return s.d.Runs.Cancel(run.Key{Kind: run.KindChat, ID: key})
}

// Running lists the sessions with a turn running in this process.
func (s *Service) Running() []uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]uint64, 0, len(s.active))
	for id := range s.active {
		out = append(out, id)
	}
	return out
}

// Transcript returns a session and its turns, each turn's changeset state
// read again.
func (s *Service) Transcript(ctx context.Context, id uint64) (Transcript, error) {
	sess, err := s.d.Store.Get(ctx, id)
	if err != nil {
		return Transcript{}, err
	}
	turns, err := s.d.Store.Turns(ctx, id)
	if err != nil {
		return Transcript{}, err
	}
	s.mu.Lock()
	activeKey, running := s.active[id]
	s.mu.Unlock()
	for i, t := range turns {
		if t.ChangesetID != 0 && s.d.Changes != nil {
			if st, err := s.d.Changes.Status(ctx, t.ChangesetID); err == nil {
				turns[i].Change = st
			}
		}
		if !t.Finished() && (!running || activeKey != t.RunKey) && !s.d.Runs.Active(run.Key{Kind: run.KindChat, ID: t.RunKey}) {
			// Not running here: a turn that was running when nova stopped.
			turns[i].Status = t.Status.OnOpen()
		}
	}
	return Transcript{Session: sess, Turns: turns}, nil
}

// queue appends a turn to its session's queue: wait on prev, close done.
func (s *Service) queue(ctx context.Context, t Turn) (Turn, chan struct{}, chan struct{}, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.d.Store.NewTurn(ctx, t)
	if err != nil {
		return t, nil, nil, err
	}
	prev := s.tail[t.Session]
	done := make(chan struct{})
	s.tail[t.Session] = done
	return t, prev, done, nil
}

func (s *Service) dequeue(session uint64, done chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	close(done)
	if s.tail[session] == done {
		delete(s.tail, session)
	}
}

func (s *Service) save(ctx context.Context, t *Turn, ev bool) {
	_ = s.d.Store.PutTurn(context.WithoutCancel(ctx), *t)
	if ev {
		cp := *t
		s.d.Publish(Event{Type: EventTurn, Session: t.Session, N: t.N, Turn: &cp, Op: s.opOf(t.RunKey)})
	}
}

// turn runs one request of a session.
func (s *Service) turn(ctx context.Context, sess Session, msg string, o SendOptions) (Turn, error) {
	specs := s.d.Roster()
	named, rest := SplitAgent(specs, msg)
	if strings.TrimSpace(rest) == "" {
		return Turn{}, fmt.Errorf("%w: say what @%s should do", ErrEmptyMessage, named)
	}
	var notes []string
	if len(rest) > MaxMessageBytes {
		notes = append(notes, fmt.Sprintf("the message was %d KB; only its first %d KB were sent", len(rest)>>10, MaxMessageBytes>>10))
		rest = cutBytes(rest, MaxMessageBytes)
	}
	chosen := sess.Agent
	if chosen == "" {
		chosen = s.d.DefaultAgent
	}
	route, err := RouteMessage(specs, rest, named, chosen)
	if err != nil {
		return Turn{}, err
	}
	t := Turn{Session: sess.ID, Request: rest, Notes: notes, Agent: route.Agent, Route: route.Reason,
		Tier: sess.Tier, Status: run.Pending}
	t, prev, done, err := s.queue(ctx, t)
	if err != nil {
		return t, err
	}
	s.setOp(t.RunKey, o.Op)
	defer s.setOp(t.RunKey, "")
	defer s.dequeue(sess.ID, done)
	s.save(ctx, &t, true)
	if prev != nil {
		select {
		case <-prev:
		case <-ctx.Done():
			t.Status, t.FinishedAt = run.Interrupted, time.Now()
			s.save(ctx, &t, true)
			return t, nil
		}
	}
	key := run.Key{Kind: run.KindChat, ID: t.RunKey}
	c, err := s.d.Runs.Claim(key)
	if err != nil {
		return t, err
	}
	defer s.d.Runs.Release(c)
	rctx, cancel := c.Context(ctx)
	defer cancel()
	s.mu.Lock()
	s.active[sess.ID] = t.RunKey
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if s.active[sess.ID] == t.RunKey {
			delete(s.active, sess.ID)
		}
		s.mu.Unlock()
	}()
	s.runTurn(rctx, c, &t, specs, o)
	return t, nil
}

// Resume runs a session's last turn again when it did not finish (nova
// stopped, or handed the workspace over, while it ran): same turn number,
// a fresh attempt. A session whose last turn finished has nothing to resume
// (ErrNothingToResume).
func (s *Service) Resume(ctx context.Context, session uint64, o SendOptions) (Turn, error) {
	turns, err := s.d.Store.Turns(ctx, session)
	if err != nil {
		return Turn{}, err
	}
	if len(turns) == 0 {
		return Turn{}, fmt.Errorf("session %d: %w", session, ErrNothingToResume)
	}
	t := turns[len(turns)-1]
	key := run.Key{Kind: run.KindChat, ID: t.RunKey}
	if s.d.Runs.Active(key) {
		return t, fmt.Errorf("session %d turn %d: %w", session, t.N, run.ErrActive)
	}
	switch t.Status.OnOpen() {
	case run.Interrupted, run.Pending:
	default:
		return t, fmt.Errorf("session %d: turn %d is %s: %w", session, t.N, t.Status, ErrNothingToResume)
	}
	s.mu.Lock()
	prev := s.tail[session]
	done := make(chan struct{})
	s.tail[session] = done
	s.mu.Unlock()
	defer s.dequeue(session, done)
	if prev != nil {
		select {
		case <-prev:
		case <-ctx.Done():
			return t, ctx.Err()
		}
	}
	c, err := s.d.Runs.Claim(key)
	if err != nil {
		return t, err
	}
	defer s.d.Runs.Release(c)
	rctx, cancel := c.Context(ctx)
	defer cancel()
	s.mu.Lock()
	s.active[session] = t.RunKey
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if s.active[session] == t.RunKey {
			delete(s.active, session)
		}
		s.mu.Unlock()
	}()
	t.Tools, t.Answer, t.Error, t.Attachments, t.Refused, t.Provenance = nil, "", "", nil, nil, nil
	t.Notes = append(t.Notes, "resumed after nova stopped while it ran")
	s.setOp(t.RunKey, o.Op)
	defer s.setOp(t.RunKey, "")
	s.runTurn(rctx, c, &t, s.d.Roster(), o)
	return t, nil
}

// runTurn builds the prompt and runs the agent, waiting for a model server
// that went away.
func (s *Service) runTurn(ctx context.Context, c *run.Control, t *Turn, specs []agents.Spec, o SendOptions) {
	task, extra := s.prompt(ctx, t, specs)
	t.Status = run.Running
	s.save(ctx, t, true)
	for {
		res, err := s.d.Run(ctx, RunRequest{Agent: t.Agent, Task: task, Title: t.Request, Tier: t.Tier, Op: o.Op, Extra: extra,
			OnEvent: func(ev agents.Event) { s.onAgentEvent(t, ev) }})
		t.RunID = res.ID
		if ctx.Err() != nil || failure.Of(err) == failure.Cancelled {
			t.Status = run.Interrupted
			if c.Canceled() {
				t.Status = run.Canceled
			}
			t.Error = "stopped before the agent finished"
			break
		}
		if unreachable(res, err) {
			if res.ChangesetID != 0 && s.d.Changes != nil {
				_ = s.d.Changes.Discard(context.WithoutCancel(ctx), res.ChangesetID)
			}
			if werr := s.waitForServer(ctx, c, t); werr != nil {
				t.Status, t.Error = run.Interrupted, werr.Error()
				if c.Canceled() {
					t.Status = run.Canceled
				}
				break
			}
			t.Status = run.Running
			s.save(ctx, t, true)
			continue
		}
		s.record(t, res, err)
		break
	}
	t.FinishedAt = time.Now()
	s.save(ctx, t, true)
}

func unreachable(res agents.Run, err error) bool {
	if err != nil {
		return failure.Of(err) == failure.Unreachable
	}
	return !res.Outcome.OK && res.Outcome.Failure != nil && res.Outcome.Failure.FailureKind() == failure.Unreachable
}

// record copies a finished run into its turn.
func (s *Service) record(t *Turn, res agents.Run, err error) {
	if err != nil {
		t.Status, t.Error = run.Failed, err.Error()
		return
	}
	t.ChangesetID, t.Files, t.Verified = res.ChangesetID, res.Files, res.Verified
	t.Display = agents.DisplayStatus(string(res.Status), len(res.Files), res.Verified)
	if res.ChangesetID != 0 {
		t.Change = "pending"
	}
	if res.Outcome.OK {
		t.Status, t.Answer = run.Done, strings.TrimSpace(res.Outcome.Result)
		if t.Answer == "" && len(t.Files) == 0 {
			t.Status = run.Failed
			t.Error = "the model answered with an empty message (/retry asks again)"
		}
		return
	}
	t.Status = run.Failed
	if f := res.Outcome.Failure; f != nil {
		t.Error = f.Message
		t.Answer = strings.TrimSpace(f.PartialResult)
	} else {
		t.Error = "the agent run failed"
	}
}

func (s *Service) onAgentEvent(t *Turn, ev agents.Event) {
	switch ev.Type {
	case agents.EventDelta:
		s.d.Publish(Event{Type: EventDelta, Session: t.Session, N: t.N, Text: ev.Text, Op: s.opOf(t.RunKey)})
	case agents.EventToolCall:
		tc := ToolCall{Tool: ev.Tool, Args: ev.Args}
		t.Tools = append(t.Tools, tc)
		s.d.Publish(Event{Type: EventTool, Session: t.Session, N: t.N, Tool: &tc, Op: s.opOf(t.RunKey)})
	case agents.EventProgress:
		if ev.Progress != nil {
			p := *ev.Progress
			t.Progress = &p
			s.d.Publish(Event{Type: EventProgress, Session: t.Session, N: t.N, Text: p.Line(), Progress: &p, Op: s.opOf(t.RunKey)})
		}
	case agents.EventToolResult:
		for i := len(t.Tools) - 1; i >= 0; i-- {
			if t.Tools[i].Tool == ev.Tool && t.Tools[i].Status == "" {
				t.Tools[i].Status, t.Tools[i].Result = ev.Status, cut(ev.Text, 2000)
				tc := t.Tools[i]
				s.d.Publish(Event{Type: EventTool, Session: t.Session, N: t.N, Tool: &tc, Op: s.opOf(t.RunKey)})
				break
			}
		}
	}
}

// waitForServer makes a turn wait for an unreachable model server, as a
// build task does: it pings with a doubling pause and returns nil once the
// server answers; an error when the turn is canceled, nova stops, or
// WaitLimit passes.
func (s *Service) waitForServer(ctx context.Context, c *run.Control, t *Turn) error {
	host := s.d.Host
	if host == "" {
		host = "the model server"
	}
	t.Status, t.Error = run.Waiting, "waiting for "+host
	s.save(ctx, t, true)
	s.d.Publish(Event{Type: EventWaiting, Session: t.Session, N: t.N, Text: t.Error, Op: s.opOf(t.RunKey)})
	if s.d.Ping == nil {
		return errors.New("the model server went away")
	}
	start, pause := time.Now(), s.d.WaitBackoff
	for {
		timer := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			timer.Stop()
			return errors.New("stopped while waiting for " + host)
		case <-c.Wake():
			timer.Stop()
			if c.Canceled() {
				return errors.New("canceled while waiting for " + host)
			}
			continue
		case <-timer.C:
		}
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err := s.d.Ping(pctx)
		cancel()
		if err == nil {
			t.Error = ""
			return nil
		}
		if s.d.WaitLimit > 0 && time.Since(start) >= s.d.WaitLimit {
			return fmt.Errorf("gave up waiting for %s after %s", host, s.d.WaitLimit.Round(time.Second))
		}
		pause = min(pause*2, 30*time.Second)
	}
}

// prompt builds a turn's task (history, attachments, the request) and its
// context blocks, and records provenance on the turn.
func (s *Service) prompt(ctx context.Context, t *Turn, specs []agents.Spec) (string, []string) {
	isAgent := func(p string) bool {
		for _, sp := range specs {
			if strings.EqualFold(sp.ID, p) {
				return true
			}
		}
		return false
	}
	var b strings.Builder
	if sess, err := s.d.Store.Get(ctx, t.Session); err == nil {
		if turns, err := s.d.Store.Turns(ctx, t.Session); err == nil {
			plan := History(sess, turns[:max(0, t.N-1)], int(float64(s.d.PromptTokens)*s.d.HistoryShare))
			if plan.Compacted {
				if _, err := s.d.Store.UpdateSession(ctx, t.Session, func(x *Session) { x.Summary, x.SummaryUpTo = plan.Summary, plan.UpTo }); err == nil {
					t.Compacted = true
					s.d.Publish(Event{Type: EventCompacted, Session: t.Session, N: t.N, Op: s.opOf(t.RunKey),
						Text: fmt.Sprintf("turns 1–%d were compacted into the session summary to fit the prompt", plan.UpTo)})
				}
			}
			if plan.Text != "" {
				b.WriteString(plan.Text + "\n\n")
				t.HistoryTokens = plan.Tokens
			}
		}
	}
	mentions := Mentions(t.Request, isAgent)
	atts, refused := Attach(s.d.Root, mentions, int(float64(s.d.PromptTokens)*s.d.AttachShare))
	t.Refused = refused
	if len(atts) > 0 {
		b.WriteString("Files the user attached:\n")
		for _, a := range atts {
			t.Attachments = append(t.Attachments, a.Attachment)
			b.WriteString("\n## " + a.Path + "\n" + a.Text + "\n")
		}
		b.WriteString("\n")
	}
	if len(refused) > 0 {
		b.WriteString("Files the user mentioned that could not be attached:\n")
		for _, r := range refused {
			b.WriteString("- " + r.Path + ": " + r.Reason + "\n")
		}
		b.WriteString("\n")
	}
	if b.Len() > 0 {
		b.WriteString("The user's request now:\n")
	}
	b.WriteString(t.Request)
	var extra []string
	if s.d.Context != nil {
		var files []string
		for _, a := range atts {
			files = append(files, a.Path)
		}
		blocks, err := s.d.Context.Blocks(ctx, promptctx.Request{Task: t.Request, Files: files, Agent: t.Agent, Tier: t.Tier,
			PromptTokens: s.d.PromptTokens})
		if err != nil {
			t.Notes = append(t.Notes, "context: "+err.Error())
		}
		extra = blocks.List()
		t.Provenance = blocks.Provenance
	}
	return b.String(), extra
}

// command runs a `/` command.
func (s *Service) command(ctx context.Context, sess Session, cmd Command, o SendOptions) (Reply, error) {
	r := Reply{Session: sess, Command: cmd.Name}
	switch cmd.Name {
	case "help":
		r.Text = HelpText()
	case "new":
		ns, err := s.d.Store.Create(ctx, "")
		if err != nil {
			return r, err
		}
		r.Session, r.Text = ns, fmt.Sprintf("session %d started", ns.ID)
		s.d.Publish(Event{Type: EventSession, Session: ns.ID})
	case "sessions":
		list, err := s.d.Store.List(ctx)
		if err != nil {
			return r, err
		}
		r.Sessions = list
		var b strings.Builder
		for _, x := range list {
			fmt.Fprintf(&b, "%4d  %-3d turns  %s  %s\n", x.ID, x.Turns, x.UpdatedAt.Local().Format("2006-01-02 15:04"), x.Title)
		}
		r.Text = strings.TrimRight(b.String(), "\n")
	case "agent":
		return s.setAgent(ctx, r, cmd.Arg)
	case "tier":
		return s.setTier(ctx, r, cmd.Arg)
	case "undo":
		return s.undo(ctx, r)
	case "retry":
		turns, err := s.d.Store.Turns(ctx, sess.ID)
		if err != nil {
			return r, err
		}
		if len(turns) == 0 {
			return r, errors.New("nothing to retry: this session has no request yet")
		}
		last := turns[len(turns)-1]
		msg := last.Request
		if strings.HasPrefix(last.Route, "@") {
			msg = last.Route + " " + msg
		}
		t, err := s.turn(ctx, sess, msg, o)
		r.Turn = &t
		r.Session, _ = s.d.Store.Get(context.WithoutCancel(ctx), sess.ID)
		return r, err
	case "rehearse", "plan":
		return s.handOff(ctx, r, cmd.Name)
	}
	return r, nil
}

func (s *Service) setAgent(ctx context.Context, r Reply, arg string) (Reply, error) {
	specs := s.d.Roster()
	if arg == "" {
		ids := make([]string, 0, len(specs))
		for _, sp := range specs {
			ids = append(ids, sp.ID)
		}
		cur := r.Session.Agent
		if cur == "" {
			cur = "auto (the router picks)"
		}
		r.Text = fmt.Sprintf("agent: %s\nchoose one with /agent ID (or /agent auto): %s", cur, strings.Join(ids, ", "))
		return r, nil
	}
	id := ""
	if !strings.EqualFold(arg, "auto") {
		for _, sp := range specs {
			if strings.EqualFold(sp.ID, arg) {
				id = sp.ID
			}
		}
		if id == "" {
			return r, fmt.Errorf("%w: %s is not in the roster (see /agent)", agents.ErrUnknownAgent, arg)
		}
	}
	sess, err := s.d.Store.UpdateSession(ctx, r.Session.ID, func(x *Session) { x.Agent = id })
	if err != nil {
		return r, err
	}
	r.Session, r.Text = sess, "agent: "+cmpOr(id, "auto (the router picks)")
	s.d.Publish(Event{Type: EventSession, Session: sess.ID, Text: r.Text})
	return r, nil
}

func (s *Service) setTier(ctx context.Context, r Reply, arg string) (Reply, error) {
	if arg == "" {
		r.Text = "tier: " + cmpOr(r.Session.Tier, "auto (the agent's own)") + "\nchoose one with /tier small|medium|large|auto"
		return r, nil
	}
	tier := strings.ToLower(arg)
	if tier == "auto" {
		tier = ""
	} else if !agents.Tier(tier).Valid() {
		return r, fmt.Errorf("tier %q: want small, medium, large or auto", arg)
	}
	sess, err := s.d.Store.UpdateSession(ctx, r.Session.ID, func(x *Session) { x.Tier = tier })
	if err != nil {
		return r, err
	}
	r.Session, r.Text = sess, "tier: "+cmpOr(tier, "auto (the agent's own)")
	s.d.Publish(Event{Type: EventSession, Session: sess.ID, Text: r.Text})
	return r, nil
}

// undo reverts the last change applied in the session.
func (s *Service) undo(ctx context.Context, r Reply) (Reply, error) {
	turns, err := s.d.Store.Turns(ctx, r.Session.ID)
	if err != nil {
		return r, err
	}
	if s.d.Changes != nil {
		for i := len(turns) - 1; i >= 0; i-- {
			t := turns[i]
			if t.ChangesetID == 0 {
				continue
			}
			st, err := s.d.Changes.Status(ctx, t.ChangesetID)
			if err != nil || st != "applied" {
				continue
			}
			if err := s.d.Changes.Revert(ctx, t.ChangesetID, "undone in chat"); err != nil {
				return r, fmt.Errorf("undo changeset %d: %w", t.ChangesetID, err)
			}
			t.Change = "reverted"
			s.save(ctx, &t, true)
			r.Turn = &t
			r.Text = fmt.Sprintf("reverted changeset %d of turn %d (%s)", t.ChangesetID, t.N, strings.Join(t.Files, ", "))
			return r, nil
		}
	}
	return r, fmt.Errorf("%w: no change of this session is applied", ErrNothingToUndo)
}

// handOff runs /rehearse and /plan.
func (s *Service) handOff(ctx context.Context, r Reply, name string) (Reply, error) {
	turns, err := s.d.Store.Turns(ctx, r.Session.ID)
	if err != nil {
		return r, err
	}
	if len(turns) == 0 {
		return r, fmt.Errorf("nothing to %s: this session has no request yet", name)
	}
	if name == "rehearse" {
		if s.d.Rehearse == nil {
			return r, errors.New("rehearsal is not available in this workspace")
		}
		last := turns[len(turns)-1]
		id, err := s.d.Rehearse(ctx, last.Agent, last.Request)
		if err != nil {
			return r, err
		}
		r.RehearsalID, r.Text = id, fmt.Sprintf("rehearsal %d: alternatives for %q (the Rehearsal screen, or `nova rehearsal show %d`)", id, oneLine(last.Request, 60), id)
		return r, nil
	}
	if s.d.Plan == nil {
		return r, errors.New("planning is not available in this workspace")
	}
	path, err := s.d.Plan(ctx, PlanGoal(r.Session, turns))
	if err != nil {
		return r, err
	}
	r.PlanPath, r.Text = path, "PRD written to "+path+" (build it: nova build run "+path+")"
	return r, nil
}

// PlanGoal turns a conversation into the goal of a PRD.
func PlanGoal(sess Session, turns []Turn) string {
	var b strings.Builder
	b.WriteString("Write a PRD for what this conversation asks for.\n")
	if sess.Summary != "" {
		b.WriteString("\nEarlier turns (summary):\n" + sess.Summary + "\n")
	}
	for _, t := range turns {
		if t.N <= sess.SummaryUpTo {
			continue
		}
		fmt.Fprintf(&b, "\nThe user: %s\n", cut(t.Request, 1500))
		if a := strings.TrimSpace(t.Answer); a != "" {
			fmt.Fprintf(&b, "%s: %s\n", t.Agent, cut(a, 1500))
		}
	}
	return b.String()
}

// Export renders a transcript as markdown.
func Export(tr Transcript) string {
	var b strings.Builder
	title := cmpOr(tr.Session.Title, "(untitled)")
	fmt.Fprintf(&b, "# Chat %d: %s\n\n", tr.Session.ID, title)
	fmt.Fprintf(&b, "Started %s, %d turns.\n", tr.Session.CreatedAt.UTC().Format(time.RFC3339), len(tr.Turns))
	if tr.Session.Summary != "" {
		fmt.Fprintf(&b, "\n> Summary of turns 1–%d (compacted out of the prompt):\n", tr.Session.SummaryUpTo)
		for l := range strings.SplitSeq(tr.Session.Summary, "\n") {
			b.WriteString("> " + l + "\n")
		}
	}
	for _, t := range tr.Turns {
		fmt.Fprintf(&b, "\n## Turn %d\n\n**You:** %s\n\n", t.N, t.Request)
		for _, a := range t.Attachments {
			fmt.Fprintf(&b, "- attached `%s` (%d bytes)\n", a.Path, a.Bytes)
		}
		for _, r := range t.Refused {
			fmt.Fprintf(&b, "- not attached `%s`: %s\n", r.Path, r.Reason)
		}
		fmt.Fprintf(&b, "**%s** (%s, %s):\n\n", cmpOr(t.Agent, "agent"), t.Route, cmpOr(t.Display, string(t.Status)))
		for _, tc := range t.Tools {
			fmt.Fprintf(&b, "- `%s %s` → %s\n", tc.Tool, oneLine(tc.Args, 100), cmpOr(tc.Status, "…"))
		}
		if len(t.Tools) > 0 {
			b.WriteString("\n")
		}
		if t.Answer != "" {
			b.WriteString(t.Answer + "\n")
		}
		if t.Error != "" {
			fmt.Fprintf(&b, "\n_%s_\n", t.Error)
		}
		if t.ChangesetID != 0 {
			fmt.Fprintf(&b, "\nChangeset %d: %s (%s)\n", t.ChangesetID, strings.Join(t.Files, ", "), changeState(t))
		}
		if len(t.Provenance) > 0 {
			b.WriteString("\nContext: ")
			for i, p := range t.Provenance {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(p.Block + " " + cmpOr(p.Title, p.ID))
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// cutBytes cuts s to at most n bytes on a rune boundary.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// ParseID reads a session id.
func ParseID(s string) (uint64, error) {
	id, err := strconv.ParseUint(strings.TrimPrefix(strings.TrimSpace(s), "#"), 10, 64)
	if err != nil || id == 0 {
		return 0, fmt.Errorf("%w: %q is not a session id", ErrNotFound, s)
	}
	return id, nil
}
