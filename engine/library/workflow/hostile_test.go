package workflow

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/internal/hostile"
	"github.com/nova-dev/nova/internal/safefile"
	"github.com/nova-dev/nova/internal/yamlguard"
)

// Issue 11 for workflow files: a workflows folder holding an alias bomb, a
// 100,000-deep nesting, a file over the 1 MiB limit, a FIFO and a link to
// /dev/zero loads at once; each hostile file is reported with its name and
// the limit it broke, and the good workflow and the shipped ones still load.
func TestLoadRefusesHostileWorkflowFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := strings.Replace(base, "id: demo", "id: mine", 1) + "  - {id: a, agent: MARS, task: \"look at {{ target }}\"}\n"
	bomb, _, _ := strings.Cut(hostile.AliasBombPRD(), "meta:")
	hostile.Write(t, dir, "mine.yaml", good)
	hostile.Write(t, dir, "bomb.yaml", bomb+strings.Replace(good, "id: mine", "id: bomb", 1))
	hostile.Write(t, dir, "deep.yaml", hostile.DeepYAML("steps", 100_000))
	hostile.Write(t, dir, "big.yml", base+"# "+strings.Repeat("x", MaxFileSize)+"\n")
	hostile.FIFO(t, filepath.Join(dir, "pipe.yaml"))
	hostile.DevZeroLink(t, filepath.Join(dir, "zero.yml"))
	want := map[string]error{
		"bomb.yaml": yamlguard.ErrAliases,
		"deep.yaml": yamlguard.ErrTooDeep,
		"big.yml":   yamlguard.ErrTooLarge,
		"pipe.yaml": safefile.ErrNotRegular,
		"zero.yml":  safefile.ErrNotRegular,
	}

	type loaded struct {
		lib  *Library
		errs []error
	}
	done := make(chan loaded, 1)
	env := realEnv(t)
	shipped := defaultsFS(t)
	go func() {
		lib, errs := Load(shipped, dir, env)
		done <- loaded{lib, errs}
	}()
	var got loaded
	select {
	case got = <-done:
	case <-time.After(time.Minute): // only catches a hang
		t.Fatal("Load did not return: a hostile file blocked or ran away")
	}

	require.Len(t, got.errs, len(want), "%v", got.errs)
	for _, err := range got.errs {
		var fe *FileError
		require.ErrorAs(t, err, &fe)
		name := filepath.Base(fe.File)
		limit, ok := want[name]
		require.True(t, ok, "unexpected error %v", err)
		assert.ErrorIs(t, err, limit, name)
		assert.ErrorIs(t, err, ErrInvalid, name)
		assert.True(t, strings.HasPrefix(err.Error(), filepath.Join(dir, name)), "the message names the file: %v", err)
		assert.Less(t, len(err.Error()), 400, "the message does not echo the file: %s", name)
	}
	_, ok := got.lib.Get("mine")
	assert.True(t, ok, "the good workflow beside them loads")
	_, ok = got.lib.Get("bomb")
	assert.False(t, ok)
	assert.Len(t, got.lib.List(), 6, "five shipped workflows and mine")
}
