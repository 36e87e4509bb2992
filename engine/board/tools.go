package board

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nova-dev/nova/engine/tools"
)

// Tool names.
const (
	ToolAddDecision    = "addDecision"
	ToolAddBlocker     = "addBlocker"
	ToolResolveBlocker = "resolveBlocker"
	ToolSetGoal        = "setGoal"
	ToolReadArtifact   = "readArtifact"
)

// ReadArtifactChars is how much of an artifact one readArtifact call shows
// (2,000 tokens); longer ones are read page by page with offset.
const ReadArtifactChars = 8000

// Tools returns the board tools. They are offered to every agent of a run
// that has a board (tools.Tool.Board) and never touch workspace files.
func Tools() []tools.Tool {
	text := func(name, desc string) json.RawMessage {
		return json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{%q:{"type":"string","minLength":1,"maxLength":2000,"description":%q}},"required":[%q],"additionalProperties":false}`,
			name, desc, name))
	}
	return []tools.Tool{
		{
			Name: ToolAddDecision,
			Description: "Record a key decision on the shared board (the board keeps the last 5) so later agents follow it, " +
				"e.g. \"health endpoint lives in internal/health\". One short sentence.",
			Schema: text("decision", "the decision, one sentence"), Timeout: 5 * time.Second, AllAgents: true, Board: true,
			Run: func(ctx context.Context, env *tools.Env, args json.RawMessage) (tools.Output, error) {
				var a struct{ Decision string }
				return boardCall(ctx, env, args, &a, func(b tools.Board) (string, error) { return b.AddDecision(ctx, a.Decision) })
			},
		},
		{
			Name: ToolAddBlocker,
			Description: "Put a blocker on the shared board: something that stops the work until someone resolves it (at most 3 open). " +
				"Tasks that depend on yours wait while it is open.",
			Schema: text("blocker", "what blocks progress and what would unblock it"), Timeout: 5 * time.Second, AllAgents: true, Board: true,
			Run: func(ctx context.Context, env *tools.Env, args json.RawMessage) (tools.Output, error) {
				var a struct{ Blocker string }
				return boardCall(ctx, env, args, &a, func(b tools.Board) (string, error) { return b.AddBlocker(ctx, a.Blocker) })
			},
		},
		{
			Name:        ToolResolveBlocker,
			Description: "Resolve an open blocker of the shared board by its id (b1, b2, …), saying how it was resolved.",
			Schema: json.RawMessage(`{"type":"object","properties":{
				"id":{"type":"string","minLength":1,"maxLength":20,"description":"the blocker id, e.g. b1"},
				"note":{"type":"string","maxLength":1000,"description":"how it was resolved"}},
				"required":["id"],"additionalProperties":false}`),
			Timeout: 5 * time.Second, AllAgents: true, Board: true,
			Run: func(ctx context.Context, env *tools.Env, args json.RawMessage) (tools.Output, error) {
				var a struct{ ID, Note string }
				return boardCall(ctx, env, args, &a, func(b tools.Board) (string, error) { return b.ResolveBlocker(ctx, a.ID, a.Note) })
			},
		},
		{
			Name:        ToolSetGoal,
			Description: "Set the current goal on the shared board: what the team works towards right now, one sentence.",
			Schema:      text("goal", "the current goal, one sentence"), Timeout: 5 * time.Second, AllAgents: true, Board: true,
			Run: func(ctx context.Context, env *tools.Env, args json.RawMessage) (tools.Output, error) {
				var a struct{ Goal string }
				return boardCall(ctx, env, args, &a, func(b tools.Board) (string, error) { return b.SetGoal(ctx, a.Goal) })
			},
		},
		{
			Name: ToolReadArtifact,
			Description: "Load the full content of an artifact listed on the shared board (its id, e.g. a7). Long artifacts come " +
				"in pages: pass offset to read on.",
			Schema: json.RawMessage(`{"type":"object","properties":{
				"id":{"type":"string","minLength":1,"maxLength":24,"description":"the artifact id, e.g. a7"},
				"offset":{"type":"integer","minimum":0,"description":"character offset to start from (default 0)"}},
				"required":["id"],"additionalProperties":false}`),
			Timeout: 5 * time.Second, AllAgents: true, Board: true, OutputCap: ReadArtifactChars + 400,
			Run: func(ctx context.Context, env *tools.Env, args json.RawMessage) (tools.Output, error) {
				var a struct {
					ID     string
					Offset int
				}
				return boardCall(ctx, env, args, &a, func(b tools.Board) (string, error) {
					if a.Offset == 0 {
						return b.ReadArtifact(ctx, a.ID)
					}
					return b.ReadArtifact(ctx, fmt.Sprintf("%s@%d", a.ID, a.Offset))
				})
			},
		},
	}
}

// Register adds the board tools to a registry.
func Register(r *tools.Registry) error {
	for _, t := range Tools() {
		if err := r.Register(t); err != nil {
			return err
		}
	}
	return nil
}

// errNoBoard: a board tool called in a run without a board.
var errNoBoard = errors.New("this run has no session board (board tools work in builds and goal runs)")

func boardCall(ctx context.Context, env *tools.Env, args json.RawMessage, v any, do func(tools.Board) (string, error)) (tools.Output, error) {
	if env == nil || env.Board == nil {
		return tools.Output{}, fmt.Errorf("%w: %w", tools.ErrPolicyDenied, errNoBoard)
	}
	if err := json.Unmarshal(args, v); err != nil {
		return tools.Output{}, fmt.Errorf("%w: %w", tools.ErrInvalidArgs, err)
	}
	if err := ctx.Err(); err != nil {
		return tools.Output{}, err
	}
	text, err := do(env.Board)
	if err != nil {
		if errors.Is(err, ErrInvalid) {
			return tools.Output{}, fmt.Errorf("%w: %w", tools.ErrInvalidArgs, err)
		}
		return tools.Output{}, err // a tool error the model reads (unknown id, full board)
	}
	return tools.Output{Text: text}, nil
}

// Handle is a board bound to the agent and task that use it: it implements
// tools.Board for one run.
type Handle struct {
	Store *Store
	Key   Key
	Agent string
	Task  string
}

var _ tools.Board = (*Handle)(nil)

// AddDecision implements tools.Board.
func (h *Handle) AddDecision(ctx context.Context, text string) (string, error) {
	b, err := h.Store.AddDecision(ctx, h.Key, text, h.Agent, h.Task)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("recorded; the board holds %d key decision(s)", len(b.Decisions)), nil
}

// AddBlocker implements tools.Board.
func (h *Handle) AddBlocker(ctx context.Context, text string) (string, error) {
	x, err := h.Store.AddBlocker(ctx, h.Key, text, h.Agent, h.Task)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("blocker %s is open; it stays on the board until someone resolves it (resolveBlocker %s)", x.ID, x.ID), nil
}

// ResolveBlocker implements tools.Board.
func (h *Handle) ResolveBlocker(ctx context.Context, id, note string) (string, error) {
	x, err := h.Store.ResolveBlocker(ctx, h.Key, id, h.Agent, note)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("blocker %s resolved: %s", x.ID, x.Text), nil
}

// SetGoal implements tools.Board.
func (h *Handle) SetGoal(ctx context.Context, goal string) (string, error) {
	b, err := h.Store.SetGoal(ctx, h.Key, goal, h.Agent)
	if err != nil {
		return "", err
	}
	return "goal set: " + b.Goal, nil
}

// ReadArtifact implements tools.Board: the artifact's content from an
// offset ("a7@8000"), a page of ReadArtifactChars characters at most.
func (h *Handle) ReadArtifact(ctx context.Context, ref string) (string, error) {
	idPart, offPart, _ := strings.Cut(ref, "@")
	id, err := ParseArtifactID(idPart)
	if err != nil {
		return "", err
	}
	off := 0
	if offPart != "" {
		if _, err := fmt.Sscanf(offPart, "%d", &off); err != nil || off < 0 {
			return "", fmt.Errorf("%w: offset %q", ErrInvalid, offPart)
		}
	}
	a, err := h.Store.Artifact(ctx, id)
	if err != nil {
		return "", err
	}
	if a.Board != h.Key.String() {
		return "", fmt.Errorf("%w: artifact %s belongs to another board", ErrNotFound, ArtifactRefID(id))
	}
	return Page(a, off, ReadArtifactChars), nil
}

// Page renders chars characters of an artifact from offset, with a header
// and, when more follows, how to read on.
func Page(a Artifact, offset, chars int) string {
	r := []rune(a.Content)
	offset = min(max(offset, 0), len(r))
	end := min(offset+chars, len(r))
	var b strings.Builder
	fmt.Fprintf(&b, "artifact %s (%s", a.Ref(), a.Type)
	if a.Name != "" {
		b.WriteString(" " + a.Name)
	}
	fmt.Fprintf(&b, ", by %s, %d tokens)", who(a.By, a.Task), a.Tokens)
	if offset > 0 {
		fmt.Fprintf(&b, " from character %d", offset)
	}
	b.WriteString(":\n")
	b.WriteString(string(r[offset:end]))
	if end < len(r) {
		fmt.Fprintf(&b, "\n[%d more characters: readArtifact with offset %d]", len(r)-end, end)
	}
	return b.String()
}
