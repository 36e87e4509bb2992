package skills

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

// aliasBomb is the "billion laughs" of issue 11 (nine levels of nine
// aliases) in front of the given document.
func aliasBomb(doc string) string {
	bomb, _, _ := strings.Cut(hostile.AliasBombPRD(), "meta:")
	return bomb + doc
}

// Issue 11 for skill files: a skills folder holding an alias bomb, a
// 100,000-deep nesting, a file over the 1 MiB limit, a FIFO and a link to
// /dev/zero loads at once; each hostile file is reported with its name and
// the limit it broke, and the good skill beside them still loads.
func TestLoadRefusesHostileSkillFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := "schema: nova.skill/1\nname: todo\nversion: 1.0.0\ndescription: todos\nsteps:\n  - name: find\n    tool: searchFiles\n    args: {pattern: TODO}\n"
	hostile.Write(t, dir, "todo.yaml", good)
	hostile.Write(t, dir, "bomb.yaml", aliasBomb(strings.Replace(good, "name: todo", "name: bomb", 1)))
	hostile.Write(t, dir, "deep.yaml", hostile.DeepYAML("steps", 100_000))
	hostile.Write(t, dir, "big.yaml", "schema: nova.skill/1\ndescription: "+strings.Repeat("x", MaxFileSize)+"\n")
	hostile.FIFO(t, filepath.Join(dir, "pipe.yaml"))
	hostile.DevZeroLink(t, filepath.Join(dir, "zero.yaml"))
	want := map[string]error{
		"bomb.yaml": yamlguard.ErrAliases,
		"deep.yaml": yamlguard.ErrTooDeep,
		"big.yaml":  yamlguard.ErrTooLarge,
		"pipe.yaml": safefile.ErrNotRegular,
		"zero.yaml": safefile.ErrNotRegular,
	}

	type loaded struct {
		r    *Registry
		errs []error
	}
	done := make(chan loaded, 1)
	reg := registry(t, NewRegistry())
	go func() {
		r, errs := Load(dir, reg.Get, nil)
		done <- loaded{r, errs}
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
		base := filepath.Base(fe.File)
		limit, ok := want[base]
		require.True(t, ok, "unexpected error %v", err)
		assert.ErrorIs(t, err, limit, base)
		assert.ErrorIs(t, err, ErrInvalid, base)
		assert.True(t, strings.HasPrefix(err.Error(), filepath.Join(dir, base)), "the message names the file: %v", err)
		assert.Less(t, len(err.Error()), 400, "the message does not echo the file: %s", base)
	}
	assert.True(t, got.r.Has("todo"), "the good skill beside them loads")
	assert.False(t, got.r.Has("bomb"))
	assert.True(t, got.r.Has("debug-root-cause"), "built-ins are untouched")
}

// A skill's anchors and aliases within the guard's caps are still refused
// by the format (its fields are written out where they are read).
func TestParseRefusesSmallAliases(t *testing.T) {
	t.Parallel()
	src := "schema: nova.skill/1\nname: a\nversion: 1.0.0\ndescription: &d todos\nsteps:\n  - name: find\n    tool: searchFiles\n    args: {pattern: *d}\n"
	_, errs := Parse("a.yaml", []byte(src), nil, nil)
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0].Error(), "a.yaml:4: anchors and aliases")
	assert.NotErrorIs(t, errs[0], yamlguard.ErrLimit, "within the caps: the format refuses it, not the guard")
}
