module github.com/alecthomas/chroma/v2

go 1.25

require github.com/dlclark/regexp2/v2 v2.2.1
