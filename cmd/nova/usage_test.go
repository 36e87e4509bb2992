package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/llm/ollamatest"
)

func TestMistypedCommandsSuggestAndExit2(t *testing.T) {
	t.Parallel()
	dir := initDir(t)
	cases := []struct {
		args    []string
		suggest string
		help    string
	}{
		{[]string{"vault", "serch", "x"}, `did you mean "nova vault search"?`, "nova vault --help"},
		{[]string{"build", "lst"}, `did you mean "nova build list"?`, "nova build --help"},
		{[]string{"vualt"}, `did you mean "nova vault"?`, "nova --help"},
		{[]string{"rehearsl", "list"}, `did you mean "nova rehearsal" or "nova rehearse"?`, "nova --help"},
		{[]string{"playbook", "shwo", "MARS"}, `did you mean "nova playbook show"?`, "nova playbook --help"},
	}
	for _, c := range cases {
		r := runNova(t, dir, nil, c.args...)
		line := strings.Join(c.args, " ")
		assert.Equal(t, 2, r.code, "nova %s", line)
		assert.Contains(t, r.stderr, "unknown command", line)
		assert.Contains(t, r.stderr, c.suggest, line)
		assert.Contains(t, r.stderr, "Try `"+c.help+"`", line)
		assert.Empty(t, r.stdout, "no help dumped on stdout: %s", line)
	}
	// Nothing close: no suggestion, still exit 2.
	r := runNova(t, dir, nil, "vault", "zzzzzz")
	assert.Equal(t, 2, r.code)
	assert.NotContains(t, r.stderr, "did you mean")
	// A group alone still shows its help.
	r = runNova(t, dir, nil, "vault")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "search")
}

func TestInvalidEnumValuesAreUsageErrorsListingTheValidOnes(t *testing.T) {
	t.Parallel()
	dir := initDir(t)
	one := addNode(t, dir, "--type", "pattern", "--content", "one")
	two := addNode(t, dir, "--type", "pattern", "--content", "two")
	base := vaultStats(t, dir)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"vault", "link", idStr(one), idStr(two), "--relation", "friends"}, `--relation "friends" is not valid: use supports, contradicts, refines, replaces or depends_on`},
		{[]string{"vault", "add", "--type", "Foo", "--content", "x"}, `--type "Foo" is not valid: use Strategy, Mistake, Preference, Pattern or Decision`},
		{[]string{"vault", "search", "x", "--type", "Foo"}, `--type "Foo" is not valid`},
		{[]string{"vault", "traverse", idStr(one), "--direction", "up"}, `--direction "up" is not valid: use out, in or both`},
		{[]string{"vault", "context", "a task", "--tier", "gold"}, `--tier "gold" is not valid: use free or premium`},
		{[]string{"wisdom", "list", "--status", "x"}, `--status "x" is not valid: use pending, active or demoted`},
		{[]string{"changes", "list", "--status", "x"}, `--status "x" is not valid: use pending, applied, discarded or reverted`},
		{[]string{"rehearsal", "list", "--status", "x"}, `--status "x" is not valid: use pending, approved, rejected or failed`},
		{[]string{"playbook", "show", "MARS", "--sort", "x"}, `--sort "x" is not valid: use id, confidence, applied, success or updated`},
		{[]string{"playbook", "show", "MARS", "--kind", "x"}, `--kind "x" is not valid`},
		{[]string{"playbook", "show", "MARS", "--source", "x"}, `--source "x" is not valid`},
		{[]string{"agent", "run", "MARS", "a task", "--tier", "huge"}, `--tier "huge" is not valid: use small, medium or large`},
	}
	for _, c := range cases {
		r := runNova(t, dir, nil, c.args...)
		line := strings.Join(c.args, " ")
		assert.Equal(t, 2, r.code, "nova %s: %s", line, r.stderr)
		assert.Contains(t, r.stderr, c.want, line)
		assert.Empty(t, r.stdout, line)
	}
	assert.Equal(t, base, vaultStats(t, dir), "bad input changed nothing")
}

func TestNumericFlagsSayTheyTakeANumber(t *testing.T) {
	t.Parallel()
	dir := initDir(t)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"vault", "search", "x", "--limit", "abc"}, `--limit must be a number (a whole number), got "abc"`},
		{[]string{"vault", "add", "--type", "pattern", "--content", "x", "--confidence", "high"}, `--confidence must be a number, got "high"`},
		{[]string{"vault", "traverse", "1", "--depth", "deep"}, `--depth must be a number`},
		{[]string{"build", "run", "p.json", "--autonomy", "max"}, `--autonomy must be a number`},
	}
	for _, c := range cases {
		r := runNova(t, dir, nil, c.args...)
		line := strings.Join(c.args, " ")
		assert.Equal(t, 2, r.code, line)
		assert.Contains(t, r.stderr, c.want, line)
		assert.NotContains(t, r.stderr, "strconv", "no raw parser error: %s", line)
	}
}

func TestUsageErrorsPointToTheCommandsOwnHelp(t *testing.T) {
	t.Parallel()
	dir := initDir(t)
	cases := []struct {
		args []string
		help string
	}{
		{[]string{"vault", "show", "abc"}, "nova vault show --help"},
		{[]string{"--workspace", dir, "vault", "show", "abc"}, "nova vault show --help"},
		{[]string{"vault", "search", "x", "--limit", "abc"}, "nova vault search --help"},
		{[]string{"changes", "apply"}, "nova changes apply --help"},
		{[]string{"version", "--nope"}, "nova version --help"},
	}
	for _, c := range cases {
		r := runNova(t, dir, nil, c.args...)
		assert.Equal(t, 2, r.code, strings.Join(c.args, " "))
		assert.Contains(t, r.stderr, "Try `"+c.help+"` for usage.", strings.Join(c.args, " "))
	}
}

// TestFlagHelpKeepsTheCaseOfValues: fang's help capitalises the first word
// of every flag's description (and lower-cases the rest of that word), so a
// description must start with a plain lowercase word, never a value
// ("supports, contradicts…" would read "Supports"), a flag, an identifier
// or a hyphenated word.
func TestFlagHelpKeepsTheCaseOfValues(t *testing.T) {
	t.Parallel()
	e, _, _ := newTestEnv(t, t.TempDir(), nil, "")
	plainWord := regexp.MustCompile(`^[a-z]+[,:]?$`)
	values := map[string]bool{}
	for _, v := range []string{"supports", "contradicts", "refines", "replaces", "depends_on", "strategy", "mistake", "preference",
		"pattern", "decision", "pending", "active", "demoted", "applied", "discarded", "approved", "rejected", "failed",
		"small", "medium", "large", "free", "premium", "out", "in", "both", "learned", "manual", "global"} {
		values[v] = true
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			first := strings.Fields(f.Usage)[0]
			assert.Regexp(t, plainWord, first, "%s --%s: %q", c.CommandPath(), f.Name, f.Usage)
			assert.False(t, values[strings.TrimRight(first, ",:")], "%s --%s starts with a value: %q", c.CommandPath(), f.Name, f.Usage)
		})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(rootCmd(e))

	// And as printed.
	dir := initDir(t)
	r := runNova(t, dir, nil, "vault", "link", "--help")
	assert.Contains(t, r.stdout, "supports, contradicts, refines, replaces or depends_on")
	assert.NotContains(t, r.stdout, "Supports")
	r = runNova(t, dir, nil, "vault", "add", "--help")
	assert.Contains(t, r.stdout, "Strategy, Mistake, Preference, Pattern or Decision")
}

func TestPlaybookOfAnUnknownAgentIsAnError(t *testing.T) {
	t.Parallel()
	dir := initDir(t)
	for _, args := range [][]string{
		{"playbook", "show", "NOBODY"},
		{"playbook", "history", "NOBODY"},
		{"playbook", "diff", "NOBODY", "0", "1"},
		{"playbook", "add", "NOBODY", "a rule"},
	} {
		r := runNova(t, dir, nil, args...)
		assert.Equal(t, 1, r.code, strings.Join(args, " "))
		assert.Contains(t, r.stderr, `unknown agent "NOBODY"`, strings.Join(args, " "))
		assert.Contains(t, r.stderr, "nova agents list")
		assert.Empty(t, r.stdout)
	}
	// Any case of a roster agent works, with or without rules.
	r := runNova(t, dir, nil, "playbook", "show", "mars")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "0 rules, 0 tasks")
	// A playbook outlives its agent file and stays readable.
	r = runNova(t, dir, nil, "playbook", "add", "MARS", "Validate request bodies first")
	require.Equal(t, 0, r.code, r.stderr)
	require.NoError(t, os.Remove(filepath.Join(dir, ".nova", "agents", "MARS.yaml")))
	r = runNova(t, dir, nil, "playbook", "show", "MARS")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "1 rule,")
}

func TestTUIWithoutATerminalSaysWhatToDo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	e, so, se := newTestEnv(t, dir, nil, "")
	e.Terminal = func() error { return errors.New("open /dev/tty: no such device or address") }
	code := run(t.Context(), e, []string{"--init"})
	assert.Equal(t, 2, code)
	assert.Contains(t, se.String(), "the TUI needs a terminal")
	assert.Contains(t, se.String(), "`nova init [DIR]`")
	assert.NotContains(t, se.String(), "bubbletea")
	assert.Empty(t, so.String())
	_, err := os.Stat(filepath.Join(dir, ".nova"))
	assert.ErrorIs(t, err, os.ErrNotExist, "--init did not start what it cannot finish")

	// In a workspace, the same.
	require.Equal(t, 0, runNova(t, dir, nil, "init").code)
	e, _, se = newTestEnv(t, dir, nil, "")
	e.Terminal = func() error { return errors.New("no tty") }
	assert.Equal(t, 2, run(t.Context(), e, nil))
	assert.Contains(t, se.String(), "the TUI needs a terminal")
}

func TestDoctorJSONGivesTheLatencyInMilliseconds(t *testing.T) {
	t.Parallel()
	dir := initDir(t)
	srv := ollamatest.New(t, ollamatest.WithModels("qwen2.5-coder:1.5b"))
	r := runNova(t, dir, map[string]string{"OLLAMA_HOST": srv.Host()}, "doctor", "--json")
	var rep struct {
		Ollama map[string]any `json:"ollama"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep), r.stdout)
	assert.Equal(t, true, rep.Ollama["reachable"])
	assert.NotContains(t, rep.Ollama, "latency", "no bare nanoseconds")
	ms, ok := rep.Ollama["latencyMs"].(float64)
	require.True(t, ok, "latencyMs is a number: %v", rep.Ollama)
	assert.Greater(t, ms, 0.0)
	assert.Less(t, ms, 60_000.0, "milliseconds, not nanoseconds")
}

// Issue 32: help text has no trailing blanks (fang pads its blocks).
func TestHelpHasNoTrailingSpaces(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, args := range [][]string{{"--help"}, {"changes", "apply", "--help"}, {"build", "--help"}} {
		r := runNova(t, dir, nil, args...)
		require.Equal(t, 0, r.code, r.stderr)
		require.NotEmpty(t, r.stdout)
		for i, line := range strings.Split(r.stdout, "\n") {
			assert.Equal(t, strings.TrimRight(line, " \t"), line, "%v line %d", args, i)
		}
	}
	assert.Equal(t, []byte("a\n  b\x1b[m\nc"), func() []byte {
		var buf bytes.Buffer
		w := &trimWriter{w: &buf}
		_, _ = w.Write([]byte("a   \n  b  \x1b[m\nc  "))
		_ = w.Flush()
		return buf.Bytes()
	}())
}
