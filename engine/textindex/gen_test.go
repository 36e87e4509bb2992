package textindex

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode"
)

// The generator makes vault-like documents and queries for tests and benchmarks: a title of
// a few words, a summary of about 150 characters, a body of 200 bytes to 4 KB (mean ≈ 1.1 KB)
// with sentences, stop words, camelCase and snake_case identifiers, 1–3 of 20 tags and one of
// 5 types. Words come from a fixed vocabulary of 4,000 (real programming words plus
// pronounceable pseudo-words).
//
// Text is a topic mixture, as real notes are about something: each document has a main topic
// and sometimes a second one (60 topics of 120 words each, the first ones built around real
// programming vocabulary), and its content words come from its topics (Zipf within the topic)
// or from a Zipf background over the whole vocabulary, whose head behaves like extra stop
// words. Queries are mostly topical (what a user asks about), with natural-language
// questions, prefixes, typos and a share of incoherent random-word queries as stress.

// genRealLines are the seeds of the first topics, one line each.
var genRealLines = strings.Split(strings.TrimSpace(`
auth authentication login session token credential password secret key oauth jwt cookie
database query storage persist schema migration table index transaction bucket bbolt sql
error failure exception panic crash retry backoff timeout deadline cancel context resilience
test spec assert verify mock fixture benchmark fuzz coverage table-driven parallel race
interface component screen view widget layout render frame terminal keyboard focus theme
performance latency speed fast slow cache memoize throughput allocation profile optimize
delete remove purge archive restore undo history snapshot export import backup sync
deploy release ship build pipeline version changelog tag binary install upgrade rollback
translation locale language plural message catalog format unicode encoding utf8 rune
accessibility contrast color palette screen-reader label keyboard navigation aria
agent prompt model ollama stream chunk tool call plan task phase dependency schedule
vault node edge graph traverse reinforce demote confidence decay conflict pattern rule
playbook reflector curator delta approve reject review diff patch changeset workspace
config yaml json field value default override environment flag command argument option
file path directory walk glob watcher permission root symlink lock handle descriptor
request response handler server client endpoint route middleware header body status
goroutine channel mutex waitgroup atomic worker pool queue backpressure batch limit
parse parser lexer token syntax grammar validate validation sanitize escape input output
log logging metric trace span event publish subscribe listener callback hook signal
user team owner role access policy audit compliance privacy consent retention redact
memory heap garbage pointer slice map struct method function closure generic type
string number integer float boolean nil null empty zero default pointer reference
random seed deterministic stable order sort search rank score relevance similarity
document title summary content tag type strategy mistake preference decision lesson
network http socket connection proxy tls certificate dns latency bandwidth packet
scheduler timer ticker clock timezone duration interval cron daily weekly monthly
`), "\n")

var genRealWords = strings.Fields(strings.Join(genRealLines, " "))

var genStopWords = strings.Fields("the a an of to in is it and for on with as that this be by are or from at when not")

var genTags = strings.Fields(`security performance testing tui storage llm agents vault playbook importer
config errors concurrency a11y i18n release docs refactor api cli`)

var genTypes = strings.Fields("strategy mistake preference pattern decision")

const genVocabSize = 4000

// genVocab is the fixed vocabulary, in Zipf rank order (rank 0 most frequent).
var genVocab, genIdents = func() ([]string, []string) {
	rng := rand.New(rand.NewPCG(0x766f6361, 0x62756c61))
	seen := map[string]bool{}
	var words []string
	for _, w := range genRealWords {
		if !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	onsets := strings.Fields("b c d f g h j k l m n p r s t v w z br cr dr fl gr pl pr st tr ch sh th")
	vowels := strings.Fields("a e i o u ai ea io ou")
	codas := []string{"", "", "n", "r", "l", "s", "t", "x", "nd", "rt", "st", "m"}
	for len(words) < genVocabSize {
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
	rng.Shuffle(len(words), func(i, j int) { words[i], words[j] = words[j], words[i] })
	idents := make([]string, 3000)
	for i := range idents {
		a, b := words[rng.IntN(600)], words[rng.IntN(2000)]
		if i%4 == 0 {
			idents[i] = strings.ReplaceAll(a, "-", "_") + "_" + strings.ReplaceAll(b, "-", "_")
		} else {
			idents[i] = strings.ReplaceAll(a, "-", "") + capitalize(strings.ReplaceAll(b, "-", ""))
		}
	}
	return words, idents
}()

const (
	genTopics     = 60
	genTopicWords = 120
)

// genTopicVocab[t] lists topic t's words, most typical first.
var genTopicVocab = func() [][]string {
	rng := rand.New(rand.NewPCG(0x746f7069, 0x6373))
	rank := map[string]int{}
	for i, w := range genVocab {
		rank[w] = i
	}
	topics := make([][]string, genTopics)
	for t := range topics {
		seen := map[string]bool{}
		var words []string
		if t < len(genRealLines) {
			for _, w := range strings.Fields(genRealLines[t]) {
				if !seen[w] {
					seen[w] = true
					words = append(words, w)
				}
			}
		}
		for len(words) < genTopicWords {
			// Topic words are mid-frequency: never the background's stop-word-like head.
			if w := genVocab[100+rng.IntN(genVocabSize-100)]; !seen[w] {
				seen[w] = true
				words = append(words, w)
			}
		}
		rng.Shuffle(len(words)-min(len(words), 4), func(i, j int) {
			words[4+i], words[4+j] = words[4+j], words[4+i]
		})
		topics[t] = words
	}
	return topics
}()

// genTopicCDF is the cumulative Zipf distribution (s = 1) over a topic's word ranks.
var genTopicCDF = func() []float64 {
	cdf := make([]float64, genTopicWords)
	sum := 0.0
	for k := range cdf {
		sum += 1 / (1 + float64(k))
		cdf[k] = sum
	}
	for k := range cdf {
		cdf[k] /= sum
	}
	return cdf
}()

func capitalize(w string) string {
	if w == "" {
		return w
	}
	r := []rune(w)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// genZipfCDF is the cumulative Zipf distribution (s = 1.07, v = 2) over vocabulary ranks; a
// table look-up is much faster than rand.Zipf, which matters for 100k-document corpora.
var genZipfCDF = func() []float64 {
	cdf := make([]float64, genVocabSize)
	sum := 0.0
	for k := range cdf {
		sum += math.Pow(2+float64(k), -1.07)
		cdf[k] = sum
	}
	for k := range cdf {
		cdf[k] /= sum
	}
	return cdf
}()

type generator struct {
	rng    *rand.Rand
	topics [2]int // topics of the document being generated; topics[1] < 0 for none
}

func newGenerator(seed uint64) *generator {
	return &generator{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// word draws from the background distribution.
func (g *generator) word() string {
	i, _ := slices.BinarySearch(genZipfCDF, g.rng.Float64())
	return genVocab[min(i, genVocabSize-1)]
}

// topicWord draws from topic t.
func (g *generator) topicWord(t int) string {
	i, _ := slices.BinarySearch(genTopicCDF, g.rng.Float64())
	return genTopicVocab[t][min(i, genTopicWords-1)]
}

// content draws a content word for the current document.
func (g *generator) content() string {
	switch r := g.rng.IntN(100); {
	case r < 45:
		return g.topicWord(g.topics[0])
	case r < 55 && g.topics[1] >= 0:
		return g.topicWord(g.topics[1])
	default:
		return g.word()
	}
}

// token is a body token: mostly content words, some stop words and identifiers.
func (g *generator) token() string {
	switch r := g.rng.IntN(100); {
	case r < 30:
		return genStopWords[g.rng.IntN(len(genStopWords))]
	case r < 34:
		return genIdents[g.rng.IntN(len(genIdents))]
	default:
		return g.content()
	}
}

// text appends sentences to b until it reaches n bytes.
func (g *generator) text(b *strings.Builder, n int) {
	start := b.Len()
	for b.Len()-start < n {
		words := 6 + g.rng.IntN(14)
		for i := range words {
			w := g.token()
			if i == 0 {
				w = capitalize(w)
			}
			b.WriteString(w)
			if i < words-1 {
				b.WriteByte(' ')
			}
		}
		b.WriteString(". ")
	}
}

func (g *generator) bodyLen() int {
	switch r := g.rng.IntN(10); {
	case r < 4:
		return 200 + g.rng.IntN(400)
	case r < 8:
		return 600 + g.rng.IntN(900)
	default:
		return 1500 + g.rng.IntN(2500)
	}
}

// docType returns the type of a generated document (by id, so filters need no lookup table).
func docType(id uint64) string { return genTypes[id%uint64(len(genTypes))] }

// pickTopics chooses the topics of the next document or query.
func (g *generator) pickTopics() {
	g.topics = [2]int{g.rng.IntN(genTopics), -1}
	if g.rng.IntN(10) < 4 {
		g.topics[1] = g.rng.IntN(genTopics)
	}
}

func (g *generator) doc(id uint64) Doc {
	g.pickTopics()
	words := make([]string, 3+g.rng.IntN(6))
	for i := range words {
		if g.rng.IntN(10) < 7 {
			words[i] = g.topicWord(g.topics[0])
		} else {
			words[i] = g.content()
		}
	}
	words[0] = capitalize(words[0])
	var sum, body strings.Builder
	g.text(&sum, 130+g.rng.IntN(40))
	g.text(&body, g.bodyLen())
	tags := []string{docType(id)}
	for range 1 + g.rng.IntN(3) {
		tags = append(tags, genTags[g.rng.IntN(len(genTags))])
	}
	return Doc{ID: id, Fields: []Field{
		Title(strings.Join(words, " ")), Summary(sum.String()), Body(body.String()), Tags(tags...),
	}}
}

// query returns a varied query. Most are about one topic: keyword queries, programming
// vocabulary (which the synonym map expands), natural-language questions, prefixes and typos.
// One in ten is incoherent (random words from the whole vocabulary), as stress.
func (g *generator) query() string {
	g.pickTopics()
	g.topics[1] = -1
	t := g.topics[0]
	words := func(n int, w func() string) string {
		out := make([]string, n)
		for i := range out {
			out[i] = w()
		}
		return strings.Join(out, " ")
	}
	topical := func() string { return g.topicWord(t) }
	switch r := g.rng.IntN(100); {
	case r < 15:
		return topical()
	case r < 45:
		return words(2+g.rng.IntN(3), topical)
	case r < 60:
		line := strings.Fields(genRealLines[g.rng.IntN(len(genRealLines))])
		return strings.ReplaceAll(words(1+g.rng.IntN(3), func() string { return line[g.rng.IntN(len(line))] }), "-", " ")
	case r < 72:
		g.topics[1] = t
		return words(6+g.rng.IntN(7), g.token)
	case r < 80:
		w := g.topicWord(t)
		return w[:min(len(w), max(4, len(w)*2/3))]
	case r < 90:
		w := []byte(g.topicWord(t))
		if i := g.rng.IntN(len(w) - 1); g.rng.IntN(2) == 0 {
			w[i], w[i+1] = w[i+1], w[i]
		} else {
			w = append(w[:i], w[i+1:]...)
		}
		return string(w)
	default:
		return words(1+g.rng.IntN(4), func() string {
			if g.rng.IntN(2) == 0 {
				return g.word()
			}
			return genVocab[g.rng.IntN(genVocabSize)]
		})
	}
}

// longQuery returns a task-description-like query of 20–40 words about one topic, as prompt
// assembly would send to find relevant vault nodes.
func (g *generator) longQuery() string {
	g.pickTopics()
	g.topics[1] = -1
	var b strings.Builder
	for i := range 20 + g.rng.IntN(21) {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(g.token())
	}
	return b.String()
}
