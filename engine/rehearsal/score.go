package rehearsal

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/nova-dev/nova/engine/checks"
	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/internal/lazyre"
)

// Weights of the composite score.
const (
	WeightTypeCheck      = 0.35
	WeightLineDelta      = 0.15
	WeightSelfAssessment = 0.25
	WeightTasteAlignment = 0.25
)

// Scoring constants.
const (
	// heuristicPenalty is taken off the heuristic type-check score per
	// untyped parameter or `any`.
	heuristicPenalty = 0.15
	// lineDeltaScale: lineDelta = max(0.5, 1 − max(0, Δlines)/lineDeltaScale).
	lineDeltaScale = 400
	// selfBase is the self-assessment without keywords; each confident
	// keyword adds selfUp (at most three), each doubtful one takes selfDown.
	selfBase = 0.6
	selfUp   = 0.1
	selfDown = 0.15
	// neutralTaste is the taste alignment when the vault has nothing
	// relevant.
	neutralTaste = 0.5
	// checkOutputMax bounds the kept check output (its tail).
	checkOutputMax = 4000
)

// BandOf maps a composite score to its band.
func BandOf(score float64) Band {
	switch {
	case score >= 0.8:
		return BandHigh
	case score >= 0.55:
		return BandMedium
	}
	return BandLow
}

// Composite combines the four dimensions with their weights.
func Composite(typeCheck, lineDelta, self, taste float64) float64 {
	return round3(WeightTypeCheck*typeCheck + WeightLineDelta*lineDelta +
		WeightSelfAssessment*self + WeightTasteAlignment*taste)
}

// CompositeOf combines the dimensions that were measured with their
// weights, renormalised over those weights: a NotChecked dimension (the
// type check when no check command ran) is left out of the mean instead of
// counting as a score. With every dimension measured it equals Composite.
func CompositeOf(dims ...Dimension) float64 {
	sum, weight := 0.0, 0.0
	for _, d := range dims {
		if d.NotChecked {
			continue
		}
		sum += d.Weight * d.Score
		weight += d.Weight
	}
	if weight == 0 {
		return 0
	}
	return round3(sum / weight)
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

// LineDeltaScore is max(0.5, 1 − max(0, Δ)/400) where Δ is the growth in
// lines (proposed − original, summed over files).
func LineDeltaScore(delta int) float64 {
	return round3(max(0.5, 1-float64(max(0, delta))/lineDeltaScale))
}

var (
	confidentWords = lazyre.New(`(?i)\b(confident|tested|verified|tests pass|covered)\b`)
	doubtWords     = lazyre.New(`(?i)\b(unsure|not sure|todo|hack|hacky|fixme|untested|uncertain|workaround)\b`)
)

// SelfAssessment scores the agent's notes: 0.6, plus 0.1 per confident
// keyword (confident, tested, verified, "tests pass", covered; at most
// three), minus 0.15 per doubtful one (unsure, "not sure", todo, hack,
// fixme, untested, uncertain, workaround), clamped to 0–1.
func SelfAssessment(notes string) (float64, string) {
	up := confidentWords.FindAllString(notes, -1)
	down := doubtWords.FindAllString(notes, -1)
	s := selfBase + selfUp*float64(min(3, len(up))) - selfDown*float64(len(down))
	s = round3(min(1, max(0, s)))
	ev := fmt.Sprintf("base %.2f", selfBase)
	if len(up) > 0 {
		ev += fmt.Sprintf("; +%.2f×%d for %s", selfUp, min(3, len(up)), strings.ToLower(strings.Join(up, ", ")))
	}
	if len(down) > 0 {
		ev += fmt.Sprintf("; −%.2f×%d for %s", selfDown, len(down), strings.ToLower(strings.Join(down, ", ")))
	}
	if len(up)+len(down) == 0 {
		ev += "; no confidence or doubt keywords in the notes"
	}
	return s, ev
}

var (
	anyType      = lazyre.New(`(:\s*any\b|\bas any\b|<any>|\binterface\{\}|\[\]any\b|\bany\)|\bmap\[string\]any\b)`)
	tsFunc       = lazyre.New(`function\s*\w*\s*\(([^)]*)\)|\(([^()]*)\)\s*=>`)
	typedExt     = []string{".ts", ".tsx", ".mts", ".cts"}
	heuristicExt = []string{".go", ".ts", ".tsx", ".mts", ".cts"}
)

// HeuristicTypeCheck counts, when no check command is configured, each
// `any` (Go and TypeScript spellings) and each untyped TypeScript parameter
// on the lines the branch adds: 1.0 minus 0.15 for each. It is evidence
// only: the type-check dimension of such a branch is "not checked" and
// leaves the composite (CompositeOf), since nothing compiled the code.
func HeuristicTypeCheck(files []File) (float64, string) {
	anys, untyped := 0, 0
	for _, f := range files {
		ext := strings.ToLower(filepath.Ext(f.Path))
		if !slices.Contains(heuristicExt, ext) {
			continue
		}
		added := addedLines(f.OriginalContent, f.ProposedContent)
		for _, l := range added {
			anys += len(anyType.FindAllString(l, -1))
			if slices.Contains(typedExt, ext) {
				for _, m := range tsFunc.FindAllStringSubmatch(l, -1) {
					params := m[1] + m[2]
					for p := range strings.SplitSeq(params, ",") {
						p = strings.TrimSpace(p)
						if p != "" && !strings.Contains(p, ":") && !strings.HasPrefix(p, "...") {
							untyped++
						}
					}
				}
			}
		}
	}
	s := round3(max(0, 1-heuristicPenalty*float64(anys+untyped)))
	return s, fmt.Sprintf("heuristic (no check configured): %d any, %d untyped parameter(s) on added lines, −%.2f each", anys, untyped, heuristicPenalty)
}

// addedLines are the lines of proposed that are not in original.
func addedLines(original, proposed string) []string {
	if original == "" {
		return strings.Split(proposed, "\n")
	}
	var out []string
	for _, e := range udiff.Lines(original, proposed) {
		if e.New != "" {
			out = append(out, strings.Split(strings.TrimSuffix(e.New, "\n"), "\n")...)
		}
	}
	return out
}

// lineCounts is the growth in lines and the diff's adds/dels.
func lineCounts(files []File) (delta, adds, dels int) {
	for _, f := range files {
		delta += countLines(f.ProposedContent) - countLines(f.OriginalContent)
		a, d := diffCounts(f.OriginalContent, f.ProposedContent)
		adds += a
		dels += d
	}
	return delta, adds, dels
}

func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

func diffCounts(a, b string) (adds, dels int) {
	d := udiff.Unified("a", "b", a, b)
	for l := range strings.SplitSeq(d, "\n") {
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
		case strings.HasPrefix(l, "+"):
			adds++
		case strings.HasPrefix(l, "-"):
			dels++
		}
	}
	return adds, dels
}

// stopWords are ignored when pattern keywords are extracted.
var stopWords = map[string]bool{
	"that": true, "this": true, "with": true, "from": true, "when": true, "then": true,
	"than": true, "into": true, "your": true, "have": true, "will": true, "each": true,
	"they": true, "them": true, "only": true, "also": true, "must": true, "should": true,
	"always": true, "never": true, "prefer": true, "over": true, "rather": true, "before": true,
	"after": true, "which": true, "what": true, "where": true, "there": true, "their": true,
	"tasks": true, "code": true, "file": true, "files": true, "using": true, "make": true,
}

var wordRE = lazyre.New(`[A-Za-z][A-Za-z0-9_]{3,}`)

// Keywords are the distinctive words of a vault node (tags first, then
// content words of four letters or more, at most eight).
func Keywords(n vault.Node) []string {
	var out []string
	add := func(w string) {
		w = strings.ToLower(w)
		if len(w) < 4 || stopWords[w] || slices.Contains(out, w) || len(out) >= 8 {
			return
		}
		out = append(out, w)
	}
	for _, t := range n.Tags {
		add(t)
	}
	for _, w := range wordRE.FindAllString(n.Title+" "+n.Content, -1) {
		add(w)
	}
	return out
}

// reflects reports whether text reflects a pattern: at least half of its
// keywords (and at least one) appear.
func reflects(text string, kws []string) bool {
	if len(kws) == 0 {
		return false
	}
	hit := 0
	for _, k := range kws {
		if strings.Contains(text, k) {
			hit++
		}
	}
	return hit*2 >= len(kws)
}

// TasteAlignment is the share of the relevant vault patterns whose keywords
// the branch reflects (0.5 when nothing relevant is in the vault). It returns
// the ids of the reflected patterns.
func TasteAlignment(b Branch, patterns []vault.Scored) (float64, []uint64, string) {
	if len(patterns) == 0 {
		return neutralTaste, nil, "no relevant vault patterns: neutral 0.50"
	}
	var text strings.Builder
	text.WriteString(strings.ToLower(b.Description + "\n" + b.AgentNotes + "\n"))
	for _, f := range b.Files {
		text.WriteString(strings.ToLower(f.Path + "\n" + f.ProposedContent + "\n"))
	}
	t := text.String()
	var hit []uint64
	var names []string
	for _, p := range patterns {
		if reflects(t, Keywords(p.Node)) {
			hit = append(hit, p.ID)
			names = append(names, fmt.Sprintf("#%d", p.ID))
		}
	}
	s := round3(float64(len(hit)) / float64(len(patterns)))
	ev := fmt.Sprintf("reflects %d of %d relevant pattern(s)", len(hit), len(patterns))
	if len(names) > 0 {
		ev += ": " + strings.Join(names, ", ")
	}
	return s, hit, ev
}

// CheckRunner runs the configured checks on a copy of the workspace with a
// branch applied, through engine/checks: the same runner, command syntax
// (shell command lines) and copy policy as the build's check gates.
type CheckRunner struct {
	Root    string
	Checks  []string
	Timeout time.Duration
}

// Run copies the workspace into a temporary directory, writes the branch's
// files, runs each check there and reports whether all passed, with their
// combined output. The copy is removed afterwards.
func (r CheckRunner) Run(ctx context.Context, files []File) (bool, string, error) {
	cf := make([]checks.File, len(files))
	for i, f := range files {
		cf[i] = checks.File{Path: f.Path, Content: f.ProposedContent}
	}
	rs, err := checks.Runner{Root: r.Root, Commands: r.Checks, Timeout: r.Timeout}.Run(ctx, cf)
	if err != nil {
		return false, "", fmt.Errorf("check workspace: %w", err)
	}
	var out strings.Builder
	for _, x := range rs {
		fmt.Fprintf(&out, "$ %s\n%s", x.Command, x.Output)
		if !x.Passed {
			fmt.Fprintf(&out, "(%s)\n", x.Detail)
		}
	}
	return checks.Passed(rs), tail(out.String(), checkOutputMax), nil
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// preview is the first PreviewChars characters of the branch's first file.
func preview(b Branch) string {
	if len(b.Files) == 0 {
		return ""
	}
	r := []rune(b.Files[0].ProposedContent)
	if len(r) > PreviewChars {
		r = r[:PreviewChars]
	}
	return string(r)
}

// scoreBranch computes one branch's result.
func scoreBranch(ctx context.Context, b Branch, checks *CheckRunner, patterns []vault.Scored) (Result, []uint64, error) {
	res := Result{BranchID: b.ID, Preview: preview(b)}
	if checks != nil && len(checks.Checks) > 0 {
		ok, out, err := checks.Run(ctx, b.Files)
		if err != nil {
			return res, nil, err
		}
		res.CheckRan, res.CheckPassed, res.CheckOutput = true, ok, out
		res.TypeCheck = Dimension{Weight: WeightTypeCheck}
		if ok {
			res.TypeCheck.Score = 1
			res.TypeCheck.Evidence = "checks passed: " + strings.Join(checks.Checks, "; ")
		} else {
			res.TypeCheck.Evidence = "checks failed: " + strings.Join(checks.Checks, "; ")
		}
	} else {
		// Nothing ran the code: the type check is not scored (a heuristic
		// 1.00 for code nobody compiled was issue 25). The heuristic's
		// findings stay in the evidence.
		_, ev := HeuristicTypeCheck(b.Files)
		res.TypeCheck = Dimension{Weight: WeightTypeCheck, NotChecked: true,
			Evidence: "no check command is configured; " + ev}
	}
	delta, adds, dels := lineCounts(b.Files)
	res.Adds, res.Dels = adds, dels
	res.LineDelta = Dimension{Score: LineDeltaScore(delta), Weight: WeightLineDelta,
		Evidence: fmt.Sprintf("%+d lines (+%d −%d) over %d file(s)", delta, adds, dels, len(b.Files))}
	s, ev := SelfAssessment(b.AgentNotes)
	res.SelfAssessment = Dimension{Score: s, Weight: WeightSelfAssessment, Evidence: ev}
	ts, hit, tev := TasteAlignment(b, patterns)
	res.TasteAlignment = Dimension{Score: ts, Weight: WeightTasteAlignment, Evidence: tev}
	res.Score = CompositeOf(res.TypeCheck, res.LineDelta, res.SelfAssessment, res.TasteAlignment)
	res.Band = BandOf(res.Score)
	return res, hit, nil
}
