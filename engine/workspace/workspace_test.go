package workspace

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func noEnv(string) string { return "" }

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func testDefaults() fstest.MapFS {
	return fstest.MapFS{
		".nova/config.yaml":      {Data: []byte("# defaults\ntier: free\ntheme: nova-dark\n")},
		".nova/agents/MARS.yaml": {Data: []byte("id: MARS\n")},
		".nova/patterns/a.md":    {Data: []byte("# A\n")},
	}
}

func TestLocateWalksUp(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, ".nova"), 0o755))
	deep := filepath.Join(root, "a", "b", "c")
	require.NoError(t, os.MkdirAll(deep, 0o755))
	got, err := Locate("", deep, noEnv)
	require.NoError(t, err)
	assert.Equal(t, root, got)
}

func TestLocateExplicitAndEnv(t *testing.T) {
	t.Parallel()
	a, b := t.TempDir(), t.TempDir()
	for _, d := range []string{a, b} {
		require.NoError(t, os.MkdirAll(filepath.Join(d, ".nova"), 0o755))
	}
	got, err := Locate(a, t.TempDir(), envOf(map[string]string{EnvVar: b}))
	require.NoError(t, err)
	assert.Equal(t, a, got, "--workspace beats NOVA_WORKSPACE")
	got, err = Locate("", t.TempDir(), envOf(map[string]string{EnvVar: b}))
	require.NoError(t, err)
	assert.Equal(t, b, got)
	got, err = Locate(filepath.Join(a, ".nova"), "", noEnv)
	require.NoError(t, err)
	assert.Equal(t, a, got, "pointing at .nova itself works")
}

func TestLocateNotFound(t *testing.T) {
	t.Parallel()
	_, err := Locate("", t.TempDir(), noEnv)
	require.ErrorIs(t, err, ErrNotFound)
	assert.Contains(t, err.Error(), "nova init")
	_, err = Locate(t.TempDir(), "", noEnv)
	assert.ErrorIs(t, err, ErrNotFound)
}

func TestInitIsIdempotentAndKeepsUserFiles(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	rep, err := Init(root, testDefaults())
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"config.yaml", "agents/MARS.yaml", "patterns/a.md"}, rep.Created)

	userCfg := []byte("tier: premium\n# mine\n")
	require.NoError(t, os.WriteFile(filepath.Join(root, ".nova", "config.yaml"), userCfg, 0o644))
	rep, err = Init(root, testDefaults())
	require.NoError(t, err)
	assert.Empty(t, rep.Created)
	assert.Len(t, rep.Kept, 3)
	got, err := os.ReadFile(filepath.Join(root, ".nova", "config.yaml"))
	require.NoError(t, err)
	assert.Equal(t, userCfg, got)
}

func TestInitUnwritable(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		// root ignores permission bits; use a file where a directory must go.
		root := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(root, ".nova"), []byte("x"), 0o644))
		_, err := Init(root, testDefaults())
		require.Error(t, err)
		assert.Contains(t, err.Error(), ".nova")
		return
	}
	root := t.TempDir()
	require.NoError(t, os.Chmod(root, 0o500))
	_, err := Init(root, testDefaults())
	require.Error(t, err)
}

func TestConfigDefaultsWhenMissingOrEmpty(t *testing.T) {
	t.Parallel()
	cfg, err := ParseConfig("c.yaml", nil)
	require.NoError(t, err)
	assert.Equal(t, Defaults(), cfg)
	cfg, err = ParseConfig("c.yaml", []byte("tier: premium\n"))
	require.NoError(t, err)
	assert.Equal(t, TierPremium, cfg.Tier)
	assert.Equal(t, 2, cfg.Autonomy, "untouched keys keep defaults")
}

func TestMCPConfig(t *testing.T) {
	t.Parallel()
	cfg, err := ParseConfig("c.yaml", []byte("mcp:\n  servers:\n    fs:\n      command: npx\n      args: [-y, server]\n      env: {TOKEN: \"${T}\"}\n      tools: [read]\n    web:\n      url: https://h/mcp\n      headers: {Authorization: \"Bearer ${X}\"}\n      timeout: 5s\n"))
	require.NoError(t, err)
	assert.Equal(t, []string{"fs", "web"}, cfg.MCP.MCPServerNames())
	assert.Equal(t, []string{"-y", "server"}, cfg.MCP.Servers["fs"].Args)
	assert.Equal(t, "${T}", cfg.MCP.Servers["fs"].Env["TOKEN"], "expanded when the server starts, not on load")
	assert.Equal(t, 5*time.Second, cfg.MCP.Servers["web"].Timeout.D())
	assert.Zero(t, cfg.MCP.Servers["fs"].Timeout, "0 means the client's default")
}

func TestConfigErrorsNameFileLineField(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, data, field string
		line              int
	}{
		{"bad value", "tier: free\nautonomy: 9\n", "autonomy", 2},
		{"nested value", "ollama:\n  host: http://x\n  retries: 99\n", "ollama.retries", 3},
		{"unknown field", "tier: free\ncolour: red\n", "colour", 2},
		{"wrong type", "tier: free\nbudgets:\n  promptTokens: lots\n", "", 3},
		{"syntax", "tier: free\nmodels: [unclosed\n", "", 2},
		{"bad duration", "ollama:\n  timeout: soon\n", "ollama.timeout", 2},
		{"bad tier", "# comment\n\ntier: gold\n", "tier", 3},
		{"share too big", "budgets:\n  vaultShare: 0.5\n", "budgets.vaultShare", 2},
		{"knowledge share", "budgets:\n  knowledgeShare: 0.3\n", "budgets.knowledgeShare", 2},
		{"inconclusive policy", "verify:\n  inconclusive: shrug\n", "verify.inconclusive", 2},
		{"wait limit", "ollama:\n  waitLimit: forever\n", "ollama.waitLimit", 2},
		{"escalations", "build:\n  maxEscalations: 9\n", "build.maxEscalations", 2},
		{"docs url", "docs:\n  context7:\n    url: ftp://x\n", "docs.context7.url", 3},
		{"docs ttl", "docs:\n  ttl: forever\n", "docs.ttl", 2},
		{"edit format", "tier: free\nagents:\n  editFormat: patch\n", "agents.editFormat", 3},
		{"mcp neither", "mcp:\n  servers:\n    fs:\n      timeout: 5s\n", "mcp.servers.fs", 4},
		{"mcp both", "mcp:\n  servers:\n    fs:\n      command: x\n      url: http://h/mcp\n", "mcp.servers.fs", 4},
		{"mcp url", "mcp:\n  servers:\n    fs:\n      url: ftp://h\n", "mcp.servers.fs.url", 4},
		{"mcp name", "mcp:\n  servers:\n    9fs:\n      command: x\n", "mcp.servers.9fs", 4},
		{"mcp timeout", "mcp:\n  servers:\n    fs:\n      command: x\n      timeout: soon\n", "mcp.servers.fs.timeout", 5},
		{"mcp headers on a command", "mcp:\n  servers:\n    fs:\n      command: x\n      headers: {A: b}\n", "mcp.servers.fs.headers", 5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseConfig("/w/.nova/config.yaml", []byte(tc.data))
			require.Error(t, err)
			require.ErrorIs(t, err, ErrConfig)
			var ce *ConfigError
			require.ErrorAs(t, err, &ce)
			assert.Equal(t, "/w/.nova/config.yaml", ce.File)
			assert.Equal(t, tc.line, ce.Line, err.Error())
			if tc.field != "" {
				assert.Equal(t, tc.field, ce.Field)
			}
			assert.True(t, strings.HasPrefix(err.Error(), "/w/.nova/config.yaml:"), err.Error())
		})
	}
}

func TestShippedConfigParses(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../.nova/config.yaml")
	require.NoError(t, err)
	cfg, err := ParseConfig("config.yaml", data)
	require.NoError(t, err)
	assert.Equal(t, Defaults(), cfg, "the shipped file documents exactly the built-in defaults")
}

func TestEnvOverrides(t *testing.T) {
	t.Parallel()
	cfg := Defaults()
	ov, err := cfg.ApplyEnv(envOf(map[string]string{
		"OLLAMA_HOST": "gpu-box:11500", "NOVA26_TIER": "free", "NOVA_TIER": "premium", "NOVA_AUTONOMY": "4",
	}))
	require.NoError(t, err)
	assert.Equal(t, "http://gpu-box:11500", cfg.Ollama.Host)
	assert.Equal(t, TierPremium, cfg.Tier, "NOVA_TIER wins over NOVA26_TIER")
	assert.Equal(t, 4, cfg.Autonomy)
	assert.Len(t, ov, 4)

	cfg = Defaults()
	_, err = cfg.ApplyEnv(envOf(map[string]string{"NOVA_AUTONOMY": "eleven"}))
	require.ErrorIs(t, err, ErrConfig)
	assert.Contains(t, err.Error(), "NOVA_AUTONOMY")
	cfg = Defaults()
	ov, err = cfg.ApplyEnv(envOf(map[string]string{"NOVA26_TIER": "premium"}))
	require.NoError(t, err)
	assert.Equal(t, TierPremium, cfg.Tier, "the Nova26 name is accepted")
	assert.Equal(t, "NOVA26_TIER", ov[0].Env)
}

func TestDocsEnvOverridesHideTheKey(t *testing.T) {
	t.Parallel()
	cfg := Defaults()
	assert.InDelta(t, 0.10, cfg.Budgets.KnowledgeShare, 1e-9)
	assert.Equal(t, "https://context7.com", cfg.Docs.Context7.URL)
	ov, err := cfg.ApplyEnv(envOf(map[string]string{"CONTEXT7_API_URL": "http://127.0.0.1:9", "CONTEXT7_API_KEY": "ctx7sk-secret"}))
	require.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1:9", cfg.Docs.Context7.URL)
	assert.Equal(t, "ctx7sk-secret", cfg.Docs.Context7.APIKey)
	require.Len(t, ov, 2)
	for _, o := range ov {
		assert.NotContains(t, o.Value, "secret", "a key is never reported")
	}
	_, err = cfg.ApplyEnv(envOf(map[string]string{"CONTEXT7_API_URL": "not a url"}))
	require.ErrorIs(t, err, ErrConfig)
	cfg, err = ParseConfig("c.yaml", []byte("budgets:\n  knowledgeShare: 0\n"))
	require.NoError(t, err)
	assert.Zero(t, cfg.Budgets.KnowledgeShare, "0 turns build knowledge off")
}

func TestNormalizeHost(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"":                      "http://127.0.0.1:11434",
		"0.0.0.0":               "http://127.0.0.1:11434",
		"localhost":             "http://localhost:11434",
		":11500":                "http://127.0.0.1:11500",
		"example.com:8080":      "http://example.com:8080",
		"https://ollama.lan":    "https://ollama.lan:443",
		"http://10.0.0.5":       "http://10.0.0.5:80",
		"http://h:1/proxy":      "http://h:1/proxy",
		"[::1]:11434":           "http://[::1]:11434",
		`"http://quoted:7"`:     "http://quoted:7",
		"http://127.0.0.1:1234": "http://127.0.0.1:1234",
	}
	for in, want := range cases {
		got, err := NormalizeHost(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"ftp://x", "host:notaport", "host:99999"} {
		_, err := NormalizeHost(bad)
		assert.Error(t, err, bad)
	}
}

func TestLoadAppliesConfigAndEnv(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	_, err := Init(root, testDefaults())
	require.NoError(t, err)
	w, err := Load(root, envOf(map[string]string{"NOVA_AUTONOMY": "3"}))
	require.NoError(t, err)
	assert.Equal(t, 3, w.Config.Autonomy)
	assert.Equal(t, filepath.Join(root, ".nova", "nova.db"), w.DBPath())

	require.NoError(t, os.WriteFile(w.ConfigPath(), []byte("autonomy: -1\n"), 0o644))
	_, err = Load(root, noEnv)
	require.ErrorIs(t, err, ErrConfig)
	assert.Contains(t, err.Error(), w.ConfigPath()+":1: autonomy")
}

func TestSetConfigValueKeepsComments(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "config.yaml")
	orig := "# my settings\ntier: free # keep me\ntheme: nova-dark\nautonomy: 1\n"
	require.NoError(t, os.WriteFile(path, []byte(orig), 0o644))
	require.NoError(t, SetConfigValue(path, "theme", "high-contrast"))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(got), "# my settings")
	assert.Contains(t, string(got), "# keep me")
	cfg, err := ParseConfig(path, got)
	require.NoError(t, err)
	assert.Equal(t, "high-contrast", cfg.Theme)
	assert.Equal(t, 1, cfg.Autonomy)

	path2 := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(path2, []byte("tier: free"), 0o644))
	require.NoError(t, SetConfigValue(path2, "theme", "nova-light"))
	cfg, err = ParseConfig(path2, mustRead(t, path2))
	require.NoError(t, err)
	assert.Equal(t, "nova-light", cfg.Theme)

	assert.Error(t, SetConfigValue(path2, "tier", "gold"), "an invalid value never lands on disk")
	cfg, err = ParseConfig(path2, mustRead(t, path2))
	require.NoError(t, err)
	assert.Equal(t, TierFree, cfg.Tier)
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return b
}

func FuzzParseConfig(f *testing.F) {
	f.Add([]byte("tier: free\nautonomy: 2\n"))
	f.Add([]byte("ollama:\n  host: [\n"))
	f.Add([]byte("budgets: {promptTokens: -1}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := ParseConfig("fuzz.yaml", data)
		if err == nil {
			if errs := cfg.validate(); len(errs) > 0 {
				t.Fatalf("accepted an invalid config: %v", errs[0])
			}
		}
	})
}

func TestDurationJSONRoundTrip(t *testing.T) {
	t.Parallel()
	cfg := Defaults()
	data, err := json.Marshal(cfg)
	require.NoError(t, err)
	var back Config
	require.NoError(t, json.Unmarshal(data, &back))
	assert.Equal(t, cfg, back)
	assert.Contains(t, string(data), `"timeout":"5m0s"`)

	var d Duration
	require.Error(t, json.Unmarshal([]byte(`"soon"`), &d))
}

func TestIdentityComesFromConfigThenGit(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	assert.Equal(t, "dev@example.org", Identity(root, "dev@example.org"), "a configured userId wins")
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	run := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
	}
	run("init", "-q")
	run("config", "user.email", "repo-owner@example.org")
	assert.Equal(t, "repo-owner@example.org", Identity(root, "local"), "the default userId falls back to git's user.email")
	assert.Equal(t, "repo-owner@example.org", Identity(root, ""))
	assert.Equal(t, "someone", Identity(root, "someone"))
}

func TestZeroSharesAndTrustKeysParse(t *testing.T) {
	t.Parallel()
	cfg, err := ParseConfig("c.yaml", []byte("budgets:\n  vaultShare: 0\n  playbookShare: 0\n  knowledgeShare: 0\n"+
		"verify:\n  inconclusive: warn\nollama:\n  waitLimit: 30s\nbuild:\n  maxEscalations: 0\n  maxLargeCalls: 1\n"))
	require.NoError(t, err)
	assert.Zero(t, cfg.Budgets.VaultShare, "0 is kept: it turns the context off")
	assert.Zero(t, cfg.Budgets.PlaybookShare)
	assert.Zero(t, cfg.Budgets.KnowledgeShare)
	assert.Equal(t, "warn", cfg.Verify.Inconclusive)
	assert.Equal(t, 30*time.Second, cfg.Ollama.WaitLimit.D())
	assert.Zero(t, cfg.Build.MaxEscalations)
	assert.Equal(t, 1, cfg.Build.MaxLargeCalls)
	def := Defaults()
	assert.InDelta(t, 0.10, def.Budgets.KnowledgeShare, 1e-9)
	assert.Equal(t, "retry", def.Verify.Inconclusive)
	assert.Equal(t, 10*time.Minute, def.Ollama.WaitLimit.D())
}

func TestConfigIdleTimeoutAndReplyReserve(t *testing.T) {
	t.Parallel()
	cfg, err := ParseConfig("c.yaml", []byte("ollama:\n  idleTimeout: 45s\nbudgets:\n  replyReserve: 2048\n"))
	require.NoError(t, err)
	assert.Equal(t, 45*time.Second, cfg.Ollama.IdleTimeout.D())
	assert.Equal(t, 2048, cfg.Budgets.ReplyReserve)
	def := Defaults()
	assert.Equal(t, 60*time.Second, def.Ollama.IdleTimeout.D(), "default ≤ 60 s")
	assert.Equal(t, 1024, def.Budgets.ReplyReserve)
	assert.Equal(t, def.Ollama.NumCtx-def.Budgets.ReplyReserve, def.Budgets.PromptTokens, "the default budget leaves the reserve free")

	for _, bad := range []struct{ yaml, field string }{
		{"budgets:\n  replyReserve: 10\n", "budgets.replyReserve"},
		{"ollama:\n  idleTimeout: 10ms\n", "ollama.idleTimeout"},
		{"ollama:\n  idleTimeout: soon\n", "ollama.idleTimeout"},
	} {
		_, err := ParseConfig("c.yaml", []byte(bad.yaml))
		require.Error(t, err, bad.yaml)
		assert.Contains(t, err.Error(), bad.field)
		assert.Contains(t, err.Error(), "c.yaml:2", "the line is named")
	}
}

// ConfigSum names the bytes Load parsed: the same as Load's for the same
// file, another after an edit, empty without a file.
func TestConfigSumIsLoads(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	sum, err := ConfigSum(root)
	require.NoError(t, err)
	assert.Empty(t, sum, "no .nova/config.yaml")

	require.NoError(t, os.MkdirAll(filepath.Join(root, DirName), 0o755))
	path := filepath.Join(root, DirName, ConfigName)
	require.NoError(t, os.WriteFile(path, []byte("autonomy: 2\n"), 0o600))
	w, err := Load(root, noEnv)
	require.NoError(t, err)
	sum, err = ConfigSum(root)
	require.NoError(t, err)
	assert.Len(t, sum, 64)
	assert.Equal(t, w.ConfigSum, sum)

	require.NoError(t, os.WriteFile(path, []byte("autonomy: 3\n"), 0o600))
	again, err := ConfigSum(root)
	require.NoError(t, err)
	assert.NotEqual(t, sum, again)
}

func TestEditFormatConfig(t *testing.T) {
	t.Parallel()
	assert.Equal(t, EditFormatAuto, Defaults().Agents.EditFormat)
	for _, f := range EditFormats() {
		cfg, err := ParseConfig("c.yaml", []byte("agents:\n  editFormat: "+f+"\n"))
		require.NoError(t, err, f)
		assert.Equal(t, f, cfg.Agents.EditFormat)
	}
	_, err := ParseConfig("c.yaml", []byte("agents:\n  editFormat: udiff\n"))
	require.ErrorIs(t, err, ErrConfig)
	assert.Equal(t, `c.yaml:2: agents.editFormat: must be auto, tools, whole or diff, got "udiff"`, err.Error(),
		"the message names the field, its line and every allowed value")
}

func TestConfigMaxReply(t *testing.T) {
	t.Parallel()
	cfg, err := ParseConfig("c.yaml", []byte("ollama:\n  maxReply: 1048576\n"))
	require.NoError(t, err)
	assert.Equal(t, 1<<20, cfg.Ollama.MaxReply)
	def, err := ParseConfig("c.yaml", []byte("version: 1\n"))
	require.NoError(t, err)
	assert.Equal(t, 4<<20, def.Ollama.MaxReply, "default 4 MiB")
	_, err = ParseConfig("c.yaml", []byte("ollama:\n  maxReply: 100\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "ollama.maxReply")
}

// The code map's keys: budgets.mapShare (default 0.10, at most 0.25),
// codemap: and lsp: with their checks.
func TestCodeMapAndLSPConfig(t *testing.T) {
	t.Parallel()
	def := Defaults()
	assert.InDelta(t, 0.10, def.Budgets.MapShare, 1e-9)
	assert.False(t, def.CodeMap.Off)
	cfg, err := ParseConfig("c.yaml", []byte("budgets:\n  mapShare: 0.2\ncodemap:\n  maxFiles: 500\n  exclude: [\"gen/*\"]\n"+
		"lsp:\n  timeout: 3s\n  servers:\n    pyls:\n      command: pylsp\n      languages: [python]\n    gopls:\n      off: true\n"))
	require.NoError(t, err)
	assert.InDelta(t, 0.2, cfg.Budgets.MapShare, 1e-9)
	assert.Equal(t, 500, cfg.CodeMap.MaxFiles)
	assert.Equal(t, []string{"gen/*"}, cfg.CodeMap.Exclude)
	assert.Equal(t, 3*time.Second, cfg.LSP.Timeout.D())
	assert.Equal(t, "pylsp", cfg.LSP.Servers["pyls"].Command)
	assert.True(t, cfg.LSP.Servers["gopls"].Off)
	for _, bad := range []string{"budgets:\n  mapShare: 0.5\n", "codemap:\n  exclude: [\"[\"]\n", "lsp:\n  timeout: soon\n",
		"lsp:\n  servers:\n    mine:\n      languages: [go]\n"} {
		_, err := ParseConfig("c.yaml", []byte(bad))
		require.ErrorIs(t, err, ErrConfig, bad)
	}
}
