package gen

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// An error registry never imports an internal package it may not: the
// generated file would not compile.
func TestImportable(t *testing.T) {
	t.Parallel()
	const self = "example.com/m/engine/remote"
	for path, want := range map[string]bool{
		"example.com/m/engine/vault":                      true,
		"example.com/m/engine/internal/rpcdemo":           true, // engine/remote is under engine
		"example.com/m/engine/library/internal/yamldoc":   false,
		"example.com/m/internal/yamlguard":                true, // the module root is everyone's parent
		"example.com/m/engine/library/internal":           false,
		"example.com/m/engine/remote/internal/wire":       true,
		"example.com/m/engine/remoteish/internal/nothere": false,
	} {
		assert.Equal(t, want, importable(self, path), path)
	}
}
