package build

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/ace"
	"github.com/nova-dev/nova/engine/agents"
	enginebuild "github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/knowledge"
	engvault "github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/themes"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/keymap"
	"github.com/nova-dev/nova/tui/tuitest"
)

var epoch = time.Date(2026, 3, 14, 9, 30, 0, 0, time.UTC)

// testSource is what a test loop needs: the page's Source plus the event
// stream the root model would pump.
type testSource interface {
	Source
	Subscribe(ctx context.Context) <-chan engine.Event
}

// fakeSource is a deterministic Source over builds written as the page
// shows them (Details): it hands them out as the engine's values, so the
// page's adapters (data.go) turn them back into what the goldens show.
// Controls, starts and approval answers are recorded; events are fed by
// the test.
type fakeSource struct {
	root    string
	events  chan engine.Event
	mu      sync.Mutex
	builds  []Detail
	calls   []string
	started []string
	answers []string
	asked   []string
	err     error
}

var _ testSource = (*fakeSource)(nil)

func (f *fakeSource) Info() engine.Info {
	return engine.Info{Root: f.root, Dir: filepath.Join(f.root, ".nova")}
}

func (f *fakeSource) Subscribe(context.Context) <-chan engine.Event { return f.events }

// ListPlans lists the plans as the engine does, without a roster (any agent).
func (f *fakeSource) ListPlans(context.Context) ([]engine.PlanFile, error) {
	files, err := enginebuild.ListPlans(filepath.Join(f.root, ".nova", "prds"), nil)
	out := make([]engine.PlanFile, len(files))
	for i, p := range files {
		out[i] = engine.PlanFile{Path: p.Path, Name: p.Name, Title: p.Title, Tasks: p.Tasks}
		if p.Err != nil {
			out[i].Problem = p.Err.Error()
		}
	}
	return out, err
}

func engineBuild(s Summary) enginebuild.Build {
	id, _ := strconv.ParseUint(s.ID, 10, 64)
	return enginebuild.Build{ID: id, Name: s.Name, PRDPath: s.PRD, Status: enginebuild.Status(s.Status),
		CreatedAt: s.Started, FinishedAt: s.Finished, Total: s.Total,
		Counts: map[enginebuild.TaskStatus]int{enginebuild.TaskDone: s.Done},
		Reason: s.Reason, Tokens: s.Tokens, Active: s.Active}
}

func engineTask(t Task) enginebuild.Task {
	out := enginebuild.Task{ID: t.ID, Title: t.Title, Agent: t.Agent, Description: t.Description, Phase: t.Phase,
		Status: enginebuild.TaskStatus(t.Status), Dependencies: t.Deps, Attempts: t.Attempts,
		StartedAt: t.Started, FinishedAt: t.Finished, Duration: t.Elapsed, Tokens: t.Tokens, Score: t.GateScore,
		Reason: t.Reason, Output: t.Output, ChangesetID: t.ChangesetID, Rehearsed: t.Rehearsed,
		WaitFor: t.WaitFor, Question: t.Question, Warning: t.Warning, Verified: t.Verified}
	if v := t.Verdict; v != nil {
		out.Verdict = &agents.Verdict{Status: agents.VerdictStatus(v.Status)}
		for _, p := range v.Problems {
			// Problem lines are "[tier, status] subject: detail".
			head, detail, _ := strings.Cut(p, ": ")
			head = strings.TrimPrefix(head, "[")
			tier, rest, _ := strings.Cut(head, ", ")
			status, subject, _ := strings.Cut(rest, "] ")
			out.Verdict.Checks = append(out.Verdict.Checks, agents.Check{Tier: tier,
				Status: agents.VerdictStatus(status), Subject: subject, Detail: detail})
		}
		for len(out.Verdict.Checks) < v.Checks {
			out.Verdict.Checks = append(out.Verdict.Checks, agents.Check{Status: agents.VerdictPassed})
		}
	}
	if t.Status == StatusRunning {
		out.Attempts-- // the engine counts finished attempts
	}
	for _, a := range t.History {
		out.History = append(out.History, enginebuild.Attempt{N: a.N, Passed: a.Passed, Score: a.Score, Reason: a.Reason, Tokens: a.Tokens, Duration: a.Duration})
	}
	for _, g := range t.Gates {
		out.Gates = append(out.Gates, enginebuild.GateResult{Name: g.Name, Passed: g.Passed, Score: g.Score, Detail: g.Detail})
	}
	for _, v := range t.VaultNodes {
		out.VaultNodeIDs = append(out.VaultNodeIDs, v.ID)
	}
	for _, r := range t.Rules {
		out.RuleIDs = append(out.RuleIDs, r.ID)
	}
	out.CodeMapPaths = append(out.CodeMapPaths, t.CodeMap...)
	for _, k := range t.Knowledge {
		out.KnowledgeIDs = append(out.KnowledgeIDs, k.Ref)
	}
	return out
}

func (f *fakeSource) find(id uint64) (Detail, error) {
	for _, b := range f.builds {
		if b.ID == strconv.FormatUint(id, 10) {
			return b, nil
		}
	}
	return Detail{}, fmt.Errorf("build %d not found", id)
}

func (f *fakeSource) ListBuilds(context.Context) ([]enginebuild.Build, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []enginebuild.Build
	for _, b := range f.builds {
		out = append(out, engineBuild(b.Summary))
	}
	return out, nil
}

func (f *fakeSource) GetBuild(_ context.Context, id uint64) (enginebuild.Build, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, err := f.find(id)
	return engineBuild(d.Summary), err
}

func (f *fakeSource) BuildTasks(_ context.Context, id uint64) ([]enginebuild.Task, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, err := f.find(id)
	var out []enginebuild.Task
	for _, t := range d.Tasks {
		out = append(out, engineTask(t))
	}
	return out, err
}

// GetNodes returns the vault nodes the builds' tasks refer to.
func (f *fakeSource) GetNodes(_ context.Context, ids []uint64, _ bool) ([]engvault.Node, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	known := map[uint64]VaultRef{}
	for _, b := range f.builds {
		for _, t := range b.Tasks {
			for _, v := range t.VaultNodes {
				known[v.ID] = v
			}
		}
	}
	var out []engvault.Node
	for _, id := range ids {
		if v, ok := known[id]; ok {
			out = append(out, engvault.Node{ID: v.ID, Type: engvault.NodeType(v.Type), Content: v.Content})
		}
	}
	return out, nil
}

// KnowledgeItem resolves the knowledge the builds' tasks refer to; a ref
// titled "(gone)" is missing.
func (f *fakeSource) KnowledgeItem(_ context.Context, ref string) (knowledge.Item, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, b := range f.builds {
		for _, t := range b.Tasks {
			for _, k := range t.Knowledge {
				if k.Ref == ref && k.Title != "(no longer available)" {
					return knowledge.Item{Ref: ref, Source: k.Source, Title: k.Title}, nil
				}
			}
		}
	}
	return knowledge.Item{}, fmt.Errorf("%s: not found", ref)
}

// GetPlaybook returns a playbook with the rules the builds' tasks refer to.
func (f *fakeSource) GetPlaybook(_ context.Context, agent string) (ace.Playbook, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	pb := ace.Playbook{Agent: agent}
	for _, b := range f.builds {
		for _, t := range b.Tasks {
			for _, r := range t.Rules {
				if r.Agent == agent {
					pb.Rules = append(pb.Rules, ace.Rule{ID: r.ID, Content: r.Content})
				}
			}
		}
	}
	return pb, nil
}

func (f *fakeSource) CreateBuild(_ context.Context, path string, _ engine.BuildOptions) (enginebuild.Build, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return enginebuild.Build{}, f.err
	}
	f.started = append(f.started, path)
	return enginebuild.Build{ID: 1}, nil
}

func (f *fakeSource) control(verb string, id uint64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fmt.Sprintf("%s %d", verb, id))
	if d, err := f.find(id); err == nil && verb == "pause" && enginebuild.Status(d.Status).Finished() {
		return fmt.Errorf("build %d: %w (%s); nothing to pause", id, enginebuild.ErrFinished, d.Status) // as the engine says
	}
	return nil
}

// RunBuild records a resume of an existing build (a started one runs
// silently) and returns at once.
func (f *fakeSource) RunBuild(_ context.Context, id uint64, _ engine.RunBuildOptions) (enginebuild.Build, error) {
	f.mu.Lock()
	_, err := f.find(id)
	f.mu.Unlock()
	if err == nil {
		return enginebuild.Build{ID: id}, f.control("resume", id)
	}
	return enginebuild.Build{ID: id}, nil
}

func (f *fakeSource) PauseBuild(_ context.Context, id uint64) error  { return f.control("pause", id) }
func (f *fakeSource) CancelBuild(_ context.Context, id uint64) error { return f.control("cancel", id) }

// AnswerTask records the answer; a task that does not ask is refused as
// the engine does.
func (f *fakeSource) AnswerTask(_ context.Context, id uint64, task, text string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, err := f.find(id)
	if err != nil {
		return false, err
	}
	for _, t := range d.Tasks {
		if t.ID == task && t.Status == StatusWaiting && t.WaitFor == WaitUser {
			f.asked = append(f.asked, fmt.Sprintf("%d %s %s", id, task, text))
			return d.Active, nil
		}
	}
	return false, fmt.Errorf("task %s of build %d: %w", task, id, enginebuild.ErrNotWaiting)
}

func (f *fakeSource) AnswerApproval(_ context.Context, id string, approve bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answers = append(f.answers, fmt.Sprintf("%s %v", id, approve))
	return nil
}

// sample is a build in the middle of its second phase.
func sample() *fakeSource {
	at := func(m int) time.Time { return epoch.Add(time.Duration(m) * time.Minute) }
	d := Detail{
		Summary: Summary{ID: "3", Name: "UA Dashboard v1", PRD: ".nova/prds/prd-ua.json", Status: StatusRunning,
			Started: at(0), Done: 2, Total: 6, Tokens: 18400, Active: true},
		Tasks: []Task{
			{ID: "ua-01", Title: "Define the event schema", Agent: "PLUTO", Phase: 1, Status: StatusDone, Attempts: 1,
				Started: at(0), Elapsed: 94 * time.Second, Tokens: 5200, GateScore: 1,
				Gates: []Gate{{Name: "output", Passed: true, Score: 1}, {Name: "confinement", Passed: true, Score: 1}}},
			{ID: "ua-02", Title: "Ingest API for usage events", Agent: "MARS", Phase: 1, Status: StatusDone, Attempts: 2,
				Deps: []string{"ua-01"}, Started: at(2), Elapsed: 3*time.Minute + 12*time.Second, Tokens: 9100, GateScore: 0.85,
				History: []Attempt{{N: 1, Score: 0.3, Reason: "gate check:go build ./... failed: undefined: Event", Tokens: 4300},
					{N: 2, Passed: true, Score: 0.85, Tokens: 4800}},
				Gates: []Gate{{Name: "output", Passed: true, Score: 1}, {Name: "check:go build ./...", Passed: true, Score: 1, Detail: "ok in 2.1s"}}},
			{ID: "ua-03", Title: "Aggregate daily active users", Agent: "MARS", Phase: 2, Status: StatusRunning, Attempts: 1,
				Deps: []string{"ua-02"}, Started: at(6), Tokens: 4100,
				VaultNodes: []VaultRef{{ID: 12, Type: "strategy", Content: "Aggregate in SQL, not in Go loops"}, {ID: 40, Type: "mistake", Content: "Forgot the time zone when bucketing by day"}},
				Rules:      []RuleRef{{ID: "r2", Agent: "MARS", Content: "Wrap errors with the failing operation"}},
				Knowledge: []KnowledgeRef{{Ref: "fact:f3", Source: "facts", Title: "Daily buckets use the user's time zone"},
					{Ref: "docs:local:github.com/jackc/pgx/v5#pgxpool", Source: "docs", Title: "Go package github.com/jackc/pgx/v5/pgxpool v5.7.1"},
					{Ref: "fact:f9", Source: "facts", Title: "(no longer available)"}}},
			{ID: "ua-04", Title: "Dashboard layout", Agent: "VENUS", Phase: 2, Status: StatusWaiting, Deps: []string{"ua-01"}},
			{ID: "ua-05", Title: "Retention chart", Agent: "VENUS", Phase: 3, Status: StatusPending, Deps: []string{"ua-03", "ua-04"}},
			{ID: "ua-06", Title: "Load test the ingest path", Agent: "SATURN", Phase: 3, Status: StatusBlocked, Attempts: 2,
				Deps: []string{"ua-02"}, Reason: "gate check:go test ./... failed twice: TestIngestBurst timed out", GateScore: 0.4,
				Gates: []Gate{{Name: "output", Passed: true, Score: 1}, {Name: "check:go test ./...", Passed: false, Score: 0, Detail: "TestIngestBurst timed out after 30s"}}},
		},
	}
	old := Detail{Summary: Summary{ID: "2", Name: "Settings page", Status: StatusDone, Started: epoch.Add(-26 * time.Hour), Finished: epoch.Add(-25 * time.Hour), Done: 4, Total: 4}}
	return &fakeSource{builds: []Detail{d, old}}
}

// newSource is an empty fakeSource over a temp workspace root.
func newSource(t *testing.T, builds ...Detail) *fakeSource {
	t.Helper()
	return &fakeSource{root: t.TempDir(), events: make(chan engine.Event, 64), builds: builds}
}

// sampleSource is sample() over a temp workspace root.
func sampleSource(t *testing.T) *fakeSource {
	t.Helper()
	return newSource(t, sample().builds...)
}

// loop is a small Bubble Tea runtime: commands run in goroutines, their
// messages come back to the page in order, engine events are pumped like
// the root model does.
type loop struct {
	*tuitest.Driver
	t      *testing.T
	m      *Model
	toasts []string // status-bar messages (errors prefixed "error: ")
}

func newLoop(t *testing.T, src testSource, w, h int) *loop {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	c := &common.Common{Ctx: ctx, Width: w, Height: h + 3, Styles: themes.Build(themes.NovaDark), KeyMap: keymap.DefaultKeyMap()}
	m := New(c, src)
	m.SetClock(func() time.Time { return epoch.Add(8 * time.Minute) })
	m.SetSize(w, h)
	l := &loop{Driver: tuitest.DriveComponent(t, m), t: t, m: m}
	// The status-bar messages the page sends the root are recorded, in
	// order, not handed back to the page.
	l.Forward = func(msg tea.Msg) bool {
		switch msg := msg.(type) {
		case common.ToastMsg:
			l.toasts = append(l.toasts, msg.Text)
		case common.ErrMsg:
			l.toasts = append(l.toasts, "error: "+msg.Err.Error())
		default:
			return true
		}
		return false
	}
	l.PumpEvents(src.Subscribe(ctx))
	l.exec(m.Init())
	l.until(func() bool { return m.loaded && (m.cur == "" || m.detail != nil || m.detErr != nil) })
	return l
}

func (l *loop) exec(cmd tea.Cmd)           { l.Exec(cmd) }
func (l *loop) dispatch(msg tea.Msg)       { l.Dispatch(msg) }
func (l *loop) until(cond func() bool)     { l.t.Helper(); l.Until(cond) }
func (l *loop) settle(d time.Duration)     { l.Settle(d) }
func (l *loop) plain() string              { return l.Plain() }
func (l *loop) pinned() string             { return l.Pinned() }
func (l *loop) navs() []common.NavigateMsg { return l.Navs }

// press sends keys without waiting for what they start (tests wait with
// until).
func (l *loop) press(keys ...string) {
	for _, k := range keys {
		l.Dispatch(tuitest.Key(k))
	}
}
