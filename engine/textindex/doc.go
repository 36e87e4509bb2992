// Package textindex holds the text-retrieval primitives that the taste vault, the knowledge
// layer and the pattern importer build on:
//
//   - [Index], an in-memory ranked full-text index (BM25F: several fields per document, each
//     with its own weight and length normalisation) with a code-aware English analyzer
//     (camelCase and snake_case splitting, stop words, a light stemmer and a built-in
//     programming-vocabulary synonym map so that paraphrased queries still hit);
//   - word-set similarity ([WordTokens], [Jaccard]) and shingling ([CharShingles],
//     [WordShingles]);
//   - a MinHash signature ([MinHasher]) and a banded locality-sensitive hash ([LSH]) for
//     near-duplicate detection with a configurable threshold.
//
// Everything is deterministic: no random seeds, no map-order dependence in results.
//
// # Why hand-written
//
// go.mod pins no full-text, stemming or MinHash library (bleve, snowball, ...), and the
// project may only use what is pinned plus the standard library. The pieces here are small,
// tuned for documents of a few kilobytes and for up to ~100k of them, and rebuilt from bbolt at
// every open of a workspace, so their build speed matters as much as their query speed.
//
// # Index layout
//
// Documents get dense int32 ordinals in insertion order. Each term has a posting list sorted
// by ordinal with one packed uint32 of per-field term frequencies (one byte per field, at most
// [MaxFields] fields) and, per block of 128 postings, an upper bound of the term's score
// contribution. Field lengths are stored as one quantised byte per field per document (as
// Lucene does), so length normalisation is a table look-up. Search is document-at-a-time with
// MaxScore pruning plus block-max skipping, so a top-k query does not score every document
// that contains a common word. Removal writes a tombstone; when tombstones reach a quarter of
// the ordinals the index is compacted.
package textindex
