package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Confine resolves p to an absolute path inside the workspace root, or
// refuses it with an error wrapping ErrPolicyDenied.
//
// p is relative to root, or absolute. Refused are: paths that climb out of
// root with "..", absolute paths outside root, paths through a symlink that
// points outside root (the symlinks of every existing prefix of p are
// resolved), dangling symlinks, and paths containing a NUL byte. The result
// is the real path (symlinks resolved, root itself resolved too), so two
// spellings of one file give the same answer.
//
// Confine checks names, not open files: a file operation that must be safe
// against a concurrent symlink swap should go through os.Root as well (the
// changeset apply path does).
func Confine(root, p string) (string, error) {
	_, abs, err := ConfineRel(root, p)
	return abs, err
}

// ConfineRel is Confine that also returns the path relative to the (real)
// root, slash-separated ("." for the root itself).
func ConfineRel(root, p string) (rel, abs string, err error) {
	if strings.IndexByte(p, 0) >= 0 {
		return "", "", denied("path %q contains a NUL byte", p)
	}
	rootAbs, err := filepath.Abs(root)
	if err != nil {
		return "", "", fmt.Errorf("workspace root %s: %w", root, err)
	}
	rootReal, err := filepath.EvalSymlinks(rootAbs)
	if err != nil {
		return "", "", fmt.Errorf("workspace root %s: %w", root, err)
	}
	p = strings.TrimSpace(p)
	if p == "" {
		p = "."
	}

	var lexRel string
	if filepath.IsAbs(p) {
		clean := filepath.Clean(p)
		switch {
		case within(rootReal, clean):
			lexRel, _ = filepath.Rel(rootReal, clean)
		case within(rootAbs, clean):
			lexRel, _ = filepath.Rel(rootAbs, clean)
		default:
			return "", "", denied("%q is outside the workspace %s", p, rootAbs)
		}
	} else {
		joined := filepath.Join(rootReal, p)
		if !within(rootReal, joined) {
			return "", "", denied("%q climbs out of the workspace root", p)
		}
		lexRel, _ = filepath.Rel(rootReal, joined)
	}

	// Resolve symlinks component by component: an existing prefix may be a
	// link (to anywhere); the part that does not exist yet is kept as is.
	cur := rootReal
	if lexRel != "." {
		parts := strings.Split(lexRel, string(filepath.Separator))
		for i, part := range parts {
			next := filepath.Join(cur, part)
			fi, err := os.Lstat(next)
			if errors.Is(err, fs.ErrNotExist) {
				cur = filepath.Join(append([]string{cur}, parts[i:]...)...)
				break
			}
			if err != nil {
				return "", "", fmt.Errorf("resolve %q: %w", p, err)
			}
			if fi.Mode()&fs.ModeSymlink == 0 {
				cur = next
				continue
			}
			target, err := filepath.EvalSymlinks(next)
			if err != nil {
				return "", "", denied("%q goes through the symlink %s, which does not resolve", p, relOr(rootReal, next))
			}
			if !within(rootReal, target) {
				return "", "", denied("%q goes through the symlink %s, which points outside the workspace", p, relOr(rootReal, next))
			}
			cur = target
		}
	}
	rel, err = filepath.Rel(rootReal, cur)
	if err != nil || !within(rootReal, cur) {
		return "", "", denied("%q resolves outside the workspace", p)
	}
	return filepath.ToSlash(rel), cur, nil
}

// within reports whether p is base or inside it (both clean and absolute).
func within(base, p string) bool {
	rel, err := filepath.Rel(base, p)
	if err != nil {
		return false
	}
	return rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel))
}

func relOr(root, p string) string {
	if r, err := filepath.Rel(root, p); err == nil {
		return filepath.ToSlash(r)
	}
	return p
}

// RealRoot returns the absolute, symlink-resolved workspace root.
func RealRoot(root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// reserved reports why a confined relative path may not be changed by an
// agent ("" when it may). nova's own directory holds the database and the
// agent definitions; .git is version control's. Neither is an agent's to
// edit.
func reserved(rel string) string {
	first, _, _ := strings.Cut(rel, "/")
	switch {
	case rel == ".":
		return "the workspace root itself"
	case first == ".nova":
		return "nova's own directory (.nova/)"
	case first == ".git":
		return "git's directory (.git/)"
	}
	return ""
}
