package docs_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/knowledge/docs"
	"github.com/nova-dev/nova/engine/knowledge/docs/docstest"
)

func write(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		abs := filepath.Join(root, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(abs), 0o755))
		require.NoError(t, os.WriteFile(abs, []byte(c), 0o644))
	}
}

// goProject makes a project requiring example.com/Widgets v1.2.3 (an
// upper-case path, escaped in the module cache) with v1.3.0 also present in
// the cache, and returns the fetcher's options.
func goProject(t *testing.T, fx fixture) string {
	t.Helper()
	mc := filepath.Join(t.TempDir(), "modcache")
	write(t, fx.root, map[string]string{
		"go.mod":                  "module example.com/app\n\ngo 1.22\n\nrequire (\n\texample.com/Widgets v1.2.3\n\tgithub.com/acme/tool/v2 v2.0.1 // indirect\n)\n",
		"internal/store/store.go": "// Package store keeps the app's records.\npackage store\n\n// Open opens the store.\nfunc Open() error { return nil }\n",
	})
	write(t, mc, map[string]string{
		"example.com/!widgets@v1.2.3/widgets.go": `// Package widgets builds widgets.
//
// Widgets are made with [New].
package widgets

// Version is the widget protocol version.
const Version = 3

// Widget is one widget.
type Widget struct {
	// Name names it.
	Name string
	secret int
}

// New returns a widget called name.
func New(name string) *Widget { return &Widget{Name: name} }

// Spin turns the widget around n times.
func (w *Widget) Spin(n int) error { return nil }

func helper() {}
`,
		"example.com/!widgets@v1.2.3/widgets_linux_only.go": "//go:build ignore\n\npackage widgets\n\n// Ignored is in an ignored file.\nfunc Ignored() {}\n",
		"example.com/!widgets@v1.2.3/widgets_test.go":       "package widgets\n\nfunc TestX() {}\n",
		"example.com/!widgets@v1.2.3/gears/gears.go":        "// Package gears turns widgets.\npackage gears\n\n// Turn turns a gear.\nfunc Turn() {}\n",
		"example.com/!widgets@v1.3.0/widgets.go":            "// Package widgets is the newer version.\npackage widgets\n\n// Fly is only in v1.3.0.\nfunc Fly() {}\n",
		"github.com/acme/tool/v2@v2.0.1/tool.go":            "// Package tool is a tool.\npackage tool\n\n// Run runs.\nfunc Run() {}\n",
	})
	return mc
}

func TestGoModulesAreReadOfflineAtTheExactVersion(t *testing.T) {
	t.Parallel()
	srv := docstest.New(t, docstest.Options{})
	fx := newFetcher(t, srv.URL(), nil)
	mc := goProject(t, fx)
	f := docs.New(fx.db, docs.Options{Root: fx.root, BaseURL: srv.URL(), Getenv: env(map[string]string{"GOMODCACHE": mc}), Now: fx.clock.Now})
	ctx := context.Background()

	r, err := f.Fetch(ctx, "example.com/Widgets", "", docs.FetchOptions{})
	require.NoError(t, err)
	assert.Equal(t, docs.FromLocal, r.Source)
	assert.Equal(t, "v1.2.3", r.Version, "the version go.mod requires, not the newest in the cache")
	assert.Equal(t, "module cache", r.Origin)
	assert.Contains(t, r.Content, `package widgets // import "example.com/Widgets"`)
	assert.Contains(t, r.Content, "Widgets are made with New.")
	assert.Contains(t, r.Content, "func New(name string) *Widget")
	assert.Contains(t, r.Content, "const Version = 3")
	assert.NotContains(t, r.Content, "Fly", "v1.3.0 is not the project's version")
	assert.NotContains(t, r.Content, "Ignored", "build constraints apply")
	assert.NotContains(t, r.Content, "helper", "only the exported API")

	sym, err := f.Fetch(ctx, "example.com/Widgets", "spin", docs.FetchOptions{})
	require.NoError(t, err)
	assert.Contains(t, sym.Content, "func (w *Widget) Spin(n int) error")
	assert.Contains(t, sym.Content, "Spin turns the widget around n times.")
	assert.NotContains(t, sym.Content, "func New(", "a topic narrows to matching symbols")

	typ, err := f.Fetch(ctx, "example.com/Widgets", "Widget", docs.FetchOptions{})
	require.NoError(t, err)
	assert.Contains(t, typ.Content, "Name string")
	assert.NotContains(t, typ.Content, "secret", "unexported fields are filtered")

	sub, err := f.Fetch(ctx, "example.com/Widgets", "gears", docs.FetchOptions{})
	require.NoError(t, err)
	assert.Equal(t, "example.com/Widgets/gears", sub.Library, "a topic naming a subpackage selects it")
	assert.Contains(t, sub.Content, "func Turn()")

	deep, err := f.Fetch(ctx, "example.com/Widgets", "turn", docs.FetchOptions{})
	require.NoError(t, err)
	assert.Equal(t, "example.com/Widgets/gears", deep.Library, "a symbol of a subpackage is found there")
	assert.Contains(t, deep.Content, "Turn turns a gear.")

	short, err := f.Fetch(ctx, "tool", "", docs.FetchOptions{})
	require.NoError(t, err)
	assert.Equal(t, "github.com/acme/tool/v2", short.Library, "a short name finds a required module")

	own, err := f.Fetch(ctx, "example.com/app/internal/store", "", docs.FetchOptions{})
	require.NoError(t, err)
	assert.Contains(t, own.Content, "this workspace's own code")
	assert.Contains(t, own.Content, "func Open() error")

	assert.Zero(t, srv.Count(""), "local docs never touch the network")
	list, err := f.Cache().List(ctx, "")
	require.NoError(t, err)
	assert.NotEmpty(t, list, "local docs are cached so knowledge searches find them")
	hits, err := f.Cache().Search(ctx, "spin the widget around", 3)
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	assert.Equal(t, "example.com/Widgets", hits[0].Library)
	assert.Equal(t, "spin", hits[0].Topic)

	// A module missing from the cache falls through to the network, saying why.
	write(t, fx.root, map[string]string{"go.mod": "module example.com/app\n\nrequire github.com/facebook/react v0.9.9\n"})
	miss, err := f.Fetch(ctx, "github.com/facebook/react", "", docs.FetchOptions{})
	require.ErrorIs(t, err, docs.ErrUnavailable)
	assert.Contains(t, miss.Warning, "not in the module cache", "%+v", miss)
}

func TestGoLookupsStayInsideTheModule(t *testing.T) {
	t.Parallel()
	fx := newFetcher(t, "off", nil)
	mc := goProject(t, fx)
	outside := t.TempDir()
	write(t, outside, map[string]string{"evil/evil.go": "// Package evil must never be read.\npackage evil\n"})
	require.NoError(t, os.Symlink(filepath.Join(outside, "evil"), filepath.Join(mc, "example.com", "!widgets@v1.2.3", "link")))
	f := docs.New(fx.db, docs.Options{Root: fx.root, BaseURL: "off", Getenv: env(map[string]string{"GOMODCACHE": mc})})
	ctx := context.Background()
	for _, q := range [][2]string{
		{"example.com/Widgets/link", ""}, {"example.com/Widgets", "link"}, {"example.com/Widgets/../../x", ""},
		{"example.com/Widgets", "../../../evil"}, {"example.com/Widgets", "/etc"},
	} {
		r, _ := f.Fetch(ctx, q[0], q[1], docs.FetchOptions{})
		assert.NotContains(t, r.Content, "must never be read", q)
	}
}

func TestStandardLibraryFromGOROOT(t *testing.T) {
	t.Parallel()
	fx := newFetcher(t, "off", nil)
	goroot := t.TempDir()
	write(t, goroot, map[string]string{
		"VERSION":                "go1.99.1\ntime 2026\n",
		"src/strings/strings.go": "// Package strings does string things.\npackage strings\n\n// Cut cuts s around sep.\nfunc Cut(s, sep string) (before, after string, found bool) { return }\n",
		"src/strings/builder.go": "package strings\n\n// Builder builds strings.\ntype Builder struct{}\n",
	})
	f := docs.New(fx.db, docs.Options{Root: fx.root, BaseURL: "off", Getenv: env(map[string]string{"GOROOT": goroot})})
	r, err := f.Fetch(context.Background(), "strings", "cut", docs.FetchOptions{})
	require.NoError(t, err)
	assert.Equal(t, "go1.99.1", r.Version)
	assert.Contains(t, r.Content, "func Cut(s, sep string) (before, after string, found bool)")
}

func TestNpmPackagesFromNodeModules(t *testing.T) {
	t.Parallel()
	srv := docstest.New(t, docstest.Options{})
	fx := newFetcher(t, srv.URL(), nil)
	write(t, fx.root, map[string]string{
		"node_modules/tiny-queue/package.json":        `{"name":"tiny-queue","version":"2.4.1","types":"dist/index.d.ts","description":"A small queue."}`,
		"node_modules/tiny-queue/README.md":           "# tiny-queue\n\nA queue.\n\n## Install\n\nnpm i tiny-queue\n\n## Concurrency\n\nSet `concurrency` to run jobs in parallel.\n\n```js\n# not a heading\n```\n",
		"node_modules/tiny-queue/dist/index.d.ts":     "/** Options of a queue. */\nexport interface QueueOptions {\n  /** How many jobs run at once. */\n  concurrency?: number;\n}\nexport declare function createQueue(o?: QueueOptions): Queue;\n",
		"node_modules/@scope/thing/package.json":      `{"name":"@scope/thing","version":"0.1.0"}`,
		"node_modules/@types/scope__thing/index.d.ts": "export declare const thing: number;\n",
		"node_modules/broken/package.json":            `{not json`,
	})
	ctx := context.Background()
	r, err := fx.f.Fetch(ctx, "tiny-queue", "", docs.FetchOptions{})
	require.NoError(t, err)
	assert.Equal(t, docs.FromLocal, r.Source)
	assert.Equal(t, "2.4.1", r.Version)
	assert.Contains(t, r.Content, "npm i tiny-queue")
	assert.Contains(t, r.Content, "export declare function createQueue")

	topic, err := fx.f.Fetch(ctx, "tiny-queue", "concurrency", docs.FetchOptions{})
	require.NoError(t, err)
	assert.Contains(t, topic.Content, "## Concurrency")
	assert.NotContains(t, topic.Content, "## Install", "only the sections about the topic")
	assert.Contains(t, topic.Content, "How many jobs run at once.")
	assert.Contains(t, topic.Content, "concurrency?: number;")

	scoped, err := fx.f.Fetch(ctx, "@scope/thing", "", docs.FetchOptions{})
	require.NoError(t, err)
	assert.Contains(t, scoped.Content, "export declare const thing", "types from @types")
	assert.Zero(t, srv.Count(""))

	for _, bad := range []string{"../tiny-queue", "node_modules/../x", "Tiny-Queue/../../etc", "broken"} {
		r, _ := fx.f.Fetch(ctx, bad, "", docs.FetchOptions{})
		assert.NotEqual(t, docs.FromLocal, r.Source, bad)
	}
}

func TestLocalDocsReadOnlyHandleStillAnswers(t *testing.T) {
	t.Parallel()
	fx := newFetcher(t, "off", nil)
	write(t, fx.root, map[string]string{
		"node_modules/pad/package.json": `{"name":"pad","version":"1.0.0"}`,
		"node_modules/pad/README.md":    "# pad\n\nPads strings.\n",
	})
	path := fx.db.Path()
	require.NoError(t, fx.db.Close())
	ro := reopenReadOnly(t, path)
	f := docs.New(ro, docs.Options{Root: fx.root, BaseURL: "off"})
	r, err := f.Fetch(context.Background(), "pad", "", docs.FetchOptions{})
	require.NoError(t, err)
	assert.Contains(t, r.Content, "Pads strings.")
}
