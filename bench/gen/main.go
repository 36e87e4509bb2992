// Command gen writes the generated vault of the speed benchmarks as a JSONL
// file for `nova vault import` (see vaulttest.Flat), or with -md a library of
// markdown pattern files for `nova import` (see vaulttest.WriteLibrary):
//
//	go run ./bench/gen -n 100000 -o /tmp/vault100k.jsonl
//	go run ./bench/gen -n 10000 -md /tmp/library10k
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/nova-dev/nova/engine/vault/vaulttest"
)

func main() {
	n := flag.Int("n", 100_000, "number of nodes")
	seed := flag.Uint64("seed", 16, "generator seed")
	out := flag.String("o", "", "output file (default stdout)")
	md := flag.String("md", "", "write a markdown library into this directory instead")
	flag.Parse()
	if *md != "" {
		if err := vaulttest.WriteLibrary(*md, *n); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
		return
	}
	w := os.Stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
		defer func() { _ = f.Close() }()
		w = f
	}
	if err := vaulttest.WriteJSONL(w, vaulttest.Flat(*n, *seed)); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
