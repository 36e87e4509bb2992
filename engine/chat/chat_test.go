package chat_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/chat"
	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/promptctx"
	"github.com/nova-dev/nova/engine/run"
	"github.com/nova-dev/nova/storage"
)

func roster() []agents.Spec {
	return []agents.Spec{
		{ID: "MARS", Tools: []string{"readFile", "writeFile", "editFile"}, Tier: agents.TierLarge},
		{ID: "implementer", Tools: []string{"readFile", "writeFile", "editFile", "runCommand"}, Tier: agents.TierMedium},
		{ID: "VENUS", Tools: []string{"readFile"}},
		{ID: "researcher", Domain: "research", Tools: []string{"readFile", "listFiles", "searchFiles"}},
	}
}

func openDB(t *testing.T) *storage.DB {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "nova.db"), storage.Options{NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

type fakeChanges struct {
	mu     sync.Mutex
	status map[uint64]string
}

func (f *fakeChanges) Status(_ context.Context, id uint64) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if s, ok := f.status[id]; ok {
		return s, nil
	}
	return "", errors.New("no such changeset")
}
func (f *fakeChanges) Revert(_ context.Context, id uint64, _ string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.status[id] = "reverted"
	return nil
}
func (f *fakeChanges) Discard(_ context.Context, id uint64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.status[id] = "discarded"
	return nil
}

type rig struct {
	svc     *chat.Service
	mu      sync.Mutex
	prompts []chat.RunRequest
	events  []chat.Event
	answer  func(n int, req chat.RunRequest) (agents.Run, error)
	changes *fakeChanges
	runs    *run.Registry
	root    string
}

func newRig(t *testing.T, tweak func(*chat.Deps)) *rig {
	t.Helper()
	r := &rig{changes: &fakeChanges{status: map[uint64]string{}}, runs: run.NewRegistry(), root: t.TempDir()}
	r.answer = func(n int, req chat.RunRequest) (agents.Run, error) {
		return agents.Run{ID: uint64(n), Status: agents.RunDone, Outcome: agents.SpecialistOutcome{OK: true, Result: fmt.Sprintf("answer %d", n)}}, nil
	}
	d := chat.Deps{
		Store: chat.NewStore(openDB(t), nil), Runs: r.runs, Root: r.root,
		Roster: roster,
		Run: func(ctx context.Context, req chat.RunRequest) (agents.Run, error) {
			r.mu.Lock()
			r.prompts = append(r.prompts, req)
			n := len(r.prompts)
			r.mu.Unlock()
			if req.OnEvent != nil {
				req.OnEvent(agents.Event{Type: agents.EventDelta, Text: "tok"})
				req.OnEvent(agents.Event{Type: agents.EventToolCall, Tool: "readFile", Args: `{"path":"foo.go"}`})
				req.OnEvent(agents.Event{Type: agents.EventToolResult, Tool: "readFile", Status: "ok", Text: "package foo"})
				req.OnEvent(agents.Event{Type: agents.EventProgress, Progress: &agents.Progress{Percent: 20, Milestone: "stage a change"}})
			}
			return r.answer(n, req)
		},
		Changes: r.changes,
		Context: promptctx.ProviderFunc(func(_ context.Context, req promptctx.Request) (promptctx.Blocks, error) {
			return promptctx.Blocks{Rules: "<project_rules>wrap errors</project_rules>",
				Provenance: []promptctx.Item{{Block: "rules", Source: "AGENTS.md", ID: "AGENTS.md", Title: "AGENTS.md"}}}, nil
		}),
		Publish: func(ev chat.Event) { r.mu.Lock(); r.events = append(r.events, ev); r.mu.Unlock() },
	}
	if tweak != nil {
		tweak(&d)
	}
	r.svc = chat.New(d)
	return r
}

func TestRouterPicksAWriterForAChangeAndAReaderForAQuestion(t *testing.T) {
	t.Parallel()
	specs := roster()
	r, err := chat.RouteMessage(specs, "fix the bug in foo.go: it returns nil", "", "")
	require.NoError(t, err)
	assert.Equal(t, "implementer", r.Agent, "the roster's implementer")
	assert.True(t, r.Writes)
	r, err = chat.RouteMessage(specs, "why does foo.go return nil?", "", "")
	require.NoError(t, err)
	assert.Equal(t, "researcher", r.Agent)
	assert.False(t, r.Writes)
	r, err = chat.RouteMessage(specs, "no, also handle nil", "", "")
	require.NoError(t, err)
	assert.Equal(t, "implementer", r.Agent, "a follow-up change is a change")
	r, err = chat.RouteMessage(specs, "anything", "mars", "")
	require.NoError(t, err)
	assert.Equal(t, "MARS", r.Agent)
	assert.Equal(t, "@MARS", r.Reason)
	r, err = chat.RouteMessage(specs, "fix it", "", "VENUS")
	require.NoError(t, err)
	assert.Equal(t, "VENUS", r.Agent, "the session's /agent wins over the router")
	_, err = chat.RouteMessage(specs, "x", "NOPE", "")
	require.ErrorIs(t, err, chat.ErrNoAgent)
	_, err = chat.RouteMessage(nil, "x", "", "")
	require.ErrorIs(t, err, chat.ErrNoAgent)
	// Without an implementer the smallest writer takes a change.
	r, err = chat.RouteMessage(specs[:1], "add a test", "", "")
	require.NoError(t, err)
	assert.Equal(t, "MARS", r.Agent)
}

func TestSplitAgentTakesOnlyRosterNames(t *testing.T) {
	t.Parallel()
	a, rest := chat.SplitAgent(roster(), "@mars fix it")
	assert.Equal(t, "MARS", a)
	assert.Equal(t, "fix it", rest)
	a, rest = chat.SplitAgent(roster(), "@foo.go is broken")
	assert.Empty(t, a)
	assert.Equal(t, "@foo.go is broken", rest)
}

func TestMentionsRefuseWhatCannotBeAttached(t *testing.T) {
	t.Parallel()
	root, out := t.TempDir(), t.TempDir()
	write := func(dir, rel string, data []byte) {
		p := filepath.Join(dir, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, data, 0o644))
	}
	write(root, "foo.go", []byte("package foo\n"))
	write(root, "bin.dat", []byte{0x7f, 'E', 'L', 'F', 0, 1, 2})
	write(root, "huge.txt", []byte(strings.Repeat("x", chat.MaxAttachBytes+1)))
	write(root, "sub/in.go", []byte("package sub\n"))
	write(out, "secret.txt", []byte("secret"))
	require.NoError(t, os.Symlink(filepath.Join(out, "secret.txt"), filepath.Join(root, "out.txt")))
	require.NoError(t, os.Symlink(filepath.Join(root, "sub/in.go"), filepath.Join(root, "in.go")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(root, "pipe"), 0o644))
	msg := "look at @foo.go, @bin.dat @huge.txt @sub @out.txt @in.go @pipe @../etc/passwd @missing.go and @MARS"
	paths := chat.Mentions(msg, func(s string) bool { return s == "MARS" })
	assert.Equal(t, []string{"foo.go", "bin.dat", "huge.txt", "sub", "out.txt", "in.go", "pipe", "../etc/passwd", "missing.go"}, paths)
	ok, refused := chat.Attach(root, paths, 100000)
	require.Len(t, ok, 2)
	assert.Equal(t, "foo.go", ok[0].Path)
	assert.Contains(t, ok[0].Text, "package foo")
	assert.Equal(t, "in.go", ok[1].Path, "a symlink inside the workspace is followed")
	reasons := map[string]string{}
	for _, r := range refused {
		reasons[r.Path] = r.Reason
	}
	assert.Contains(t, reasons["bin.dat"], "binary")
	assert.Contains(t, reasons["huge.txt"], "too large")
	assert.Contains(t, reasons["sub"], "directory")
	assert.Contains(t, reasons["out.txt"], "outside the workspace")
	assert.Contains(t, reasons["pipe"], "not a regular file")
	assert.Contains(t, reasons["../etc/passwd"], "outside the workspace")
	assert.Contains(t, reasons["missing.go"], "no such file")
	// Past the budget a file is refused, with the reason.
	_, refused = chat.Attach(root, []string{"foo.go"}, 1)
	require.Len(t, refused, 1)
	assert.Contains(t, refused[0].Reason, "does not fit")
}

func TestParseCommand(t *testing.T) {
	t.Parallel()
	c, ok, err := chat.ParseCommand(" /agent MARS ")
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, chat.Command{Name: "agent", Arg: "MARS"}, c)
	_, ok, err = chat.ParseCommand("/tmp/x is full")
	require.NoError(t, err)
	assert.False(t, ok, "a path is not a command")
	_, ok, err = chat.ParseCommand("/nope")
	assert.True(t, ok)
	require.ErrorContains(t, err, "unknown command /nope")
	assert.Len(t, chat.CompleteCommand("re"), 2) // rehearse, retry
	assert.Contains(t, chat.HelpText(), "/undo")
}

func TestIsQuestion(t *testing.T) {
	t.Parallel()
	for msg, want := range map[string]bool{
		"why is this slow?": true, "how does the vault work": true, "what calls Reverse?": true,
		"fix the bug in foo.go": false, "add a health check": false, "please rename X to Y": false,
		"can you fix it?": false, "": false, "is foo.go used anywhere?": true,
	} {
		assert.Equal(t, want, chat.IsQuestion(msg), msg)
	}
}

func TestTurnCarriesHistoryContextAndProvenance(t *testing.T) {
	t.Parallel()
	r := newRig(t, nil)
	ctx := context.Background()
	rep, err := r.svc.Send(ctx, 0, "fix the bug in foo.go", chat.SendOptions{})
	require.NoError(t, err)
	require.NotNil(t, rep.Turn)
	assert.Equal(t, run.Done, rep.Turn.Status)
	assert.Equal(t, "answer 1", rep.Turn.Answer)
	assert.Equal(t, "implementer", rep.Turn.Agent)
	require.Len(t, rep.Turn.Tools, 1)
	assert.Equal(t, "ok", rep.Turn.Tools[0].Status)
	assert.Equal(t, "fix the bug in foo.go", rep.Session.Title)
	require.Len(t, rep.Turn.Provenance, 1)
	assert.Equal(t, "AGENTS.md", rep.Turn.Provenance[0].Source)
	assert.Equal(t, []string{"<project_rules>wrap errors</project_rules>"}, r.prompts[0].Extra)
	assert.NotContains(t, r.prompts[0].Task, "chat_history", "a first turn has no history")

	rep2, err := r.svc.Send(ctx, rep.Session.ID, "no, also handle nil", chat.SendOptions{})
	require.NoError(t, err)
	assert.Equal(t, 2, rep2.Turn.N)
	assert.Contains(t, r.prompts[1].Task, "fix the bug in foo.go", "the follow-up carries the first request")
	assert.Contains(t, r.prompts[1].Task, "answer 1", "and the first answer")
	assert.True(t, strings.HasSuffix(r.prompts[1].Task, "no, also handle nil"))
	assert.Equal(t, "no, also handle nil", r.prompts[1].Title, "the run is listed by the message, not the history")
	assert.Positive(t, rep2.Turn.HistoryTokens)

	tr, err := r.svc.Transcript(ctx, rep.Session.ID)
	require.NoError(t, err)
	require.Len(t, tr.Turns, 2)
	md := chat.Export(tr)
	assert.Contains(t, md, "## Turn 1")
	assert.Contains(t, md, "**You:** no, also handle nil")
	assert.Contains(t, md, "rules AGENTS.md")

	var types []chat.EventType
	for _, ev := range r.events {
		types = append(types, ev.Type)
	}
	assert.Contains(t, types, chat.EventDelta)
	assert.Contains(t, types, chat.EventTool)
	assert.Contains(t, types, chat.EventTurn)
	assert.Contains(t, types, chat.EventProgress, "the run's progress estimate reaches the chat (issue 31)")
	require.NotNil(t, tr.Turns[0].Progress, "the turn keeps its last estimate")
	assert.Equal(t, 20, tr.Turns[0].Progress.Percent)
	assert.Equal(t, "stage a change", tr.Turns[0].Progress.Milestone)
}

func TestOlderTurnsAreCompactedIntoAVisibleSummary(t *testing.T) {
	t.Parallel()
	r := newRig(t, func(d *chat.Deps) { d.PromptTokens, d.HistoryShare = 2000, 0.3 })
	r.answer = func(n int, _ chat.RunRequest) (agents.Run, error) {
		return agents.Run{Status: agents.RunDone, Outcome: agents.SpecialistOutcome{OK: true, Result: fmt.Sprintf("long answer %d ", n) + strings.Repeat("words ", 150)}}, nil
	}
	ctx := context.Background()
	rep, err := r.svc.Send(ctx, 0, "first request", chat.SendOptions{})
	require.NoError(t, err)
	id := rep.Session.ID
	for i := 2; i <= 5; i++ {
		rep, err = r.svc.Send(ctx, id, fmt.Sprintf("request %d", i), chat.SendOptions{})
		require.NoError(t, err)
	}
	sess, err := r.svc.Store().Get(ctx, id)
	require.NoError(t, err)
	assert.Positive(t, sess.SummaryUpTo, "older turns were compacted")
	assert.Contains(t, sess.Summary, "turn 1: first request")
	last := r.prompts[len(r.prompts)-1].Task
	assert.Contains(t, last, "Summary of turns 1–")
	assert.Contains(t, last, "first request", "compacted, never dropped")
	assert.Contains(t, last, "long answer 4", "the newest turn stays whole")
	var compacted bool
	for _, ev := range r.events {
		compacted = compacted || ev.Type == chat.EventCompacted
	}
	assert.True(t, compacted, "the user is told")
}

func TestTwoWindowsSendingAtOnceGetOrderedTurns(t *testing.T) {
	t.Parallel()
	r := newRig(t, nil)
	ctx := context.Background()
	rep, err := r.svc.Send(ctx, 0, "/new", chat.SendOptions{})
	require.NoError(t, err)
	id := rep.Session.ID
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := r.svc.Send(ctx, id, fmt.Sprintf("fix thing %d", i), chat.SendOptions{})
			assert.NoError(t, err)
		}()
	}
	wg.Wait()
	tr, err := r.svc.Transcript(ctx, id)
	require.NoError(t, err)
	require.Len(t, tr.Turns, 6, "nothing lost")
	seen := map[string]bool{}
	for i, turn := range tr.Turns {
		assert.Equal(t, i+1, turn.N)
		assert.Equal(t, run.Done, turn.Status)
		seen[turn.Request] = true
		// Each turn's prompt carries every turn before it.
		if i > 0 {
			assert.Contains(t, r.prompts[i].Task, tr.Turns[i-1].Request)
		}
	}
	assert.Len(t, seen, 6)
}

func TestCancelStopsTheTurnNotTheSession(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	r := newRig(t, nil)
	r.answer = func(n int, req chat.RunRequest) (agents.Run, error) {
		if n == 1 {
			close(started)
			<-r.ctxOf(req)
		}
		return agents.Run{Status: agents.RunDone, Outcome: agents.SpecialistOutcome{OK: true, Result: "ok"}}, nil
	}
	ctx := context.Background()
	rep, err := r.svc.Send(ctx, 0, "/new", chat.SendOptions{})
	require.NoError(t, err)
	done := make(chan chat.Reply)
	go func() {
		rep, err := r.svc.Send(ctx, rep.Session.ID, "fix it", chat.SendOptions{})
		assert.NoError(t, err)
		done <- rep
	}()
	<-started
	require.NoError(t, r.svc.Cancel(rep.Session.ID))
	got := <-done
	assert.Equal(t, run.Canceled, got.Turn.Status)
	rep2, err := r.svc.Send(ctx, rep.Session.ID, "fix it again", chat.SendOptions{})
	require.NoError(t, err)
	assert.Equal(t, run.Done, rep2.Turn.Status, "the session goes on")
	require.ErrorIs(t, r.svc.Cancel(rep.Session.ID), run.ErrNotActive)
}

// ctxOf is the context of the turn's run: the fake runner waits on the
// registry's control through the rig.
func (r *rig) ctxOf(chat.RunRequest) <-chan struct{} {
	for {
		for _, id := range r.runs.Running(run.KindChat) {
			if c, ok := r.runs.Get(run.Key{Kind: run.KindChat, ID: id}); ok {
				ch := make(chan struct{})
				go func() {
					for !c.Canceled() {
						<-c.Wake()
					}
					close(ch)
				}()
				return ch
			}
		}
	}
}

func TestAServerThatGoesAwayMakesTheTurnWaitAndResume(t *testing.T) {
	t.Parallel()
	var pings int
	r := newRig(t, func(d *chat.Deps) {
		d.WaitBackoff = 1
		d.Host = "http://127.0.0.1:11434"
		d.Ping = func(context.Context) error {
			pings++
			if pings < 3 {
				return errors.New("refused")
			}
			return nil
		}
	})
	r.answer = func(n int, _ chat.RunRequest) (agents.Run, error) {
		if n == 1 {
			return agents.Run{ChangesetID: 9}, &llm.UnreachableError{Host: "h", Err: errors.New("refused")}
		}
		return agents.Run{Status: agents.RunDone, Outcome: agents.SpecialistOutcome{OK: true, Result: "back"}}, nil
	}
	r.changes.status[9] = "pending"
	rep, err := r.svc.Send(context.Background(), 0, "fix it", chat.SendOptions{})
	require.NoError(t, err)
	assert.Equal(t, run.Done, rep.Turn.Status)
	assert.Equal(t, "back", rep.Turn.Answer)
	assert.Equal(t, 3, pings)
	assert.Equal(t, "discarded", r.changes.status[9], "the failed attempt's changeset is dropped")
	var waited bool
	for _, ev := range r.events {
		waited = waited || (ev.Type == chat.EventWaiting && strings.Contains(ev.Text, "127.0.0.1:11434"))
	}
	assert.True(t, waited)
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	r := newRig(t, nil)
	ctx := context.Background()
	_, err := r.svc.Send(ctx, 0, "   ", chat.SendOptions{})
	require.ErrorIs(t, err, chat.ErrEmptyMessage)
	_, err = r.svc.Send(ctx, 4242, "hello", chat.SendOptions{})
	require.ErrorIs(t, err, chat.ErrNotFound, "a session id that does not exist")
	// A 5 MB paste is cut, and the turn says so.
	rep, err := r.svc.Send(ctx, 0, "fix "+strings.Repeat("é", 5<<20/2), chat.SendOptions{})
	require.NoError(t, err)
	assert.LessOrEqual(t, len(rep.Turn.Request), chat.MaxMessageBytes)
	require.Len(t, rep.Turn.Notes, 1)
	assert.Contains(t, rep.Turn.Notes[0], "only its first 64 KB were sent")
	// /undo with nothing to undo.
	_, err = r.svc.Send(ctx, rep.Session.ID, "/undo", chat.SendOptions{})
	require.ErrorIs(t, err, chat.ErrNothingToUndo)
	// An empty answer is a failed turn that says why.
	r.answer = func(int, chat.RunRequest) (agents.Run, error) {
		return agents.Run{Status: agents.RunDone, Outcome: agents.SpecialistOutcome{OK: true, Result: "  "}}, nil
	}
	rep, err = r.svc.Send(ctx, rep.Session.ID, "fix it", chat.SendOptions{})
	require.NoError(t, err)
	assert.Equal(t, run.Failed, rep.Turn.Status)
	assert.Contains(t, rep.Turn.Error, "empty message")
	_, err = r.svc.Send(ctx, rep.Session.ID, "/nope", chat.SendOptions{})
	require.ErrorContains(t, err, "unknown command")
	_, err = r.svc.Send(ctx, rep.Session.ID, "@MARS", chat.SendOptions{})
	require.ErrorIs(t, err, chat.ErrEmptyMessage)
}

func TestCommands(t *testing.T) {
	t.Parallel()
	var rehearsed, planned string
	r := newRig(t, func(d *chat.Deps) {
		d.Rehearse = func(_ context.Context, agent, req string) (uint64, error) {
			rehearsed = agent + ": " + req
			return 7, nil
		}
		d.Plan = func(_ context.Context, goal string) (string, error) { planned = goal; return ".nova/prds/x.md", nil }
	})
	r.answer = func(n int, _ chat.RunRequest) (agents.Run, error) {
		return agents.Run{Status: agents.RunDone, ChangesetID: uint64(100 + n), Files: []string{"foo.go"}, Verified: true,
			Outcome: agents.SpecialistOutcome{OK: true, Result: "fixed"}}, nil
	}
	ctx := context.Background()
	rep, err := r.svc.Send(ctx, 0, "fix foo", chat.SendOptions{})
	require.NoError(t, err)
	id := rep.Session.ID
	r.changes.status[101] = "applied"
	rep, err = r.svc.Send(ctx, id, "/undo", chat.SendOptions{})
	require.NoError(t, err)
	assert.Contains(t, rep.Text, "reverted changeset 101")
	assert.Equal(t, "reverted", r.changes.status[101])
	_, err = r.svc.Send(ctx, id, "/undo", chat.SendOptions{})
	require.ErrorIs(t, err, chat.ErrNothingToUndo)

	rep, err = r.svc.Send(ctx, id, "/agent mars", chat.SendOptions{})
	require.NoError(t, err)
	assert.Equal(t, "MARS", rep.Session.Agent)
	_, err = r.svc.Send(ctx, id, "/agent nobody", chat.SendOptions{})
	require.ErrorIs(t, err, agents.ErrUnknownAgent)
	rep, err = r.svc.Send(ctx, id, "/tier large", chat.SendOptions{})
	require.NoError(t, err)
	assert.Equal(t, "large", rep.Session.Tier)
	_, err = r.svc.Send(ctx, id, "/tier huge", chat.SendOptions{})
	require.Error(t, err)

	rep, err = r.svc.Send(ctx, id, "/retry", chat.SendOptions{})
	require.NoError(t, err)
	require.NotNil(t, rep.Turn)
	assert.Equal(t, "fix foo", rep.Turn.Request)
	assert.Equal(t, "MARS", rep.Turn.Agent, "the session's agent")
	assert.Equal(t, "large", rep.Turn.Tier)

	rep, err = r.svc.Send(ctx, id, "/rehearse", chat.SendOptions{})
	require.NoError(t, err)
	assert.Equal(t, uint64(7), rep.RehearsalID)
	assert.Equal(t, "MARS: fix foo", rehearsed)
	rep, err = r.svc.Send(ctx, id, "/plan", chat.SendOptions{})
	require.NoError(t, err)
	assert.Equal(t, ".nova/prds/x.md", rep.PlanPath)
	assert.Contains(t, planned, "The user: fix foo")

	rep, err = r.svc.Send(ctx, id, "/sessions", chat.SendOptions{})
	require.NoError(t, err)
	assert.Len(t, rep.Sessions, 1)
	rep, err = r.svc.Send(ctx, id, "/new", chat.SendOptions{})
	require.NoError(t, err)
	assert.NotEqual(t, id, rep.Session.ID)
	rep, err = r.svc.Send(ctx, id, "/help", chat.SendOptions{})
	require.NoError(t, err)
	assert.Contains(t, rep.Text, "/rehearse")
	// /retry and /plan on an empty session say so.
	_, err = r.svc.Send(ctx, rep.Session.ID, "/new", chat.SendOptions{})
	require.NoError(t, err)
}

func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{"/agent MARS", "/", "//x", "/tmp/x", "/UNDO", "/tier\tlarge", "\x00/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, ok, err := chat.ParseCommand(s)
		if ok && err == nil {
			assert.NotEmpty(t, c.Name)
		}
	})
}

func FuzzMentions(f *testing.F) {
	for _, s := range []string{"@foo.go", "a @b @c.", "@@", "@../x", "mail a@b.com", "@\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range chat.Mentions(s, nil) {
			assert.NotEmpty(t, p)
		}
		_ = chat.IsQuestion(s)
	})
}

func TestMalformedInputNeverPanics(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "/", "@", "@ ", "/ x", "\xff\xfe", strings.Repeat("@", 1000)} {
		_, _, _ = chat.ParseCommand(s)
		assert.NotPanics(t, func() { chat.Mentions(s, nil); chat.IsQuestion(s); chat.SplitAgent(roster(), s) })
	}
	assert.Empty(t, chat.Mentions("mail me at a@b.com", nil), "an address is not a mention")
}
