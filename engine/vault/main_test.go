package vault_test

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	if path := os.Getenv(killChildEnv); path != "" {
		killChild(path) // never returns: the parent kills it
	}
	code := m.Run()
	if benchDir != "" {
		_ = os.RemoveAll(benchDir)
	}
	os.Exit(code)
}
