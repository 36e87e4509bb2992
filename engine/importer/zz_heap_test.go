package importer

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"testing"
	"path/filepath"
	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/storage"
)

func TestZZHeapAtChunks(t *testing.T) {
	if os.Getenv("ZZHEAP") == "" {
		t.Skip()
	}
	dir := t.TempDir()
	generateLibrary(t, dir, 10000)
	b := &testing.B{}
	_ = b
	im, done := benchEnvT(t)
	defer done()
	im.cfg.chunkHook = func(c int) error {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		fmt.Printf("chunk %d: live %.1f MB\n", c, float64(ms.HeapAlloc)/1e6)
		f, _ := os.Create(fmt.Sprintf("/tmp/heap-%02d.prof", c))
		pprof.WriteHeapProfile(f)
		f.Close()
		return nil
	}
	res, err := im.Import(context.Background(), DirSource(dir), Options{})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println(res.Loaded)
}

func benchEnvT(t *testing.T) (*Importer, func()) {
	dir := t.TempDir()
	db, err := storage.Open(filepath.Join(dir, "nova.db"), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	v := vault.New(db, vault.Options{Tier: vault.TierPremium})
	return New(db, v, Config{}), func() { _ = v.Close(); _ = db.Close() }
}
