package facts

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/nova-dev/nova/internal/lazyre"
)

// pathToken finds words that look like file paths ("engine/vault/search.go",
// "Makefile" is not found: a fact naming a file without an extension is not
// tracked).
var pathToken = lazyre.New(`[A-Za-z0-9_][A-Za-z0-9_.\-/]*\.[A-Za-z0-9]{1,8}`)

const maxHashBytes = 4 << 20

// fileRefs returns the workspace files content names (that exist, inside
// root), with their current hashes; at most maxFiles.
func fileRefs(root, content string) []FileRef {
	if root == "" {
		return nil
	}
	var out []FileRef
	seen := map[string]bool{}
	for i, m := range pathToken.FindAllString(content, 40) {
		if len(out) >= maxFiles || i >= 40 {
			break
		}
		rel := strings.TrimPrefix(strings.TrimRight(m, "."), "./")
		if rel == "" || seen[rel] || !safeRel(rel) {
			continue
		}
		seen[rel] = true
		if sum, ok := hashFile(root, rel); ok {
			out = append(out, FileRef{Path: rel, SHA256: sum})
		}
	}
	return out
}

// safeRel accepts a clean, relative, slash-separated path that does not
// climb out.
func safeRel(rel string) bool {
	if strings.HasPrefix(rel, "/") || strings.Contains(rel, "\\") || path.Clean(rel) != rel {
		return false
	}
	for _, part := range strings.Split(rel, "/") {
		if part == ".." || part == "" {
			return false
		}
	}
	return true
}

// hashFile hashes root/rel when it is a regular file inside root (symlinks
// resolved) no larger than maxHashBytes.
func hashFile(root, rel string) (string, bool) {
	abs := filepath.Join(root, filepath.FromSlash(rel))
	realRoot, err1 := filepath.EvalSymlinks(root)
	realAbs, err2 := filepath.EvalSymlinks(abs)
	if err1 != nil || err2 != nil {
		return "", false
	}
	if r, err := filepath.Rel(realRoot, realAbs); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	f, err := os.Open(realAbs)
	if err != nil {
		return "", false
	}
	defer func() { _ = f.Close() }()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() > maxHashBytes {
		return "", false
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", false
	}
	return hex.EncodeToString(h.Sum(nil)), true
}

// changedFile names the first file of refs that changed or disappeared.
func changedFile(root string, refs []FileRef) (string, bool) {
	for _, r := range refs {
		sum, ok := hashFile(root, r.Path)
		if !ok {
			return r.Path + " no longer exists", true
		}
		if sum != r.SHA256 {
			return r.Path + " changed since this fact was recorded", true
		}
	}
	return "", false
}
