package patterns

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestTmpSlow(t *testing.T) {
	inputs := map[string]string{
		"patterns": "# T\n" + strings.Repeat("## Pattern x\n", 10000),
		"headings": strings.Repeat("# a\n", 30000),
		"backticks": "# T\n\n" + strings.Repeat("`` ` ``` ```` ", 10000),
		"fences": "# T\n" + strings.Repeat("```\n", 20001),
		"fences-info": "# T\n" + strings.Repeat("```go\n", 20001),
		"lists": "# T\n" + strings.Repeat("- a\n\n", 30000),
		"quotes": "# T\n" + strings.Repeat("> a\n", 30000),
		"html": "# T\n" + strings.Repeat("<!-- a\n", 30000),
		"table": "# T\n" + strings.Repeat("| a |\n", 30000),
		"emph": "# T\n\n" + strings.Repeat("**a _b *c ", 20000),
		"fields": "# T\n" + strings.Repeat("**a:** b\n", 20000),
		"blank-list": "- a\n" + strings.Repeat("\n", 100000) + "x\n",
		"setext": strings.Repeat("a\n", 50000) + "===\n",
		"indent-fence": "# T\n" + strings.Repeat("    ```\n", 20001),
		"lead-ins": "# T\n" + strings.Repeat("a b c:\n\n", 30000),
		"h3": "# T\n## Pattern a\n" + strings.Repeat("### x\n", 30000) + "## Pattern b\n",
	}
	for _, name := range strings.Split(os.Getenv("ONLY"), ",") {
		in := inputs[name]
		start := time.Now()
		_, err := Parse("x/y.md", []byte(in), ParseOptions{Split: true})
		t.Logf("%-12s %6d bytes %v err=%v", name, len(in), time.Since(start), err != nil)
	}
}
