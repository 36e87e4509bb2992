//go:build !race

package realollama_test

const raceEnabled = false
