package rehearsal

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/nova-dev/nova/engine/prd"
	"github.com/nova-dev/nova/internal/lazyre"
)

// Thresholds of ShouldRehearse.
const (
	ComplexityThreshold  = 0.7
	LongDescriptionChars = 500
)

// riskyWords mark a task as worth rehearsing wherever they appear in its
// description.
var riskyWords = lazyre.New(`(?i)\b(schema|migrations?|migrate|rehears\w*)\b`)

// ShouldRehearse reports whether a task is risky enough to rehearse: its
// complexity (a task field Nova26 PRDs may carry) is above 0.7; or, when it
// has no complexity, its description is longer than 500 characters; or its
// description mentions a schema, a migration or rehearsal. Forcing is the
// caller's business (Request.Force).
func ShouldRehearse(t prd.Task) bool {
	if c, ok := Complexity(t); ok {
		if c > ComplexityThreshold {
			return true
		}
	} else if len([]rune(t.Description)) > LongDescriptionChars {
		return true
	}
	return riskyWords.MatchString(t.Description)
}

// Complexity reads the task's "complexity" extra field (a number, or a
// numeric string).
func Complexity(t prd.Task) (float64, bool) {
	raw, ok := t.Extra["complexity"]
	if !ok {
		return 0, false
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err == nil {
		return f, true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
			return f, true
		}
	}
	return 0, false
}

// taskTypes map words of a task to the type a learned preference is about.
var taskTypes = []struct{ word, kind string }{
	{"migration", "migration"}, {"schema", "schema"}, {"test", "testing"},
	{"api", "api"}, {"endpoint", "api"}, {"dashboard", "ui"}, {"component", "ui"},
	{"page", "ui"}, {"ui", "ui"}, {"auth", "auth"}, {"database", "data"},
	{"query", "data"}, {"refactor", "refactor"}, {"docs", "docs"}, {"config", "config"},
}

// TaskType is a short name for the kind of task ("schema", "ui", …, or the
// agent's name in lower case), used in learned preferences.
func TaskType(t prd.Task) string {
	words := strings.Fields(strings.ToLower(t.Title + " " + t.Description))
	for _, tt := range taskTypes {
		for _, w := range words {
			w = strings.Trim(w, ".,:;()[]{}\"'`")
			if w == tt.word || w == tt.word+"s" {
				return tt.kind
			}
		}
	}
	if t.Agent != "" {
		return strings.ToLower(t.Agent) + " tasks"
	}
	return "tasks"
}
