// Package vaulttest generates realistic taste-vault nodes and queries for
// tests and benchmarks (of the vault, the CLI and the vault browser), and
// opens throw-away vaults on real bbolt files.
//
// Generated nodes: a title of 3–8 words, a content of one or two sentences
// (60–240 bytes), 1–3 of 20 tags, one of the 5 types, a confidence between
// 0.3 and 0.98, a small helpful count, and — for BodyShare of the nodes — a
// body of 200 bytes to 4 KB (mean ≈ 1.1 KB) with sentences, camelCase and
// snake_case identifiers. Words come from a fixed vocabulary of 4,000 (real
// programming words plus pronounceable pseudo-words) drawn with a Zipf
// distribution. Everything is deterministic for a seed.
package vaulttest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/storage"
)

var realWords = strings.Fields(`
auth authentication login session token credential password secret key oauth jwt cookie
database query storage persist schema migration table index transaction bucket bbolt sql
error failure exception panic crash retry backoff timeout deadline cancel context resilience
test spec assert verify mock fixture benchmark fuzz coverage parallel race golden snapshot
interface component screen view widget layout render frame terminal keyboard focus theme
performance latency speed fast slow cache memoize throughput allocation profile optimize
delete remove purge archive restore undo history export import backup sync merge
deploy release ship build pipeline version changelog binary install upgrade rollback
translation locale language plural message catalog format unicode encoding rune
accessibility contrast color palette label navigation aria focus
agent prompt model ollama stream chunk tool call plan task phase dependency schedule
vault node edge graph traverse reinforce demote confidence decay conflict pattern rule
playbook reflector curator delta approve reject review diff patch changeset workspace
config yaml json field value default override environment flag command argument option
file path directory walk glob watcher permission root symlink lock handle descriptor
request response handler server client endpoint route middleware header body status
goroutine channel mutex waitgroup atomic worker pool queue backpressure batch limit
parse parser lexer syntax grammar validate validation sanitize escape input output
log logging metric trace span event publish subscribe listener callback hook signal
user team owner role access policy audit compliance privacy consent retention redact
memory heap garbage pointer slice map struct method function closure generic type
string number integer float boolean nil null empty zero reference
random seed deterministic stable order sort search rank score relevance similarity
document title summary content tag strategy mistake preference decision lesson
network http socket connection proxy tls certificate dns bandwidth packet
scheduler timer ticker clock timezone duration interval cron daily weekly
tenant company invoice payment checkout subscription billing cart order product
`)

var stopWords = strings.Fields("the a an of to in is it and for on with as that this be by are or from at when not")

// Tags are the 20 tags nodes draw from.
var Tags = strings.Fields(`security performance testing tui storage llm agents vault playbook importer
config errors concurrency a11y i18n release docs refactor api cli`)

const vocabSize = 4000

var vocab = func() []string {
	rng := rand.New(rand.NewPCG(0x766f6361, 0x62756c61))
	seen := map[string]bool{}
	var words []string
	for _, w := range realWords {
		if !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	onsets := strings.Fields("b c d f g h j k l m n p r s t v w z br cr dr fl gr pl pr st tr ch sh th")
	vowels := strings.Fields("a e i o u ai ea io ou")
	codas := []string{"", "", "n", "r", "l", "s", "t", "x", "nd", "rt", "st", "m"}
	for len(words) < vocabSize {
		var b strings.Builder
		for range 1 + rng.IntN(3) {
			b.WriteString(onsets[rng.IntN(len(onsets))])
			b.WriteString(vowels[rng.IntN(len(vowels))])
		}
		b.WriteString(codas[rng.IntN(len(codas))])
		if w := b.String(); len(w) >= 3 && !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	// Shuffle the pseudo-words in among the real ones so frequent ranks mix both.
	rng.Shuffle(len(words), func(i, j int) { words[i], words[j] = words[j], words[i] })
	return words
}()

// Gen draws text deterministically.
type Gen struct {
	rng  *rand.Rand
	zipf *rand.Zipf
}

// NewGen returns a generator for a seed.
func NewGen(seed uint64) *Gen {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	return &Gen{rng: rng, zipf: rand.NewZipf(rng, 1.07, 2, vocabSize-1)}
}

// Word draws one vocabulary word.
func (g *Gen) Word() string { return vocab[g.zipf.Uint64()] }

func (g *Gen) ident() string {
	a, b := g.Word(), g.Word()
	if g.rng.IntN(2) == 0 {
		return a + strings.ToUpper(b[:1]) + b[1:]
	}
	return a + "_" + b
}

// Sentence appends a sentence of about n words.
func (g *Gen) Sentence(sb *strings.Builder, n int) {
	for i := range n {
		if i > 0 {
			sb.WriteByte(' ')
		}
		switch r := g.rng.IntN(10); {
		case r < 3:
			sb.WriteString(stopWords[g.rng.IntN(len(stopWords))])
		case r == 3 && i > 0:
			sb.WriteString(g.ident())
		default:
			w := g.Word()
			if i == 0 {
				w = strings.ToUpper(w[:1]) + w[1:]
			}
			sb.WriteString(w)
		}
	}
	sb.WriteString(". ")
}

// Text returns about size bytes of sentences.
func (g *Gen) Text(size int) string {
	var sb strings.Builder
	for sb.Len() < size {
		g.Sentence(&sb, 6+g.rng.IntN(14))
		if g.rng.IntN(6) == 0 {
			sb.WriteString("\n\n")
		}
	}
	return strings.TrimSpace(sb.String())
}

// Options shapes generated nodes.
type Options struct {
	// BodyShare is the fraction of nodes with a body (default 0.4; negative
	// means none).
	BodyShare float64
	// UserID of the nodes (default "local").
	UserID string
}

// Node draws one node (id 0).
func (g *Gen) Node(o Options) vault.Node {
	if o.BodyShare == 0 {
		o.BodyShare = 0.4
	}
	if o.UserID == "" {
		o.UserID = "local"
	}
	types := vault.NodeTypes()
	var title strings.Builder
	for i := range 3 + g.rng.IntN(6) {
		if i > 0 {
			title.WriteByte(' ')
		}
		w := g.Word()
		title.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	var content strings.Builder
	for content.Len() < 60 {
		g.Sentence(&content, 5+g.rng.IntN(12))
	}
	c := strings.TrimSpace(content.String())
	if len(c) > 240 {
		c = strings.TrimSpace(c[:240])
	}
	tags := []string{}
	for range 1 + g.rng.IntN(3) {
		tags = append(tags, Tags[g.rng.IntN(len(Tags))])
	}
	n := vault.Node{
		Type:         types[g.rng.IntN(len(types))],
		Title:        title.String(),
		Content:      c,
		Tags:         tags,
		Confidence:   math.Round((0.3+g.rng.Float64()*0.68)*100) / 100,
		HelpfulCount: int(g.rng.ExpFloat64() * 2),
		UserID:       o.UserID,
		Source:       fmt.Sprintf("patterns/%s/%s.md", tags[0], g.Word()),
	}
	if g.rng.Float64() < o.BodyShare {
		// Log-uniform between 200 B and 4 KB: mean ≈ 1.3 KB.
		size := int(200 * math.Pow(20, g.rng.Float64()))
		n.Body = g.Text(size)
	}
	return n
}

// Nodes draws n nodes.
func Nodes(n int, seed uint64, o Options) []vault.Node {
	g := NewGen(seed)
	out := make([]vault.Node, n)
	for i := range out {
		out[i] = g.Node(o)
	}
	return out
}

// Queries draws n task-like queries of 2–7 words.
func Queries(n int, seed uint64) []string {
	g := NewGen(seed)
	out := make([]string, n)
	for i := range out {
		var sb strings.Builder
		k := 2 + g.rng.IntN(6)
		for j := range k {
			if j > 0 {
				sb.WriteByte(' ')
			}
			if g.rng.IntN(5) == 0 {
				sb.WriteString(stopWords[g.rng.IntN(len(stopWords))])
			} else {
				sb.WriteString(g.Word())
			}
		}
		out[i] = sb.String()
	}
	return out
}

// OpenDB opens a fresh database in t's temp dir (NoSync).
func OpenDB(t testing.TB) *storage.DB {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "nova.db"), storage.Options{NoSync: true})
	if err != nil {
		t.Fatalf("open db: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// Fill adds n generated nodes to v in batches of 10k.
func Fill(ctx context.Context, v *vault.Vault, n int, seed uint64, o Options) error {
	const batch = 10_000
	g := NewGen(seed)
	for done := 0; done < n; done += batch {
		k := min(batch, n-done)
		nodes := make([]vault.Node, k)
		for i := range nodes {
			nodes[i] = g.Node(o)
		}
		if _, err := v.AddBatch(ctx, nodes); err != nil {
			return err
		}
	}
	return nil
}

// Clock is a settable clock for Options.Now, safe for concurrent use.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock showing t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// Flat draws n nodes shaped like the speed issue's 100k vault: no title and no
// body, a content of 12–60 words (the same Zipf vocabulary and sentences as
// Node), 1–3 tags, one of the 5 types, a confidence between 0.3 and 0.98 and
// a small helpful count. The same seed gives the same nodes, so the peer
// benchmark (bench/peers) loads identical documents into every engine.
func Flat(n int, seed uint64) []vault.Node {
	g := NewGen(seed)
	types := vault.NodeTypes()
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	out := make([]vault.Node, n)
	for i := range out {
		words := 12 + g.rng.IntN(49)
		var sb strings.Builder
		for words > 0 {
			k := min(words, 6+g.rng.IntN(14))
			g.Sentence(&sb, k)
			words -= k
		}
		tags := []string{}
		for range 1 + g.rng.IntN(3) {
			if t := Tags[g.rng.IntN(len(Tags))]; !slices.Contains(tags, t) {
				tags = append(tags, t)
			}
		}
		out[i] = vault.Node{
			Type:         types[g.rng.IntN(len(types))],
			Content:      strings.TrimSpace(sb.String()),
			Tags:         tags,
			Confidence:   math.Round((0.3+g.rng.Float64()*0.68)*100) / 100,
			HelpfulCount: int(g.rng.ExpFloat64() * 2),
			UserID:       "local",
			Source:       "manual",
			CreatedAt:    created.Add(time.Duration(i) * time.Second),
			UpdatedAt:    created.Add(time.Duration(i) * time.Second),
		}
	}
	return out
}

// WriteJSONL writes nodes as a `nova vault import` file (see vault.Export's
// format), numbering them from 1 in order.
func WriteJSONL(w io.Writer, nodes []vault.Node) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]any{"kind": "header", "format": vault.DumpFormat,
		"version": vault.DumpVersion, "nodes": len(nodes)}); err != nil {
		return err
	}
	type line struct {
		Kind string `json:"kind"`
		vault.Node
	}
	for i, n := range nodes {
		n.ID = uint64(i + 1)
		if err := enc.Encode(line{Kind: "node", Node: n}); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// WriteLibrary writes n distinct markdown pattern files (about 2 KB each) into 20
// category folders of dir, as `nova import DIR` reads them. The prose comes from the Zipf
// vocabulary, so files share words as real ones do but are not near-duplicates.
func WriteLibrary(dir string, n int) error {
	g := NewGen(42)
	cats := strings.Fields("security hooks testing-patterns ui-components quality-gates")
	for i := range n {
		folder := fmt.Sprintf("%02d-%s", i%20, cats[i%len(cats)])
		p := filepath.Join(dir, folder, fmt.Sprintf("pattern-%05d.md", i))
		if i < 20 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
		}
		body := fmt.Sprintf("# %s %s %d\n\n**Priority:** P%d\n**Reusability:** %d/10\n\n## Overview\n\n%s\n\n## Pattern 1: %s\n\n%s\n\n```ts\nexport const v%d = %d;\n```\n\n## Pattern 2: %s\n\n%s\n",
			g.Word(), g.Word(), i, i%4, i%11, g.Text(600), g.Word(), g.Text(500), i, i, g.Word(), g.Text(500))
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return err
		}
	}
	return nil
}
