package blueprint

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/library/params"
	"github.com/nova-dev/nova/engine/prd"
	"github.com/nova-dev/nova/storage"
)

const endpointYAML = `name: http-endpoint
description: Add an HTTP endpoint with its handler and tests.
parameters:
  - name: route
    type: string
    default: /health
    description: URL path
  - name: tier
    type: enum
    values: [budget, standard, premium]
    default: standard
  - name: workers
    type: integer
    default: 3
    min: 1
    max: 10
  - name: cache
    type: boolean
    default: false
prd:
  meta:
    name: "{{ route }} endpoint"
    version: "1.0"
    owner: team
    replicas: "{{ workers }}"
    label: "{{ workers }} workers"
    cached: "{{ cache }}"
  tasks:
    - id: handler
      title: "Write the {{ route }} handler"
      description: "{% if tier == 'premium' %}Cache responses.{% else %}Keep it simple.{% endif %}"
      agent: MARS
      phase: 0
      dependencies: []
      notes:
        deep:
          deeper: "serve {{ route }} with {{ workers }} workers"
    - id: tests
      title: "{{ workers }}"
      description: Test the handler.
      agent: SATURN
      phase: "{{ workers - 2 }}"
      attempts: "0"
      dependencies: [handler]
`

func known(id string) bool { return id == "MARS" || id == "SATURN" || id == "VENUS" }

func parseOK(t *testing.T, src string) Spec {
	t.Helper()
	s, errs := Parse("bp.yaml", []byte(src))
	require.Empty(t, errs)
	return s
}

func TestRenderFollowsTheSeedSemantics(t *testing.T) {
	t.Parallel()
	s := parseOK(t, endpointYAML)
	r, err := Render(context.Background(), s, map[string]any{"route": "/orders", "tier": "premium", "workers": "5", "cache": "true"}, RenderOptions{Version: 2, KnownAgents: known})
	require.NoError(t, err)
	p := r.PRD
	assert.Equal(t, "/orders endpoint", p.Meta.Name)
	assert.Equal(t, "1.0", p.Meta.Version, "non-template values are kept as they are")
	assert.Equal(t, "Write the /orders handler", p.Tasks[0].Title)
	assert.Equal(t, "Cache responses.", p.Tasks[0].Description, "{% if tier == 'premium' %}")
	assert.Equal(t, "5", p.Tasks[1].Title, "a string field of the PRD stays text")
	assert.Equal(t, 3, p.Tasks[1].Phase, "phase is a number in the PRD schema")
	assert.Equal(t, prd.StatusPending, p.Tasks[0].Status)
	assert.JSONEq(t, `5`, string(p.Meta.Extra["replicas"]), "a whole integer parameter keeps its type")
	assert.JSONEq(t, `"5 workers"`, string(p.Meta.Extra["label"]), "anything else is text")
	assert.JSONEq(t, `true`, string(p.Meta.Extra["cached"]))
	assert.JSONEq(t, `"team"`, string(p.Meta.Extra["owner"]))
	assert.JSONEq(t, `{"deep":{"deeper":"serve /orders with 5 workers"}}`, string(p.Tasks[0].Extra["notes"]), "nested values render recursively")
	pv, ok := ProvenanceOf(p)
	require.True(t, ok)
	assert.Equal(t, Provenance{Name: "http-endpoint", Version: 2, Parameters: map[string]any{"route": "/orders", "tier": "premium", "workers": float64(5), "cache": true}}, pv)

	budget, err := Render(context.Background(), s, nil, RenderOptions{KnownAgents: known})
	require.NoError(t, err)
	assert.Equal(t, "Keep it simple.", budget.PRD.Tasks[0].Description)
	assert.Equal(t, "/health endpoint", budget.PRD.Meta.Name, "defaults apply")
	assert.Equal(t, map[string]any{"route": "/health", "tier": "standard", "workers": 3, "cache": false}, budget.Values)
	back, err := prd.Parse("x.json", budget.JSON)
	require.NoError(t, err, "the written JSON is a PRD")
	assert.Len(t, back.Tasks, 2)
}

func TestValuesAreDataNeverTemplates(t *testing.T) {
	t.Parallel()
	s := parseOK(t, endpointYAML)
	for _, attack := range []string{"{{ 7*7 }}", "{% if true %}x{% endif %}", "{{ tier }}", "{% include '/etc/passwd' %}", "}}{{", "{# c #}"} {
		r, err := Render(context.Background(), s, map[string]any{"route": attack}, RenderOptions{KnownAgents: known})
		require.NoError(t, err, attack)
		assert.Equal(t, "Write the "+attack+" handler", r.PRD.Tasks[0].Title, attack)
		assert.Equal(t, attack+" endpoint", r.PRD.Meta.Name)
		assert.NotContains(t, r.PRD.Tasks[0].Title, "49")
	}
}

func TestParametersAreValidatedBeforeRendering(t *testing.T) {
	t.Parallel()
	s := parseOK(t, endpointYAML)
	required := strings.Replace(endpointYAML, "    default: /health\n", "", 1)
	sr := parseOK(t, required)
	cases := []struct {
		spec  Spec
		given map[string]any
		param string
	}{
		{s, map[string]any{"colour": "red"}, "colour"},
		{sr, nil, "route"},
		{s, map[string]any{"workers": "many"}, "workers"},
		{s, map[string]any{"workers": "11"}, "workers"},
		{s, map[string]any{"tier": "gold"}, "tier"},
		{s, map[string]any{"cache": "perhaps"}, "cache"},
	}
	for _, c := range cases {
		_, err := Render(context.Background(), c.spec, c.given, RenderOptions{})
		require.Error(t, err, c.param)
		assert.ErrorIs(t, err, params.ErrUsage, c.param)
		var pe *params.Error
		require.ErrorAs(t, err, &pe)
		assert.Equal(t, c.param, pe.Param)
	}
}

func TestRenderProblemsNameTheField(t *testing.T) {
	t.Parallel()
	s := parseOK(t, endpointYAML)
	_, err := Render(context.Background(), s, map[string]any{"workers": "1"}, RenderOptions{KnownAgents: known})
	require.ErrorIs(t, err, ErrRender)
	assert.Contains(t, err.Error(), "phase", "workers - 2 = -1: negative phases are refused by the PRD validator")

	bad := strings.Replace(endpointYAML, `phase: "{{ workers - 2 }}"`, `phase: "{{ route }}"`, 1)
	_, err = Render(context.Background(), parseOK(t, bad), nil, RenderOptions{})
	require.ErrorIs(t, err, ErrRender)
	assert.Contains(t, err.Error(), `prd.tasks[1].phase: "{{ route }}" rendered to "/health", which is not a whole number`)

	_, err = Render(context.Background(), s, nil, RenderOptions{KnownAgents: func(string) bool { return false }})
	require.ErrorIs(t, err, ErrRender)
	assert.ErrorIs(t, err, prd.ErrInvalid)
	assert.Contains(t, err.Error(), "MARS")
}

func TestParseReportsFileProblems(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct{ src, want string }{
		"unknown field": {"name: a\nparamz: []\nprd: {tasks: [{id: x}]}\n", `bp.yaml:2: paramz: unknown field "paramz"`},
		"unknown param": {"name: a\nprd:\n  tasks:\n    - id: x\n      title: \"{{ nam }}\"\n", `bp.yaml:5: prd.tasks[0].title: reads "nam", which is not a parameter of this blueprint (it declares none)`},
		"bad template":  {"name: a\nprd:\n  tasks:\n    - title: \"{% macro m() %}{% endmacro %}\"\n", "prd.tasks[0].title: template:"},
		"no tasks":      {"name: a\nprd: {meta: {name: x}}\n", "prd.tasks: the PRD template needs a list of tasks"},
		"no prd":        {"name: a\n", "prd: is required"},
		"bad name":      {"name: My Blueprint\nprd: {tasks: [{id: x}]}\n", "bp.yaml:1: name:"},
		"bad param":     {"name: a\nparameters:\n  - name: n\n    type: integer\n    default: lots\nprd: {tasks: [{id: x}]}\n", "bp.yaml:5: parameters[0].default"},
		"enum":          {"name: a\nparameters: [{name: t, type: enum}]\nprd: {tasks: [{id: x}]}\n", "parameters[0].values: "},
		"bomb":          {"a: &a [x, x, x]\nb: &b [*a, *a, *a]\nname: [*b, *b]\n", "anchors and aliases"},
		"deep":          {"name: a\nprd: " + strings.Repeat("[", 100) + strings.Repeat("]", 100) + "\n", "nesting is deeper"},
		"huge":          {"name: a\nprd: {tasks: [{id: '" + strings.Repeat("x", 1<<20) + "'}]}\n", "larger than"},
		"not a mapping": {"- a\n", "must be a mapping"},
		"params type":   {"name: a\nparameters: {route: x}\nprd: {tasks: [{id: x}]}\n", "bp.yaml:2: parameters:"},
	} {
		_, errs := Parse("bp.yaml", []byte(tc.src))
		require.NotEmpty(t, errs, name)
		assert.ErrorIs(t, errs[0], ErrInvalid, name)
		assert.Contains(t, errors.Join(errs...).Error(), tc.want, name)
	}
}

func openDB(t *testing.T) *storage.DB {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "nova.db"), storage.Options{NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func TestStoreVersionsAndEvidence(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := NewStore(openDB(t))
	s := parseOK(t, endpointYAML)

	_, err := st.Get(ctx, "http-endpoint")
	require.ErrorIs(t, err, ErrNotFound)
	assert.Contains(t, err.Error(), "blueprint add")

	res, err := st.Add(ctx, s, "")
	require.NoError(t, err)
	assert.True(t, res.Created)
	assert.True(t, res.Changed)
	assert.Equal(t, 1, res.Blueprint.Version)
	assert.Equal(t, "initial version", res.Blueprint.Versions[0].Changes)

	again, err := st.Add(ctx, parseOK(t, endpointYAML), "")
	require.NoError(t, err)
	assert.False(t, again.Changed, "an unchanged spec adds no version")
	assert.Equal(t, 1, again.Blueprint.Version)

	s2 := parseOK(t, strings.Replace(endpointYAML, "Add an HTTP endpoint", "Add a REST endpoint", 1))
	s2.Parameters = append(s2.Parameters, params.Param{Name: "extra", Default: "x"})
	ch, err := st.Add(ctx, s2, "")
	require.NoError(t, err)
	assert.True(t, ch.Changed)
	assert.Equal(t, 2, ch.Blueprint.Version)
	assert.Equal(t, "description; parameters added: extra", ch.Blueprint.Versions[1].Changes)
	s3 := s2
	s3.Description = "third"
	ch, err = st.Add(ctx, s3, "wording")
	require.NoError(t, err)
	assert.Equal(t, "wording", ch.Blueprint.Versions[2].Changes, "a given note is kept")

	hist, err := st.History(ctx, "http-endpoint")
	require.NoError(t, err)
	require.Len(t, hist, 3)
	assert.Equal(t, []int{1, 2, 3}, []int{hist[0].Version.Version, hist[1].Version.Version, hist[2].Version.Version})
	assert.Equal(t, "Add an HTTP endpoint with its handler and tests.", hist[0].Spec.Description)
	v1, err := st.Version(ctx, "http-endpoint", 1)
	require.NoError(t, err)
	assert.Len(t, v1.Spec.Parameters, 4)

	// The stored spec still renders after a round trip through JSON.
	bp, err := st.Get(ctx, "http-endpoint")
	require.NoError(t, err)
	r, err := Render(ctx, bp.Spec, map[string]any{"workers": 4}, RenderOptions{Version: bp.Version, KnownAgents: known})
	require.NoError(t, err)
	assert.Equal(t, 2, r.PRD.Tasks[1].Phase)
	assert.Equal(t, bp.Spec.Hash(), s3.Hash(), "the hash survives the round trip")

	t0 := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	require.NoError(t, st.RecordUse(ctx, Use{Blueprint: "http-endpoint", Version: 1, BuildID: 1, Status: UseRunning, CreatedAt: t0}))
	require.NoError(t, st.RecordUse(ctx, Use{Blueprint: "http-endpoint", Version: 1, BuildID: 1, Status: UseDone, Tokens: 1000, Duration: 2 * time.Minute}))
	require.NoError(t, st.RecordUse(ctx, Use{Blueprint: "http-endpoint", Version: 2, BuildID: 2, Status: UseFailed, Tokens: 3000, Duration: 4 * time.Minute, CreatedAt: t0.Add(time.Hour)}))
	require.NoError(t, st.RecordUse(ctx, Use{Blueprint: "http-endpoint", Version: 3, BuildID: 3, Status: UseRunning, CreatedAt: t0.Add(2 * time.Hour)}))
	assert.ErrorIs(t, st.RecordUse(ctx, Use{Blueprint: "gone", BuildID: 4}), ErrNotFound)

	d, err := st.Show(ctx, "http-endpoint")
	require.NoError(t, err)
	assert.Equal(t, 3, d.Status.UsageCount)
	assert.Equal(t, t0.Add(2*time.Hour), d.Status.LastUsed)
	assert.Equal(t, 3, d.Status.Versions)
	assert.Equal(t, 2, d.Evidence.Finished)
	require.NotNil(t, d.Evidence.SuccessRate)
	assert.InDelta(t, 0.5, *d.Evidence.SuccessRate, 1e-9)
	assert.Equal(t, 3*time.Minute, d.Evidence.AvgDuration)
	assert.Equal(t, 2000, d.Evidence.AvgTokens)
	assert.Equal(t, uint64(3), d.Uses[0].BuildID, "newest first")
	assert.Equal(t, t0, d.Uses[2].CreatedAt, "a later record keeps the creation time")

	// A failed build resumed to done counts once, as done.
	require.NoError(t, st.RecordUse(ctx, Use{Blueprint: "http-endpoint", Version: 2, BuildID: 2, Status: UseDone, Tokens: 3000, Duration: 4 * time.Minute}))
	list, err := st.List(ctx)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.InDelta(t, 1.0, *list[0].Evidence.SuccessRate, 1e-9)
	assert.Equal(t, 3, list[0].Status.UsageCount)
	assert.Equal(t, 5, list[0].Parameters)
}

func TestFromPRDReplacesWholeValuesOnly(t *testing.T) {
	t.Parallel()
	src := `{"meta":{"name":"orders service","version":"1.0","blueprint":{"name":"old","version":1}},"tasks":[
 {"id":"api","title":"orders","description":"Build the orders API for orders","agent":"MARS","status":"done","dependencies":[],"phase":0,"attempts":2,"output":"done it"},
 {"id":"ui","title":"Show {{ literally }} braces","description":"orders","agent":"VENUS","status":"failed","dependencies":["api"],"phase":1,"attempts":1,"tags":["orders","web"]}]}`
	p, err := prd.Parse("b.json", []byte(src))
	require.NoError(t, err)
	decl, err := ParseParamDecl("service=string:orders")
	require.NoError(t, err)
	unused, err := ParseParamDecl("region=string:eu-west")
	require.NoError(t, err)
	res, err := FromPRD("orders", "made from build 1", p, []ParamDecl{decl, unused})
	require.NoError(t, err)
	assert.Equal(t, 3, res.Replaced["service"], "api title, ui description, a tag")
	require.Len(t, res.Warnings, 1)
	assert.Contains(t, res.Warnings[0], "region")

	top := res.Spec.PRD.(map[string]any)
	tasks := top["tasks"].([]any)
	api := tasks[0].(map[string]any)
	ui := tasks[1].(map[string]any)
	assert.Equal(t, "{{ service }}", api["title"])
	assert.Equal(t, "Build the orders API for orders", api["description"], "substrings are never replaced")
	assert.Equal(t, "orders service", top["meta"].(map[string]any)["name"])
	assert.Equal(t, "pending", api["status"], "tasks start again")
	assert.EqualValues(t, 0, api["attempts"])
	assert.NotContains(t, api, "output")
	assert.NotContains(t, top["meta"].(map[string]any), MetaKey, "old provenance is dropped")
	assert.Equal(t, []any{"{{ service }}", "web"}, ui["tags"])

	// Rendering with the defaults gives the original plan back (reset),
	// and --set values are applied.
	r, err := Render(context.Background(), res.Spec, nil, RenderOptions{KnownAgents: known})
	require.NoError(t, err)
	assert.Equal(t, "orders", r.PRD.Tasks[0].Title)
	assert.Equal(t, "Show {{ literally }} braces", r.PRD.Tasks[1].Title, "text that looks like a template is escaped")
	r, err = Render(context.Background(), res.Spec, map[string]any{"service": "billing"}, RenderOptions{KnownAgents: known})
	require.NoError(t, err)
	assert.Equal(t, "billing", r.PRD.Tasks[0].Title)
	assert.Equal(t, "billing", r.PRD.Tasks[1].Description)
	assert.Equal(t, "Build the orders API for orders", r.PRD.Tasks[0].Description)
	assert.JSONEq(t, `["billing","web"]`, string(r.PRD.Tasks[1].Extra["tags"]))

	_, err = FromPRD("Bad Name", "", p, nil)
	assert.Error(t, err)
	_, err = FromPRD("x", "", p, []ParamDecl{decl, {Name: "other", Type: params.String, Default: "orders", HasDefault: true}})
	assert.ErrorIs(t, err, params.ErrUsage, "two parameters with one default cannot be told apart")
}

func TestParseParamDecl(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]ParamDecl{
		"route=string:/health":       {Name: "route", Type: params.String, Default: "/health", HasDefault: true},
		"n=integer:3":                {Name: "n", Type: params.Integer, Default: "3", HasDefault: true},
		"n=integer":                  {Name: "n", Type: params.Integer},
		"url=http://x:8080":          {Name: "url", Type: params.String, Default: "http://x:8080", HasDefault: true},
		"plain=value":                {Name: "plain", Type: params.String, Default: "value", HasDefault: true},
		"tier=enum[a|b|c]:b":         {Name: "tier", Type: params.Enum, Values: []any{"a", "b", "c"}, Default: "b", HasDefault: true},
		"flag=boolean:true":          {Name: "flag", Type: params.Boolean, Default: "true", HasDefault: true},
		"ratio=number:0.5":           {Name: "ratio", Type: params.Number, Default: "0.5", HasDefault: true},
		"p=string:with=equals:colon": {Name: "p", Type: params.String, Default: "with=equals:colon", HasDefault: true},
	} {
		got, err := ParseParamDecl(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"noequals", "=x", "bad-name=string:x", "x=string:"} {
		_, err := ParseParamDecl(bad)
		assert.ErrorIs(t, err, params.ErrUsage, bad)
	}
}

func TestSample(t *testing.T) {
	t.Parallel()
	s := parseOK(t, strings.Replace(endpointYAML, "    default: /health\n", "", 1))
	require.NoError(t, Sample(context.Background(), s, known))
	assert.Error(t, Sample(context.Background(), s, func(string) bool { return false }))
}
