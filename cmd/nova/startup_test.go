package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/nova-dev/nova/internal/lazyre"
)

// nova's package-level regular expressions compile on first use (lazyre,
// issue 16's process floor), so a bad pattern would no longer fail at
// start-up. This binary links every package nova ships: each of their
// patterns must compile.
func TestEveryRegexpCompiles(t *testing.T) {
	t.Parallel()
	assert.Empty(t, lazyre.CompileAll())
}
