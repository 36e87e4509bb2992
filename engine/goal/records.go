package goal

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/storage"
)

// Record is how an agent's earlier delegations went: all of them, and
// those whose task was like the current goal.
type Record struct {
	Agent string `json:"agent"`
	// Done and Failed count finished delegations; Attempts sums their
	// attempts (retries included).
	Done     int `json:"done"`
	Failed   int `json:"failed"`
	Attempts int `json:"attempts"`
	// Similar counts the delegations like the current goal, and
	// SimilarDone those of them that were done.
	Similar     int `json:"similar"`
	SimilarDone int `json:"similarDone"`
}

// Line is the record as the lead reads it.
func (r Record) Line() string {
	n := r.Done + r.Failed
	if n == 0 {
		return ""
	}
	s := fmt.Sprintf("%d done, %d failed, %.1f attempts on average", r.Done, r.Failed, float64(r.Attempts)/float64(n))
	if r.Similar > 0 {
		s += fmt.Sprintf("; on tasks like this goal %d of %d done", r.SimilarDone, r.Similar)
	}
	return s
}

// similarShare is how many of the goal's words a task must share to count
// as like it.
const similarShare = 0.3

// Records reads every finished delegation of every goal run and sums them
// per agent. A delegation is like goal when its task shares at least
// similarShare of goal's words (of four letters or more).
func (s *Store) Records(ctx context.Context, goal string) (map[string]Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	want := words(goal)
	out := map[string]Record{}
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(storage.BucketGoalTurns).ForEach(func(_, v []byte) error {
			t, err := turnCodec.Unmarshal(v)
			if err != nil {
				return nil // one unreadable turn does not hide the others
			}
			d := t.Decision
			if t.Kind != TurnDecision || d == nil || d.Action != ActionDelegate || t.Outcome == nil {
				return nil
			}
			agent := strings.ToLower(strings.TrimSpace(d.Agent))
			r := out[agent]
			r.Agent = d.Agent
			done := t.Outcome.Passed()
			if done {
				r.Done++
			} else {
				r.Failed++
			}
			r.Attempts += max(t.Outcome.Attempts, 1)
			if similar(want, words(d.Task)) {
				r.Similar++
				if done {
					r.SimilarDone++
				}
			}
			out[agent] = r
			return nil
		})
	})
	return out, err
}

// RecordOf finds id's record (ids match without regard to case).
func RecordOf(rs map[string]Record, id string) Record {
	return rs[strings.ToLower(strings.TrimSpace(id))]
}

func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len([]rune(w)) >= 4 {
			out[w] = true
		}
	}
	return out
}

func similar(goal, task map[string]bool) bool {
	if len(goal) == 0 {
		return false
	}
	n := 0
	for _, w := range slices.Collect(maps.Keys(goal)) {
		if task[w] {
			n++
		}
	}
	return float64(n)/float64(len(goal)) >= similarShare
}
