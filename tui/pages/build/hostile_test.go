package build

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/internal/hostile"
)

// writeHostilePRDs puts the hostile plans of issue 11 into .nova/prds beside
// a good one: an alias bomb, a FIFO and a link to /dev/zero.
func writeHostilePRDs(t *testing.T, root string) {
	t.Helper()
	dir := filepath.Join(root, ".nova", "prds")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	hostile.Write(t, dir, "bomb.yaml", hostile.AliasBombPRD())
	hostile.FIFO(t, filepath.Join(dir, "pipe.json"))
	hostile.DevZeroLink(t, filepath.Join(dir, "zero.json"))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tiny.json"), []byte(goodPRD), 0o644))
}

// Issue 11: the alias bomb crashed Build → n and a FIFO blocked it. Now
// the picker lists them at once as disabled rows that say why, and they
// never start.
func TestPickerShowsHostilePlansAsDisabledRows(t *testing.T) {
	t.Parallel()
	src := newSource(t)
	writeHostilePRDs(t, src.root)
	l := newLoop(t, src, 120, 37)
	l.press("n")
	l.until(func() bool { return l.m.prdLoaded })
	require.Len(t, l.m.prds, 4)
	out := l.plain()
	assert.Contains(t, out, "bomb.yaml")
	assert.Contains(t, out, "alias expansion limit")
	assert.Contains(t, out, "pipe.json")
	assert.Contains(t, out, "named pipe")
	assert.Contains(t, out, "zero.json")
	assert.Contains(t, out, "device")
	assert.Contains(t, out, "Tiny API · 3 tasks")
	for i, f := range l.m.prds { // each hostile row refuses to start
		if f.Problem == "" {
			continue
		}
		l.m.prdList.SetCursor(i)
		l.press("enter")
		l.settle(20 * time.Millisecond)
		assert.Empty(t, src.started, f.Name)
		assert.Contains(t, l.plain(), f.Name+" cannot start until it is fixed")
	}
}

func TestGoldenHostilePicker(t *testing.T) {
	t.Parallel()
	src := newSource(t)
	writeHostilePRDs(t, src.root)
	l := newLoop(t, src, 80, 21)
	l.press("n")
	l.until(func() bool { return l.m.prdLoaded })
	golden.RequireEqual(t, l.pinned())
}
