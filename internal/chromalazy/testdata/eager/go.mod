module github.com/nova-dev/nova/internal/chromalazy/testdata/eager

go 1.26.0

require github.com/nova-dev/nova v0.0.0

require (
	github.com/alecthomas/chroma/v2 v2.27.0 // indirect
	github.com/dlclark/regexp2/v2 v2.2.1 // indirect
)

replace github.com/nova-dev/nova => ../../../..
