package agents

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/internal/hostile"
	"github.com/nova-dev/nova/internal/yamlguard"
)

// Issue 11: a FIFO in .nova/agents/ made `agents validate` and `build run`
// block forever; a link to /dev/zero ran out of memory (stat says 0 bytes).
func TestLoadSkipsSpecialFilesWithoutBlocking(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	hostile.Write(t, dir, "MARS.yaml", minimal("MARS"))
	hostile.FIFO(t, dir+"/PIPE.yaml")
	hostile.DevZeroLink(t, dir+"/ZERO.yaml")
	hostile.Write(t, dir, "BOMB.yaml", minimal("BOMB")+strings.Split(hostile.AliasBombPRD(), "meta:")[0])
	type result struct {
		r    *Roster
		errs []error
	}
	done := make(chan result, 1)
	go func() { r, errs := Load(dir); done <- result{r, errs} }()
	var res result
	select {
	case res = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Load blocked on a special file")
	}
	assert.True(t, res.r.Has("MARS"), "good files still load")
	msgs := ""
	for _, e := range res.errs {
		msgs += e.Error() + "\n"
	}
	assert.Contains(t, msgs, "PIPE.yaml: cannot read file: it is a named pipe")
	assert.Contains(t, msgs, "ZERO.yaml: cannot read file: it is a device")
	assert.Contains(t, msgs, "BOMB.yaml")
	assert.Contains(t, msgs, "alias expansion limit")
	var bomb bool
	for _, e := range res.errs {
		bomb = bomb || errors.Is(e, yamlguard.ErrAliases)
	}
	assert.True(t, bomb, "the alias bomb is refused by the alias limit")
}

func TestDeepAgentFileIsRefused(t *testing.T) {
	t.Parallel()
	_, errs := ParseSpec("DEEP.yaml", []byte("id: DEEP\nschema: 1\n"+hostile.DeepYAML("role", 100_000)))
	require.NotEmpty(t, errs)
	assert.Contains(t, errs[0].Error(), "depth limit")
	assert.Contains(t, errs[0].Error(), "DEEP.yaml:3")
}
