//go:build race

package realollama_test

// raceEnabled: the suite runs under the race detector, so nova is built
// with it too.
const raceEnabled = true
