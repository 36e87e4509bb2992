package failure_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/nova-dev/nova/engine/failure"
	"github.com/nova-dev/nova/engine/llm"
)

func TestOfClassifiesByCause(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		err  error
		want failure.Kind
	}{
		{"nil", nil, ""},
		{"cancel wins over a kind", fmt.Errorf("%w: %w", llm.ErrServer, context.Canceled), failure.Cancelled},
		{"unreachable struct", &llm.UnreachableError{Host: "h", Err: errors.New("refused")}, failure.Unreachable},
		{"wrapped sentinel", fmt.Errorf("run: %w", llm.ErrStreamCut), failure.Cut},
		{"model missing", &llm.ModelNotFoundError{Model: "m"}, failure.Misconfigured},
		{"timeout", fmt.Errorf("%w: chat: %w", llm.ErrTimeout, context.DeadlineExceeded), failure.Stalled},
		{"bare deadline", context.DeadlineExceeded, failure.Stalled},
		{"length", llm.ErrLength, failure.Length},
		{"repetition", llm.ErrRepetition, failure.Repetition},
		{"invalid output", llm.ErrInvalidOutput, failure.InvalidOutput},
		{"work", failure.New(failure.WorkFailed, errors.New("gate failed")), failure.WorkFailed},
		{"unclassified", errors.New("boom"), failure.Unknown},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, failure.Of(tc.err), tc.name)
	}
}

func TestOnlyWorkFailuresAreLearned(t *testing.T) {
	t.Parallel()
	for _, k := range failure.Kinds {
		assert.Equal(t, k == failure.WorkFailed, k.Learnable(), k)
		assert.True(t, k.Valid(), k)
	}
	assert.False(t, failure.Kind("bogus").Learnable())
	assert.True(t, failure.Unreachable.Policy().Wait)
	assert.True(t, failure.Repetition.Policy().ChangeRequest)
	assert.NoError(t, failure.New(failure.Cut, nil))
}
