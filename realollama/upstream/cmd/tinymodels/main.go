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
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "tinymodels: -out DIR is required")
		os.Exit(2)
	}
	plan, err := tinymodels.Generate(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tinymodels:", err)
		os.Exit(1)
	}
	for _, m := range plan.Models {
		fmt.Printf("%s\t%s\t%s\n", m.Name, m.Digest, m.Purpose)
	}
}
