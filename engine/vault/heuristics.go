package vault

import (
	"fmt"
	"strings"

	"github.com/nova-dev/nova/internal/lazyre"
)

// Contents of the nodes the heuristics produce. They are fixed sentences, so
// seeing a signal again reinforces the same node instead of adding a twin.
const (
	lessonRequireAuth = "Call requireAuth before any protected read or write, not after"
	lessonCompanyID   = "Scope every query, index and mutation by companyId so tenants never see each other's data"
	lessonMathFloor   = "Round down with Math.floor where whole units are required (counts, pages, minor currency units)"
	lessonZod         = "Validate input at the boundary with a Zod schema (z.object) and use the parsed value"

	lessonErrWrap     = "Wrap errors with context using fmt.Errorf(\"doing x: %w\", err) so callers can still match the cause"
	lessonCtxFirst    = "Take ctx context.Context as the first parameter of anything that does I/O or may block"
	lessonTableTests  = "Write table-driven tests: a []struct of cases, each run as a subtest with t.Run"
	lessonErrorsIs    = "Match errors with errors.Is and errors.As, never ==, so wrapped errors still match"
	lessonDeferClose  = "Release resources with defer x.Close() right after the open succeeds"
	lessonSentinel    = "Export sentinel errors (var ErrX = errors.New(...)) for the conditions callers branch on"
	lessonTParallel   = "Mark independent tests with t.Parallel() so the suite stays fast"
	lessonCtxTimeout  = "Bound blocking calls with context.WithTimeout and always defer the cancel func"
	lessonWaitGroup   = "Wait for goroutines with sync.WaitGroup or errgroup, never with sleeps"
	lessonMutex       = "Guard shared state with a sync.Mutex declared next to the fields it protects"
	lessonTSTryAwait  = "Await async calls inside try/catch and handle the failure path explicitly"
	lessonTSTypes     = "Declare the shape of data with TypeScript interfaces or type aliases instead of any"
	lessonTSOptional  = "Use optional chaining (?.) and nullish coalescing (??) for values that may be absent"
	lessonTSAsConst   = "Use `as const` for literal tables so their types stay narrow"
	lessonTSPromiseAl = "Run independent async work concurrently with Promise.all"
	lessonTSEffect    = "Return a cleanup function from useEffect for subscriptions and timers"
)

// signal is one static code signal.
type signal struct {
	typ     NodeType
	content string
	tags    []string
	conf    float64
	match   func(code string) bool
}

func contains(subs ...string) func(string) bool {
	return func(code string) bool {
		for _, s := range subs {
			if !strings.Contains(code, s) {
				return false
			}
		}
		return true
	}
}

func anyOf(subs ...string) func(string) bool {
	return func(code string) bool {
		for _, s := range subs {
			if strings.Contains(code, s) {
				return true
			}
		}
		return false
	}
}

var (
	reErrWrap    = lazyre.New(`fmt\.Errorf\([^\n]*%w`)
	reCtxFirst   = lazyre.New(`func\s*(\([^)]*\)\s*)?\w*\s*(\[[^\]]*\])?\s*\(\s*ctx\s+context\.Context\b`)
	reDeferClose = lazyre.New(`defer\s+(func\(\)\s*\{\s*_?\s*=?\s*)?[\w.\[\]()]*\.Close\(\)`)
	reSentinel   = lazyre.New(`\bErr\w*\s*=\s*errors\.New\(`)
	reTSTypes    = lazyre.New(`(?m)^\s*(export\s+)?(interface\s+\w+|type\s+\w+\s*=\s*\{)`)
	reGoPackage  = lazyre.New(`(?m)^package\s+\w+`)
	reTSImport   = lazyre.New(`(?m)^\s*import\s.*\sfrom\s+['"]`)
)

var goSignals = []signal{
	{Pattern, lessonErrWrap, []string{"go", "errors"}, 0.75, reErrWrap.MatchString},
	{Strategy, lessonCtxFirst, []string{"go", "context"}, 0.75, reCtxFirst.MatchString},
	{Pattern, lessonTableTests, []string{"go", "testing"}, 0.75, contains("[]struct{", "t.Run(")},
	{Pattern, lessonErrorsIs, []string{"go", "errors"}, 0.75, anyOf("errors.Is(", "errors.As(")},
	{Pattern, lessonDeferClose, []string{"go", "resources"}, 0.7, reDeferClose.MatchString},
	{Pattern, lessonSentinel, []string{"go", "errors"}, 0.7, reSentinel.MatchString},
	{Pattern, lessonTParallel, []string{"go", "testing"}, 0.7, contains("t.Parallel()")},
	{Strategy, lessonCtxTimeout, []string{"go", "context"}, 0.7, anyOf("context.WithTimeout(", "context.WithDeadline(")},
	{Pattern, lessonWaitGroup, []string{"go", "concurrency"}, 0.7, anyOf("sync.WaitGroup", "errgroup.")},
	{Pattern, lessonMutex, []string{"go", "concurrency"}, 0.7, anyOf("sync.Mutex", "sync.RWMutex")},
}

var tsSignals = []signal{
	{Pattern, lessonZod, []string{"typescript", "validation"}, 0.75, contains("z.object(")},
	{Strategy, lessonRequireAuth, []string{"auth", "security"}, 0.8, contains("requireAuth")},
	{Pattern, lessonTSTryAwait, []string{"typescript", "errors"}, 0.7, func(c string) bool {
		return strings.Contains(c, "await ") && strings.Contains(c, "try {") && strings.Contains(c, "catch")
	}},
	{Pattern, lessonTSTypes, []string{"typescript", "types"}, 0.7, reTSTypes.MatchString},
	{Pattern, lessonTSOptional, []string{"typescript"}, 0.65, anyOf("?.", " ?? ")},
	{Pattern, lessonTSAsConst, []string{"typescript", "types"}, 0.65, contains("as const")},
	{Pattern, lessonTSPromiseAl, []string{"typescript", "async"}, 0.7, contains("Promise.all(")},
	{Pattern, lessonTSEffect, []string{"typescript", "react"}, 0.7, contains("useEffect(", "return () =>")},
}

// maxDetectLen bounds the code DetectPatterns looks at.
const maxDetectLen = 1 << 20

// NormalizeLanguage maps language names and file extensions to "go",
// "typescript" or the lower-cased input.
func NormalizeLanguage(lang string) string {
	l := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(lang), "."))
	switch l {
	case "go", "golang":
		return "go"
	case "ts", "tsx", "typescript", "js", "jsx", "javascript", "mjs", "cjs":
		return "typescript"
	}
	return l
}

// GuessLanguage guesses "go" or "typescript" from code by counting
// telltale constructs of each, or returns "" when neither wins.
func GuessLanguage(code string) string {
	goScore, tsScore := 0, 0
	if reGoPackage.MatchString(code) {
		goScore += 3
	}
	for _, s := range []string{"func ", ":= ", "err != nil", "fmt.", "errors.", "context.Context", "[]byte", "chan "} {
		if strings.Contains(code, s) {
			goScore++
		}
	}
	if reTSImport.MatchString(code) {
		tsScore += 3
	}
	for _, s := range []string{"=> ", "const ", "let ", "interface ", ": string", "export ", "await ", "z.object(", "===", "?."} {
		if strings.Contains(code, s) {
			tsScore++
		}
	}
	switch {
	case goScore > tsScore:
		return "go"
	case tsScore > goScore:
		return "typescript"
	}
	return ""
}

// DetectPatterns returns candidate nodes for the static signals found in
// code (Go or TypeScript; language may be empty to guess). The nodes are
// not stored: pass them to Learn. It never panics.
func DetectPatterns(code, language string) []Node {
	if len(code) > maxDetectLen {
		code = code[:maxDetectLen]
	}
	lang := NormalizeLanguage(language)
	if lang == "" {
		lang = GuessLanguage(code)
	}
	var sigs []signal
	switch lang {
	case "go":
		sigs = goSignals
	case "typescript":
		sigs = tsSignals
	default:
		return []Node{}
	}
	out := []Node{}
	for _, s := range sigs {
		if s.match(code) {
			out = append(out, Node{Type: s.typ, Content: s.content, Tags: append([]string{}, s.tags...),
				Confidence: s.conf, Language: lang})
		}
	}
	return out
}

// maxLessonFiles bounds the paths a lesson names.
const maxLessonFiles = 6

// BuildLessons derives nodes from one task result without storing them.
// On success: requireAuth → Strategy; companyId from PLUTO → Pattern;
// Math.floor → Decision; z.object → Pattern; the static Go/TypeScript
// signals of DetectPatterns; and, for a task that changed files, one
// distilled Pattern: which agent did the task, the files it changed and the
// checks that passed. On failure: one Mistake with confidence 0.9 naming
// the reason (the first line of output). No node ever carries the model's
// output itself: it is what a model said once, not a lesson, and it would
// reach later prompts. Every node's source is the task
// ("build:ID/task:ID") and it is tagged with the agent.
func BuildLessons(task Task, agent, output string, success bool) []Node {
	agentTag := strings.ToLower(strings.TrimSpace(agent))
	source := BuildSource(task.BuildID, task.ID)
	title := strings.TrimSpace(task.Title)
	if title == "" {
		title = task.ID
	}
	tag := func(tags ...string) []string {
		if agentTag != "" {
			tags = append(tags, agentTag)
		}
		return tags
	}
	var out []Node
	if !success {
		reason := firstLine(output)
		if reason == "" {
			reason = "no output"
		}
		out = append(out, Node{
			Type: Mistake, Confidence: 0.9, Source: source, Tags: tag("failure"),
			Title:   oneLine(fmt.Sprintf("%s failed: %s", agentOr(agent), title), 120),
			Content: oneLine(fmt.Sprintf("%s failed on %q: %s", agentOr(agent), title, reason), 600),
		})
		return out
	}
	add := func(n Node) {
		for _, o := range out {
			if o.Content == n.Content {
				return
			}
		}
		n.Source = source
		n.Tags = tag(n.Tags...)
		out = append(out, n)
	}
	if strings.Contains(output, "requireAuth") {
		add(Node{Type: Strategy, Content: lessonRequireAuth, Confidence: 0.8, Tags: []string{"auth", "security"}})
	}
	if strings.Contains(output, "companyId") && strings.EqualFold(strings.TrimSpace(agent), "PLUTO") {
		add(Node{Type: Pattern, Content: lessonCompanyID, Confidence: 0.8, Tags: []string{"multi-tenant", "database"}})
	}
	if strings.Contains(output, "Math.floor") {
		add(Node{Type: Decision, Content: lessonMathFloor, Confidence: 0.7, Tags: []string{"numbers"}})
	}
	if strings.Contains(output, "z.object") {
		add(Node{Type: Pattern, Content: lessonZod, Confidence: 0.75, Tags: []string{"validation", "typescript"}})
	}
	for _, n := range DetectPatterns(output, "") {
		add(n)
	}
	if len(task.Files) > 0 {
		files := task.Files
		more := ""
		if len(files) > maxLessonFiles {
			files, more = files[:maxLessonFiles], fmt.Sprintf(" and %d more", len(task.Files)-maxLessonFiles)
		}
		lesson := fmt.Sprintf("%s completed %q by changing %s%s", agentOr(agent), title, strings.Join(files, ", "), more)
		if len(task.Checks) > 0 {
			lesson += "; verified by " + strings.Join(task.Checks, ", ")
		} else {
			lesson += "; nothing executed the change"
		}
		out = append(out, Node{
			Type: Pattern, Confidence: DefaultConfidence, Source: source, Tags: tag("build"),
			Title:   oneLine(fmt.Sprintf("Approach that passed: %s", title), 120),
			Content: oneLine(lesson+".", 600),
		})
	}
	return out
}

func agentOr(agent string) string {
	if a := strings.TrimSpace(agent); a != "" {
		return a
	}
	return "the agent"
}

// firstLine returns the first non-blank line of s, shortened.
func firstLine(s string) string {
	for line := range strings.SplitSeq(s, "\n") {
		if l := strings.TrimSpace(line); l != "" {
			return oneLine(l, 300)
		}
	}
	return ""
}
