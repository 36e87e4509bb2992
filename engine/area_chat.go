package engine

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/engine/chat"
	"github.com/nova-dev/nova/engine/prd"
	"github.com/nova-dev/nova/engine/promptctx"
	"github.com/nova-dev/nova/engine/rehearsal"
	"github.com/nova-dev/nova/engine/run"
	"github.com/nova-dev/nova/storage"
)

// TopicChat carries chat sessions' events (Event.Chat).
const TopicChat Topic = "chat"

// ChatVerbs are the chat verbs of the Workspace facade: conversations with
// the team (engine/chat). A turn is a run of kind run.KindChat in the
// workspace's run registry.
type ChatVerbs interface {
	// ChatSend sends one message to a chat session (Session 0 starts one):
	// a `/` command, or a request that becomes a turn. A turn blocks until
	// it ends; it streams TopicChat events (Event.Chat; answer text as
	// droppable EventDelta) and the agent run's TopicAgent events, both with
	// a.Op. A turn that fails is not an error: see ChatReply.Turn.Status.
	ChatSend(ctx context.Context, a ChatSendArgs) (ChatReply, error)
	// ChatResume runs a session's last turn again when nova stopped (or
	// handed the workspace over) while it ran.
	ChatResume(ctx context.Context, session uint64, op string) (chat.Turn, error)
	// ChatCancel cancels the running turn of a session (the session stays).
	ChatCancel(ctx context.Context, session uint64) error
	// ChatSessions lists the chat sessions, most recently used first.
	//rpc:idempotent
	ChatSessions(ctx context.Context) ([]chat.Session, error)
	// ChatTranscript returns a session and its turns.
	//rpc:idempotent
	ChatTranscript(ctx context.Context, session uint64) (chat.Transcript, error)
	// ChatExport renders a session as a markdown transcript.
	//rpc:idempotent
	ChatExport(ctx context.Context, session uint64) (string, error)
	// ChatComplete completes the word being typed: "@pa" lists workspace
	// files and agents, "/re" lists commands.
	//rpc:idempotent
	ChatComplete(ctx context.Context, word string) ([]ChatCompletion, error)
	// ChatRunning lists the sessions with a turn running in the owning
	// process.
	//rpc:idempotent
	ChatRunning(ctx context.Context) ([]uint64, error)
}

// ChatSendArgs is one message of ChatSend.
type ChatSendArgs struct {
	// Session is the session's id; 0 starts a new one.
	Session uint64 `json:"session"`
	Text    string `json:"text"`
	// Op is copied into the turn's events.
	Op string `json:"op,omitempty"`
}

// ChatReply is what a message came to (engine/chat).
type ChatReply = chat.Reply

// ChatCompletion is one completion of ChatComplete.
type ChatCompletion struct {
	// Text replaces the word ("@foo.go", "/undo").
	Text string `json:"text"`
	// Kind is "file", "agent" or "command".
	Kind string `json:"kind"`
	Help string `json:"help,omitempty"`
}

// chatState is the chat service, built on first use.
type chatState struct {
	once sync.Once
	svc  *chat.Service
}

// chatArea implements ChatVerbs.
type chatArea struct{ *core }

// Chat is the chat service of the workspace.
func (l *core) Chat() *chat.Service {
	a := &l.ch
	a.once.Do(func() {
		cfg := l.Config()
		a.svc = chat.New(chat.Deps{
			Store: chat.NewStore(l.db, l.now),
			Runs:  l.runs,
			Roster: func() []agents.Spec {
				r, _ := l.Agents()
				return r.List()
			},
			Run: func(ctx context.Context, req chat.RunRequest) (agents.Run, error) {
				return l.runAgent(ctx, req.Agent, req.Task, runRequest{RunOptions: RunOptions{Tier: req.Tier, Op: req.Op},
					extra: req.Extra, noContext: true, onEvent: req.OnEvent, title: req.Title})
			},
			Context:      promptctx.ProviderFunc(l.promptContext),
			Root:         l.ws.Root,
			DefaultAgent: cfg.Chat.Agent,
			PromptTokens: cfg.Budgets.PromptTokens,
			HistoryShare: cfg.Chat.HistoryShare,
			AttachShare:  cfg.Chat.AttachShare,
			Ping:         func(ctx context.Context) error { _, err := l.llm.Version(ctx); return err },
			Host:         l.llm.Host(),
			WaitLimit:    cfg.Ollama.WaitLimit.D(),
			Changes:      chatChanges{l: l},
			Rehearse: func(ctx context.Context, agent, req string) (uint64, error) {
				title, _, _ := strings.Cut(req, "\n")
				s, err := rehearsalArea{l}.Rehearse(ctx, rehearsal.Request{Task: prd.Task{ID: "chat", Title: clip(title, 80), Description: req, Agent: agent},
					Agent: agent, Force: true})
				return s.ID, err
			},
			Plan: func(ctx context.Context, goal string) (string, error) {
				p, err := buildArea{l}.WritePlan(ctx, goal, "")
				return p.Path, err
			},
			Publish: func(ev chat.Event) {
				e := Event{Type: EventLog, Topic: TopicChat, Chat: &ev, Text: ev.Text, Op: ev.Op}
				switch ev.Type {
				case chat.EventDelta:
					e.Type = EventDelta
				case chat.EventTurn:
					e.Type = EventProgress
					if ev.Turn != nil {
						e.Status = string(ev.Turn.Status)
						if ev.Turn.Finished() {
							e.Type = EventDone
						}
					}
				}
				l.Publish(e)
			},
		})
	})
	return a.svc
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// chatChanges are a chat's decisions on changesets, through the same
// paths as the Changes screen (ApplyChange, DiscardChange, RevertChange),
// so they teach the vault and the playbooks alike.
type chatChanges struct{ l *core }

func (c chatChanges) Status(ctx context.Context, id uint64) (string, error) {
	cs, err := c.l.Changes().Get(ctx, id)
	return string(cs.Status), err
}

func (c chatChanges) Revert(ctx context.Context, id uint64, reason string) error {
	_, err := changeArea{c.l}.RevertChange(ctx, id, changes.RevertOptions{}, reason)
	return err
}

func (c chatChanges) Discard(ctx context.Context, id uint64) error {
	_, err := c.l.Changes().Discard(ctx, id)
	return err
}

// ChatSend implements ChatVerbs.
func (a chatArea) ChatSend(ctx context.Context, args ChatSendArgs) (ChatReply, error) {
	if a.db.ReadOnly() {
		return ChatReply{}, storage.ErrReadOnly
	}
	return a.Chat().Send(ctx, args.Session, args.Text, chat.SendOptions{Op: args.Op})
}

// ChatResume implements ChatVerbs.
func (a chatArea) ChatResume(ctx context.Context, session uint64, op string) (chat.Turn, error) {
	if a.db.ReadOnly() {
		return chat.Turn{}, storage.ErrReadOnly
	}
	return a.Chat().Resume(ctx, session, chat.SendOptions{Op: op})
}

// ChatCancel implements ChatVerbs.
func (a chatArea) ChatCancel(ctx context.Context, session uint64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return a.Chat().Cancel(session)
}

// ChatSessions implements ChatVerbs.
func (a chatArea) ChatSessions(ctx context.Context) ([]chat.Session, error) {
	return a.Chat().Store().List(ctx)
}

// ChatTranscript implements ChatVerbs.
func (a chatArea) ChatTranscript(ctx context.Context, session uint64) (chat.Transcript, error) {
	return a.Chat().Transcript(ctx, session)
}

// ChatExport implements ChatVerbs.
func (a chatArea) ChatExport(ctx context.Context, session uint64) (string, error) {
	tr, err := a.Chat().Transcript(ctx, session)
	if err != nil {
		return "", err
	}
	return chat.Export(tr), nil
}

// ChatRunning implements ChatVerbs.
func (a chatArea) ChatRunning(ctx context.Context) ([]uint64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ids := a.Chat().Running()
	slices.Sort(ids)
	return ids, nil
}

// maxCompletions bounds ChatComplete's answer.
const maxCompletions = 12

// ChatComplete implements ChatVerbs.
func (a chatArea) ChatComplete(ctx context.Context, word string) ([]ChatCompletion, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := []ChatCompletion{}
	switch {
	case strings.HasPrefix(word, "/"):
		for _, c := range chat.CompleteCommand(word[1:]) {
			out = append(out, ChatCompletion{Text: "/" + c.Name, Kind: "command", Help: c.Help})
		}
	case strings.HasPrefix(word, "@"):
		prefix := word[1:]
		r, _ := a.Agents()
		for _, s := range r.List() {
			if strings.HasPrefix(strings.ToLower(s.ID), strings.ToLower(prefix)) && prefix != "" {
				out = append(out, ChatCompletion{Text: "@" + s.ID, Kind: "agent", Help: s.Display.Description})
			}
		}
		for _, p := range a.completeFiles(prefix, maxCompletions-len(out)) {
			out = append(out, ChatCompletion{Text: "@" + p, Kind: "file"})
		}
	}
	return out, nil
}

// completeFiles lists workspace paths starting with prefix: the entries of
// the directory the prefix names (hidden ones and nova's own left out),
// directories with a trailing slash.
func (a chatArea) completeFiles(prefix string, n int) []string {
	if n <= 0 || strings.Contains(prefix, "..") || filepath.IsAbs(prefix) {
		return nil
	}
	dir, base := "", prefix
	if i := strings.LastIndex(prefix, "/"); i >= 0 {
		dir, base = prefix[:i+1], prefix[i+1:]
	}
	entries, err := os.ReadDir(filepath.Join(a.ws.Root, filepath.FromSlash(dir)))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, base) || (strings.HasPrefix(name, ".") && !strings.HasPrefix(base, ".")) ||
			name == ".nova" || name == ".git" || name == "node_modules" {
			continue
		}
		p := dir + name
		if e.IsDir() {
			p += "/"
		}
		out = append(out, p)
		if len(out) == n {
			break
		}
	}
	return out
}

// chatRunningWork lists the sessions with a running turn (RunningWork);
// nil when there is none (the field is left out on the wire).
func (l *core) chatRunningWork() []uint64 {
	ids := l.Chat().Running()
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids)
	return ids
}

// stopChats interrupts the chat turns running in this process before the
// workspace closes (a quit, a hand-over): they resume with ChatResume.
func (l *core) stopChats() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = l.runs.Shutdown(ctx, run.KindChat)
}
