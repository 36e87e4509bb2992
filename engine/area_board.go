package engine

import (
	"context"

	"github.com/nova-dev/nova/engine/board"
)

// BoardVerbs are the verbs of session boards: handoffs, artifacts, blockers.
type BoardVerbs interface {
	// GetBoard returns a session board ("run:3" for a goal run, "build:7" for
	// a build) with its handoffs, oldest first. A board nobody wrote yet is
	// empty.
	//rpc:idempotent
	GetBoard(ctx context.Context, key string) (BoardView, error)
	// ReadArtifact returns one board artifact with its full content.
	//rpc:idempotent
	ReadArtifact(ctx context.Context, id uint64) (board.Artifact, error)
	// ResolveBlocker resolves an open blocker of a board as the user (with
	// a note); the tasks that waited on it continue.
	ResolveBlocker(ctx context.Context, key, id, note string) (board.Blocker, error)
}

// boardArea implements BoardVerbs over the workspace's services.
type boardArea struct{ *core }

var _ BoardVerbs = boardArea{}

// GetBoard implements BoardVerbs.
func (l boardArea) GetBoard(ctx context.Context, key string) (BoardView, error) {
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

// ReadArtifact implements BoardVerbs.
func (l boardArea) ReadArtifact(ctx context.Context, id uint64) (board.Artifact, error) {
	return l.Boards().Artifact(ctx, id)
}

// ResolveBlocker implements BoardVerbs: the user resolves a blocker; a build
// waiting on it here continues.
func (l boardArea) ResolveBlocker(ctx context.Context, key, id, note string) (board.Blocker, error) {
	k, err := board.ParseKey(key)
	if err != nil {
		return board.Blocker{}, err
	}
	return l.Boards().ResolveBlocker(ctx, k, id, "user", note)
}

// BoardView is a board with its handoffs (GetBoard).
type BoardView struct {
	Board    board.Board     `json:"board"`
	Handoffs []board.Handoff `json:"handoffs"`
}
