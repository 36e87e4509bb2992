package llm

import (
	"fmt"
	"strings"
)

// Tier is a class of model size. Work starts on a tier and may escalate up
// the ladder small → medium → large; embed is separate and never escalates.
type Tier string

// The tiers.
const (
	TierSmall  Tier = "small"
	TierMedium Tier = "medium"
	TierLarge  Tier = "large"
	TierEmbed  Tier = "embed"
)

// Ladder is the escalation order of the chat tiers.
var Ladder = []Tier{TierSmall, TierMedium, TierLarge}

// ParseTier accepts a tier name, case-insensitively.
func ParseTier(s string) (Tier, error) {
	t := Tier(strings.ToLower(strings.TrimSpace(s)))
	if !t.Valid() {
		return "", fmt.Errorf("unknown model tier %q (want small, medium, large or embed)", s)
	}
	return t, nil
}

// Valid reports whether t is one of the four tiers.
func (t Tier) Valid() bool {
	return t == TierEmbed || t.rank() >= 0
}

// rank is t's position on the ladder, or -1.
func (t Tier) rank() int {
	for i, l := range Ladder {
		if t == l {
			return i
		}
	}
	return -1
}

// Escalate returns the tier above cur when it does not go beyond max. It
// returns (cur, false) when cur is already at or above max, or when cur or
// max is not on the ladder (embed, unknown).
func Escalate(cur, max Tier) (Tier, bool) {
	c, m := cur.rank(), max.rank()
	if c < 0 || m < 0 || c >= m {
		return cur, false
	}
	return Ladder[c+1], true
}

// Models maps each tier to an Ollama model name.
type Models map[Tier]string

// For returns the model of tier t.
func (m Models) For(t Tier) (string, error) {
	name := strings.TrimSpace(m[t])
	if name == "" {
		return "", fmt.Errorf("no model configured for tier %q: set models.%s in .nova/config.yaml", t, t)
	}
	return name, nil
}

// Missing lists the configured models a Probe did not find installed, in
// ladder order then embed.
func (m Models) Missing(p Probe) []string {
	var out []string
	for _, t := range append(append([]Tier{}, Ladder...), TierEmbed) {
		if name := strings.TrimSpace(m[t]); name != "" && !p.HasModel(name) {
			out = append(out, name)
		}
	}
	return out
}
