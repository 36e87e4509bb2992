package tools_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/nova-dev/nova/engine/tools"
)

// Registries built at the same moment on many goroutines must all see the
// JSON Schema meta-schemas: a malformed schema is refused by meta-schema
// validation, a good one is accepted and validates arguments, every time.
// Run with -race this also checks that first compilations may race.
func TestRegisterConcurrentFirstUseSeesMetaSchemas(t *testing.T) {
	t.Parallel()
	run := func(context.Context, *tools.Env, json.RawMessage) (tools.Output, error) {
		return tools.Output{}, nil
	}
	const n = 16
	var wg sync.WaitGroup
	badErrs := make([]error, n)
	goodErrs := make([]error, n)
	argErrs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			r := tools.NewRegistry()
			badErrs[i] = r.Register(tools.Tool{Name: "bad", Run: run,
				Schema: json.RawMessage(`{"type":"object","properties":{"n":{"minimum":"one"}}}`)})
			goodErrs[i] = r.Register(tools.Tool{Name: "good", Run: run,
				Schema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"]}`)})
			argErrs[i] = r.Validate("good", json.RawMessage(`{"n":0}`))
		})
	}
	wg.Wait()
	for i := range n {
		assert.ErrorContains(t, badErrs[i], "minimum", "goroutine %d: the meta-schema refuses a string minimum", i)
		assert.NoError(t, goodErrs[i], "goroutine %d", i)
		assert.ErrorIs(t, argErrs[i], tools.ErrInvalidArgs, "goroutine %d", i)
		assert.ErrorContains(t, argErrs[i], "argument n", "goroutine %d", i)
	}
}
