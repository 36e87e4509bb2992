package prd

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/internal/hostile"
	"github.com/nova-dev/nova/internal/yamlguard"
)

// Issue 11: the 428-byte alias bomb among a PRD's unknown keys grew nova to
// 22.5 GB (setExtras decoded and re-marshalled the unknown keys).
func TestAliasBombPRDIsRefused(t *testing.T) {
	t.Parallel()
	bomb := hostile.AliasBombPRD()
	require.Len(t, bomb, 428)
	start := time.Now()
	_, err := Parse("bomb.yaml", []byte(bomb))
	pe := parseError(t, err)
	assert.ErrorIs(t, err, yamlguard.ErrAliases)
	assert.Contains(t, pe.Error(), "alias expansion limit")
	assert.Positive(t, pe.Line, "the line of the alias that went over")
	assert.Less(t, time.Since(start), 10*time.Second, "only catches a hang")
}

func TestModestAliasesInExtrasAreKept(t *testing.T) {
	t.Parallel()
	doc := "owner: &o {name: ana, team: core}\nreviewer: *o\nmeta: {name: x}\ntasks:\n  - {id: t1, title: x, agent: MARS}\n"
	p, err := Parse("plan.yaml", []byte(doc))
	require.NoError(t, err)
	assert.JSONEq(t, `{"name":"ana","team":"core"}`, string(p.Extra["reviewer"]))
}

func TestJSONDuplicateKeysAreRejected(t *testing.T) {
	t.Parallel()
	cases := map[string]struct{ doc, field string }{
		"top level": {`{"meta":{"name":"a"},"meta":{"name":"b"},"tasks":[]}`, "meta"},
		"in meta":   {`{"meta":{"name":"a","name":"b"},"tasks":[]}`, "meta.name"},
		"in a task": {`{"meta":{"name":"a"},"tasks":[{"id":"t1","agent":"MARS"},{"id":"t2","agent":"MARS","agent":"VENUS"}]}`, "tasks[1].agent"},
		"deeper":    {`{"meta":{"name":"a"},"tasks":[],"x":[{"y":{"z":1,"z":2}}]}`, "x[0].y.z"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse("plan.json", []byte(tc.doc))
			pe := parseError(t, err)
			assert.Equal(t, tc.field, pe.Field)
			assert.Contains(t, pe.Error(), "duplicate key")
			assert.Equal(t, 1, pe.Line)
		})
	}
	// Same key in different objects is fine.
	_, err := Parse("plan.json", []byte(`{"meta":{"name":"a"},"tasks":[{"id":"t1","title":"x"},{"id":"t2","title":"y"}]}`))
	require.NoError(t, err)
}

// Issue 11: a FIFO in .nova/prds/ blocked forever; a link to /dev/zero ran
// out of memory (stat reports 0 bytes for a device).
func TestLoadRefusesSpecialFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "prd-fifo.json")
	hostile.FIFO(t, fifo)
	zero := filepath.Join(dir, "prd-zero.json")
	hostile.DevZeroLink(t, zero)
	for _, p := range []string{fifo, zero} {
		done := make(chan error, 1)
		go func() { _, err := Load(p); done <- err }()
		select {
		case err := <-done:
			require.Error(t, err)
			assert.Contains(t, err.Error(), "not a regular file")
			assert.Contains(t, err.Error(), p)
		case <-time.After(10 * time.Second):
			t.Fatalf("Load(%s) blocked", p)
		}
	}
}
