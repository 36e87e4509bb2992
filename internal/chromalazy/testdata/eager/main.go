// Command eager writes chromalazy.Take() as JSON, taken with upstream chroma
// v2.27.0 (this module has no replace for chroma, so its registries load
// eagerly at init). Regenerate ../eager.json after upgrading chroma:
//
//	cd internal/chromalazy/testdata/eager && go run . > ../eager.json
package main

import (
	"encoding/json"
	"os"

	"github.com/nova-dev/nova/internal/chromalazy"
)

func main() {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	if err := enc.Encode(chromalazy.Take()); err != nil {
		panic(err)
	}
}
