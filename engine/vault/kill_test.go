package vault_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/storage"
)

const killChildEnv = "NOVA_VAULT_KILL_CHILD_DB"

// killChild writes to the vault at path as fast as it can, printing the
// number of committed writes after each, until it is killed.
func killChild(path string) {
	db, err := storage.Open(path, storage.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	v := vault.New(db, vault.Options{Tier: vault.TierPremium})
	ctx := context.Background()
	_ = v.WaitIndex(ctx)
	out := bufio.NewWriter(os.Stdout)
	var prev uint64
	for i := 1; ; i++ {
		n, err := v.Add(ctx, vault.Node{Type: vault.NodeTypes()[i%5], Content: fmt.Sprintf("lesson %d about retries", i),
			Body: "body text " + strconv.Itoa(i), Tags: []string{"t" + strconv.Itoa(i%7)}})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(4)
		}
		if prev != 0 {
			_, _ = v.Link(ctx, prev, n.ID, vault.Supports, 0.5)
		}
		if i%4 == 0 {
			_, _ = v.Reinforce(ctx, prev)
		}
		if i%9 == 0 {
			_ = v.Remove(ctx, prev)
		}
		if i%25 == 0 {
			batch := make([]vault.Node, 50)
			for j := range batch {
				batch[j] = vault.Node{Type: vault.Pattern, Content: "batched", Tags: []string{"b"}}
			}
			_, _ = v.AddBatch(ctx, batch)
		}
		prev = n.ID
		fmt.Fprintln(out, i)
		_ = out.Flush()
	}
}

func TestSurvivesKill9MidWrite(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("no SIGKILL on windows")
	}
	path := filepath.Join(t.TempDir(), "nova.db")
	for round := range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), killChildEnv+"="+path)
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		cmd.Stderr = os.Stderr
		require.NoError(t, cmd.Start())
		sc := bufio.NewScanner(stdout)
		want := 40 + round*17 // kill at a different point each round
		last := 0
		deadline := time.Now().Add(30 * time.Second)
		for sc.Scan() && last < want && time.Now().Before(deadline) {
			last, _ = strconv.Atoi(sc.Text())
		}
		require.NoError(t, cmd.Process.Kill())
		_ = cmd.Wait()
		require.GreaterOrEqual(t, last, want, "the child made progress")

		db, err := storage.Open(path, storage.Options{ReadOnly: true})
		require.NoError(t, err, "the file opens after kill -9")
		v := vault.New(db, vault.Options{})
		problems, err := v.Verify(t.Context())
		require.NoError(t, err)
		assert.Empty(t, problems, "round %d", round)
		st, err := v.Stats(t.Context())
		require.NoError(t, err)
		assert.Positive(t, st.Nodes)
		require.NoError(t, v.WaitIndex(t.Context()))
		assert.Equal(t, st.Nodes, v.IndexInfo().Docs, "the index rebuilds from what was committed")
		_ = v.Close()
		require.NoError(t, db.Close())
	}
}
