package importer

import (
	"context"
	"errors"
	"fmt"
	"math"
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
	lsh       *textindex.LSH
	threshold float64
}

func newDedup(threshold float64) *dedup {
	m, err := textindex.NewMinHasher(sigHashes, textindex.SuggestBands(sigHashes, threshold))
	if err != nil {
		m = minHasher
	}
	return &dedup{lsh: textindex.NewLSH(m), threshold: threshold}
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
