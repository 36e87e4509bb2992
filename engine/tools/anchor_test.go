package tools

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEditAnchorTakesThreeLinesEachSide(t *testing.T) {
	t.Parallel()
	updated := "l1\nl2\nl3\nl4\nNEW1\nNEW2\nl5\nl6\nl7\nl8\n"
	start := strings.Index(updated, "NEW1")
	end := strings.Index(updated, "l5")
	a := NewEditAnchor(updated, start, end)
	require.NotNil(t, a)
	assert.Equal(t, "l2\nl3\nl4\n", a.Before)
	assert.Equal(t, "l5\nl6\nl7\n", a.After)
	assert.Equal(t, SHA256([]byte("NEW1\nNEW2\n")), a.BlockSHA256)
	assert.Equal(t, 5, a.StartLine)
	assert.Equal(t, 6, a.EndLine)
	assert.True(t, a.Locate(updated))
	// A later edit elsewhere in the file moves the lines, not the claim.
	moved := "added\nlines\n" + updated + "tail\n"
	assert.True(t, a.Locate(moved))
	// A later edit of the block itself breaks the claim.
	assert.False(t, a.Locate(strings.Replace(updated, "NEW2", "OTHER", 1)))
	// So does losing an anchor line.
	assert.False(t, a.Locate(strings.Replace(updated, "l6\n", "", 1)))
}

func TestEditAnchorAtTheEdgesOfTheFile(t *testing.T) {
	t.Parallel()
	updated := "first\nsecond\n"
	a := NewEditAnchor(updated, 0, len("first\n"))
	require.NotNil(t, a)
	assert.Empty(t, a.Before)
	assert.Equal(t, "second\n", a.After)
	assert.True(t, a.Locate(updated))
	z := NewEditAnchor(updated, len("first\n"), len(updated))
	require.NotNil(t, z)
	assert.Equal(t, "first\n", z.Before)
	assert.Empty(t, z.After)
	assert.True(t, z.Locate(updated))
	// A deletion: an empty block between its anchors.
	d := NewEditAnchor(updated, len("first\n"), len("first\n"))
	require.NotNil(t, d)
	assert.True(t, d.Locate(updated))
	assert.False(t, d.Locate("first\nextra\nsecond\n"))
	assert.Nil(t, NewEditAnchor(updated, 5, 2))
	assert.Nil(t, NewEditAnchor(updated, 0, 99))
	var none *EditAnchor
	assert.False(t, none.Locate(updated))
}

func TestEditAnchorFindsItsBlockAmongRepeatedSnippets(t *testing.T) {
	t.Parallel()
	rep := strings.Repeat("x\n", 10)
	updated := rep + "BLOCK\n" + rep
	start := strings.Index(updated, "BLOCK")
	a := NewEditAnchor(updated, start, start+len("BLOCK\n"))
	require.NotNil(t, a)
	assert.True(t, a.Locate(updated))
	assert.False(t, a.Locate(rep+rep))
}

func FuzzEditAnchor(f *testing.F) {
	f.Add("a\nb\nc\nd\ne\n", 2, 6, "a\nb\nX\nd\ne\n")
	f.Add("", 0, 0, "")
	f.Fuzz(func(t *testing.T, updated string, start, end int, other string) {
		a := NewEditAnchor(updated, start, end)
		if a == nil {
			return
		}
		// The file the anchor was made from always holds it.
		if !a.Locate(updated) {
			t.Fatalf("anchor %+v not found in its own file %q", a, updated)
		}
		_ = a.Locate(other) // never panics
	})
}
