// Package textindex holds the text-retrieval primitives that the taste vault, the knowledge
// layer and the pattern importer build on:
//
//   - [Index], an in-memory ranked full-text index (BM25 over several weighted fields per
//     document, each with its own length normalisation) with a code-aware English analyzer
//     (camelCase and snake_case splitting, stop words, a light stemmer, phrase compounds such
//     as "logged in" → login) and built-in programming-vocabulary concept groups, so that
//     paraphrased queries still hit;
//   - word-set similarity ([WordTokens], [Jaccard]) and shingling ([CharShingles],
//     [WordShingles]);
//   - a MinHash signature ([MinHasher]) and a banded locality-sensitive hash ([LSH]) for
//     near-duplicate detection with a configurable threshold.
//
// Everything is deterministic: fixed seeds, no dependence on map order in results.
//
// # Why hand-written
//
// go.mod pins no full-text, stemming or MinHash library (bleve, snowball, ...), and the
// project may only use what is pinned plus the standard library. The pieces here are small,
// tuned for documents of a few kilobytes and up to ~100k of them, and an index is rebuilt
// from bbolt at every open of a workspace, so build speed matters as much as query speed.
//
// # Index layout
//
// Documents get dense int32 ordinals in insertion order. Each term has a posting list sorted
// by ordinal: an int32 ordinal and one packed uint32 of per-field term frequencies (one byte
// per field, at most [MaxFields] fields) per posting, plus, per block of 128 postings, an
// upper bound of the postings' values there. Field lengths are one quantised byte per
// field per document (as in Lucene), so length normalisation is a table look-up.
//
// Synonyms are indexed rather than expanded: each concept group has a hidden term that
// every occurrence of a member also counts for, and a query term adds its groups' concept
// terms with a lower weight. A group then scores like one pooled term, the way Lucene's
// SynonymQuery does, and a query stays a handful of posting lists.
//
// Each field's term frequency is length-normalised and saturated on its own and the fields
// are then weighted and summed (rather than BM25F's saturation of the weighted sum), so that
// a title match keeps its weight next to a long body that repeats the term.
//
// Search is top-k, evaluated window by window over the ordinals with MaxScore pruning on
// block bounds (see Index.run). It is exact except for terms with more than 4,096 postings
// in unfiltered searches: those are searched through a champion list, their best postings
// (see champions), and the documents selected are then rescored over the full lists, so
// returned scores are exact but a document that owes its rank to many low-value postings
// of frequent terms can be missed. Removal writes a tombstone; when tombstones reach a
// quarter of the ordinals the index is compacted.
//
// An index can be saved and reloaded ([Index.WriteTo], [ReadFrom], [Load]) in a compact
// versioned format (see snapshot.go); a reloaded index searches exactly like the saved one,
// and decodes its posting lists on first use, so loading costs little more than the
// dictionary and the document table.
//
// Building is two-pass and parallel: chunks of a batch are analysed concurrently, each with
// its own dictionary and a cache of surface tokens, into flat posting streams; the streams are
// then scattered into exactly sized posting lists.
package textindex
