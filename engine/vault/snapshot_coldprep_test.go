package vault_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/engine/vault/vaulttest"
	"github.com/nova-dev/nova/storage"
)

// Temporary: prepares a cold workspace (NOVA_COLD_PREP=dir after `nova init dir`).
func TestColdPrep(t *testing.T) {
	dir := os.Getenv("NOVA_COLD_PREP")
	if dir == "" {
		t.Skip()
	}
	ctx := context.Background()
	db, err := storage.Open(filepath.Join(dir, ".nova", "nova.db"), storage.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	v := vault.New(db, vault.Options{Tier: vault.TierPremium})
	st, _ := v.Stats(ctx)
	if err := vaulttest.Fill(ctx, v, 100_000-st.Nodes, 7, vaulttest.Options{}); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("NOVA_COLD_SNAPSHOT") != "" {
		if err := v.WaitIndex(ctx); err != nil {
			t.Fatal(err)
		}
	}
	_ = v.Close()
	_ = db.Close()
}
