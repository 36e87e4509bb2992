package prd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nova26Agents are the 21 agent names of the Nova26 roster.
var nova26Agents = []string{
	"SUN", "MERCURY", "VENUS", "EARTH", "MARS", "PLUTO", "SATURN", "JUPITER",
	"ENCELADUS", "GANYMEDE", "NEPTUNE", "CHARON", "URANUS", "TITAN", "EUROPA",
	"MIMAS", "IO", "TRITON", "CALLISTO", "ATLAS", "ANDROMEDA",
}

func knownNova26(name string) bool { return slices.Contains(nova26Agents, name) }

// corpusDir finds ../shared/corpus/nova26 relative to the repository root
// (the directory holding go.mod), or skips the test.
func corpusDir(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	require.NoError(tb, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Skip("go.mod not found; corpus unavailable")
		}
		dir = parent
	}
	c := filepath.Join(dir, "..", "shared", "corpus", "nova26")
	if _, err := os.Stat(c); err != nil {
		tb.Skipf("corpus absent: %v", err)
	}
	return c
}

var corpusFiles = []string{"prd-test.json", "prd-ua-dashboard-v1.json"}

// rawPRD is an independent, minimal reading of a PRD file used to compute
// expectations without going through the package under test.
type rawPRD struct {
	Meta  map[string]any `json:"meta"`
	Tasks []struct {
		ID           string   `json:"id"`
		Agent        string   `json:"agent"`
		Status       string   `json:"status"`
		Dependencies []string `json:"dependencies"`
		Phase        int      `json:"phase"`
	} `json:"tasks"`
}

func readRaw(t *testing.T, path string) ([]byte, rawPRD) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var raw rawPRD
	require.NoError(t, json.Unmarshal(data, &raw))
	return data, raw
}

func taskIDs(tasks []Task) []string {
	ids := make([]string, len(tasks))
	for i, t := range tasks {
		ids[i] = t.ID
	}
	return ids
}

func TestCorpusPRDs(t *testing.T) {
	t.Parallel()
	dir := corpusDir(t)
	for _, name := range corpusFiles {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(dir, name)
			_, raw := readRaw(t, path)

			p, err := Load(path)
			require.NoError(t, err)
			require.Len(t, p.Tasks, len(raw.Tasks))

			phases := map[int]bool{}
			for i, rt := range raw.Tasks {
				phases[rt.Phase] = true
				assert.Equal(t, rt.ID, p.Tasks[i].ID)
				assert.Equal(t, rt.Agent, p.Tasks[i].Agent)
				assert.Equal(t, rt.Phase, p.Tasks[i].Phase)
				assert.Equal(t, Status(rt.Status), p.Tasks[i].Status, "Nova26 statuses are already canonical")
			}
			assert.Len(t, p.Phases(), len(phases))
			assert.Equal(t, raw.Meta["name"], p.Meta.Name)

			require.NoError(t, Validate(p, knownNova26), "valid with the 21 Nova26 agents")
			require.NoError(t, Validate(p, nil))

			// Ready, from the statuses in the file: computed independently here.
			done := map[string]bool{}
			for _, rt := range raw.Tasks {
				if rt.Status == "done" {
					done[rt.ID] = true
				}
			}
			var want []string
			for phase := range slices.Max(p.Phases()) + 1 {
				for _, rt := range raw.Tasks {
					if rt.Phase != phase || (rt.Status != "pending" && rt.Status != "ready") {
						continue
					}
					if !slices.ContainsFunc(rt.Dependencies, func(d string) bool { return !done[d] }) {
						want = append(want, rt.ID)
					}
				}
			}
			require.NotEmpty(t, want)
			assert.Equal(t, want, taskIDs(Ready(p, nil)))
		})
	}
}

func TestCorpusUnknownAgentsAreEachNamed(t *testing.T) {
	t.Parallel()
	path := filepath.Join(corpusDir(t), "prd-ua-dashboard-v1.json")
	_, raw := readRaw(t, path)
	p, err := Load(path)
	require.NoError(t, err)

	// Drop one agent the PRD uses from the roster.
	missing := raw.Tasks[len(raw.Tasks)-1].Agent
	var wantTasks []string
	for _, rt := range raw.Tasks {
		if rt.Agent == missing {
			wantTasks = append(wantTasks, rt.ID)
		}
	}
	err = Validate(p, func(a string) bool { return a != missing && knownNova26(a) })
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	require.ErrorIs(t, err, ErrInvalid)
	var got []string
	for _, pr := range ve.Problems {
		assert.Equal(t, "agent", pr.Field)
		assert.Contains(t, pr.Message, missing)
		got = append(got, pr.TaskID)
	}
	assert.Equal(t, wantTasks, got)
}

// TestCorpusBuildSimulation runs a whole build by marking every ready task
// done, wave after wave: each task must run exactly once, after all of its
// dependencies, and lower phases go first within a wave.
func TestCorpusBuildSimulation(t *testing.T) {
	t.Parallel()
	dir := corpusDir(t)
	for _, name := range corpusFiles {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p, err := Load(filepath.Join(dir, name))
			require.NoError(t, err)
			status := map[string]Status{}
			statusOf := func(id string) Status { return status[id] } // "" = pending
			finished := map[string]int{}                             // id -> wave
			for wave := 0; len(finished) < len(p.Tasks); wave++ {
				ready := Ready(p, statusOf)
				require.NotEmpty(t, ready, "build stalled after %d tasks", len(finished))
				assert.True(t, slices.IsSortedFunc(ready, func(a, b Task) int { return a.Phase - b.Phase }))
				for _, task := range ready {
					_, again := finished[task.ID]
					require.False(t, again, "task %s offered twice", task.ID)
					for _, d := range task.Dependencies {
						w, ok := finished[d]
						require.True(t, ok, "%s ran before its dependency %s", task.ID, d)
						assert.Less(t, w, wave)
					}
				}
				// Running tasks are not offered again.
				for _, task := range ready {
					status[task.ID] = StatusRunning
				}
				assert.Empty(t, Ready(p, statusOf))
				for _, task := range ready {
					status[task.ID] = StatusDone
					finished[task.ID] = wave
				}
			}
			assert.Empty(t, Ready(p, statusOf), "nothing left once all tasks are done")
		})
	}
}

func TestCorpusRoundTrip(t *testing.T) {
	t.Parallel()
	dir := corpusDir(t)
	for _, name := range corpusFiles {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			orig, _ := readRaw(t, filepath.Join(dir, name))
			p, err := Parse(name, orig)
			require.NoError(t, err)

			out := filepath.Join(t.TempDir(), name)
			require.NoError(t, p.Save(out))
			saved, err := os.ReadFile(out)
			require.NoError(t, err)
			assert.JSONEq(t, string(orig), string(saved), "saving loses nothing")

			again, err := Load(out)
			require.NoError(t, err)
			again.Source = p.Source
			assert.Equal(t, p, again)

			entries, err := os.ReadDir(filepath.Dir(out))
			require.NoError(t, err)
			assert.Len(t, entries, 1, "no temporary file left behind")
		})
	}
}

func TestCorpusAsYAML(t *testing.T) {
	t.Parallel()
	dir := corpusDir(t)
	for _, name := range corpusFiles {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			orig, _ := readRaw(t, filepath.Join(dir, name))
			fromJSON, err := Parse(name, orig)
			require.NoError(t, err)

			y, err := yaml.JSONToYAML(orig)
			require.NoError(t, err)
			for _, yname := range []string{"plan.yaml", "plan.yml", "plan"} { // by extension and by sniffing
				fromYAML, err := Parse(yname, y)
				require.NoError(t, err, yname)
				assert.Equal(t, fromJSON.Meta, fromYAML.Meta, yname)
				assert.Equal(t, fromJSON.Tasks, fromYAML.Tasks, yname)
				require.NoError(t, Validate(fromYAML, knownNova26))
			}
		})
	}
}

func TestParseSniffsFormat(t *testing.T) {
	t.Parallel()
	j := `{"meta":{"name":"j"},"tasks":[{"id":"a","title":"A","agent":"MARS"}]}`
	y := "meta:\n  name: y\ntasks:\n  - id: a\n    title: A\n    agent: MARS\n"
	for name, tc := range map[string]struct{ data, meta string }{
		"plan":       {j, "j"},
		"plan.txt":   {"\n  " + j, "j"},
		"plan.prd":   {y, "y"},
		"PLAN.JSON":  {j, "j"},
		"plan.YAML":  {y, "y"},
		"bom.json":   {"\xef\xbb\xbf" + j, "j"},
		"flow.yaml":  {j, "j"}, // JSON is valid YAML
		"nested/x.y": {y, "y"},
	} {
		p, err := Parse(name, []byte(tc.data))
		require.NoError(t, err, name)
		assert.Equal(t, tc.meta, p.Meta.Name, name)
		assert.Equal(t, name, p.Source)
	}
}

func TestUnknownFieldsSurviveSave(t *testing.T) {
	t.Parallel()
	in := `{
  "meta": {"name": "x", "version": "1", "createdAt": "", "owner": {"team": "core"}},
  "tasks": [
    {"id": "a", "title": "A", "description": "", "agent": "MARS", "status": "done", "dependencies": [], "phase": 0,
     "attempts": 2, "createdAt": "", "output": "ok <b>&</b>", "todos": ["x", "y"], "llm": {"model": "q"}}
  ],
  "settings": {"autonomy": 3},
  "notes": null
}`
	p, err := Parse("x.json", []byte(in))
	require.NoError(t, err)
	assert.JSONEq(t, `{"team":"core"}`, string(p.Meta.Extra["owner"]))
	assert.JSONEq(t, `["x","y"]`, string(p.Tasks[0].Extra["todos"]))
	assert.JSONEq(t, `{"autonomy":3}`, string(p.Extra["settings"]))
	assert.Equal(t, "ok <b>&</b>", p.Tasks[0].Output)

	out, err := p.Marshal()
	require.NoError(t, err)
	assert.JSONEq(t, in, string(out))
	assert.Contains(t, string(out), "ok <b>&</b>", "no HTML escaping in saved files")

	y := "meta:\n  name: x\n  owner: {team: core}\ntasks:\n  - id: a\n    title: A\n    agent: MARS\n    todos: [x, y]\nsettings:\n  autonomy: 3\n"
	py, err := Parse("x.yaml", []byte(y))
	require.NoError(t, err)
	assert.JSONEq(t, `{"team":"core"}`, string(py.Meta.Extra["owner"]))
	assert.JSONEq(t, `["x","y"]`, string(py.Tasks[0].Extra["todos"]))
	assert.JSONEq(t, `{"autonomy":3}`, string(py.Extra["settings"]))
}

// TestJSONRoundTripKeepsExtras: a PRD encoded with MarshalJSON and decoded
// with UnmarshalJSON (as it crosses the owner's socket) is the same PRD,
// unknown fields included; null leaves a value as it was.
func TestJSONRoundTripKeepsExtras(t *testing.T) {
	t.Parallel()
	in := `{"meta": {"name": "x", "version": "1", "createdAt": "", "owner": {"team": "core"}},
  "tasks": [{"id": "a", "title": "A", "description": "", "agent": "MARS", "status": "done", "dependencies": [],
    "phase": 1, "attempts": 2, "createdAt": "", "todos": ["x"]}],
  "settings": {"autonomy": 3}}`
	p, err := Parse("x.json", []byte(in))
	require.NoError(t, err)
	b, err := json.Marshal(p)
	require.NoError(t, err)
	var back PRD
	require.NoError(t, json.Unmarshal(b, &back))
	again, err := json.Marshal(back)
	require.NoError(t, err)
	assert.JSONEq(t, string(b), string(again))
	assert.JSONEq(t, `{"team":"core"}`, string(back.Meta.Extra["owner"]))
	assert.JSONEq(t, `["x"]`, string(back.Tasks[0].Extra["todos"]))
	assert.JSONEq(t, `{"autonomy":3}`, string(back.Extra["settings"]))
	back.Meta.Extra, back.Tasks[0].Extra, back.Extra, back.Source = p.Meta.Extra, p.Tasks[0].Extra, p.Extra, p.Source
	assert.Equal(t, *p, back, "every known field survives")

	task := Task{ID: "keep"}
	require.NoError(t, json.Unmarshal([]byte("null"), &task))
	assert.Equal(t, "keep", task.ID)
	assert.Error(t, json.Unmarshal([]byte(`{"tasks": [{"phase": "one"}]}`), &back), "wrong types still fail")
}

func TestStatusNormalisation(t *testing.T) {
	t.Parallel()
	cases := map[string]Status{
		"": StatusPending, "pending": StatusPending, "TODO": StatusPending,
		"ready": StatusReady, " Ready ": StatusReady,
		"running": StatusRunning, "in_progress": StatusRunning, "In-Progress": StatusRunning, "in progress": StatusRunning,
		"done": StatusDone, "completed": StatusDone, "Complete": StatusDone, "success": StatusDone,
		"failed": StatusFailed, "error": StatusFailed,
		"blocked": StatusBlocked, "cancelled": StatusBlocked,
	}
	for in, want := range cases {
		got, ok := ParseStatus(in)
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
		assert.True(t, Status(in).Valid(), in)
	}
	got, ok := ParseStatus("frobnicated")
	assert.False(t, ok)
	assert.Equal(t, Status("frobnicated"), got)

	p, err := Parse("s.json", []byte(`{"tasks":[{"id":"a","title":"A","agent":"X","status":"Completed"},{"id":"b","title":"B","agent":"X","status":"in_progress"}]}`))
	require.NoError(t, err)
	assert.Equal(t, []Status{StatusDone, StatusRunning}, []Status{p.Tasks[0].Status, p.Tasks[1].Status})
	assert.Len(t, Statuses(), 6)
}

func TestLoadMissingFile(t *testing.T) {
	t.Parallel()
	_, err := Load(filepath.Join(t.TempDir(), "none.json"))
	require.ErrorIs(t, err, os.ErrNotExist)
	assert.NotErrorIs(t, err, ErrMalformed)
}

func TestSaveToMissingDir(t *testing.T) {
	t.Parallel()
	p := &PRD{Tasks: []Task{{ID: "a", Title: "A", Agent: "MARS"}}}
	err := p.Save(filepath.Join(t.TempDir(), "no", "such", "dir", "p.json"))
	require.ErrorIs(t, err, os.ErrNotExist)
}

func TestValidationErrorFormatting(t *testing.T) {
	t.Parallel()
	one := &ValidationError{Name: "p.json", Problems: []Problem{{TaskID: "a", Field: "title", Message: "is empty"}}}
	assert.Equal(t, "p.json: task a: title: is empty", one.Error())
	two := &ValidationError{Name: "p.json", Problems: []Problem{
		{TaskID: "a", Field: "title", Message: "is empty"}, {Field: "tasks", Message: "x"},
	}}
	assert.Equal(t, "p.json: 2 problems:\n  - task a: title: is empty\n  - tasks: x", two.Error())
	require.ErrorIs(t, two, ErrInvalid)
	require.NotErrorIs(t, two, ErrMalformed)
	assert.Equal(t, "prd: invalid", (&ValidationError{}).Error())
}

func BenchmarkParseValidate(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(corpusDir(b), "prd-ua-dashboard-v1.json"))
	require.NoError(b, err)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		p, err := Parse("prd-ua-dashboard-v1.json", data)
		if err != nil {
			b.Fatal(err)
		}
		if err := Validate(p, knownNova26); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReady(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(corpusDir(b), "prd-ua-dashboard-v1.json"))
	require.NoError(b, err)
	p, err := Parse("prd-ua-dashboard-v1.json", data)
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		if len(Ready(p, nil)) == 0 {
			b.Fatal("nothing ready")
		}
	}
}

// ExampleValidate shows the message for a dependency cycle.
func ExampleValidate() {
	p, _ := Parse("plan.yaml", []byte(`
tasks:
  - {id: a, title: Spec, agent: EARTH, dependencies: [c]}
  - {id: b, title: Schema, agent: PLUTO, dependencies: [a]}
  - {id: c, title: Check, agent: MERCURY, dependencies: [b]}
`))
	fmt.Println(Validate(p, nil))
	// Output: plan.yaml: task a: dependencies: cycle: a → c → b → a
}
