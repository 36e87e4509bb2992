//go:build amd64 && !purego

package textindex

import "golang.org/x/sys/cpu"

// hasMinMix512 says whether foldMinMix can use AVX-512 (F for the vectors, DQ for the 64-bit
// multiply): eight hash functions of a signature at a time.
var hasMinMix512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ

// minMix512 sets sig[i] = min(sig[i], mix64(h ^ seeds[i])) for every i and every h of hashes,
// eight i at a time. len(seeds) must be len(sig), a multiple of 8. Hand-written because it
// is the whole cost of a MinHash signature (a third of `nova import`'s own CPU), and Go does
// not vectorise; minMix512Generic is the same loop in Go, and the tests compare both.
//
//go:noescape
func minMix512(sig, seeds, hashes []uint64)
