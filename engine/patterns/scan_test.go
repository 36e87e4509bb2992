package patterns

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const goodPattern = "# Good Pattern\n\n**Priority:** P1\n\n## Overview\n\nA pattern file that parses without trouble.\n"

// badLibrary returns a library with one file of every bad kind, meta files and good files.
func badLibrary() (files map[string]string, wantErr map[string]error, wantSkip []string, wantDocs []string) {
	files = map[string]string{
		"01-good/good.md":                 goodPattern,
		"01-good/also-good.MD":            goodPattern,
		"02-bad/empty.md":                 "",
		"02-bad/blank.md":                 "\n\n   \n",
		"02-bad/binary.md":                "# x\x00\x00\x01\x02",
		"02-bad/huge.md":                  "# Huge\n\n" + strings.Repeat("x", int(DefaultMaxSize)),
		"02-bad/latin1.md":                "# Caf\xe9\n",
		"02-bad/headless.md":              "- just\n- a list\n",
		"02-bad/front-matter.md":          "---\ntitle: [unclosed\n---\n# T\n",
		"02-bad/front-matter-unclosed.md": "---\ntitle: x\n",
		"README.md":                       "# Library readme\n",
		"INDEX.md":                        "# Index\n",
		"KIRO-TASK.md":                    "# Task\n",
		"03-misc/extraction-notes.md":     "# Notes\n",
		"03-misc/readme.md":               "# Folder readme\n",
		"03-misc/not-markdown.txt":        "ignored",
		".hidden/secret.md":               goodPattern,
	}
	wantErr = map[string]error{
		"02-bad/empty.md":                 ErrEmpty,
		"02-bad/blank.md":                 ErrEmpty,
		"02-bad/binary.md":                ErrBinary,
		"02-bad/huge.md":                  ErrTooLarge,
		"02-bad/latin1.md":                ErrNotUTF8,
		"02-bad/headless.md":              ErrHeadless,
		"02-bad/front-matter.md":          ErrFrontMatter,
		"02-bad/front-matter-unclosed.md": ErrFrontMatter,
	}
	wantSkip = []string{"03-misc/extraction-notes.md", "03-misc/readme.md", "INDEX.md", "KIRO-TASK.md", "README.md"}
	wantDocs = []string{"01-good/also-good.MD", "01-good/good.md"}
	return files, wantErr, wantSkip, wantDocs
}

func checkBadLibrary(t *testing.T, res ScanResult) {
	t.Helper()
	_, wantErr, wantSkip, wantDocs := badLibrary()
	var docs, skipped []string
	for _, d := range res.Docs {
		docs = append(docs, d.SourceFile)
		assert.Equal(t, "P1", d.Priority)
		assert.Equal(t, "good", d.Category)
	}
	for _, s := range res.Skipped {
		skipped = append(skipped, s.Path)
	}
	assert.Equal(t, wantDocs, docs)
	assert.Equal(t, wantSkip, skipped)
	require.Len(t, res.Errors, len(wantErr))
	for _, e := range res.Errors {
		want, ok := wantErr[e.Path]
		if assert.True(t, ok, "unexpected error for %s: %s", e.Path, e.Reason) {
			assert.ErrorIs(t, e.Err, want, "%s: %s", e.Path, e.Reason)
			assert.NotEmpty(t, e.Reason)
		}
	}
	for i := 1; i < len(res.Errors); i++ {
		assert.Less(t, res.Errors[i-1].Path, res.Errors[i].Path, "errors sorted by path")
	}
	n := len(wantDocs) + len(wantSkip) + len(wantErr)
	assert.Equal(t, Counts{Total: n, Parsed: len(wantDocs), Skipped: len(wantSkip), Errors: len(wantErr)}, res.Counts)
}

func TestScanBadFilesContinue(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files, _, _, _ := badLibrary()
	writeFiles(t, dir, files)
	res, err := Scan(context.Background(), dir, ScanOptions{})
	require.NoError(t, err)
	checkBadLibrary(t, res)
}

// ScanFS works on any fs.FS, e.g. the embed.FS the starter library ships in.
func TestScanFSMap(t *testing.T) {
	t.Parallel()
	files, _, _, _ := badLibrary()
	mfs := fstest.MapFS{}
	for p, c := range files {
		mfs[p] = &fstest.MapFile{Data: []byte(c), Mode: 0o644}
	}
	res, err := ScanFS(context.Background(), mfs, ScanOptions{Workers: 3})
	require.NoError(t, err)
	checkBadLibrary(t, res)
}

func TestScanMaxSizeOption(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a/small.md": goodPattern, "a/big.md": goodPattern + strings.Repeat("more words ", 20)})
	res, err := Scan(context.Background(), dir, ScanOptions{Parse: ParseOptions{MaxSize: int64(len(goodPattern) + 10)}})
	require.NoError(t, err)
	require.Len(t, res.Errors, 1)
	assert.Equal(t, "a/big.md", res.Errors[0].Path)
	assert.ErrorIs(t, res.Errors[0].Err, ErrTooLarge)
	assert.Equal(t, 1, res.Counts.Parsed)
}

func TestScanSymlinks(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	root := filepath.Join(base, "lib")
	outside := filepath.Join(base, "outside")
	writeFiles(t, root, map[string]string{"01-a/real.md": goodPattern, "02-b/keep.md": goodPattern})
	writeFiles(t, outside, map[string]string{"secret.md": "# Secret\n\nThis file lives outside the library root.\n"})

	links := map[string]string{
		"01-a/abs-escape.md":    filepath.Join(outside, "secret.md"),
		"01-a/rel-escape.md":    "../../outside/secret.md",
		"01-a/inside.md":        "real.md",
		"01-a/inside-up.md":     "../02-b/keep.md",
		"01-a/chain.md":         "inside.md",
		"01-a/chain-escape.md":  "rel-escape.md",
		"01-a/loop.md":          "loop.md",
		"01-a/dangling.md":      "missing.md",
		"01-a/to-dir.md":        "../02-b",
		"01-a/via-dir-link.md":  "outdir/secret.md",
		"03-linked-dir":         outside, // a symlinked directory is not entered
		"01-a/outdir":           outside,
		"01-a/up-and-in.md":     "../../lib/01-a/real.md", // climbs above the root first
		"01-a/self-relative.md": "./real.md",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(name))); err != nil {
			t.Skipf("symlinks not supported: %v", err)
		}
	}
	wantEscape := []string{"01-a/abs-escape.md", "01-a/chain-escape.md", "01-a/rel-escape.md", "01-a/up-and-in.md", "01-a/via-dir-link.md"}
	wantOK := []string{"01-a/chain.md", "01-a/inside-up.md", "01-a/inside.md", "01-a/real.md", "01-a/self-relative.md", "02-b/keep.md"}
	wantOtherErr := []string{"01-a/dangling.md", "01-a/loop.md", "01-a/to-dir.md"}

	for _, tc := range []struct {
		name string
		scan func() (ScanResult, error)
	}{
		{"Scan (os.Root)", func() (ScanResult, error) { return Scan(context.Background(), root, ScanOptions{}) }},
		{"ScanFS (os.DirFS)", func() (ScanResult, error) { return ScanFS(context.Background(), os.DirFS(root), ScanOptions{}) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, err := tc.scan()
			require.NoError(t, err)
			var ok []string
			for _, d := range res.Docs {
				ok = append(ok, d.SourceFile)
				assert.NotEqual(t, "Secret", d.Title, "content from outside the root leaked via %s", d.SourceFile)
			}
			assert.Equal(t, wantOK, ok)
			errs := map[string]FileError{}
			for _, e := range res.Errors {
				errs[e.Path] = e
			}
			for _, p := range wantEscape {
				if assert.Contains(t, errs, p) {
					assert.ErrorIs(t, errs[p].Err, ErrSymlinkEscape, "%s: %s", p, errs[p].Reason)
				}
			}
			for _, p := range wantOtherErr {
				if assert.Contains(t, errs, p) {
					assert.NotErrorIs(t, errs[p].Err, ErrSymlinkEscape, p)
				}
			}
			assert.ErrorIs(t, errs["01-a/to-dir.md"].Err, ErrNotRegular)
			assert.ErrorIs(t, errs["01-a/loop.md"].Err, ErrSymlinkLoop)
			assert.ErrorIs(t, errs["01-a/dangling.md"].Err, fs.ErrNotExist)
			assert.Len(t, res.Errors, len(wantEscape)+len(wantOtherErr))
			assert.Equal(t, res.Counts.Total, res.Counts.Parsed+res.Counts.Skipped+res.Counts.Errors)
		})
	}
}

// An fs.FS that cannot read links cannot prove a symlink stays inside: refuse it.
func TestScanFSSymlinkWithoutReadLink(t *testing.T) {
	t.Parallel()
	mfs := fstest.MapFS{
		"a/link.md": &fstest.MapFile{Data: []byte("real.md"), Mode: fs.ModeSymlink},
		"a/real.md": &fstest.MapFile{Data: []byte(goodPattern)},
	}
	res, err := ScanFS(context.Background(), noReadLink{mfs}, ScanOptions{})
	require.NoError(t, err)
	require.Len(t, res.Errors, 1)
	assert.Equal(t, "a/link.md", res.Errors[0].Path)
	assert.ErrorIs(t, res.Errors[0].Err, ErrSymlinkEscape)
	assert.Equal(t, 1, res.Counts.Parsed)
}

// noReadLink hides fstest.MapFS's ReadLink/Lstat methods.
type noReadLink struct{ fsys fs.FS }

func (n noReadLink) Open(name string) (fs.File, error) { return n.fsys.Open(name) }

func TestScanRootErrors(t *testing.T) {
	t.Parallel()
	_, err := Scan(context.Background(), filepath.Join(t.TempDir(), "missing"), ScanOptions{})
	require.Error(t, err)
	assert.ErrorIs(t, err, fs.ErrNotExist)

	f := filepath.Join(t.TempDir(), "file.md")
	require.NoError(t, os.WriteFile(f, []byte(goodPattern), 0o644))
	_, err = Scan(context.Background(), f, ScanOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not a directory")

	res, err := Scan(context.Background(), t.TempDir(), ScanOptions{})
	require.NoError(t, err, "an empty library is not an error")
	assert.Equal(t, Counts{}, res.Counts)
}

func TestScanCancel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 50 {
		files[filepath.ToSlash(filepath.Join("c", strings.Repeat("a", i%7+1)+string(rune('a'+i%26))+itoa(i)+".md"))] = goodPattern
	}
	writeFiles(t, dir, files)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Scan(ctx, dir, ScanOptions{})
	assert.ErrorIs(t, err, context.Canceled)

	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	res, err := Scan(ctx, dir, ScanOptions{Workers: 2, Progress: func(done, total int) {
		if done == 10 {
			cancel()
		}
	}})
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 50, res.Counts.Total)
	finished := res.Counts.Parsed + res.Counts.Skipped + res.Counts.Errors
	assert.GreaterOrEqual(t, finished, 10)
	assert.Less(t, finished, 50, "the scan stopped early")
	assert.Empty(t, res.Errors, "cancellation is not a per-file error")
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	s := ""
	for ; i > 0; i /= 10 {
		s = string(rune('0'+i%10)) + s
	}
	return s
}

func TestScanUnreadableDir(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("root can read any directory")
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"ok/a.md": goodPattern, "locked/b.md": goodPattern})
	require.NoError(t, os.Chmod(filepath.Join(dir, "locked"), 0o000))
	t.Cleanup(func() { _ = os.Chmod(filepath.Join(dir, "locked"), 0o755) })
	res, err := Scan(context.Background(), dir, ScanOptions{})
	require.NoError(t, err)
	require.Len(t, res.Errors, 1)
	assert.Equal(t, "locked", res.Errors[0].Path)
	assert.Equal(t, 1, res.Counts.Parsed)
	assert.Equal(t, res.Counts.Total, res.Counts.Parsed+res.Counts.Skipped+res.Counts.Errors)
	assert.ErrorIs(t, res.Errors[0].Err, fs.ErrPermission)
}

// lockedFS fails to list one directory, like a directory without read permission.
type lockedFS struct {
	fstest.MapFS
	locked string
}

func (l lockedFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if name == l.locked {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrPermission}
	}
	return l.MapFS.ReadDir(name)
}

func TestScanFSUnreadableDir(t *testing.T) {
	t.Parallel()
	mfs := lockedFS{MapFS: fstest.MapFS{
		"ok/a.md":     &fstest.MapFile{Data: []byte(goodPattern)},
		"locked/b.md": &fstest.MapFile{Data: []byte(goodPattern)},
	}, locked: "locked"}
	res, err := ScanFS(context.Background(), mfs, ScanOptions{})
	require.NoError(t, err, "one unreadable folder does not fail the scan")
	require.Len(t, res.Errors, 1)
	assert.Equal(t, "locked", res.Errors[0].Path)
	assert.ErrorIs(t, res.Errors[0].Err, fs.ErrPermission)
	assert.Equal(t, Counts{Total: 2, Parsed: 1, Errors: 1}, res.Counts)

	// The root itself failing is the scan's error.
	_, err = ScanFS(context.Background(), lockedFS{MapFS: fstest.MapFS{"a.md": &fstest.MapFile{}}, locked: "."}, ScanOptions{})
	assert.ErrorIs(t, err, fs.ErrPermission)
}
