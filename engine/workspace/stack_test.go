package workspace

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDetectStack(t *testing.T) {
	t.Parallel()
	goMod := "module example.com/tool\n\ngo 1.26\n\nrequire go.etcd.io/bbolt v1.4.0 // storage\n\nrequire (\n\tgithub.com/rivo/uniseg v0.4.7\n\tgithub.com/stretchr/testify v1.10.0 // indirect\n)\n"
	s := DetectStack(project(t, map[string]string{"go.mod": goMod}))
	assert.Equal(t, []string{"go"}, s.Languages)
	assert.Equal(t, []string{"bbolt", "testify"}, s.Frameworks)
	assert.Equal(t, []string{"go.etcd.io/bbolt", "github.com/rivo/uniseg", "github.com/stretchr/testify"}, s.Dependencies)

	pkg := `{"dependencies":{"zod":"^3.23.0","react":"^19.0.0"},"devDependencies":{"typescript":"^5.6.0","vitest":"^2.0.0"}}`
	s = DetectStack(project(t, map[string]string{"package.json": pkg}))
	assert.Equal(t, []string{"javascript", "typescript"}, s.Languages)
	assert.Equal(t, []string{"react", "vitest", "zod"}, s.Frameworks)

	s = DetectStack(project(t, map[string]string{"requirements.txt": "fastapi==0.115.0\n# a comment\npydantic>=2\n-r other.txt\n", "Cargo.toml": "[package]\nname = \"x\"\n"}))
	assert.Equal(t, []string{"python", "rust"}, s.Languages)
	assert.Equal(t, []string{"fastapi", "pydantic"}, s.Frameworks)

	assert.Empty(t, DetectStack(t.TempDir()).Languages, "nothing to detect")
}

// Malformed manifests are skipped, never a panic or an error.
func TestDetectStackMalformed(t *testing.T) {
	t.Parallel()
	s := DetectStack(project(t, map[string]string{"go.mod": "require (\n\tbroken", "package.json": "{not json"}))
	assert.Empty(t, s.Languages, "a go.mod without a module line is no Go project")
	assert.Empty(t, s.Frameworks)
	assert.Nil(t, PackageDependencies([]byte(`{"dependencies": [1, 2]}`)))
	assert.Equal(t, []string{"a"}, GoRequires([]byte("require a v1\nrequire\nrequire (\n")))
}

func TestStackForeign(t *testing.T) {
	t.Parallel()
	goStack := Stack{Languages: []string{"go"}, Frameworks: []string{"bbolt"}}
	assert.True(t, goStack.Foreign("typescript", nil))
	assert.True(t, goStack.Foreign("", []string{"typescript", "zod"}))
	assert.True(t, goStack.Foreign("go", []string{"go", "bubbletea"}), "a Go framework the project does not use")
	assert.False(t, goStack.Foreign("go", []string{"go", "bbolt", "migrations"}))
	assert.False(t, goStack.Foreign("", []string{"errors", "context"}), "no stack named: kept")
	assert.False(t, goStack.Foreign("yaml", nil), "a data language is no stack")
	ts := Stack{Languages: []string{"typescript"}}
	assert.False(t, ts.Foreign("javascript", []string{"js"}), "TypeScript projects write JavaScript too")
	assert.False(t, Stack{}.Foreign("typescript", []string{"zod"}), "nothing detected: nothing foreign")

	cfg := StackConfig{Frameworks: []string{"Bubbletea"}}
	merged := cfg.Merge(goStack)
	assert.Equal(t, []string{"go"}, merged.Languages, "languages not configured: the detected ones")
	assert.Equal(t, []string{"bubbletea"}, merged.Frameworks)
}

func FuzzGoRequires(f *testing.F) {
	f.Add([]byte("module x\nrequire (\n\ta v1\n)\nrequire b v2 // c\n"))
	f.Add([]byte("require (\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, dep := range GoRequires(data) {
			if dep == "" {
				t.Fatal("empty module path")
			}
		}
	})
}

func FuzzPackageDependencies(f *testing.F) {
	f.Add([]byte(`{"dependencies":{"zod":"1"}}`))
	f.Add([]byte(`{"devDependencies":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = PackageDependencies(data)
	})
}
