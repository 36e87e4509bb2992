//go:build pin

// Package pin keeps every pinned dependency in go.mod through `go mod tidy`,
// including the ones only later code will import. It is never built.
package pin

import (
	_ "charm.land/bubbles/v2/filepicker"
	_ "charm.land/bubbles/v2/help"
	_ "charm.land/bubbles/v2/key"
	_ "charm.land/bubbles/v2/progress"
	_ "charm.land/bubbles/v2/spinner"
	_ "charm.land/bubbles/v2/table"
	_ "charm.land/bubbles/v2/textarea"
	_ "charm.land/bubbles/v2/textinput"
	_ "charm.land/bubbles/v2/viewport"
	_ "charm.land/bubbletea/v2"
	_ "charm.land/fang/v2"
	_ "charm.land/glamour/v2"
	_ "charm.land/lipgloss/v2"
	_ "github.com/alecthomas/chroma/v2"
	_ "github.com/aymanbagabas/go-udiff"
	_ "github.com/charmbracelet/x/exp/golden"
	_ "github.com/charmbracelet/x/exp/teatest/v2"
	_ "github.com/goccy/go-yaml"
	_ "github.com/ollama/ollama/api"
	_ "github.com/santhosh-tekuri/jsonschema/v6"
	_ "github.com/spf13/cobra"
	_ "github.com/stretchr/testify/assert"
	_ "go.etcd.io/bbolt"
)
