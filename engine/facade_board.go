package engine

import (
	"context"

	"github.com/nova-dev/nova/engine/board"
)

// Session-board verbs of the Workspace facade (engine/board.go wires the
// store).

// BoardView is a board with its handoffs (GetBoard).
type BoardView struct {
	Board    board.Board     `json:"board"`
	Handoffs []board.Handoff `json:"handoffs"`
}

// GetBoard implements Workspace.
func (l *Local) GetBoard(ctx context.Context, key string) (BoardView, error) {
	k, err := board.ParseKey(key)
	if err != nil {
		return BoardView{}, err
	}
	b, err := l.Boards().Get(ctx, k)
	if err != nil {
		return BoardView{}, err
	}
	hs, err := l.Boards().Handoffs(ctx, k)
	if err != nil {
		return BoardView{}, err
	}
	return BoardView{Board: b, Handoffs: hs}, nil
}

// ReadArtifact implements Workspace.
func (l *Local) ReadArtifact(ctx context.Context, id uint64) (board.Artifact, error) {
	return l.Boards().Artifact(ctx, id)
}

// ResolveBlocker implements Workspace: the user resolves a blocker; a build
// waiting on it here continues.
func (l *Local) ResolveBlocker(ctx context.Context, key, id, note string) (board.Blocker, error) {
	k, err := board.ParseKey(key)
	if err != nil {
		return board.Blocker{}, err
	}
	return l.Boards().ResolveBlocker(ctx, k, id, "user", note)
}
