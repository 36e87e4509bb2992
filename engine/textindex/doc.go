// Package textindex holds the text-retrieval primitives that the taste vault, the knowledge
// layer and the pattern importer build on:
//
//   - a ranked full-text index ([Engine] over a persisted [Store], [Index] in memory; BM25
//     over several weighted fields per document, each with its own length normalisation)
//     with a code-aware English analyzer
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
// A published full-text library was measured against this index instead of being adopted:
// bleve, on the same 100k nodes (bench/peers, a separate module), opens and answers in about
// ten times the CPU, with a larger index and lower recall on the paraphrase set. The index
// also has to live in the vault's bbolt transactions, which a library with its own storage
// cannot share. Stemming and MinHash are small enough to keep beside it.
//
// # Persisted layout
//
// An index lives in a [Store]: two ordered key spaces, terms and postings (the vault keeps
// them in two bbolt buckets and writes them in the same transactions as its nodes). The
// terms space holds one record per term (document frequency, flags, where its last chunk
// starts) and the index record (documents, field-length totals, the reference averages
// behind every stored bound, and a fingerprint of the options and the analyzer). The
// postings space holds each term's posting list in chunks of up to 512 postings keyed by
// term and first document (see chunk.go): per posting the document id (delta), and for
// each field where the term occurs its frequency and length code, so scoring needs no
// per-document table; per block of 128 postings the last document, the block's end and an
// upper bound of its values. Frequent terms also have a persisted champion list (see
// champion.go).
//
// Most terms occur in one document or a few: a list that is one chunk of at most inlineMax
// (64) bytes is stored in the term's record instead (termInline), so a rare term costs one
// key, not two. Every write keeps the rule for the terms it touches: a term is inline
// exactly when its list is one such chunk; a list that grows past it or into a second
// chunk moves to the postings space, and one that removals leave as one small chunk moves
// back. Readers take a term's chunks from its record or from the postings space
// (forChunks), so an index written before inline lists (index record version 1: every list
// in the postings space) is read as it is and converted term by term as writes touch it;
// the first write marks the record version 2, which a nova that knows only version 1
// refuses (ErrMismatch), rebuilding the index rather than misreading it.
//
// A write ([Engine.Apply], or [Engine.Plan] and [Plan.Step] for a bulk load spread over
// transactions) analyses its documents, groups their postings by term and touches only
// those terms: a new document (the highest id) is appended to the last chunk of each of its
// terms without decoding it; a removal or a text change rewrites the chunks whose range it
// falls in. So the index is current after every write, whichever process made it, and no
// reader ever rebuilds anything. [Index] is the same engine over a [MemStore].
//
// # Scoring and search
//
// Documents are identified by their ids. Each field's term frequency is length-normalised
// and saturated on its own and the fields are then weighted and summed (rather than BM25F's
// saturation of the weighted sum), so that a title match keeps its weight next to a long
// body that repeats the term. Synonyms are indexed rather than expanded: each concept group
// has a hidden term that every occurrence of a member also counts for, and a query term adds
// its groups' concept terms with a lower weight, as Lucene's SynonymQuery scores synonyms.
//
// [Engine.Search] reads the index record and the records and postings of its terms — a few
// keys, whatever the size of the index — and evaluates top-k window by window over the ids
// with MaxScore pruning on the block bounds (see Engine.run). It is exact except for terms
// with more than 4,096 postings in unfiltered searches asking for at most 256 results: those
// are searched through their champion list and the documents selected are rescored over the
// full lists, so returned scores are exact but a document that owes its rank to many
// low-value postings of frequent terms can be missed. Each hit also carries its Coverage:
// the share of the query's words it holds in its key fields.
//
// Analysis is two-pass and parallel for large batches: chunks of a batch are analysed
// concurrently, each with its own dictionary and a cache of surface tokens, into flat
// posting streams; the streams are then scattered into per-term posting arrays.
package textindex
