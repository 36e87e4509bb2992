package prd

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

func TestScratchDeep(t *testing.T) {
	var n int
	var k int
	fmt.Sscan(os.Getenv("N"), &n)
	fmt.Sscan(os.Getenv("K"), &k)
	docs := []string{"tasks: " + strings.Repeat("[", n), "tasks: " + strings.Repeat("[", n) + strings.Repeat("]", n), strings.Repeat("- ", n) + "x", "tasks:\n" + strings.Repeat("  ", 1) + strings.Repeat("{a: ", n) + strings.Repeat("}", n),
		"tasks:\n" + strings.Repeat("- x\n", n), "tasks: [" + strings.Repeat("x, ", n) + "]"}
	doc := docs[k]
	start := time.Now()
	_, err := Parse("d.yaml", []byte(doc))
	s := ""
	if err != nil { s = err.Error(); if len(s) > 100 { s = s[:100] } }
	t.Logf("k=%d n=%d %v %s", k, n, time.Since(start), s)
}
