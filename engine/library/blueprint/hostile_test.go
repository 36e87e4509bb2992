package blueprint

import (
	"errors"
	"io/fs"
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

// Issue 11 for blueprint files (`nova blueprint add FILE`): ReadFile then
// Parse refuses an alias bomb, a 100,000-deep nesting, a file over the
// 1 MiB limit, a FIFO and a link to /dev/zero at once, each as ErrInvalid
// naming the file and the limit; a missing file is a read error, not
// ErrInvalid; the good blueprint reads.
func TestReadFileAndParseRefuseHostileBlueprints(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bomb, _, _ := strings.Cut(hostile.AliasBombPRD(), "meta:")
	hostile.Write(t, dir, "good.yaml", endpointYAML)
	hostile.Write(t, dir, "bomb.yaml", bomb+endpointYAML)
	hostile.Write(t, dir, "deep.yaml", hostile.DeepYAML("prd", 100_000))
	hostile.Write(t, dir, "big.yaml", endpointYAML+"# "+strings.Repeat("x", MaxFileSize)+"\n")
	hostile.FIFO(t, filepath.Join(dir, "pipe.yaml"))
	hostile.DevZeroLink(t, filepath.Join(dir, "zero.yaml"))

	load := func(name string) (Spec, error) {
		path := filepath.Join(dir, name)
		done := make(chan struct{})
		var (
			spec Spec
			err  error
		)
		go func() {
			defer close(done)
			var data []byte
			if data, err = ReadFile(path); err != nil {
				return
			}
			var errs []error
			spec, errs = Parse(path, data)
			err = errors.Join(errs...)
		}()
		select {
		case <-done:
		case <-time.After(time.Minute): // only catches a hang
			t.Fatalf("%s: reading did not return", name)
		}
		return spec, err
	}

	spec, err := load("good.yaml")
	require.NoError(t, err)
	assert.Equal(t, "http-endpoint", spec.Name)

	for name, limit := range map[string]error{
		"bomb.yaml": yamlguard.ErrAliases,
		"deep.yaml": yamlguard.ErrTooDeep,
		"big.yaml":  yamlguard.ErrTooLarge,
		"pipe.yaml": safefile.ErrNotRegular,
		"zero.yaml": safefile.ErrNotRegular,
	} {
		_, err := load(name)
		require.Error(t, err, name)
		assert.ErrorIs(t, err, limit, name)
		assert.ErrorIs(t, err, ErrInvalid, name)
		assert.True(t, strings.HasPrefix(err.Error(), filepath.Join(dir, name)), "the message names the file: %v", err)
		assert.Less(t, len(err.Error()), 400, "the message does not echo the file: %s", name)
	}

	_, err = load("missing.yaml")
	require.Error(t, err)
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.NotErrorIs(t, err, ErrInvalid)
	assert.Contains(t, err.Error(), "read blueprint")
}
