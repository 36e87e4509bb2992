package codemap

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/nova-dev/nova/engine/tools"
)

// Caps on what one tool answer lists.
const (
	maxFound = 30
	maxRefs  = 40
)

// Index is the map as the code-map tools (findSymbol, references,
// outline) read it.
func (m *Map) Index() tools.CodeIndex { return index{m} }

type index struct{ m *Map }

func notFound(err error, what string) error {
	if errors.Is(err, ErrNoSymbol) || errors.Is(err, ErrNotMapped) {
		return fmt.Errorf("%w: %s (searchFiles finds text the map does not hold)", tools.ErrNotFound, what)
	}
	return err
}

func (x index) FindSymbol(ctx context.Context, name string) (string, error) {
	locs, err := x.m.FindSymbol(ctx, name)
	if err != nil {
		return "", notFound(err, "no definition named "+name+" in the code map")
	}
	var b strings.Builder
	for i, l := range locs {
		if i == maxFound {
			fmt.Fprintf(&b, "… and %d more\n", len(locs)-maxFound)
			break
		}
		fmt.Fprintf(&b, "%s:%d: %s\n", l.Path, l.Line, defText(l.Def))
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

func (x index) References(ctx context.Context, name string) (string, error) {
	refs, err := x.m.References(ctx, name)
	if err != nil {
		return "", notFound(err, "no file refers to "+name+" in the code map")
	}
	var b strings.Builder
	for i, r := range refs {
		if i == maxRefs {
			fmt.Fprintf(&b, "… and %d more files\n", len(refs)-maxRefs)
			break
		}
		fmt.Fprintf(&b, "%s:%d", r.Path, r.Line)
		if r.In != "" {
			fmt.Fprintf(&b, " (in %s)", r.In)
		}
		if r.Count > 1 {
			fmt.Fprintf(&b, ", %d uses", r.Count)
		}
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

func (x index) Outline(ctx context.Context, path string) (string, error) {
	o, err := x.m.Outline(ctx, path)
	if err != nil {
		return "", notFound(err, path+" is not a source file of the code map")
	}
	if o.Skipped != "" {
		return fmt.Sprintf("%s is left out of the code map: %s", o.Path, o.Skipped), nil
	}
	if len(o.Defs) == 0 {
		return o.Path + " (" + o.Lang + "): no definitions", nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s)\n", o.Path, o.Lang)
	for _, d := range o.Defs {
		fmt.Fprintf(&b, "%6d│ %s\n", d.Line, defText(d))
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// defText is a definition's signature, qualified by its parent.
func defText(d Def) string {
	sig := d.Signature
	if sig == "" {
		sig = d.Kind + " " + d.Name
	}
	if d.Parent != "" && !strings.Contains(sig, d.Parent) {
		sig = d.Parent + ": " + sig
	}
	return sig
}
