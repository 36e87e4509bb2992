package ace

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/textindex"
	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/storage"
)

// Self-improvement settings.
const (
	// WindowSize is the number of outcomes a profile keeps.
	WindowSize = 20
	// MinSamples is the number of outcomes of a task type before it can be
	// strong or weak.
	MinSamples = 3
	// ReviewAfter is the number of tasks since the last review before a
	// review is due; ReviewEvery the minimum time between reviews.
	ReviewAfter = 5
	ReviewEvery = 7 * 24 * time.Hour
	// WeakFailureRate: a task type failing more often is weak (Mistake
	// delta); StrongSuccessRate: succeeding this often is strong (Strategy).
	WeakFailureRate   = 0.5
	StrongSuccessRate = 0.8
	// MaxReviewChanges is the most changes one review proposes.
	MaxReviewChanges = 3
	// AutoApplyConfidence: review deltas below it wait for a human.
	AutoApplyConfidence = 0.7
	// StyleMinConfidence: vault Preference nodes at least this confident
	// become style rules.
	StyleMinConfidence = 0.8
)

// taskClasses are the keyword classes of TaskType, in priority order.
var taskClasses = []struct {
	name  string
	words []string
}{
	{"test", []string{"test", "tests", "testing", "spec", "coverage", "e2e", "unit", "fixture"}},
	{"bugfix", []string{"fix", "bug", "bugs", "crash", "error", "errors", "regression", "broken", "issue", "patch"}},
	{"security", []string{"auth", "authentication", "authorization", "login", "password", "security", "permission", "permissions", "token", "csrf", "xss", "encrypt"}},
	{"performance", []string{"performance", "perf", "optimize", "optimise", "speed", "cache", "caching", "latency", "slow", "benchmark"}},
	{"refactor", []string{"refactor", "refactoring", "cleanup", "clean", "rename", "restructure", "extract", "simplify", "migrate"}},
	{"docs", []string{"doc", "docs", "documentation", "readme", "comment", "comments", "guide", "changelog"}},
	{"data", []string{"database", "db", "schema", "migration", "model", "models", "query", "sql", "table", "index", "storage"}},
	{"api", []string{"api", "endpoint", "endpoints", "route", "routes", "rest", "graphql", "handler", "server", "http", "webhook"}},
	{"ui", []string{"ui", "ux", "page", "component", "components", "layout", "style", "styles", "css", "button", "form", "screen", "view", "frontend"}},
	{"config", []string{"config", "configuration", "build", "ci", "deploy", "deployment", "docker", "setup", "install", "env", "pipeline"}},
	{"feature", []string{"add", "implement", "create", "feature", "support", "new", "build", "introduce"}},
}

// typeHints describe each task type in rule texts (distinct words keep the
// rules of different types apart under the curator's Jaccard dedup).
var typeHints = map[string]string{
	"test": "tests, specs, coverage", "bugfix": "bug fixes, crashes, regressions",
	"security": "auth, permissions, secrets", "performance": "speed, caching, latency",
	"refactor": "refactors, renames, cleanups", "docs": "documentation, readme, comments",
	"data": "schemas, migrations, queries", "api": "endpoints, routes, handlers",
	"ui": "pages, components, layout", "config": "build, ci, deployment",
	"feature": "new features", "general": "other tasks",
}

// TaskType classifies a task title by keywords (see the package comment).
func TaskType(title string) string {
	words := textindex.WordTokens(title)
	for _, c := range taskClasses {
		for _, w := range c.words {
			if _, ok := words[w]; ok {
				return c.name
			}
		}
	}
	return "general"
}

// Sample is one recorded outcome.
type Sample struct {
	TaskType  string    `json:"taskType"`
	Success   bool      `json:"success"`
	GateScore float64   `json:"gateScore"`
	At        time.Time `json:"at"`
}

// TypeStat aggregates a task type's samples in the window.
type TypeStat struct {
	TaskType    string  `json:"taskType"`
	Samples     int     `json:"samples"`
	SuccessRate float64 `json:"successRate"`
}

// Profile is an agent's self-improvement record.
type Profile struct {
	Agent            string     `json:"agent"`
	Window           []Sample   `json:"window"`
	TotalTasks       int        `json:"totalTasks"`
	TasksSinceReview int        `json:"tasksSinceReview"`
	LastReview       time.Time  `json:"lastReview,omitzero"`
	SuccessRate      float64    `json:"successRate"`
	AvgGateScore     float64    `json:"avgGateScore"`
	Types            []TypeStat `json:"types"`
	Strong           []string   `json:"strong"`
	Weak             []string   `json:"weak"`
}

var profileCodec = storage.Codec[Profile]{Version: 1}

// recompute derives the rates and strong / weak types from the window.
func (p *Profile) recompute() {
	if len(p.Window) > WindowSize {
		p.Window = slices.Clone(p.Window[len(p.Window)-WindowSize:])
	}
	p.SuccessRate, p.AvgGateScore, p.Types, p.Strong, p.Weak = 0, 0, nil, []string{}, []string{}
	if len(p.Window) == 0 {
		return
	}
	stats := map[string]*TypeStat{}
	ok, gate := 0, 0.0
	for _, s := range p.Window {
		st := stats[s.TaskType]
		if st == nil {
			st = &TypeStat{TaskType: s.TaskType}
			stats[s.TaskType] = st
		}
		st.Samples++
		if s.Success {
			ok++
			st.SuccessRate++
		}
		gate += clamp01(s.GateScore)
	}
	p.SuccessRate = float64(ok) / float64(len(p.Window))
	p.AvgGateScore = gate / float64(len(p.Window))
	for _, st := range stats {
		st.SuccessRate /= float64(st.Samples)
		p.Types = append(p.Types, *st)
	}
	sort.Slice(p.Types, func(i, j int) bool { return p.Types[i].TaskType < p.Types[j].TaskType })
	for _, st := range p.Types {
		if st.Samples < MinSamples {
			continue
		}
		if st.SuccessRate >= StrongSuccessRate {
			p.Strong = append(p.Strong, st.TaskType)
		}
		if 1-st.SuccessRate > WeakFailureRate {
			p.Weak = append(p.Weak, st.TaskType)
		}
	}
}

func (s *System) loadProfile(b *bolt.Bucket, agent string) Profile {
	def := Profile{Agent: agent, Window: []Sample{}, Strong: []string{}, Weak: []string{}}
	if b == nil {
		return def
	}
	raw := b.Get([]byte(agent))
	if raw == nil {
		return def
	}
	p, err := profileCodec.Unmarshal(raw)
	if err != nil {
		s.logf("ace: profile %s: %v; starting afresh", agent, err)
		return def
	}
	p.Agent = agent
	p.TotalTasks, p.TasksSinceReview = max(p.TotalTasks, 0), max(p.TasksSinceReview, 0)
	p.recompute()
	return p
}

// Profile returns an agent's profile (empty when it has none).
func (s *System) Profile(ctx context.Context, agent string) (Profile, error) {
	agent = canonAgent(agent)
	if err := validAgent(agent); err != nil {
		return Profile{}, err
	}
	if err := ctx.Err(); err != nil {
		return Profile{}, err
	}
	var p Profile
	err := s.db.View(func(tx *bolt.Tx) error {
		p = s.loadProfile(tx.Bucket(storage.BucketProfiles), agent)
		return nil
	})
	return p, err
}

func (s *System) modifyProfile(ctx context.Context, agent string, fn func(p *Profile)) (Profile, error) {
	agent = canonAgent(agent)
	if err := validAgent(agent); err != nil {
		return Profile{}, err
	}
	if err := ctx.Err(); err != nil {
		return Profile{}, err
	}
	if s.db.ReadOnly() {
		return Profile{}, storage.ErrReadOnly
	}
	var p Profile
	err := s.db.Update(func(tx *bolt.Tx) error {
		var err error
		p, err = s.modifyProfileTx(tx, agent, fn)
		return err
	})
	return p, err
}

// modifyProfileTx is modifyProfile's work inside tx, for a canonical, valid agent name.
func (s *System) modifyProfileTx(tx *bolt.Tx, agent string, fn func(p *Profile)) (Profile, error) {
	b := tx.Bucket(storage.BucketProfiles)
	p := s.loadProfile(b, agent)
	fn(&p)
	p.recompute()
	return p, profileCodec.Put(b, []byte(agent), p)
}

// RecordOutcome adds an outcome to the agent's profile window.
func (s *System) RecordOutcome(ctx context.Context, agent, taskType string, success bool, gateScore float64) (Profile, error) {
	return s.modifyProfile(ctx, agent, s.outcome(taskType, success, gateScore))
}

// outcome is RecordOutcome's change to a profile.
func (s *System) outcome(taskType string, success bool, gateScore float64) func(p *Profile) {
	if taskType == "" {
		taskType = "general"
	}
	return func(p *Profile) {
		p.Window = append(p.Window, Sample{TaskType: taskType, Success: success, GateScore: clamp01(gateScore), At: s.now()})
		p.TotalTasks++
		p.TasksSinceReview++
	}
}

// recordTask is RecordTaskApplied then RecordOutcome in one transaction (AfterTask runs
// for every build task, and each commit costs two fsyncs).
func (s *System) recordTask(ctx context.Context, o Outcome, taskType string) error {
	agent := canonAgent(o.Agent)
	if err := validAgent(agent); err != nil {
		return fmt.Errorf("record task: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("record task: %w", err)
	}
	if s.db.ReadOnly() {
		return fmt.Errorf("record task: %w", storage.ErrReadOnly)
	}
	err := s.db.Update(func(tx *bolt.Tx) error {
		if _, err := s.m.modifyTx(tx, agent, taskApplied(o.RuleIDs, o.Success)); err != nil {
			return fmt.Errorf("record task: %w", err)
		}
		if _, err := s.modifyProfileTx(tx, agent, s.outcome(taskType, o.Success, o.GateScore)); err != nil {
			return fmt.Errorf("record outcome: %w", err)
		}
		return nil
	})
	if err == nil {
		s.m.changed("playbook", agent)
	}
	return err
}

// ReviewReport is the result of RunReview.
type ReviewReport struct {
	Agent   string       `json:"agent"`
	Ran     bool         `json:"ran"`
	Reason  string       `json:"reason,omitempty"`
	Profile Profile      `json:"profile"`
	Deltas  []Delta      `json:"deltas"`
	Curate  CurateReport `json:"curate"`
}

// ReviewDue reports whether an agent's review is due, and why not.
func (s *System) ReviewDue(p Profile) (bool, string) {
	if p.TasksSinceReview < ReviewAfter {
		return false, fmt.Sprintf("%d of %d tasks since the last review", p.TasksSinceReview, ReviewAfter)
	}
	if !p.LastReview.IsZero() && s.now().Sub(p.LastReview) < ReviewEvery {
		return false, "last review " + p.LastReview.UTC().Format(time.RFC3339) + " is less than 7 days old"
	}
	return true, ""
}

// RunReview reviews an agent's profile and proposes deltas: Mistake rules
// for weak task types, Strategy rules for strong ones, style rules from the
// vault's confident Preference nodes. At most MaxReviewChanges are kept;
// those under AutoApplyConfidence go to the pending queue, the others
// through the curator. Without force it returns ErrNotDue unless 5 tasks
// were recorded since the last review and 7 days have passed.
func (s *System) RunReview(ctx context.Context, agent string, force bool) (ReviewReport, error) {
	p, err := s.Profile(ctx, agent)
	if err != nil {
		return ReviewReport{}, err
	}
	rep := ReviewReport{Agent: p.Agent, Profile: p}
	if !force {
		if ok, why := s.ReviewDue(p); !ok {
			rep.Reason = why
			return rep, fmt.Errorf("%w: %s", ErrNotDue, why)
		}
	}
	var ds []Delta
	for _, st := range p.Types {
		if st.Samples < MinSamples {
			continue
		}
		// Small samples give low confidence: n/(n+2) shrinks the rate.
		shrink := float64(st.Samples) / float64(st.Samples+2)
		if fail := 1 - st.SuccessRate; fail > WeakFailureRate {
			ds = append(ds, Delta{Op: OpAdd, Kind: KindMistake, Source: SourceLearned,
				Content: fmt.Sprintf("%s work (%s) often fails: read the surrounding code and its checks before writing, keep each change small and verify it builds.",
					titleCase(st.TaskType), typeHints[st.TaskType]),
				Confidence: clamp01(fail * shrink), Helpful: fail, Tags: []string{st.TaskType, "self-review"},
				Reason: fmt.Sprintf("self-review: %.0f%% of the last %d %s tasks failed", fail*100, st.Samples, st.TaskType)})
		} else if st.SuccessRate >= StrongSuccessRate {
			ds = append(ds, Delta{Op: OpAdd, Kind: KindStrategy, Source: SourceLearned,
				Content: fmt.Sprintf("%s work (%s) goes well: keep the current approach and level of verification.",
					titleCase(st.TaskType), typeHints[st.TaskType]),
				Confidence: clamp01(st.SuccessRate * shrink), Helpful: st.SuccessRate, Tags: []string{st.TaskType, "self-review"},
				Reason: fmt.Sprintf("self-review: %.0f%% of the last %d %s tasks succeeded", st.SuccessRate*100, st.Samples, st.TaskType)})
		}
	}
	ds = append(ds, s.styleAdaptations(ctx)...)
	slices.SortStableFunc(ds, func(a, b Delta) int {
		switch {
		case a.Confidence > b.Confidence:
			return -1
		case a.Confidence < b.Confidence:
			return 1
		}
		return 0
	})
	if len(ds) > MaxReviewChanges {
		ds = ds[:MaxReviewChanges]
	}
	rep.Deltas = ds
	if len(ds) > 0 {
		cr, err := s.curator.Curate(ctx, p.Agent, ds, CurateOptions{Origin: "review", PendingBelow: AutoApplyConfidence, Max: MaxReviewChanges})
		if err != nil {
			return rep, err
		}
		rep.Curate = cr
	}
	p, err = s.modifyProfile(ctx, p.Agent, func(p *Profile) {
		p.TasksSinceReview = 0
		p.LastReview = s.now()
	})
	if err != nil {
		return rep, err
	}
	rep.Profile, rep.Ran = p, true
	return rep, nil
}

// styleAdaptations turns the vault's confident Preference nodes of the
// user's own (never ones imported from a pattern library) into rules
// labelled by their origin (source vault, tag style): they are learned, not
// the user's own words, so they are never shown as manual.
func (s *System) styleAdaptations(ctx context.Context) []Delta {
	if s.vault == nil {
		return nil
	}
	v := s.vault()
	if v == nil {
		return nil
	}
	nodes, err := v.ByType(ctx, vault.Preference, 200)
	if err != nil {
		s.logf("ace: style adaptations: %v", err)
		return nil
	}
	var out []Delta
	for _, n := range nodes {
		if n.Confidence < StyleMinConfidence || n.Imported() {
			// Library patterns (the starter set included) are shared
			// knowledge that reaches prompts through the vault block,
			// filtered by the project's stack: made into rules they
			// taught a spec writer about Ollama streaming in a Go
			// project. Only the user's own preferences adapt the style.
			continue
		}
		out = append(out, Delta{Op: OpAdd, Kind: KindPreference, Source: SourceVault, Content: n.Content,
			Confidence: n.Confidence, Helpful: n.Confidence, Tags: append(cleanTags(n.Tags), "style"),
			Reason: fmt.Sprintf("style adaptation from vault node %d", n.ID)})
	}
	return out
}

func titleCase(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
