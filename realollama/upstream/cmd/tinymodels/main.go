// Command tinymodels writes the real-server suite's tiny models (GGUF files
// and a models.json plan) into a directory:
//
//	go run ./cmd/tinymodels -out DIR
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/nova-dev/nova/realollama/upstream/tinymodels"
)

func main() {
	out := flag.String("out", "", "directory to write the models into")
	corpus := flag.String("corpus", "../..", "directory whose text files give the tokenizer's words (nova's repository)")
	nwords := flag.Int("words", 3000, "how many of the most frequent words become tokens")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "tinymodels: -out DIR is required")
		os.Exit(2)
	}
	words, err := tinymodels.Words(*corpus, *nwords)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tinymodels:", err)
		os.Exit(1)
	}
	plan, err := tinymodels.Generate(*out, words)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tinymodels:", err)
		os.Exit(1)
	}
	for _, m := range plan.Models {
		fmt.Printf("%s\t%s\t%s\n", m.Name, m.Digest, m.Purpose)
	}
}
