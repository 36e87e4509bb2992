package codemap

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/storage"
)

// openMap opens a fresh database and a map of root.
func openMap(tb testing.TB, root string) *Map {
	tb.Helper()
	db, err := storage.Open(filepath.Join(tb.TempDir(), "nova.db"), storage.Options{})
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = db.Close() })
	return New(db, root, Options{})
}

// writeFiles writes files (path → content) under root.
func writeFiles(tb testing.TB, root string, files map[string]string) {
	tb.Helper()
	for p, c := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		require.NoError(tb, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(tb, os.WriteFile(full, []byte(c), 0o644))
	}
}

// shop is a small Go project: a store, a handler calling it, a main.
var shop = map[string]string{
	"go.mod": "module shop\n\ngo 1.22\n",
	"store/store.go": `package store

// Store keeps orders.
type Store struct{ orders map[int]Order }

// Order is one order.
type Order struct {
	ID    int
	Total float64
}

// NewStore returns an empty store.
func NewStore() *Store { return &Store{orders: map[int]Order{}} }

// SaveOrder stores o.
func (s *Store) SaveOrder(o Order) error {
	s.orders[o.ID] = o
	return nil
}
`,
	"api/handler.go": `package api

import "shop/store"

// Handler serves orders.
type Handler struct{ st *store.Store }

// CreateOrder saves a new order.
func (h *Handler) CreateOrder(id int, total float64) error {
	return h.st.SaveOrder(store.Order{ID: id, Total: total})
}
`,
	"cmd/shop/main.go": `package main

import (
	"shop/api"
	"shop/store"
)

func main() {
	_ = store.NewStore()
	var h api.Handler
	_ = h.CreateOrder(1, 2)
}
`,
	"web/app.ts": `import { fmt } from "./fmt";
export interface Cart { items: string[] }
export function checkout(c: Cart): string { return fmt(c.items.length) }
`,
	"web/fmt.ts":     "export function fmt(n: number): string { return `${n} items` }\n",
	"tools/clean.py": "def clean(path):\n    return path.strip()\n\nclass Cleaner:\n    def run(self, p):\n        return clean(p)\n",
	"README.md":      "# shop\n",
}
