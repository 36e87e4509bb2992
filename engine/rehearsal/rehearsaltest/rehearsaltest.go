// Package rehearsaltest scripts rehearsal branches for the fake Ollama
// server (engine/llm/ollamatest): each branch's reply is chosen by the
// approach named in its system prompt, so replies stay deterministic however
// the concurrent calls interleave.
package rehearsaltest

import (
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/nova-dev/nova/engine/llm/ollamatest"
)

// File is one proposed file: path and content.
type File struct{ Path, Content string }

// BranchJSON is a valid branch reply.
func BranchJSON(description, notes string, files ...File) string {
	type f struct {
		Path            string `json:"path"`
		ProposedContent string `json:"proposedContent"`
	}
	doc := struct {
		Description string `json:"description"`
		Files       []f    `json:"files"`
		AgentNotes  string `json:"agentNotes"`
	}{Description: description, Files: []f{}, AgentNotes: notes}
	for _, x := range files {
		doc.Files = append(doc.Files, f{x.Path, x.Content})
	}
	b, _ := json.Marshal(doc)
	return string(b)
}

// Script maps an approach ("minimal", "idiomatic", "defensive") to its reply.
type Script map[string]ollamatest.Reply

// Handler answers each chat request with the reply of the approach its
// system prompt asks for (a plain "ok" when none matches). Delay, when set,
// is slept in the handler (it counts as the model's time). Stats records the
// concurrency.
func Handler(s Script, delay time.Duration, st *Stats) ollamatest.ChatFunc {
	return func(_ int, req api.ChatRequest) ollamatest.Reply {
		if st != nil {
			st.enter()
			defer st.leave()
		}
		if delay > 0 {
			time.Sleep(delay)
		}
		sys := ""
		if len(req.Messages) > 0 {
			sys = req.Messages[0].Content
		}
		for a, r := range s {
			if strings.Contains(sys, strings.ToUpper(a)+" approach") {
				return r
			}
		}
		return ollamatest.Text("ok")
	}
}

// Stats counts concurrent calls.
type Stats struct {
	mu       sync.Mutex
	inFlight int
	// Max is the highest number of calls in flight at once; Calls the total.
	Max, Calls int
}

func (s *Stats) enter() {
	s.mu.Lock()
	s.inFlight++
	s.Calls++
	s.Max = max(s.Max, s.inFlight)
	s.mu.Unlock()
}

func (s *Stats) leave() {
	s.mu.Lock()
	s.inFlight--
	s.mu.Unlock()
}

// Snapshot returns Max and Calls.
func (s *Stats) Snapshot() (maxInFlight, calls int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Max, s.Calls
}

// Three is a script of three valid branches over one Go file (main.go) and,
// for the defensive branch, a test file.
func Three() Script {
	return Script{
		"minimal": ollamatest.Text(BranchJSON("Add the Total function inline.",
			"Small change. TODO: no tests yet.",
			File{"calc/calc.go", "package calc\n\n// Total sums xs.\nfunc Total(xs []int) int {\n\tt := 0\n\tfor _, x := range xs {\n\t\tt += x\n\t}\n\treturn t\n}\n"})),
		"idiomatic": ollamatest.Text(BranchJSON("Add Total with a doc comment and a Mean helper, following the package conventions.",
			"Confident: follows the conventions; tested by hand.",
			File{"calc/calc.go", "package calc\n\n// Total returns the sum of xs.\nfunc Total(xs []int) int {\n\tsum := 0\n\tfor _, x := range xs {\n\t\tsum += x\n\t}\n\treturn sum\n}\n\n// Mean returns the average of xs, 0 for none.\nfunc Mean(xs []int) float64 {\n\tif len(xs) == 0 {\n\t\treturn 0\n\t}\n\treturn float64(Total(xs)) / float64(len(xs))\n}\n"},
			File{"calc/doc.go", "// Package calc does arithmetic on slices.\npackage calc\n"})),
		"defensive": ollamatest.Text(BranchJSON("Add Total with overflow checks and a table test.",
			"Tested: the table test covers empty input and overflow. Verified.",
			File{"calc/calc.go", "package calc\n\nimport \"errors\"\n\n// ErrOverflow is returned when the sum does not fit.\nvar ErrOverflow = errors.New(\"overflow\")\n\n// Total sums xs, refusing overflow.\nfunc Total(xs []int) (int, error) {\n\tsum := 0\n\tfor _, x := range xs {\n\t\tn := sum + x\n\t\tif (x > 0 && n < sum) || (x < 0 && n > sum) {\n\t\t\treturn 0, ErrOverflow\n\t\t}\n\t\tsum = n\n\t}\n\treturn sum, nil\n}\n"},
			File{"calc/calc_test.go", "package calc\n\nimport \"testing\"\n\nfunc TestTotal(t *testing.T) {\n\tif got, err := Total([]int{1, 2, 3}); err != nil || got != 6 {\n\t\tt.Fatalf(\"Total = %d, %v\", got, err)\n\t}\n}\n"})),
	}
}
