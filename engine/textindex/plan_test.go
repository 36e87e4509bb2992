package textindex

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// planWords is awkward text for the analyzer: Unicode, identifiers in every case, stop words,
// phrase compounds, synonym group members (concepts) and their inflections.
var planWords = []string{
	"Café", "crème—brûlée", "über_Schall", "HTTPServer", "companyId=42", "user_id", "__init__",
	"I'm", "logged", "in", "sign-up", "Straße", "日本語テキスト", "a\u0301b", "MAX_RETRY_COUNT",
	"v2.1.0", "i18n/a11y", strings.Repeat("z", 70), "ÀÉÎ", "naïve—résumé", "\xff\xfe", "the",
	"of", "and", "soft-deleted", "screen", "reader", "authentication", "authenticated", "login",
	"database", "databases", "failure", "failures", "crash", "password", "tokenized", "tokens",
	"cachedResults", "snake_case_name", "getUserByID", "JSONParser", "rate", "limiting", "a",
	"miobiogreasTrioflomoum", "thumioPloprum", "deabriShoval", "Ünïcödé", "ΑΘΗΝΑ", "москва",
	"caching", "cached", "caches", "running", "runs", "Running", "userId", "userid", "USER_ID",
}

func planText(rng *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(planWords[rng.IntN(len(planWords))])
		b.WriteString([]string{" ", " ", ". ", "\n", ", ", "-"}[rng.IntN(6)])
	}
	return b.String()
}

func planFields(rng *rand.Rand) []Field {
	body := planText(rng, 5+rng.IntN(60))
	title := planText(rng, 1+rng.IntN(5))
	if rng.IntN(4) == 0 {
		title = body // the same text as the next field
	}
	fs := []Field{Title(title), Body(body)}
	if rng.IntN(3) == 0 {
		fs = append(fs, Tags(planText(rng, 2)))
	}
	return fs
}

// storeBytes returns every key and value of st's two spaces.
func storeBytes(st *MemStore) (terms, postings map[string][]byte) {
	terms, postings = map[string][]byte{}, map[string][]byte{}
	st.SeekTerms(nil, func(k, v []byte) bool {
		terms[string(k)] = bytes.Clone(v)
		return true
	})
	st.SeekPostings(nil, func(k, v []byte) bool {
		postings[string(k)] = bytes.Clone(v)
		return true
	})
	return terms, postings
}

// expectedPostings is an oracle written from the documented analysis, without the batch
// workers: per term, the postings the documents in docs should have.
func expectedPostings(e *Engine, docs map[uint64][]Field) map[string][]posting {
	out := map[string][]posting{}
	for _, id := range slices.Sorted(maps.Keys(docs)) {
		tfs := map[string]uint32{}
		var lens [MaxFields]uint32
		for _, f := range docs[id] {
			fi := e.fieldIndex(f.Name)
			for _, term := range Analyze(f.Text) {
				lens[fi]++
				for _, t := range append([]string{term}, conceptNames(e, term)...) {
					if tfs[t]>>(8*fi)&0xff < 0xff {
						tfs[t] += 1 << (8 * fi)
					}
				}
			}
		}
		var code uint32
		for f := range e.nf {
			code |= lenCode(lens[f]) << (8 * f)
		}
		for t, tf := range tfs {
			out[t] = append(out[t], posting{doc: id, tf: tf, code: code & byteMask(tf)})
		}
	}
	return out
}

func conceptNames(e *Engine, term string) []string {
	var out []string
	for _, g := range e.concepts[term] {
		out = append(out, e.cnames[g])
	}
	return out
}

// TestPlanAddsMatchOneAdd: a plan fed batch by batch (as a chunked import does, the analysis
// state kept from Add to Add) writes byte for byte the index that one Add of all the changes
// writes, and that index holds exactly the postings the documented analysis gives. The
// batches remove and add again documents with the same terms, some are large enough for
// several workers and some are not, and the text is Unicode, identifiers, stop words,
// phrases and synonyms.
func TestPlanAddsMatchOneAdd(t *testing.T) {
	t.Parallel()
	for i, opts := range []Options{
		{},
		{},
		{Synonyms: [][]string{{"thumio", "ploprum", "shoval"}, {"café", "crème"}}},
		{SynonymWeight: -1},
	} {
		keep := cacheKeep
		if i == 1 {
			keep = 40 // the workers' caches are pruned after every batch
		}
		t.Run(fmt.Sprintf("%+v keep %d", opts, keep), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(7, 8))
			e := NewEngine(opts)
			live := map[uint64][]Field{}
			var base Batch
			for id := uint64(1); id <= 300; id++ {
				live[id] = planFields(rng)
				base.Put(id, nil, live[id])
			}
			var many, one MemStore
			require.NoError(t, e.Apply(&many, &base))
			require.NoError(t, e.Apply(&one, &base))

			plan := e.NewPlan()
			plan.keep = keep
			var all Batch
			next := uint64(1000)
			for k, size := range []int{700, 40, 1300, 3, 520, 90} {
				var b Batch
				for range size {
					next++
					live[next] = planFields(rng)
					b.Put(next, nil, live[next])
				}
				// Replace and remove some of the documents the store held before the plan
				// (each in one batch only: the batches of a plan are disjoint).
				for id := uint64(1 + 50*k); id < uint64(1+50*k+20); id++ {
					if id%2 == 0 {
						b.Remove(id, live[id])
						delete(live, id)
					} else {
						old := live[id]
						live[id] = planFields(rng)
						b.Put(id, old, live[id])
					}
				}
				require.NoError(t, plan.Add(&b))
				all.Merge(&b)
			}
			for done := false; !done; {
				var err error
				done, err = plan.Step(&many, 5000)
				require.NoError(t, err)
			}
			done, err := e.Plan(&all).Step(&one, 0)
			require.NoError(t, err)
			require.True(t, done)

			manyTerms, manyPostings := storeBytes(&many)
			oneTerms, onePostings := storeBytes(&one)
			assert.Equal(t, oneTerms, manyTerms)
			assert.Equal(t, onePostings, manyPostings)

			want := expectedPostings(e, live)
			var stored []string
			many.SeekTerms(nil, func(k, v []byte) bool {
				if k[0] != 0xff {
					stored = append(stored, string(k))
				}
				return true
			})
			assert.ElementsMatch(t, slices.Collect(maps.Keys(want)), stored)
			for term, ps := range want {
				assert.Equal(t, ps, allPostings(t, e, &many, term), "term %q", term)
			}
		})
	}
}

// TestSurfaceTableUpdate: values changed by update are found changed, the tokens it drops
// are gone and every other token is still found, whatever the probe sequences were.
func TestSurfaceTableUpdate(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 20 {
		var st surfaceTable
		toks := map[string]int32{}
		for len(toks) < 200+rng.IntN(3000) {
			n := 1 + rng.IntN(30)
			b := make([]byte, n)
			for i := range b {
				b[i] = "abcdefgh"[rng.IntN(8)]
			}
			if _, ok := toks[string(b)]; ok {
				continue
			}
			toks[string(b)] = int32(len(toks))
			tok := append(make([]byte, 0, maxTokenLen+16), b...)
			k := makeTokenKey(tok)
			st.put(&k, centry{term: int32(len(toks) - 1)})
		}
		drop := rng.IntN(4) // every drop-th token leaves (0: none)
		st.update(func(v *centry) bool {
			keep := drop == 0 || v.term%int32(drop) != 0
			v.term += 1_000_000
			return keep
		})
		kept := 0
		for tok, id := range toks {
			k := makeTokenKey(append(make([]byte, 0, maxTokenLen+16), tok...))
			v, ok := st.get(&k)
			if drop != 0 && id%int32(drop) == 0 {
				assert.False(t, ok, "round %d: %q was dropped", round, tok)
				continue
			}
			kept++
			if assert.True(t, ok, "round %d: %q", round, tok) {
				assert.Equal(t, id+1_000_000, v.term)
			}
		}
		assert.Equal(t, kept, st.used)
	}
}

// FuzzPendingPostings: the plan's pending postings decode to what was encoded, and
// postingLen is the encoded length, for any position, term frequencies and field count.
func FuzzPendingPostings(f *testing.F) {
	f.Add(uint64(0), uint32(1), uint64(999), uint32(0x01000203), 4)
	f.Add(uint64(1<<40), uint32(0xffffffff), uint64(3), uint32(0x100), 1)
	f.Fuzz(func(t *testing.T, pos1 uint64, tf1 uint32, pos2 uint64, tf2 uint32, nf int) {
		nf = 1 + (nf%MaxFields+MaxFields)%MaxFields
		keep := uint32(1)<<(8*nf) - 1
		if nf == MaxFields {
			keep = ^uint32(0)
		}
		pos1, pos2 = pos1>>(nf+1), pos2>>(nf+1) // positions fit beside the field mask
		tf1, tf2 = tf1&keep, tf2&keep
		var b []byte
		b = appendPosting(b, pos1, tf1, nf)
		require.Len(t, b, postingLen(pos1, tf1, nf))
		b = appendPosting(b, pos2, tf2, nf)
		p, tf, rest := nextPosting(b, nf)
		assert.Equal(t, pos1, p)
		assert.Equal(t, tf1, tf)
		p, tf, rest = nextPosting(rest, nf)
		assert.Equal(t, pos2, p)
		assert.Equal(t, tf2, tf)
		assert.Empty(t, rest)
	})
}

// TestTermDict: the dictionary numbers terms in the order they come, finds every one of
// them by bytes and by string (through its table's growth), finds no other, and gives each
// one back by id.
func TestTermDict(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 10))
	d := newTermDict()
	ids := map[string]int32{}
	var order []string
	for range 20_000 {
		var term string
		switch rng.IntN(5) {
		case 0:
			term = conceptTerm(rng.IntN(50)) + strings.Repeat("\x00", rng.IntN(3))
		case 1:
			term = planWords[rng.IntN(len(planWords))]
		case 2: // the same first eight bytes
			term = "commonpr" + strings.Repeat("\x00", rng.IntN(2)) + string(rune('a'+rng.IntN(26)))
		default:
			b := make([]byte, 1+rng.IntN(12))
			for i := range b {
				b[i] = "abcdéfgh"[rng.IntN(9)]
			}
			term = string(b)
		}
		id, seen := ids[term]
		if !seen {
			id = int32(len(order))
			ids[term] = id
			order = append(order, term)
		}
		if rng.IntN(2) == 0 {
			require.Equal(t, id, d.add(term), term)
		} else {
			require.Equal(t, id, d.addBytes([]byte(term)), term)
		}
	}
	require.Equal(t, len(order), d.len())
	for id, term := range order {
		got, ok := d.find([]byte(term))
		assert.True(t, ok, term)
		assert.Equal(t, int32(id), got)
		got, ok = d.findString(term)
		assert.True(t, ok, term)
		assert.Equal(t, int32(id), got)
		assert.Equal(t, term, d.str(int32(id)))
		assert.Equal(t, term, d.view(int32(id)))
	}
	for _, absent := range []string{"", "zzz", "abcdefghabcdefgh", "\x00x"} {
		_, ok := d.findString(absent)
		assert.False(t, ok, absent)
	}
	sorted := slices.Clone(order)
	slices.Sort(sorted)
	var got []string
	for _, id := range d.sorted() {
		got = append(got, d.str(id))
	}
	assert.Equal(t, sorted, got)
	d.seal()
	assert.Equal(t, order[len(order)-1], d.str(int32(len(order)-1)))
}

// TestNewTermChampionsFromAdds: the champion lists of terms new to the index, chosen from
// the postings in hand, are byte for byte those chosen from the postings read back from the
// store (terms in more documents than champThreshold, in one batch or over several, and
// alongside an existing index).
func TestNewTermChampionsFromAdds(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 12))
	e := NewEngine(Options{})
	var existing Batch
	for id := uint64(1); id <= 50; id++ {
		existing.Put(id, nil, planFields(rng))
	}
	docs := make([][]Field, champThreshold+700)
	for i := range docs {
		// Common words (champion lists) with varied frequencies and field lengths.
		body := strings.Repeat("frequentword ", 1+rng.IntN(4)) + strings.Repeat("otherword ", rng.IntN(3)) + planText(rng, rng.IntN(30))
		docs[i] = []Field{Title(planText(rng, 1+rng.IntN(3))), Body(body)}
	}
	for _, batches := range []int{1, 3} {
		var stores [2]MemStore
		for k, fromStore := range []bool{true, false} {
			require.NoError(t, e.Apply(&stores[k], &existing))
			plan := e.NewPlan()
			plan.champsFromStore = fromStore
			for b := range batches {
				var bt Batch
				for i := b * len(docs) / batches; i < (b+1)*len(docs)/batches; i++ {
					bt.Put(uint64(1000+i), nil, docs[i])
				}
				require.NoError(t, plan.Add(&bt))
			}
			for done := false; !done; {
				var err error
				done, err = plan.Step(&stores[k], 20_000)
				require.NoError(t, err)
			}
		}
		_, champ := storeBytes(&stores[0])
		require.Contains(t, champ, string(championKey(nil, "frequentword")))
		terms0, postings0 := storeBytes(&stores[0])
		terms1, postings1 := storeBytes(&stores[1])
		assert.Equal(t, terms0, terms1, "batches %d", batches)
		assert.Equal(t, postings0, postings1, "batches %d", batches)
	}
}
