package chat

import (
	"context"

	"github.com/nova-dev/nova/engine"
	chg "github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/engine/chat"
)

// Source is what the Chat screen needs from the engine.
type Source interface {
	ChatSend(ctx context.Context, a engine.ChatSendArgs) (engine.ChatReply, error)
	ChatCancel(ctx context.Context, session uint64) error
	ChatSessions(ctx context.Context) ([]chat.Session, error)
	ChatTranscript(ctx context.Context, session uint64) (chat.Transcript, error)
	ChatComplete(ctx context.Context, word string) ([]engine.ChatCompletion, error)
	GetChange(ctx context.Context, id uint64) (chg.Changeset, error)
	ApplyChange(ctx context.Context, id uint64, opts chg.ApplyOptions, reason string) (chg.ApplyReport, error)
	DiscardChange(ctx context.Context, id uint64, reason string) (chg.Changeset, error)
	EditChange(ctx context.Context, id uint64, path, content string) (chg.Changeset, error)
	AnswerApproval(ctx context.Context, id string, approve bool) error
}
