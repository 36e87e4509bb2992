package engine

import (
	"context"
	"fmt"
	"sync"

	"github.com/nova-dev/nova/engine/board"
	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/llm"
)

// boardState is the session-board store of a Local, built on first use.
type boardState struct {
	once  sync.Once
	store *board.Store
}

// initBoard wires the session board into the build engine (called from
// Open; it does no I/O).
func (l *core) initBoard() {
	l.build.Board = build.StoreBoards{Store: l.Boards}
}

// Boards is the session-board store: the boards of goal runs and builds,
// their artifacts and handoffs.
func (l *core) Boards() *board.Store {
	l.bd.once.Do(func() {
		l.bd.store = board.NewStore(l.db, board.Options{
			Now:      l.now,
			Notify:   l.boardChanged,
			Compress: l.compressHistory,
		})
	})
	return l.bd.store
}

// boardChanged publishes a board write and wakes the build that waits on
// it (a resolved blocker lets its dependants go).
func (l *core) boardChanged(key board.Key, what string) {
	ev := Event{Type: EventChanged, Topic: TopicBoard, Status: what, Text: key.String()}
	if key.Kind == board.KindBuild {
		ev.BuildID = fmt.Sprint(key.ID)
	} else {
		ev.GoalRunID = fmt.Sprint(key.ID)
	}
	l.Publish(ev)
	if key.Kind == board.KindBuild && what == "resolved" {
		if eng := l.build.ready.Load(); eng != nil {
			eng.Wake(key.ID)
		}
	}
}

// compressHistory shortens a board's history summary with the small tier.
func (l *core) compressHistory(ctx context.Context, summary string, maxTokens int) (string, error) {
	model, err := modelsOf(l.Config()).For(llm.TierSmall)
	if err != nil {
		return "", err
	}
	res, err := l.llm.Chat(ctx, llm.ChatRequest{Model: model, Temperature: new(0.0), Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: fmt.Sprintf("You keep the history of a team of coding agents short. Rewrite the history "+
			"below in at most %d words: keep who did what, what is done, what failed and why, and what is still open. "+
			"Plain sentences, oldest first, no preamble.", maxTokens*3/4)},
		{Role: llm.RoleUser, Content: summary},
	}}, nil)
	if err != nil {
		return "", err
	}
	return res.Content, nil
}
