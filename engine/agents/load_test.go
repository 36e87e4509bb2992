package agents

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nova26Roles are the 21 Nova26 agent names the shipped roster must carry.
var nova26Roles = []string{
	"SUN", "MERCURY", "VENUS", "EARTH", "MARS", "PLUTO", "SATURN", "JUPITER",
	"ENCELADUS", "GANYMEDE", "NEPTUNE", "CHARON", "URANUS", "TITAN", "EUROPA",
	"MIMAS", "IO", "TRITON", "CALLISTO", "ATLAS", "ANDROMEDA",
}

// repoRoot walks up from the test's working directory to the directory
// holding go.mod.
func repoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test directory")
		}
		dir = parent
	}
}

func shippedDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(repoRoot(t), ".nova", "agents")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("shipped agents dir absent: %v", err)
	}
	return dir
}

// minimal returns the smallest valid agent file for id.
func minimal(id string) string {
	return fmt.Sprintf("schema: kb.specialist/1\nid: %s\nrole: Answer questions about the workspace.\ntools: [readFile]\n", id)
}

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	return dir
}

// specErrors asserts every error is a *SpecError wrapping ErrInvalidSpec and
// returns them.
func specErrors(t *testing.T, errs []error) []*SpecError {
	t.Helper()
	out := make([]*SpecError, 0, len(errs))
	for _, err := range errs {
		var se *SpecError
		require.ErrorAs(t, err, &se, "error %v", err)
		require.ErrorIs(t, err, ErrInvalidSpec)
		out = append(out, se)
	}
	return out
}

func fieldsOf(ses []*SpecError) []string {
	fields := make([]string, len(ses))
	for i, se := range ses {
		fields[i] = se.Field
	}
	return fields
}

func TestLoadShippedRoster(t *testing.T) {
	t.Parallel()
	dir := shippedDir(t)

	r, errs := Load(dir)
	require.Empty(t, errs, "shipped roster must load cleanly")

	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	require.NoError(t, err)
	assert.Equal(t, len(files), r.Len(), "one agent per yaml file")
	assert.Equal(t, 23, r.Len(), "21 Nova26 roles plus researcher and implementer")

	for _, id := range append(slices.Clone(nova26Roles), "researcher", "implementer") {
		spec, err := r.Get(id)
		require.NoError(t, err, id)
		assert.Equal(t, id, spec.ID)
		assert.Equal(t, SchemaV1, spec.Schema, id)
		assert.NotEmpty(t, spec.Display.Name, id)
		assert.NotEmpty(t, spec.Display.Description, id)
		assert.NotEmpty(t, spec.Domain, id)
		assert.True(t, spec.Tier.Valid(), id)
		assert.GreaterOrEqual(t, spec.MaxTier.Rank(), spec.Tier.Rank(), id)
		assert.NotEmpty(t, spec.Examples, id)
		assert.Positive(t, spec.Limits.MaxSteps, id)
		assert.Positive(t, spec.Limits.TimeoutDuration(), id)

		lines := strings.Count(strings.TrimSpace(spec.Role), "\n") + 1
		assert.GreaterOrEqual(t, lines, 10, "%s role is %d lines", id, lines)
		assert.LessOrEqual(t, lines, 25, "%s role is %d lines", id, lines)
		musts := []string{"workspace", "Taste Vault", "Playbook", "structured output"}
		if spec.CanWrite() {
			musts = append(musts, "staged changeset")
		}
		for _, must := range musts {
			assert.Contains(t, spec.Role, must, "%s role should mention %q", id, must)
		}
	}

	// Tool policy per role.
	get := func(id string) Spec {
		s, err := r.Get(id)
		require.NoError(t, err)
		return s
	}
	assert.False(t, get("SUN").CanWrite(), "SUN plans and never writes")
	assert.False(t, get("SUN").HasTool(ToolRunCommand))
	assert.False(t, get("MERCURY").CanWrite(), "MERCURY validates and never writes")
	assert.True(t, get("MERCURY").HasTool(ToolRunCommand), "MERCURY runs checks")
	assert.True(t, get("researcher").ReadOnly(), "researcher is read-only")
	for _, id := range []string{"MARS", "VENUS", "PLUTO", "SATURN", "implementer"} {
		assert.True(t, get(id).CanWrite(), "%s writes code", id)
	}
}

func TestRosterGetIsCaseInsensitive(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{"SUN.yaml": minimal("SUN"), "researcher.yaml": minimal("researcher")})
	r, errs := Load(dir)
	require.Empty(t, errs)

	for _, q := range []string{"SUN", "sun", "Sun"} {
		s, err := r.Get(q)
		require.NoError(t, err, q)
		assert.Equal(t, "SUN", s.ID)
	}
	s, err := r.Get("RESEARCHER")
	require.NoError(t, err)
	assert.Equal(t, "researcher", s.ID)
	assert.True(t, r.Has("Researcher"))

	_, err = r.Get("PHOBOS")
	require.ErrorIs(t, err, ErrUnknownAgent)
	assert.Contains(t, err.Error(), "PHOBOS")
	assert.False(t, r.Has("PHOBOS"))

	// Get hands out copies.
	s.Tools[0] = "mutated"
	again, err := r.Get("researcher")
	require.NoError(t, err)
	assert.Equal(t, []string{ToolReadFile}, again.Tools)
}

func TestRosterListAndIDsSorted(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{
		"b.yaml": minimal("b"), "A.yaml": minimal("A"), "c.yml": minimal("c"), "Z.yaml": minimal("Z"),
	})
	r, errs := Load(dir)
	require.Empty(t, errs)

	assert.Equal(t, []string{"A", "b", "c", "Z"}, r.IDs())
	list := r.List()
	require.Len(t, list, 4)
	for i, s := range list {
		assert.Equal(t, r.IDs()[i], s.ID)
	}

	var nilRoster *Roster
	assert.Empty(t, nilRoster.IDs())
	assert.Zero(t, nilRoster.Len())
	_, err := nilRoster.Get("A")
	assert.ErrorIs(t, err, ErrUnknownAgent)
}

func TestDefaultsForMissingFields(t *testing.T) {
	t.Parallel()
	spec, errs := ParseSpec("X.yaml", []byte(minimal("X")))
	require.Empty(t, errs)

	assert.Equal(t, DefaultMaxSteps, spec.Limits.MaxSteps)
	assert.Equal(t, 12, spec.Limits.MaxSteps)
	assert.Equal(t, 24, spec.Limits.MaxToolCalls)
	assert.Equal(t, 5*time.Minute, spec.Limits.TimeoutDuration())
	assert.Equal(t, TierMedium, spec.Tier)
	assert.Equal(t, spec.Tier, spec.MaxTier)
	assert.Equal(t, "X", spec.Display.Name)
	assert.Equal(t, "X.yaml", spec.Source)

	partial := minimal("X") + "limits:\n  maxSteps: 3\n  timeout: 90s\ntier: small\n"
	spec, errs = ParseSpec("X.yaml", []byte(partial))
	require.Empty(t, errs)
	assert.Equal(t, 3, spec.Limits.MaxSteps)
	assert.Equal(t, 24, spec.Limits.MaxToolCalls)
	assert.Equal(t, 90*time.Second, spec.Limits.TimeoutDuration())
	assert.Equal(t, TierSmall, spec.MaxTier)
}

func TestMalformedYAMLNamesFileAndLine(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		content string
		line    int
	}{
		"unclosed flow sequence": {"schema: kb.specialist/1\nid: BAD\nrole: ok\ntools: [readFile\n", 4},
		"bad indentation":        {"schema: kb.specialist/1\nid: BAD\nrole: ok\n  tools: []\n", 3},
		"duplicate key":          {"schema: kb.specialist/1\nid: BAD\nrole: ok\nid: AGAIN\n", 4},
		"wrong type":             {"schema: kb.specialist/1\nid: BAD\nrole: ok\nforcedReasoningInterval: often\n", 4},
		"tools not a list":       {"schema: kb.specialist/1\nid: BAD\nrole: ok\ntools: readFile\n", 4},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := writeFiles(t, map[string]string{"BAD.yaml": tc.content})
			r, errs := Load(dir)
			assert.Zero(t, r.Len())
			ses := specErrors(t, errs)
			require.Len(t, ses, 1, "errors: %v", errs)
			assert.Equal(t, filepath.Join(dir, "BAD.yaml"), ses[0].File)
			assert.Equal(t, tc.line, ses[0].Line)
			assert.Contains(t, ses[0].Error(), fmt.Sprintf("BAD.yaml:%d: ", tc.line))
		})
	}
}

func TestStructuralProblems(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"empty":          "",
		"only a comment": "# nothing here\n",
		"a list":         "- schema: kb.specialist/1\n",
		"two documents":  minimal("X") + "---\n" + minimal("X"),
	}
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, errs := ParseSpec("X.yaml", []byte(content))
			ses := specErrors(t, errs)
			require.Len(t, ses, 1)
			assert.Equal(t, "X.yaml", ses[0].File)
		})
	}
}

func TestUnknownToolNamesFieldAndLine(t *testing.T) {
	t.Parallel()
	content := "schema: kb.specialist/1\nid: X\nrole: ok\ntools:\n  - readFile\n  - launchRockets\n"
	_, errs := ParseSpec("agents/X.yaml", []byte(content))
	ses := specErrors(t, errs)
	require.Len(t, ses, 1)
	assert.Equal(t, "tools[1]", ses[0].Field)
	assert.Equal(t, 6, ses[0].Line)
	assert.Contains(t, ses[0].Msg, "launchRockets")
	assert.Equal(t, `agents/X.yaml:6: tools[1]: `, ses[0].Error()[:len(`agents/X.yaml:6: tools[1]: `)])
}

func TestUnknownFieldsAreReportedWithLines(t *testing.T) {
	t.Parallel()
	content := minimal("X") + "tols: [editFile]\nlimits:\n  maxStep: 3\ndisplay:\n  title: X\n"
	_, errs := ParseSpec("X.yaml", []byte(content))
	ses := specErrors(t, errs)
	assert.Equal(t, []string{"tols", "limits.maxStep", "display.title"}, fieldsOf(ses))
	assert.Equal(t, []int{5, 7, 9}, []int{ses[0].Line, ses[1].Line, ses[2].Line})
}

func TestDuplicateIDAcrossFiles(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{
		"MARS.yaml": minimal("MARS"),
		"mars.yml":  minimal("mars"), // same id, other case: Get is case-insensitive, so ids must be too
		"PLUTO.yml": minimal("PLUTO"),
	})
	r, errs := Load(dir)
	assert.Equal(t, []string{"MARS", "PLUTO"}, r.IDs(), "first definition wins, others still load")
	ses := specErrors(t, errs)
	require.Len(t, ses, 1)
	assert.Equal(t, filepath.Join(dir, "mars.yml"), ses[0].File)
	assert.Equal(t, "id", ses[0].Field)
	assert.Equal(t, 2, ses[0].Line)
	assert.Contains(t, ses[0].Msg, filepath.Join(dir, "MARS.yaml"))
}

func TestMissingRole(t *testing.T) {
	t.Parallel()
	for name, content := range map[string]string{
		"absent": "schema: kb.specialist/1\nid: X\ntools: [readFile]\n",
		"blank":  "schema: kb.specialist/1\nid: X\nrole: \"   \"\n",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, errs := ParseSpec("X.yaml", []byte(content))
			ses := specErrors(t, errs)
			require.Len(t, ses, 1)
			assert.Equal(t, "role", ses[0].Field)
		})
	}
}

func TestGoodFilesLoadDespiteBadOnes(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{
		"GOOD1.yaml":        minimal("GOOD1"),
		"GOOD2.yml":         minimal("GOOD2"),
		"SYNTAX.yaml":       "schema: kb.specialist/1\nid: SYNTAX\nrole: [oops\n",
		"TOOL.yaml":         "schema: kb.specialist/1\nid: TOOL\nrole: ok\ntools: [teleport]\n",
		"NOROLE.yaml":       "schema: kb.specialist/1\nid: NOROLE\n",
		"README.md":         "# not an agent\n",
		"notes.txt":         "ignored",
		"nested/DEEP.yaml":  minimal("DEEP"), // subdirectories are not scanned
		".hidden.yaml":      "garbage: [",
		"MISMATCH.yaml":     minimal("OTHER"),
		"MULTI.yaml":        "schema: kb.specialist/2\nid: MULTI\nrole: ok\ntier: huge\nlimits:\n  timeout: soon\n",
		"GOOD3.yaml":        minimal("GOOD3"),
		"zz-last-bad.yaml":  "id: [",
		"GOOD4.YAML":        minimal("GOOD4"),
		"FORCED.yaml":       minimal("FORCED") + "forcedReasoningInterval: -1\n",
		"EXAMPLES.yaml":     minimal("EXAMPLES") + "examples:\n  - input: hi\n",
		"NEGLIMITS.yaml":    minimal("NEGLIMITS") + "limits:\n  maxSteps: -2\n  maxToolCalls: -1\n  timeout: -5m\n",
		"TIERORDER.yaml":    minimal("TIERORDER") + "tier: large\nmaxTier: small\n",
		"BADID.yaml":        "schema: kb.specialist/1\nid: 9lives\nrole: ok\n",
		"DUPTOOL.yaml":      minimal("DUPTOOL") + "tools: [readFile, readFile]\n",
		"WRONGSCHEMA.yaml":  "id: WRONGSCHEMA\nrole: ok\n",
		"EMPTYFILE.yaml":    "",
		"GOOD5.yaml":        minimal("GOOD5"),
		"LISTTOP.yaml":      "- a\n- b\n",
		"GOOD6.yaml":        minimal("GOOD6"),
		"TYPE.yaml":         minimal("TYPE") + "limits:\n  maxSteps: many\n",
		"DURATIONOK.yaml":   minimal("DURATIONOK") + "limits:\n  timeout: 1h30m\n",
		"EMOJI.yaml":        minimal("EMOJI") + "display:\n  name: E\n  description: d\n  emoji: \"🪐\"\n",
		"TIERSMALL.yaml":    minimal("TIERSMALL") + "tier: small\nmaxTier: large\n",
		"ZEROFORCED.yaml":   minimal("ZEROFORCED") + "forcedReasoningInterval: 0\n",
		"ANCHOR.yaml":       "schema: kb.specialist/1\nid: ANCHOR\nrole: &r ok\nstaticContext: *r\n",
		"UNKNOWNTOP.yaml":   minimal("UNKNOWNTOP") + "sampling:\n  temperature: 0.3\n", // llm: is a kb.specialist/1 field, accepted with a note
		"GOODLAST.yaml":     minimal("GOODLAST"),
		"BADTIMEOUT0.yaml":  minimal("BADTIMEOUT0") + "limits:\n  timeout: 0s\n",
		"DUPKEYS.yaml":      minimal("DUPKEYS") + "role: again\n",
		"STRICTNESS.yaml":   minimal("STRICTNESS") + "examples: nope\n",
		"TABS.yaml":         "schema: kb.specialist/1\nid: TABS\nrole: ok\ntools:\n\t- readFile\n",
		"UTF8.yaml":         minimal("UTF8") + "display:\n  name: \"Übersetzer\"\n  description: \"übersetzt\"\n",
		"GOOD7.yaml":        minimal("GOOD7"),
		"NULLROLE.yaml":     "schema: kb.specialist/1\nid: NULLROLE\nrole: null\n",
		"NUMERICID.yaml":    "schema: kb.specialist/1\nid: 42\nrole: ok\n",
		"FLOWMAP.yaml":      "{schema: kb.specialist/1, id: FLOWMAP, role: ok, tools: [listFiles]}\n",
		"ONEKEY.yaml":       "schema: kb.specialist/1\n",
		"SPACEDNAME .yaml":  minimal("SPACEDNAME"),
		"GOOD8.yaml":        minimal("GOOD8"),
		"BADEXAMPLE2.yaml":  minimal("BADEXAMPLE2") + "examples:\n  - {input: a, output: b, extra: c}\n",
		"GOODEXAMPLES.yaml": minimal("GOODEXAMPLES") + "examples:\n  - {input: a, output: b}\n",
	})
	good := []string{
		"ANCHOR", "DURATIONOK", "EMOJI", "FLOWMAP", "GOOD1", "GOOD2", "GOOD3", "GOOD4", "GOOD5",
		"GOOD6", "GOOD7", "GOOD8", "GOODEXAMPLES", "GOODLAST", "TIERSMALL", "UTF8", "ZEROFORCED",
	}
	bad := []string{
		"BADEXAMPLE2.yaml", "BADID.yaml", "BADTIMEOUT0.yaml", "DUPKEYS.yaml", "DUPTOOL.yaml",
		"EMPTYFILE.yaml", "EXAMPLES.yaml", "FORCED.yaml", "LISTTOP.yaml", "MISMATCH.yaml",
		"MULTI.yaml", "NEGLIMITS.yaml", "NOROLE.yaml", "NULLROLE.yaml", "NUMERICID.yaml",
		"ONEKEY.yaml", "SPACEDNAME .yaml", "STRICTNESS.yaml", "SYNTAX.yaml", "TABS.yaml",
		"TIERORDER.yaml", "TOOL.yaml", "TYPE.yaml", "UNKNOWNTOP.yaml", "WRONGSCHEMA.yaml",
		"zz-last-bad.yaml",
	}

	r, errs := Load(dir)
	assert.Equal(t, good, r.IDs())

	badFiles := map[string]bool{}
	for _, se := range specErrors(t, errs) {
		require.True(t, strings.HasPrefix(se.File, dir), "error names its file: %v", se)
		badFiles[filepath.Base(se.File)] = true
	}
	var gotBad []string
	for f := range badFiles {
		gotBad = append(gotBad, f)
	}
	slices.Sort(gotBad)
	assert.Equal(t, bad, gotBad)

	// MULTI.yaml has several problems; all are reported, not just the first.
	var multi []string
	for _, se := range specErrors(t, errs) {
		if filepath.Base(se.File) == "MULTI.yaml" {
			multi = append(multi, se.Field)
		}
	}
	assert.ElementsMatch(t, []string{"schema", "tier", "limits.timeout"}, multi)
}

func TestLoadFSUsesFSPaths(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"defaults/agents/SUN.yaml": {Data: []byte(minimal("SUN"))},
		"defaults/agents/BAD.yaml": {Data: []byte("schema: kb.specialist/1\nid: BAD\nrole: ok\ntools: [fly]\n")},
	}
	r, errs := LoadFS(fsys, "defaults/agents")
	assert.Equal(t, []string{"SUN"}, r.IDs())
	ses := specErrors(t, errs)
	require.Len(t, ses, 1)
	assert.Equal(t, "defaults/agents/BAD.yaml", ses[0].File)
	assert.Equal(t, 4, ses[0].Line)
	assert.Equal(t, "tools[0]", ses[0].Field)
}

func TestLoadShippedViaFS(t *testing.T) {
	t.Parallel()
	dir := shippedDir(t)
	r, errs := LoadFS(os.DirFS(filepath.Dir(dir)), "agents")
	require.Empty(t, errs)
	assert.Equal(t, 23, r.Len())
}

func TestLoadMissingDir(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "nope")
	r, errs := Load(missing)
	require.Len(t, errs, 1)
	require.ErrorIs(t, errs[0], os.ErrNotExist)
	assert.Contains(t, errs[0].Error(), missing)
	assert.Zero(t, r.Len())
}

func TestValidate(t *testing.T) {
	t.Parallel()
	base := func() Spec {
		return Spec{Schema: SchemaV1, ID: "MARS", Role: "Write backend code.", Tools: []string{ToolReadFile}}
	}
	cases := map[string]struct {
		mutate func(*Spec)
		fields []string
	}{
		"valid":            {func(*Spec) {}, nil},
		"wrong schema":     {func(s *Spec) { s.Schema = "kb.agent/1" }, []string{"schema"}},
		"bad id":           {func(s *Spec) { s.ID = "has space" }, []string{"id"}},
		"file mismatch":    {func(s *Spec) { s.Source = "dir/VENUS.yaml" }, []string{"id"}},
		"file match fold":  {func(s *Spec) { s.Source = "dir/mars.yml" }, nil},
		"blank role":       {func(s *Spec) { s.Role = "\n\t" }, []string{"role"}},
		"unknown tool":     {func(s *Spec) { s.Tools = []string{"readFile", "rm"} }, []string{"tools[1]"}},
		"mcp tools":        {func(s *Spec) { s.Tools = []string{"readFile", "everything.echo", "fs.*", "gh.get_issue"} }, nil},
		"bad mcp tools":    {func(s *Spec) { s.Tools = []string{"a.b.c", ".x", "fs.", "9x.y"} }, []string{"tools[0]", "tools[1]", "tools[2]", "tools[3]"}},
		"bad tiers":        {func(s *Spec) { s.Tier, s.MaxTier = "xl", "tiny" }, []string{"tier", "maxTier"}},
		"max below tier":   {func(s *Spec) { s.Tier, s.MaxTier = TierLarge, TierMedium }, []string{"maxTier"}},
		"default tier cap": {func(s *Spec) { s.MaxTier = TierSmall }, []string{"maxTier"}},
		"negative limits": {func(s *Spec) { s.Limits = Limits{MaxSteps: -1, MaxToolCalls: -1, Timeout: "-1s"} },
			[]string{"limits.maxSteps", "limits.maxToolCalls", "limits.timeout"}},
		"bad timeout":   {func(s *Spec) { s.Limits.Timeout = "5" }, []string{"limits.timeout"}},
		"negative fri":  {func(s *Spec) { s.ForcedReasoningInterval = -3 }, []string{"forcedReasoningInterval"}},
		"blank example": {func(s *Spec) { s.Examples = []Example{{Input: "x"}} }, []string{"examples[0].output"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := base()
			tc.mutate(&s)
			ses := specErrors(t, Validate(s))
			if tc.fields == nil {
				assert.Empty(t, ses)
				return
			}
			assert.Equal(t, tc.fields, fieldsOf(ses))
		})
	}
}

func TestNewRoster(t *testing.T) {
	t.Parallel()
	good := Spec{Schema: SchemaV1, ID: "A", Role: "r"}
	r, errs := NewRoster(good, Spec{Schema: SchemaV1, ID: "a", Role: "r"}, Spec{ID: "B"})
	assert.Equal(t, []string{"A"}, r.IDs())
	ses := specErrors(t, errs)
	assert.Equal(t, []string{"id", "schema", "role"}, fieldsOf(ses))
	s, err := r.Get("a")
	require.NoError(t, err)
	assert.Equal(t, DefaultMaxToolCalls, s.Limits.MaxToolCalls, "defaults applied")
}

func TestSpecErrorFormatting(t *testing.T) {
	t.Parallel()
	cause := errors.New("boom")
	e := &SpecError{File: "a/B.yaml", Line: 3, Field: "tools[0]", Msg: "bad", Err: cause}
	assert.Equal(t, "a/B.yaml:3: tools[0]: bad", e.Error())
	require.ErrorIs(t, e, ErrInvalidSpec)
	require.ErrorIs(t, e, cause)
	assert.Equal(t, "role: missing", (&SpecError{Field: "role", Msg: "missing"}).Error())
	assert.Equal(t, "line 2: x", (&SpecError{Line: 2, Msg: "x"}).Error())
}

func FuzzParseSpec(f *testing.F) {
	if dir := filepath.Join(repoRoot(f), ".nova", "agents"); dirExists(dir) {
		files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
		for _, p := range files[:min(len(files), 4)] {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	seeds, _ := filepath.Glob(filepath.Join("testdata", "seed", "*.yml"))
	for _, p := range seeds {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{
		minimal("X"), "", "-", "{", "schema: [", "id: &a [*a]", "tools: !!binary aGk=",
		"examples:\n  - input: a\n    output: b\n", "limits: {timeout: 1ns}", "<<: {id: X}",
		"a: b\n---\nc: d\n", "? [a, b]\n: c\n", "id: X\nrole: |\n  x\n\ttab\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		spec, errs := ParseSpec("X.yaml", data)
		for _, err := range errs {
			var se *SpecError
			require.ErrorAs(t, err, &se)
			require.Equal(t, "X.yaml", se.File)
			require.GreaterOrEqual(t, se.Line, 0)
		}
		if len(errs) == 0 {
			// A spec that parses cleanly is valid and fully defaulted.
			require.Empty(t, Validate(spec))
			require.Positive(t, spec.Limits.MaxSteps)
			require.Positive(t, spec.Limits.MaxToolCalls)
			require.True(t, spec.Tier.Valid())
		}
	})
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func TestDeepNestingIsRejectedQuickly(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		doc  string
		line int
	}{
		"flow":   {minimal("X") + "staticContext: " + strings.Repeat("[", 100_000) + "\n", 5},
		"block":  {minimal("X") + "examples:\n" + strings.Repeat("- ", 100_000) + "x\n", 6},
		"indent": {minimal("X") + "x:\n" + strings.Repeat(" ", 10_000) + "y: 1\n", 6},
	} {
		_, errs := ParseSpec("X.yaml", []byte(tc.doc))
		ses := specErrors(t, errs)
		require.Len(t, ses, 1, name)
		assert.Equal(t, tc.line, ses[0].Line, name)
		assert.Contains(t, ses[0].Msg, "nesting", name)
	}
	// Ordinary brackets and quotes in text are fine.
	ok := minimal("X") + "staticContext: |\n  use [a] and {b}, it's \"quoted [\" # not [a comment\n"
	_, errs := ParseSpec("X.yaml", []byte(ok))
	assert.Empty(t, errs)
}
