//go:build !unix

package safefile

// oNonblock is 0 where FIFOs cannot be opened from a path this way.
const oNonblock = 0
