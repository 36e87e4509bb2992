package importer

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/textindex"
)

// nearVisit is one call of batchNear's visit.
type nearVisit struct {
	k  int
	m  textindex.Match
	ok bool
}

// batchNearByLSH is what batchNear replaces: every kept candidate added to the LSH.
func batchNearByLSH(d *dedup, sigs []textindex.Signature, cands []int, visit func(k int, m textindex.Match, ok bool) bool) {
	for k, i := range cands {
		m, ok := d.best(sigs[i], nil)
		if visit(k, m, ok) {
			_ = d.lsh.AddShared(batchBit|uint64(i), sigs[i])
		}
	}
}

// nearFixture makes n signatures: fresh ones, near copies of earlier ones (from identical to
// far below the threshold, so that some share bands and some do not), a few of the wrong
// length; and an LSH holding vault nodes, some of them copies of the batch's signatures
// (ties between the vault and the batch).
func nearFixture(seed uint64, n int) (func() *dedup, []textindex.Signature, []int) {
	r := rand.New(rand.NewPCG(seed, 7))
	fresh := func() textindex.Signature {
		s := make(textindex.Signature, sigHashes)
		for i := range s {
			s[i] = r.Uint64() % 5 // few values: chance agreements, colliding rows
		}
		return s
	}
	sigs := make([]textindex.Signature, n)
	for i := range sigs {
		switch {
		case i > 0 && r.IntN(3) > 0:
			s := append(textindex.Signature(nil), sigs[r.IntN(i)]...)
			if len(s) != sigHashes {
				s = fresh()
			}
			for range r.IntN(70) {
				s[r.IntN(len(s))] = r.Uint64()
			}
			sigs[i] = s
		case r.IntN(40) == 0:
			sigs[i] = fresh()[:r.IntN(sigHashes)]
		default:
			sigs[i] = fresh()
		}
	}
	vault := map[uint64]textindex.Signature{}
	for id := uint64(1); id <= 20; id++ {
		vault[id] = fresh()
		if id%3 == 0 {
			vault[id] = sigs[r.IntN(n)]
		}
	}
	// Planted ties: a file q exactly as similar (108 of 128) to a vault node and to an earlier
	// file a (which are less similar to each other), and q2 to two earlier files a and b.
	with := func(s textindex.Signature, from textindex.Signature, lo, hi int) textindex.Signature {
		s = append(textindex.Signature(nil), s...)
		copy(s[lo:hi], from[lo:hi])
		return s
	}
	for a := 0; a+4 < n; a += 9 {
		sigs[a] = fresh()
		v, b := fresh(), fresh()
		v = with(sigs[a], v, 0, 40)
		b = with(sigs[a], b, 40, 80)
		vault[uint64(100+a)] = v
		sigs[a+1] = b
		sigs[a+2] = with(sigs[a], v, 0, 20)  // ties a and the vault node
		sigs[a+3] = with(sigs[a], b, 40, 60) // ties a and b
		sigs[a+4] = with(sigs[a+1], b, 0, 0) // b again: a duplicate of b only
	}
	var cands []int
	for i := range sigs {
		if i%9 < 5 || r.IntN(5) > 0 {
			cands = append(cands, i)
		}
	}
	mk := func() *dedup {
		d := newDedup(DefaultDedupThreshold)
		for id, s := range vault {
			_ = d.lsh.AddShared(id, s)
		}
		return d
	}
	return mk, sigs, cands
}

// TestBatchNearMatchesTheLSH: batchNear visits the candidates with the matches the LSH gave
// when every kept candidate was added to it, whatever visit keeps.
func TestBatchNearMatchesTheLSH(t *testing.T) {
	t.Parallel()
	for seed := range uint64(30) {
		mk, sigs, cands := nearFixture(seed, 300)
		require.NotEmpty(t, cands)
		drop := func(k int) bool { return (k*7+int(seed))%11 == 0 } // as an embedding duplicate would
		var want, got []nearVisit
		batchNearByLSH(mk(), sigs, cands, func(k int, m textindex.Match, ok bool) bool {
			want = append(want, nearVisit{k, m, ok})
			return !ok && !drop(k)
		})
		mk().batchNear(sigs, cands, func(k int, m textindex.Match, ok bool) bool {
			got = append(got, nearVisit{k, m, ok})
			return !ok && !drop(k)
		})
		require.Equal(t, want, got, "seed %d", seed)
		dups, batchDups := 0, 0
		for _, v := range got {
			if v.ok {
				dups++
				if v.m.ID&batchBit != 0 {
					batchDups++
				}
			}
		}
		assert.Positive(t, batchDups, "seed %d: the fixture has duplicates within the batch", seed)
		assert.Greater(t, dups, batchDups, "seed %d: and duplicates of vault nodes", seed)
	}
}

// FuzzBatchNear compares batchNear with the LSH on fixtures of any seed and size.
func FuzzBatchNear(f *testing.F) {
	f.Add(uint64(1), uint8(50))
	f.Add(uint64(99), uint8(3))
	f.Fuzz(func(t *testing.T, seed uint64, n uint8) {
		if n == 0 {
			return
		}
		mk, sigs, cands := nearFixture(seed, int(n))
		var want, got []nearVisit
		batchNearByLSH(mk(), sigs, cands, func(k int, m textindex.Match, ok bool) bool {
			want = append(want, nearVisit{k, m, ok})
			return !ok
		})
		mk().batchNear(sigs, cands, func(k int, m textindex.Match, ok bool) bool {
			got = append(got, nearVisit{k, m, ok})
			return !ok
		})
		require.Equal(t, want, got)
	})
}

// TestKeyCountsMatchesAMap: keyCounts counts as a map does, also for keys that share their
// low bits (long probe runs, wrapping round the table) and the key 0.
func TestKeyCountsMatchesAMap(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	tab := newKeyCounts(100)
	for round := range 3 {
		tab.reset()
		want := map[uint64]int32{}
		for range 100 {
			var k uint64
			switch r.IntN(3) {
			case 0:
				k = r.Uint64()
			case 1:
				k = uint64(r.IntN(8))<<40 | tab.mask // the last slot: probes wrap
			default:
				k = uint64(r.IntN(4)) // 0 included
			}
			want[k]++
			*tab.at(k)++
		}
		for k, n := range want {
			assert.Equal(t, n, *tab.at(k), "round %d key %#x", round, k)
		}
	}
}
