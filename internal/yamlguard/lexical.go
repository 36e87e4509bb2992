package yamlguard

// MaxNesting bounds how deeply a YAML document may nest before go-yaml sees
// it. go-yaml slows down sharply on deep nesting and runs out of memory
// around 100k levels ("tasks: [[[[…"), and no agent file or PRD nests more
// than a few levels.
const (
	MaxNesting = 64
	MaxIndent  = 512 // columns of indentation plus leading "- " chains
)

// TooDeep does a cheap lexical scan: it counts open flow collections
// ('[' and '{' outside quotes and comments) and the indentation of block
// lines. It returns the 1-based line where a limit is first exceeded, or 0.
// Brackets inside block scalars are counted too; that can only make the
// check stricter, and only past MaxNesting unclosed brackets.
func TooDeep(data []byte) int {
	line, depth := 1, 0
	atLineStart := true
	for i := 0; i < len(data); i++ {
		c := data[i]
		if atLineStart {
			atLineStart = false
			col := 0
			for i < len(data) && (data[i] == ' ' || data[i] == '\t') {
				col++
				i++
			}
			for i+1 < len(data) && (data[i] == '-' || data[i] == '?') && (data[i+1] == ' ' || data[i+1] == '\t') {
				col += 2
				i += 2
				for i < len(data) && data[i] == ' ' {
					col++
					i++
				}
			}
			if col > MaxIndent {
				return line
			}
			if i >= len(data) {
				break
			}
			c = data[i]
		}
		switch c {
		case '\n':
			line++
			atLineStart = true
		case '[', '{':
			depth++
			if depth > MaxNesting {
				return line
			}
		case ']', '}':
			depth = max(depth-1, 0)
		case '#':
			if i == 0 || data[i-1] == ' ' || data[i-1] == '\t' || data[i-1] == '\n' {
				for i+1 < len(data) && data[i+1] != '\n' {
					i++
				}
			}
		case '"', '\'':
			// Skip a quoted scalar; a quote inside a plain word (don't) is
			// not a scalar start.
			if i > 0 && data[i-1] != ' ' && data[i-1] != '\t' && data[i-1] != '[' &&
				data[i-1] != '{' && data[i-1] != ',' && data[i-1] != ':' && data[i-1] != '\n' {
				continue
			}
			q := c
			for i++; i < len(data); i++ {
				if data[i] == '\n' {
					line++
				}
				if q == '"' && data[i] == '\\' {
					i++
					continue
				}
				if data[i] == q {
					if q == '\'' && i+1 < len(data) && data[i+1] == '\'' {
						i++
						continue
					}
					break
				}
			}
		}
	}
	return 0
}
