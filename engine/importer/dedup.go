package importer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/patterns"
	"github.com/nova-dev/nova/engine/textindex"
	"github.com/nova-dev/nova/engine/vault"
)

// batchBit marks LSH ids that stand for files of the batch rather than vault nodes.
const batchBit = uint64(1) << 63

// dedup finds near-duplicates among new files: against the vault's nodes and against the
// files of the batch accepted before them (path order).
type dedup struct {
	lsh         *textindex.LSH
	threshold   float64
	bands, rows int
}

func newDedup(threshold float64) *dedup {
	m, err := textindex.NewMinHasher(sigHashes, textindex.SuggestBands(sigHashes, threshold))
	if err != nil {
		m = minHasher
	}
	return &dedup{lsh: textindex.NewLSH(m), threshold: threshold, bands: m.Bands(), rows: m.NumHashes() / m.Bands()}
}

// batchNear goes through the new files of a batch (cands, indexes into sigs, in path order)
// and calls visit with each one's best match: the most similar, at or above the threshold,
// of the signatures in the LSH (the vault's nodes and the batch's files that keep theirs) and
// of the earlier candidates that visit kept (returned true for). It finds exactly what
// adding every kept candidate to the LSH (as batchBit|index) and asking it would (same
// bands, same order: most similar first, then the smallest id, so the LSH's own ids before
// the batch's); but the batch's files are not put in the LSH's maps.
//
// Why: those maps are one per band (32), each as big as the batch, so that an insert or a
// lookup missed the processor's caches nearly every time: the LSH was 2 % of a 10,000-file
// import's CPU. Here the files that share a band are grouped one band at a time, in a map of
// the batch's size that stays in cache, and a file's candidates are then read from its
// groups; nearly every group holds one file, and has nothing to look at.
func (d *dedup) batchNear(sigs []textindex.Signature, cands []int, visit func(k int, m textindex.Match, ok bool) (kept bool)) {
	n, width := len(cands), d.bands*d.rows
	// A group is the candidates that agree on every row of a band, when there are two or
	// more (a candidate whose signature has the wrong length is in none: the LSH neither
	// finds nor keeps it). pairs lists every candidate's groups (nearly none: most files
	// share no band), in band order.
	type pair struct{ k, g int32 }
	var pairs []pair
	var kept [][]int32 // per group, the kept candidates in it, in order
	// The band keys, band by band (keys[b*n+k]), computed signature by signature: each
	// signature is read once, in order, not once per band.
	keys := make([]uint64, n*d.bands)
	valid := make([]bool, n)
	for k, i := range cands {
		if valid[k] = len(sigs[i]) == width; valid[k] {
			for b := range d.bands {
				keys[b*n+k] = textindex.BandKey(sigs[i][b*d.rows:(b+1)*d.rows], b)
			}
		}
	}
	size := newKeyCounts(n)
	for b := range d.bands {
		size.reset()
		bk := keys[b*n : (b+1)*n]
		for k := range bk {
			if valid[k] {
				*size.at(bk[k])++
			}
		}
		for k := range bk {
			if !valid[k] {
				continue
			}
			switch c := size.at(bk[k]); {
			case *c < 0: // a group numbered already: -(number+1)
				pairs = append(pairs, pair{int32(k), -*c - 1})
			case *c > 1:
				g := int32(len(kept))
				kept = append(kept, nil)
				*c = -g - 1
				pairs = append(pairs, pair{int32(k), g})
			}
		}
	}
	// groupsOf(k) = groups[start[k]:start[k+1]], in band order (a stable counting sort).
	start := make([]int32, n+1)
	for _, p := range pairs {
		start[p.k+1]++
	}
	for k := range n {
		start[k+1] += start[k]
	}
	groups := make([]int32, len(pairs))
	next := slices.Clone(start[:n])
	for _, p := range pairs {
		groups[next[p.k]] = p.g
		next[p.k]++
	}
	seen := make([]int32, n) // seen[j] = k+1: candidate j was compared with candidate k
	for k, i := range cands {
		m, ok := d.best(sigs[i], nil)
		mine := groups[start[k]:start[k+1]]
		for _, g := range mine {
			for _, j := range kept[g] {
				if seen[j] == int32(k)+1 {
					continue
				}
				seen[j] = int32(k) + 1
				// Batch ids come after the LSH's: a tie keeps what the LSH found, or the
				// earlier file (kept in order).
				if s := sigs[i].Similarity(sigs[cands[j]]); s >= d.threshold && (!ok || s > m.Similarity ||
					s == m.Similarity && batchBit|uint64(cands[j]) < m.ID) {
					m, ok = textindex.Match{ID: batchBit | uint64(cands[j]), Similarity: s}, true
				}
			}
		}
		if !visit(k, m, ok) {
			continue
		}
		for _, g := range mine {
			kept[g] = append(kept[g], int32(k))
		}
	}
}

// keyCounts maps band keys to a count (or a group number, see batchNear): open addressing
// with linear probing in a table at most half full, indexed by the key's low bits (band keys
// are well mixed). Hand-written rather than a Go map, which hashes every key again and was
// most of batchNear's time; batchNear's tests compare the whole with the LSH.
type keyCounts struct {
	keys []uint64
	vals []int32 // 0: the slot is free
	mask uint64
}

func newKeyCounts(n int) *keyCounts {
	size := 16
	for size < 2*n {
		size *= 2
	}
	return &keyCounts{keys: make([]uint64, size), vals: make([]int32, size), mask: uint64(size - 1)}
}

func (t *keyCounts) reset() { clear(t.vals) }

// at returns the value of key, making a slot for it (value 0) when it has none.
func (t *keyCounts) at(key uint64) *int32 {
	for i := key & t.mask; ; i = (i + 1) & t.mask {
		if t.vals[i] == 0 {
			t.keys[i] = key
			return &t.vals[i]
		}
		if t.keys[i] == key {
			return &t.vals[i]
		}
	}
}

// loadVault adds a signature for every node of the vault: the stored one for imported nodes,
// one computed from the node's text otherwise. skip lists node ids to leave out.
func (d *dedup) loadVault(r *vault.ReadTx, recs map[uint64][]byte) {
	r.ForEachNode(func(n vault.Node) bool {
		sig := decodeSig(recs[n.ID])
		if len(sig) != sigHashes {
			body := ""
			if n.HasBody {
				body = r.Body(n.ID)
			}
			sig = signatureOf(n.Title, body, n.Content)
		}
		_ = d.lsh.AddShared(n.ID, sig) // a fresh signature, never changed
		return true
	})
}

// best returns the most similar stored signature at or above the threshold, skipping ids in
// self.
func (d *dedup) best(sig textindex.Signature, self map[uint64]bool) (textindex.Match, bool) {
	for _, m := range d.lsh.Near(sig, d.threshold) {
		if !self[m.ID] {
			return m, true
		}
	}
	return textindex.Match{}, false
}

// embedMatch is the nearest earlier doc (Doc ≥ 0) or vault node (Node > 0) by embedding.
type embedMatch struct {
	Doc    int
	Node   uint64
	Cosine float64
}

// embedMatches embeds the docs' titles and summaries, and those of the vault's nodes, and
// keeps for every doc its most similar predecessor at or above EmbedThreshold. It is best
// effort: no embedder, a failure, a timeout or too many texts give no matches and a warning.
func (im *Importer) embedMatches(ctx context.Context, docs []patterns.Doc) (map[int]embedMatch, string) {
	if im.cfg.Embedder == nil || im.cfg.EmbedModel == "" || len(docs) == 0 {
		return nil, ""
	}
	if len(docs) > maxEmbedInputs {
		return nil, fmt.Sprintf("embedding duplicate check skipped: %d files (at most %d)", len(docs), maxEmbedInputs)
	}
	inputs := make([]string, 0, maxEmbedInputs)
	for _, d := range docs {
		inputs = append(inputs, embedText(d.Title, d.Description))
	}
	var nodeIDs []uint64
	tooMany := false
	_ = im.v.WithReadTx(ctx, func(r *vault.ReadTx) error {
		r.ForEachNode(func(n vault.Node) bool {
			if len(inputs) >= maxEmbedInputs {
				tooMany = true
				return false
			}
			nodeIDs = append(nodeIDs, n.ID)
			inputs = append(inputs, embedText(n.Title, n.Content))
			return true
		})
		return nil
	})
	if tooMany {
		// Compare the batch with itself only.
		inputs, nodeIDs = inputs[:len(docs)], nil
	}
	ectx, cancel := context.WithTimeout(ctx, im.cfg.EmbedTimeout)
	defer cancel()
	var vecs [][]float32
	const chunk = 64
	for i := 0; i < len(inputs); i += chunk {
		part, err := im.cfg.Embedder.Embed(ectx, im.cfg.EmbedModel, inputs[i:min(i+chunk, len(inputs))])
		if err != nil {
			if ctx.Err() != nil {
				return nil, ""
			}
			var ue *llm.UnreachableError
			if errors.As(err, &ue) {
				return nil, "embedding duplicate check skipped: Ollama is not reachable at " + ue.Host
			}
			return nil, "embedding duplicate check skipped: " + oneLine(err.Error())
		}
		vecs = append(vecs, part...)
	}
	if len(vecs) != len(inputs) {
		return nil, "embedding duplicate check skipped: the model returned too few vectors"
	}
	out := map[int]embedMatch{}
	for i := range docs {
		best := embedMatch{Doc: -1}
		for j := range i {
			if c := cosine(vecs[i], vecs[j]); c >= EmbedThreshold && c > best.Cosine {
				best = embedMatch{Doc: j, Cosine: c}
			}
		}
		for k, id := range nodeIDs {
			if c := cosine(vecs[i], vecs[len(docs)+k]); c >= EmbedThreshold && c > best.Cosine {
				best = embedMatch{Doc: -1, Node: id, Cosine: c}
			}
		}
		if best.Cosine > 0 {
			out[i] = best
		}
	}
	if tooMany {
		return out, fmt.Sprintf("embedding duplicate check compared the files with each other only: the vault has too many nodes (more than %d texts)", maxEmbedInputs)
	}
	return out, ""
}

func embedText(title, summary string) string {
	s := strings.TrimSpace(title + "\n" + summary)
	if len(s) > 2000 {
		s = strings.ToValidUTF8(s[:2000], "")
	}
	return s
}

func cosine(a, b []float32) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = strings.ToValidUTF8(s[:200], "") + "…"
	}
	return s
}
