package agents

import (
	"strings"
	"unicode/utf8"

	"github.com/nova-dev/nova/internal/lazyre"
)

// A failed run's report says why nova thinks it failed (Failure.Hypothesis)
// and, for each recovery hint, what following it means here
// (Failure.HintNotes): "no write permission → run chmod +w out/".

// HintNote explains one recovery hint for this failure.
type HintNote struct {
	Action RecoveryHint `json:"action"`
	Note   string       `json:"note"`
}

// maxHypothesis bounds a hypothesis in runes.
const maxHypothesis = 240

var (
	// reasonRe finds a sentence of the model's own that gives a reason.
	reasonRe = lazyre.New(`(?i)\b(because|since|due to|cannot|can't|could not|couldn't|unable to|fails?|failed|failing|denied|missing|not found|does not exist|doesn't exist|no such|not allowed|permission)\b`)
	// deniedRe finds the path of a permission error ("open out/x.go:
	// permission denied", "mkdir /srv: permission denied").
	deniedRe = lazyre.New(`(?i)(?:open|write|writing|mkdir|create|creat|remove|rename|chmod)\s+([^\s:'"]+)\s*:\s*(?:permission denied|operation not permitted|read-only file system)`)
	eaccesRe = lazyre.New(`(?i)permission denied|EACCES|operation not permitted|read-only file system`)
	missRe   = lazyre.New(`(?i)no such file or directory|ENOENT|does not exist|not found`)
)

// Hypothesis is why a run probably failed: a sentence of the model's last
// text that gives a reason, when it has one, else what the failure's kind,
// cause and message point to. It never panics on any input.
func Hypothesis(f *Failure, lastText string) string {
	if f == nil {
		return ""
	}
	if s := reasonSentence(lastText); s != "" {
		return clipRunes(s, maxHypothesis)
	}
	return clipRunes(kindHypothesis(f), maxHypothesis)
}

// reasonSentence is the last sentence of text that gives a reason ("" when
// none does). Code blocks are skipped: they quote, they do not explain.
func reasonSentence(text string) string {
	text = strings.ToValidUTF8(text, "\uFFFD")
	var prose []string
	inFence := false
	for line := range strings.SplitSeq(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			continue
		}
		if !inFence {
			prose = append(prose, line)
		}
	}
	found := ""
	for _, s := range sentences(strings.Join(prose, "\n")) {
		if reasonRe.MatchString(s) {
			found = s
		}
	}
	return found
}

// sentences splits prose at ". ", "! ", "? " and line ends, trimming each.
func sentences(text string) []string {
	var out []string
	var b strings.Builder
	flush := func() {
		if s := strings.Join(strings.Fields(b.String()), " "); s != "" {
			out = append(out, s)
		}
		b.Reset()
	}
	rs := []rune(text)
	for i, r := range rs {
		switch {
		case r == '\n':
			flush()
		case (r == '.' || r == '!' || r == '?') && (i+1 == len(rs) || rs[i+1] == ' ' || rs[i+1] == '\n'):
			b.WriteRune(r)
			flush()
		default:
			b.WriteRune(r)
		}
	}
	flush()
	return out
}

// kindHypothesis reads the failure itself.
func kindHypothesis(f *Failure) string {
	msg := strings.ToValidUTF8(f.Message, "\uFFFD")
	switch {
	case eaccesRe.MatchString(msg):
		if m := deniedRe.FindStringSubmatch(msg); m != nil {
			return "no write permission on " + m[1] + ": the file or its directory is not writable for nova"
		}
		return "no write permission: a file or directory the agent used is not writable for nova"
	case f.Cause == "ollama_unreachable":
		return "the model server is not running or not reachable"
	case f.Cause == "model_not_found":
		return "the configured model is not on the model server (not pulled)"
	case f.Cause == "max_steps" || f.Cause == "max_tool_calls":
		return "the task needs more steps than the agent's limit, or the agent went round in circles"
	case f.Kind == FailTimeout:
		return "the task took longer than the agent's time limit"
	case f.Kind == FailStuck:
		return "the agent repeated itself without making progress"
	case f.Kind == FailValidationFailed:
		return "the model's replies did not take the form nova asked for"
	case f.Kind == FailPolicyDenied:
		return "the agent asked for something its tools or autonomy level do not allow"
	case missRe.MatchString(msg):
		return "a file or command the agent used does not exist where it looked"
	case f.Kind == FailToolError:
		return "a tool kept failing: " + firstSentence(msg)
	}
	if msg = firstSentence(msg); msg != "" {
		return "unclear; the run stopped with: " + msg
	}
	return "unclear: the run stopped without saying why"
}

// HintNotes says, for each of f's recovery hints, what following it means
// for this failure.
func HintNotes(f *Failure) []HintNote {
	if f == nil || len(f.RecoveryHints) == 0 {
		return nil
	}
	msg := strings.ToValidUTF8(f.Message, "\uFFFD")
	denied := eaccesRe.MatchString(msg)
	path := ""
	if m := deniedRe.FindStringSubmatch(msg); m != nil {
		path = m[1]
	}
	out := make([]HintNote, 0, len(f.RecoveryHints))
	for _, h := range f.RecoveryHints {
		note := ""
		switch h {
		case HintAskUser:
			switch {
			case denied && path != "":
				note = "no write permission → run chmod +w " + path + " (or fix its owner), then run it again"
			case denied:
				note = "no write permission → run chmod +w on the file or directory named above, then run it again"
			case f.Cause == "ollama_unreachable":
				note = "start the model server (ollama serve), then run it again"
			case f.Cause == "model_not_found":
				note = "pull the model (ollama pull MODEL) or pick another in .nova/config.yaml"
			default:
				note = "ask the user for what the agent lacked: a decision, a file, an access"
			}
		case HintRetry:
			note = "run it again as it is: a busy model server or a flaky command may pass the second time"
		case HintEscalateModel:
			note = "a larger model may follow the task better (tiers go small → medium → large)"
		case HintChangeStrategy:
			switch {
			case denied:
				note = "write somewhere the agent may write, or leave that file out of the task"
			case f.Cause == "max_steps" || f.Cause == "max_tool_calls" || f.Kind == FailStuck:
				note = "split the task into smaller steps, or name the files to start from"
			default:
				note = "rephrase the task: say which files to read and how success is checked"
			}
		case HintSwitchSpecialist:
			if f.SuggestedAgent != "" {
				note = "give the task to " + f.SuggestedAgent + ", whose tools fit it"
			} else {
				note = "give the task to a specialist whose tools fit it"
			}
		default:
			note = "see the failure message"
		}
		out = append(out, HintNote{Action: h, Note: note})
	}
	return out
}

func firstSentence(s string) string {
	ss := sentences(s)
	if len(ss) == 0 {
		return ""
	}
	return ss[0]
}

func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
