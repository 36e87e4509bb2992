package promptctx_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/promptctx"
)

func write(t *testing.T, dir, rel, body string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
}

func TestProjectRulesReadsEveryRuleFileWithProvenance(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, "AGENTS.md", "Always wrap errors with %w.")
	write(t, dir, ".github/copilot-instructions.md", "Use tabs.")
	text, items, err := promptctx.ProjectRules(dir, 1000)
	require.NoError(t, err)
	assert.Contains(t, text, "<project_rules>")
	assert.Contains(t, text, "Always wrap errors with %w.")
	assert.Contains(t, text, "Use tabs.")
	require.Len(t, items, 2)
	assert.Equal(t, "AGENTS.md", items[0].Source)
	assert.Equal(t, promptctx.BlockRules, items[0].Block)
	assert.Equal(t, ".github/copilot-instructions.md", items[1].Source)
	assert.Positive(t, items[0].Tokens)
}

func TestProjectRulesStaysInItsBudget(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, "AGENTS.md", strings.Repeat("rule ", 10000))
	write(t, dir, "CLAUDE.md", "never seen: no room left")
	text, items, err := promptctx.ProjectRules(dir, 300)
	require.NoError(t, err)
	assert.LessOrEqual(t, len(text), 300*4)
	require.Len(t, items, 1)
	assert.Contains(t, items[0].Title, "cut")
	assert.Contains(t, text, "cut to fit budgets.rulesShare")
	none, items, err := promptctx.ProjectRules(dir, 0)
	require.NoError(t, err)
	assert.Empty(t, none)
	assert.Empty(t, items)
}

func TestProjectRulesRefusesWhatIsNotARegularFileInside(t *testing.T) {
	t.Parallel()
	dir, out := t.TempDir(), t.TempDir()
	write(t, out, "secret.md", "outside")
	require.NoError(t, os.Symlink(filepath.Join(out, "secret.md"), filepath.Join(dir, "AGENTS.md")))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "CLAUDE.md"), 0o755))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, ".cursorrules"), 0o644))
	write(t, dir, "CONVENTIONS.md", "kept")
	text, items, err := promptctx.ProjectRules(dir, 1000)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "AGENTS.md")
	assert.Contains(t, err.Error(), "outside the workspace")
	assert.Contains(t, err.Error(), "CLAUDE.md")
	assert.Contains(t, err.Error(), ".cursorrules")
	assert.NotContains(t, text, "outside")
	require.Len(t, items, 1)
	assert.Equal(t, "CONVENTIONS.md", items[0].Source)
}

func TestProjectRulesWithNoFilesIsEmpty(t *testing.T) {
	t.Parallel()
	text, items, err := promptctx.ProjectRules(t.TempDir(), 1000)
	require.NoError(t, err)
	assert.Empty(t, text)
	assert.Empty(t, items)
}

func TestRuleStatementsSplitsItemsAndParagraphs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, "AGENTS.md", "# Rules\n\n- Wrap errors with %w.\n- Use testify\n  require and assert.\n\n1. Never sleep in tests.\n\nKeep files small\nand focused.\n\n```go\nfunc notARule() {}\n```\n")
	write(t, dir, ".cursorrules", "tabs, not spaces")
	got, found, err := promptctx.RuleStatements(dir)
	require.NoError(t, err)
	assert.Equal(t, []string{"AGENTS.md", ".cursorrules"}, found)
	var texts []string
	for _, s := range got {
		texts = append(texts, s.Text)
	}
	assert.Equal(t, []string{"Wrap errors with %w.", "Use testify require and assert.", "Never sleep in tests.",
		"Keep files small and focused.", "tabs, not spaces"}, texts)
}

func FuzzSplitRules(f *testing.F) {
	for _, s := range []string{"- a\n- b", "```\nx", "1) y\n\n#", "", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte(s), 0o644))
		got, _, err := promptctx.RuleStatements(dir)
		require.NoError(t, err)
		for _, r := range got {
			assert.NotEmpty(t, strings.TrimSpace(r.Text))
		}
	})
}
