//go:build !amd64 || purego

package textindex

const hasMinMix512 = false

func minMix512(sig, seeds, hashes []uint64) { minMix512Generic(sig, seeds, hashes) }
