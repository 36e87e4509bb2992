package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/engine/chat"
	runpkg "github.com/nova-dev/nova/engine/run"
)

// `nova chat`: conversations with the team outside the TUI. With -p one
// turn runs and nova exits; without, each line of stdin is a message (in a
// terminal: a prompt per line). list, show, resume and export work on the
// stored sessions.

// chatOptions is `nova chat`.
type chatOptions struct {
	*Env
	// Prompt is -p's message (one turn, then exit).
	Prompt string
	// JSON streams the turn's events as NDJSON (with -p).
	JSON bool
	// Apply applies the turn's verified changes.
	Apply bool
	// Resume continues a session (ID "" = the most recent).
	Resume   bool
	ResumeID string
	// Session is show's and export's session; Out export's file.
	Session uint64
	Out     string
}

func newChatCmd(env *Env) *cobra.Command {
	opts := &chatOptions{Env: env}
	cmd := &cobra.Command{
		Use:   `chat [-p "MESSAGE"]`,
		Short: "Talk to the team: each message is a turn an agent takes (changes are staged)",
		Long: "nova chat reads messages and gives each to an agent: a change request to one that writes\n" +
			"files (the roster's implementer), a question to a read-only one; start a message with @AGENT to\n" +
			"choose, mention files with @path to attach them, and use / commands (/help lists them).\n" +
			"Every turn sees the session's earlier turns. File changes are staged as changesets: apply them\n" +
			"with --apply (verified changes only), `nova changes apply ID`, or the Chat screen.\n" +
			"  nova chat -p \"fix the bug in foo.go\" --apply   one turn, then exit\n" +
			"  nova chat --resume [ID]                        continue a session (the latest by default)",
		Args: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("resume") && len(args) == 1 {
				return nil // --resume ID
			}
			return exactArgs(0, `no arguments (the message goes in -p "MESSAGE")`)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.ResumeID = args[0]
			}
			if opts.JSON && opts.Prompt == "" {
				return usagef("--json streams one turn: give the message with -p")
			}
			if cmd.Flags().Changed("resume") {
				opts.Resume = true
			}
			return runChat(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Prompt, "prompt", "p", "", "send this one message, print the turn and exit")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "with -p: stream the turn's events as NDJSON, the turn last")
	cmd.Flags().BoolVar(&opts.Apply, "apply", false, "apply the changes a turn staged when the checks verified them")
	cmd.Flags().StringVar(&opts.ResumeID, "resume", "", "continue a session (its id; the most recent one without)")
	cmd.Flags().Lookup("resume").NoOptDefVal = " "
	cmd.AddCommand(newChatListCmd(env), newChatShowCmd(env, "show", "Show a session's turns"),
		newChatResumeCmd(env), newChatExportCmd(env))
	return cmd
}

func newChatListCmd(env *Env) *cobra.Command {
	opts := &chatOptions{Env: env}
	cmd := &cobra.Command{
		Use: "list", Short: "List the chat sessions, most recent first",
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error { return runChatList(cmd.Context(), opts) },
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print as JSON")
	return cmd
}

func newChatShowCmd(env *Env, use, short string) *cobra.Command {
	opts := &chatOptions{Env: env}
	cmd := &cobra.Command{
		Use: use + " ID", Short: short,
		Args: exactArgs(1, "a session id (see `nova chat list`)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID(args[0], "session", "nova chat list")
			if err != nil {
				return err
			}
			opts.Session = id
			return runChatShow(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the session and its turns as JSON")
	return cmd
}

func newChatResumeCmd(env *Env) *cobra.Command {
	opts := &chatOptions{Env: env, Resume: true}
	cmd := &cobra.Command{
		Use: "resume [ID]", Short: "Continue a session (the most recent one without an id)",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.ResumeID = args[0]
			}
			return runChat(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Prompt, "prompt", "p", "", "send this one message in the session and exit")
	cmd.Flags().BoolVar(&opts.Apply, "apply", false, "apply the changes a turn staged when the checks verified them")
	return cmd
}

func newChatExportCmd(env *Env) *cobra.Command {
	opts := &chatOptions{Env: env}
	cmd := &cobra.Command{
		Use: "export ID", Short: "Write a session as a markdown transcript (stdout, or -o FILE)",
		Args: exactArgs(1, "a session id (see `nova chat list`)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID(args[0], "session", "nova chat list")
			if err != nil {
				return err
			}
			opts.Session = id
			return runChatExport(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Out, "output", "o", "", "write the transcript to this file")
	return cmd
}

func runChatList(ctx context.Context, opts *chatOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		list, err := ws.ChatSessions(ctx)
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(list)
		}
		if len(list) == 0 {
			opts.IO.Printf("no chat sessions yet (start one: nova chat, or nova chat -p \"MESSAGE\")\n")
			return nil
		}
		for _, s := range list {
			opts.IO.Printf("%4d  %s  %-9s %s\n", s.ID, s.UpdatedAt.Local().Format("2006-01-02 15:04"), plural(s.Turns, "turn", "turns"), clipLine(s.Title, 70))
		}
		opts.IO.Printf("continue one: nova chat --resume ID; read one: nova chat show ID\n")
		return nil
	})
}

func runChatShow(ctx context.Context, opts *chatOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		tr, err := ws.ChatTranscript(ctx, opts.Session)
		if err != nil {
			return chatNotFound(err)
		}
		if opts.JSON {
			return opts.IO.PrintJSON(tr)
		}
		printTranscript(opts.IO, tr)
		return nil
	})
}

func runChatExport(ctx context.Context, opts *chatOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		md, err := ws.ChatExport(ctx, opts.Session)
		if err != nil {
			return chatNotFound(err)
		}
		if opts.Out == "" {
			opts.IO.Printf("%s", md)
			return nil
		}
		if err := os.WriteFile(opts.abs(opts.Out), []byte(md), 0o644); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		opts.IO.Logf("wrote %s\n", opts.Out)
		return nil
	})
}

func chatSessionID(s string) (uint64, error) { return parseID(s, "chat session", "nova chat list") }

func chatNotFound(err error) error {
	if errors.Is(err, chat.ErrNotFound) {
		return fmt.Errorf("%w (list them with `nova chat list`)", err)
	}
	return err
}

// runChat is `nova chat`: one turn (-p) or a conversation on stdin.
func runChat(ctx context.Context, opts *chatOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		var session uint64
		if opts.Resume {
			id, err := resumeSession(ctx, ws, strings.TrimSpace(opts.ResumeID))
			if err != nil {
				return err
			}
			session = id
			if !opts.JSON {
				tr, err := ws.ChatTranscript(ctx, id)
				if err != nil {
					return chatNotFound(err)
				}
				printTranscript(opts.IO, tr)
				if n := len(tr.Turns); n > 0 && tr.Turns[n-1].Status == runpkg.Interrupted {
					opts.IO.Printf("\nresuming turn %d (nova stopped while it ran)…\n", tr.Turns[n-1].N)
					t, err := ws.ChatResume(ctx, id, engine.NewOp())
					if err != nil {
						return err
					}
					printTurn(opts.IO, t, false)
				}
			}
		}
		c := &chatCLI{opts: opts, ws: ws, session: session}
		if opts.Prompt != "" {
			t, err := c.send(ctx, opts.Prompt)
			if err != nil {
				return err
			}
			if t != nil && t.Status != runpkg.Done {
				return &reportedError{msg: "the turn did not finish: " + string(t.Status)}
			}
			return nil
		}
		return c.loop(ctx)
	})
}

// resumeSession finds the session --resume names (the latest without an id).
func resumeSession(ctx context.Context, ws engine.Workspace, arg string) (uint64, error) {
	if arg != "" {
		id, err := parseID(arg, "session", "nova chat list")
		if err != nil {
			return 0, err
		}
		if _, err := ws.ChatTranscript(ctx, id); err != nil {
			return 0, chatNotFound(err)
		}
		return id, nil
	}
	list, err := ws.ChatSessions(ctx)
	if err != nil {
		return 0, err
	}
	if len(list) == 0 {
		return 0, usagef("no chat session to resume yet (start one: nova chat)")
	}
	return list[0].ID, nil
}

// chatCLI is one conversation in the terminal.
type chatCLI struct {
	opts    *chatOptions
	ws      engine.Workspace
	session uint64
}

// loop reads messages from stdin until EOF (ctrl+d) or ctx ends; ctrl+c
// cancels the running turn, a second one ends nova.
func (c *chatCLI) loop(ctx context.Context) error {
	if c.session == 0 {
		c.opts.IO.Logf("nova chat: type a request (or /help); ctrl+d ends\n")
	}
	for {
		line, err := c.opts.Ask(ctx, "> ")
		if errors.Is(err, io.EOF) {
			if line = strings.TrimSpace(line); line == "" {
				return nil
			}
		} else if err != nil {
			if engine.IsCanceled(err) {
				return nil
			}
			return err
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		if _, err := c.send(ctx, line); err != nil {
			if engine.IsCanceled(err) {
				return nil
			}
			c.opts.IO.Logf("%v\n", err)
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
	}
}

// send sends one message, following its events, and prints what came of it.
func (c *chatCLI) send(ctx context.Context, msg string) (*chat.Turn, error) {
	op := engine.NewOp()
	subCtx, stopSub := context.WithCancel(context.WithoutCancel(ctx))
	defer stopSub()
	events := followEvents(subCtx, c.ws)
	var mu sync.Mutex
	enc := json.NewEncoder(c.opts.IO.Out)
	enc.SetEscapeHTML(false)
	streamed, lastProgress := false, ""
	followed := make(chan struct{})
	go func() {
		defer close(followed)
		for ev := range events {
			if ev.Op != op {
				continue
			}
			mu.Lock()
			switch {
			case c.opts.JSON:
				if ev.Topic == engine.TopicChat && ev.Chat != nil {
					_ = enc.Encode(ev.Chat)
				}
			case ev.Topic == engine.TopicChat && ev.Chat != nil:
				switch ev.Chat.Type {
				case chat.EventDelta:
					c.opts.IO.Logf("%s", ev.Chat.Text)
					streamed = true
				case chat.EventTool:
					if t := ev.Chat.Tool; t != nil && t.Status == "" {
						c.opts.IO.Logf("\n  → %s %s\n", t.Tool, clipLine(t.Args, 100))
					}
				case chat.EventProgress:
					if ev.Chat.Text != lastProgress { // shown when it changes
						lastProgress = ev.Chat.Text
						c.opts.IO.Logf("\n  · %s\n", ev.Chat.Text)
					}
				case chat.EventWaiting, chat.EventCompacted:
					c.opts.IO.Logf("\n  … %s\n", ev.Chat.Text)
				}
			case ev.Topic == engine.TopicAgent && ev.Type == engine.EventNeedsApproval && ev.Approval != nil:
				req := *ev.Approval
				go func() {
					ok, err := c.opts.Env.Prompt(ctx, approvalQuestion(req))
					if err == nil {
						err = c.ws.AnswerApproval(ctx, req.ID, ok)
					}
					if err != nil && !engine.IsCanceled(err) {
						c.opts.IO.Logf("approval %s: %v\n", req.ID, err)
					}
				}()
			}
			done := ev.Topic == engine.TopicChat && ev.Type == engine.EventDone
			mu.Unlock()
			if done {
				return
			}
		}
	}()
	rep, err := c.ws.ChatSend(ctx, engine.ChatSendArgs{Session: c.session, Text: msg, Op: op})
	if err == nil && rep.Turn != nil {
		select {
		case <-followed:
		case <-time.After(2 * time.Second):
		}
	}
	stopSub()
	mu.Lock()
	defer mu.Unlock()
	if rep.Session.ID != 0 {
		c.session = rep.Session.ID
	}
	if err != nil {
		if c.opts.JSON {
			_ = enc.Encode(map[string]string{"type": "error", "error": err.Error()})
		}
		if errors.Is(err, chat.ErrNothingToUndo) {
			return nil, fmt.Errorf("%w (apply a change first; /undo reverts the last one applied in this session)", err)
		}
		return nil, chatNotFound(err)
	}
	if streamed {
		c.opts.IO.Logf("\n")
	}
	if rep.Turn == nil {
		if c.opts.JSON {
			return nil, enc.Encode(map[string]any{"type": "reply", "session": rep.Session.ID, "reply": rep})
		}
		c.opts.IO.Printf("%s\n", rep.Text)
		return nil, nil
	}
	t := rep.Turn
	if c.opts.Apply && t.ChangesetID != 0 && t.Verified && t.Status == runpkg.Done {
		ar, aerr := c.ws.ApplyChange(ctx, t.ChangesetID, changes.ApplyOptions{}, "")
		if aerr != nil {
			return t, fmt.Errorf("apply changeset %d: %w", t.ChangesetID, aerr)
		}
		t.Change = string(ar.Changeset.Status)
	}
	if c.opts.JSON {
		return t, enc.Encode(map[string]any{"type": "result", "session": rep.Session.ID, "turn": t})
	}
	printTurn(c.opts.IO, *t, c.opts.Apply)
	return t, nil
}

// printTurn writes a finished turn for people.
func printTurn(out *IOStreams, t chat.Turn, applyAsked bool) {
	mark := "✓"
	if t.Status != runpkg.Done {
		mark = "✗"
	}
	out.Printf("%s %s (%s) — turn %d, %s\n", mark, t.Agent, t.Route, t.N, cmpOrStr(t.Display, string(t.Status)))
	for _, n := range t.Notes {
		out.Printf("  note: %s\n", n)
	}
	for _, a := range t.Attachments {
		out.Printf("  attached %s (%d bytes)\n", a.Path, a.Bytes)
	}
	for _, r := range t.Refused {
		out.Printf("  not attached %s: %s\n", r.Path, r.Reason)
	}
	for _, tc := range t.Tools {
		out.Printf("  → %s %s %s\n", tc.Tool, clipLine(tc.Args, 80), tc.Status)
	}
	if t.Answer != "" {
		out.Printf("\n%s\n", t.Answer)
	}
	if t.Error != "" {
		out.Printf("\n%s\n", t.Error)
	}
	if t.ChangesetID != 0 {
		state := cmpOrStr(t.Change, "pending")
		out.Printf("\nchangeset %d: %s (%s", t.ChangesetID, strings.Join(t.Files, ", "), state)
		if t.Verified {
			out.Printf(", verified")
		}
		out.Printf(")\n")
		switch {
		case state == "applied":
		case applyAsked && !t.Verified:
			out.Printf("not applied: the checks did not verify it (review: nova changes show %d)\n", t.ChangesetID)
		default:
			out.Printf("apply: nova changes apply %d\n", t.ChangesetID)
		}
	}
	if len(t.Provenance) > 0 {
		parts := make([]string, len(t.Provenance))
		for i, p := range t.Provenance {
			parts[i] = p.Block + " " + cmpOrStr(p.Title, p.ID)
		}
		out.Printf("context: %s\n", strings.Join(parts, ", "))
	}
}

// printTranscript writes a session's turns.
func printTranscript(out *IOStreams, tr chat.Transcript) {
	out.Printf("chat %d: %s (%s)\n", tr.Session.ID, cmpOrStr(tr.Session.Title, "(untitled)"), plural(len(tr.Turns), "turn", "turns"))
	if tr.Session.Summary != "" {
		out.Printf("summary of turns 1–%d:\n%s\n", tr.Session.SummaryUpTo, tr.Session.Summary)
	}
	for _, t := range tr.Turns {
		out.Printf("\n> %s\n", t.Request)
		printTurn(out, t, false)
	}
}

func cmpOrStr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
