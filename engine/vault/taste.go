package vault

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/untrusted"
)

// ConflictStrength is the strength of contradicts edges made by Learn.
const ConflictStrength = 0.9

// LearnResult says what Learn did with one node.
type LearnResult struct {
	// Node is the stored node: the new one, or the existing equivalent that
	// was reinforced instead. When NotStored is set it is the candidate (id 0).
	Node Node `json:"node"`
	// Created is false when an equivalent node (same type, same statement)
	// existed and was reinforced, or when the node was not stored.
	Created bool `json:"created"`
	// Evicted lists the nodes the tier cap moved to the archive to make room
	// for this one (a learning write archives at most one; user writes
	// never archive). They can be brought back with Vault.Restore.
	Evicted []uint64 `json:"archived,omitempty"`
	// NotStored is set when a learned node found the vault full and no
	// stored node less confident than it: it was left out.
	NotStored bool `json:"notStored,omitempty"`
	// Conflicts lists the nodes the new node contradicts; a contradicts
	// edge now joins each of them to it.
	Conflicts []uint64 `json:"conflicts,omitempty"`
}

// Learn adds a node the taste-vault way, as the user's own write (`nova
// vault add`): an equivalent node (same type and statement) is reinforced
// instead of duplicated; a node whose statement contradicts an existing one
// ("never X" / "always X", "avoid X" / "use X", "do not X" / "X") gets a
// contradicts edge to it. A new node over the tier's cap is refused with a
// *CapError (ErrOverCap) and nothing is written. Learning paths use LearnAs
// with ByLearning.
func (v *Vault) Learn(ctx context.Context, n Node) (LearnResult, error) {
	rs, err := v.LearnAs(ctx, ByUser, n)
	if err != nil {
		return LearnResult{}, err
	}
	return rs[0], nil
}

// LearnAll learns several nodes in one transaction as the user's write (see
// Learn).
func (v *Vault) LearnAll(ctx context.Context, nodes []Node) ([]LearnResult, error) {
	return v.LearnAs(ctx, ByUser, nodes...)
}

// LearnAs learns nodes in one transaction for origin. For ByUser see Learn.
// For ByLearning (builds, rehearsals, user signals, playbook promotion) a
// full vault moves its least confident node below the incoming one to the
// archive, or, when there is none, leaves the incoming node out
// (LearnResult.NotStored); the change event reports both as counts.
func (v *Vault) LearnAs(ctx context.Context, origin Origin, nodes ...Node) ([]LearnResult, error) {
	prepared := make([]Node, len(nodes))
	for i, n := range nodes {
		p, err := v.prepare(n)
		if err != nil {
			return nil, err
		}
		prepared[i] = p
	}
	if len(prepared) == 0 {
		return []LearnResult{}, nil
	}
	var out []LearnResult
	op := "learn"
	if origin == ByUser {
		op = "add" // the change event says what the user did (nova vault add)
	}
	err := v.update(ctx, op, func(tx *bolt.Tx, ws *writeSet) error {
		out = out[:0]
		for _, n := range prepared {
			r, err := v.learnTx(tx, ws, origin, n)
			if err != nil {
				return err
			}
			out = append(out, r)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (v *Vault) learnTx(tx *bolt.Tx, ws *writeSet, origin Origin, n Node) (LearnResult, error) {
	st, hasStatement := parseStatement(n.Content)
	var conflicts []uint64
	if hasStatement {
		var same []uint64
		ixCore.IDs(tx, coreValue(st.core), func(id uint64) bool { same = append(same, id); return true })
		for _, id := range same {
			old, err := getNode(tx, id)
			if err != nil {
				continue
			}
			ost, ok := parseStatement(old.Content)
			if !ok || ost.core != st.core {
				continue // hash collision
			}
			if ost.neg == st.neg && old.Type == n.Type {
				got, err := v.modifyTx(tx, ws, id, func(o *Node) error {
					o.Confidence = round6(min(1, o.Confidence+ReinforceStep))
					o.Tags = NormalizeTags(append(o.Tags, n.Tags...))
					if len(o.Tags) > MaxTags {
						o.Tags = o.Tags[:MaxTags]
					}
					return nil
				}, false)
				if err != nil {
					return LearnResult{}, err
				}
				return LearnResult{Node: got}, nil
			}
			if ost.neg != st.neg {
				conflicts = append(conflicts, id)
			}
		}
	}
	res, err := v.reserve(tx, ws, origin, 1, n.Confidence)
	if err != nil {
		return LearnResult{}, err
	}
	if !res.admitted {
		ws.notStored++
		n.ID = 0
		return LearnResult{Node: n.clone(), NotStored: true}, nil
	}
	evicted := res.archived
	n.ID = 0
	if err := putNodeTx(tx, &n, nil); err != nil {
		return LearnResult{}, err
	}
	ws.putNode(&n, true)
	var linked []uint64
	for _, id := range conflicts {
		if slices.Contains(evicted, id) {
			continue
		}
		if _, err := linkTx(tx, ws, n.ID, id, Contradicts, ConflictStrength, v.now()); err != nil {
			return LearnResult{}, err
		}
		linked = append(linked, id)
	}
	return LearnResult{Node: n.clone(), Created: true, Evicted: evicted, Conflicts: linked}, nil
}

// Task is the build task a result belongs to.
type Task struct {
	BuildID     string `json:"buildId"`
	ID          string `json:"id"`
	Title       string `json:"title"`
	Description string `json:"description"`
	// Files are the paths the task's changes touched and Checks the
	// commands that executed them and passed: a passed task's lesson is
	// made of them (BuildLessons), never of the model's output.
	Files  []string `json:"files,omitempty"`
	Checks []string `json:"checks,omitempty"`
}

// LearnFromBuildResult turns a task's outcome into vault nodes (see
// BuildLessons) and learns them in one transaction, as learning (ByLearning:
// the tier cap archives or leaves out, never refuses). A failure becomes a
// Mistake with confidence 0.9. The caller decides whether a failure may be
// learned at all (only failures of the work itself are: engine/failure).
func (v *Vault) LearnFromBuildResult(ctx context.Context, task Task, agent, output string, success bool) ([]LearnResult, error) {
	lessons := BuildLessons(task, agent, output, success)
	if len(lessons) == 0 {
		return []LearnResult{}, nil
	}
	return v.LearnAs(ctx, ByLearning, lessons...)
}

// Injected is the provenance of a vault context: what went into the prompt.
type Injected struct {
	NodeIDs   []uint64 `json:"nodeIds"`
	WisdomIDs []uint64 `json:"wisdomIds"`
}

// VaultContext is the block injected into a prompt.
type VaultContext struct {
	// Text is the <taste_vault_context> block, or "" when nothing fits.
	Text string `json:"text"`
	// Tokens estimates Text (ceil(chars/4)); MaxTokens is the cap (15 % of
	// the prompt budget).
	Tokens    int `json:"tokens"`
	MaxTokens int `json:"maxTokens"`
	Injected
}

// VaultShare is the part of the prompt budget the vault context may use.
const VaultShare = 0.15

// DefaultPromptTokens is used when BuildVaultContext gets no budget.
const DefaultPromptTokens = 8192

// Limits of the vault context.
const (
	contextPersonal = 8
	contextEntryLen = 600
)

// EstimateTokens is nova's token estimate: ceil(chars/4).
func EstimateTokens(s string) int { return (len([]rune(s)) + 3) / 4 }

// BuildVaultContext assembles the <taste_vault_context> block for a task:
// the personal nodes most relevant to the task (and agent), then the tier's
// global wisdom (4 free, 12 premium), trimmed from the bottom until it fits
// in 15 % of budgetTokens. The returned ids are exactly what was injected.
func (v *Vault) BuildVaultContext(ctx context.Context, task, agent, tier string, budgetTokens int) (VaultContext, error) {
	if budgetTokens <= 0 {
		budgetTokens = DefaultPromptTokens
	}
	if tier == "" {
		tier = v.opts.Tier
	}
	vc := VaultContext{MaxTokens: int(float64(budgetTokens) * VaultShare), Injected: Injected{NodeIDs: []uint64{}, WisdomIDs: []uint64{}}}
	type entry struct {
		line   string
		id     uint64
		global bool
	}
	var personal, global []entry
	query := strings.TrimSpace(task + " " + agent)
	if query != "" {
		ask := contextPersonal
		if v.opts.Foreign != nil {
			ask *= 3 // room for the hits about other stacks, dropped below
		}
		hits, err := v.GetRelevantPatterns(ctx, query, ask)
		if err != nil {
			return vc, err
		}
		for _, h := range hits {
			if len(personal) == contextPersonal {
				break
			}
			if v.foreign(h.Node) {
				continue
			}
			text := oneLine(h.Content, contextEntryLen)
			if a := h.TeamAuthor(); a != "" {
				// A teammate's shared node is data from outside: its
				// markers are made inert and its author named.
				text = untrusted.Neutralize(text) + " (shared by teammate " + a + ")"
			}
			personal = append(personal, entry{
				line: fmt.Sprintf("- [%s, confidence %.2f] %s", h.Type, h.Confidence, text),
				id:   h.ID,
			})
		}
	}
	patterns, err := v.wisdom.ForTier(ctx, tier)
	if err != nil {
		return vc, err
	}
	for _, p := range patterns {
		if v.foreign(p.Node) {
			continue
		}
		// Other people's words (bundles, teammates): markers that could
		// close or open a prompt block are neutralised.
		global = append(global, entry{line: "- " + untrusted.Neutralize(oneLine(p.Node.Content, contextEntryLen)), id: p.ID, global: true})
	}
	render := func(ps, gs []entry) string {
		if len(ps)+len(gs) == 0 {
			return ""
		}
		var b strings.Builder
		b.WriteString("<taste_vault_context>\n")
		if len(ps) > 0 {
			b.WriteString("Personal patterns (from this workspace's taste vault):\n")
			for _, e := range ps {
				b.WriteString(e.line)
				b.WriteByte('\n')
			}
		}
		if len(gs) > 0 {
			b.WriteString("Global wisdom (shared, community-backed):\n")
			for _, e := range gs {
				b.WriteString(e.line)
				b.WriteByte('\n')
			}
		}
		b.WriteString("</taste_vault_context>")
		return b.String()
	}
	text := render(personal, global)
	for text != "" && EstimateTokens(text) > vc.MaxTokens {
		if len(global) > 0 {
			global = global[:len(global)-1]
		} else {
			personal = personal[:len(personal)-1]
		}
		text = render(personal, global)
	}
	vc.Text = text
	vc.Tokens = EstimateTokens(text)
	for _, e := range personal {
		vc.NodeIDs = append(vc.NodeIDs, e.id)
	}
	for _, e := range global {
		vc.WisdomIDs = append(vc.WisdomIDs, e.id)
	}
	return vc, nil
}

// foreign reports a node about another stack (Options.Foreign).
func (v *Vault) foreign(n Node) bool {
	return v.opts.Foreign != nil && v.opts.Foreign(n.Language, n.Tags)
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = strings.TrimSpace(truncate(s, n-1)) + "…"
	}
	return s
}

// ReinforceInjected credits what a successful task was given: each injected
// node gains ReinforceStep confidence and one helpful count, each injected
// wisdom pattern one success. Nodes deleted since are skipped.
func (v *Vault) ReinforceInjected(ctx context.Context, inj Injected) error {
	if len(inj.NodeIDs) > 0 {
		err := v.update(ctx, "reinforce", func(tx *bolt.Tx, ws *writeSet) error {
			return v.reinforceTx(tx, ws, inj.NodeIDs)
		})
		if err != nil {
			return err
		}
	}
	return v.recordWisdom(ctx, inj.WisdomIDs)
}

// reinforceTx credits each of ids once (ReinforceStep confidence, one helpful count);
// nodes deleted since are skipped.
func (v *Vault) reinforceTx(tx *bolt.Tx, ws *writeSet, ids []uint64) error {
	seen := map[uint64]bool{}
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		_, err := v.modifyTx(tx, ws, id, func(n *Node) error {
			n.Confidence = round6(min(1, n.Confidence+ReinforceStep))
			n.HelpfulCount++
			return nil
		}, false)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
	}
	return nil
}

// recordWisdom records one success for each global wisdom pattern in ids.
func (v *Vault) recordWisdom(ctx context.Context, ids []uint64) error {
	for _, id := range ids {
		if err := v.wisdom.RecordSuccess(ctx, id); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
	}
	return nil
}

// LearnFromTask is LearnFromBuildResult followed, for a success, by
// ReinforceInjected(inj), all written in one transaction: one commit per
// build task instead of two plus one per injected wisdom pattern. The order
// is the same as the calls': lessons, the nodes' credit, then each wisdom
// pattern's success. A wisdom pattern that cannot be read is skipped (and
// reported in the error) without losing the rest. A failed task only learns
// (inj is ignored).
func (v *Vault) LearnFromTask(ctx context.Context, task Task, agent, output string, success bool, inj Injected) ([]LearnResult, error) {
	lessons := BuildLessons(task, agent, output, success)
	if !success {
		inj = Injected{}
	}
	prepared := make([]Node, 0, len(lessons))
	for _, n := range lessons {
		p, err := v.prepare(n)
		if err != nil {
			return nil, err
		}
		prepared = append(prepared, p)
	}
	out := []LearnResult{}
	if len(prepared) == 0 && len(inj.NodeIDs) == 0 && len(inj.WisdomIDs) == 0 {
		return out, nil
	}
	var skipped error
	err := v.update(ctx, "learn", func(tx *bolt.Tx, ws *writeSet) error {
		out, skipped = out[:0], nil
		for _, n := range prepared {
			r, err := v.learnTx(tx, ws, ByLearning, n)
			if err != nil {
				return err
			}
			out = append(out, r)
		}
		if err := v.reinforceTx(tx, ws, inj.NodeIDs); err != nil {
			return err
		}
		for _, id := range inj.WisdomIDs {
			readErr, err := v.wisdom.recordSuccessTx(tx, id)
			if err != nil {
				return err
			}
			if readErr != nil && !errors.Is(readErr, ErrNotFound) && skipped == nil {
				skipped = readErr
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, skipped
}
