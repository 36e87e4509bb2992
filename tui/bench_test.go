package tui_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	bolt "go.etcd.io/bbolt"

	nova "github.com/nova-dev/nova"
	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/workspace"
	"github.com/nova-dev/nova/storage"
	"github.com/nova-dev/nova/tui"
)

// BenchmarkFirstFrame measures model construction plus the first View on a
// workspace whose database holds 100k records. Target: under 50 ms.
func BenchmarkFirstFrame(b *testing.B) {
	root := b.TempDir()
	if _, err := workspace.Init(root, nova.Defaults); err != nil {
		b.Fatal(err)
	}
	db, err := storage.Open((&workspace.Workspace{Root: root}).DBPath(), storage.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	body := strings.Repeat("guidance text for a realistic record ", 12)
	for batch := 0; batch < 10; batch++ {
		err := db.Update(func(tx *bolt.Tx) error {
			bk := tx.Bucket(storage.BucketVaultNodes)
			for i := 0; i < 10_000; i++ {
				id, _ := storage.NextID(bk)
				if err := bk.Put(storage.Key(id), []byte(fmt.Sprintf(`{"id":%d,"content":%q}`, id, body))); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	_ = db.Close()
	ws, err := engine.Open(context.Background(), engine.Options{Root: root, Getenv: func(string) string { return "" }})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = ws.Close() }()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		var m tea.Model = tui.New(ctx, ws, tui.Options{})
		m, _ = m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
		if m.View().Content == "" {
			b.Fatal("empty frame")
		}
		cancel()
	}
}

// BenchmarkSummary100k measures the Home counts query on the same data.
func BenchmarkSummary100k(b *testing.B) {
	root := b.TempDir()
	if _, err := workspace.Init(root, nova.Defaults); err != nil {
		b.Fatal(err)
	}
	ws, err := engine.Open(context.Background(), engine.Options{Root: root, NoSync: true, Getenv: func(string) string { return "" }})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = ws.Close() }()
	err = ws.DB().Update(func(tx *bolt.Tx) error {
		bk := tx.Bucket(storage.BucketVaultNodes)
		for i := 1; i <= 100_000; i++ {
			if err := bk.Put(storage.Key(uint64(i)), []byte(`{"content":"x"}`)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ws.Summary(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}
