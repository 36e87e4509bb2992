package changes

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"
)

// Optional git integration (git.commitOnApply): an apply that completes a
// changeset makes one commit of exactly the files the changeset wrote. Other
// changes in the working tree and in the index stay as they were: the files
// are added to the index by path, then `git commit --only` records those
// paths alone (the index's other entries are left staged, untouched).
// Written with the git command rather than a Go git library: the user's git
// applies its own configuration (identity, hooks, signing), which is what a
// commit made on the user's behalf must respect.

// ErrNoGit: git.commitOnApply is on but the workspace is not in a git
// repository (or git is not installed).
var ErrNoGit = errors.New("not a git repository")

// gitTimeout bounds one git command (hooks included).
const gitTimeout = 2 * time.Minute

// commitApplied commits the files of rep's changeset and records the commit
// on it. A failed commit never undoes the apply: it is reported in
// rep.CommitError.
func (s *Store) commitApplied(ctx context.Context, rep *ApplyReport) {
	cs := rep.Changeset
	var paths []string
	for _, f := range cs.Files {
		if f.Status == FileApplied {
			paths = append(paths, f.Path)
		}
	}
	sha, err := GitCommit(context.WithoutCancel(ctx), s.root, paths, CommitMessage(cs))
	if err != nil {
		rep.CommitError = err.Error()
		return
	}
	rep.Commit = sha
	if final, err := s.update(cs.ID, func(c *Changeset) error { c.Commit = sha; return nil }); err == nil {
		rep.Changeset = final
	}
}

// CommitMessage is the commit message of an applied changeset: its task as
// the subject (a revert's task reads `Revert "…"`), then what nova applied.
func CommitMessage(cs Changeset) string {
	subject := firstLine(cs.Task)
	if subject == "" {
		subject = fmt.Sprintf("Apply changeset %d", cs.ID)
	}
	subject = clip(subject, 72)
	var body strings.Builder
	fmt.Fprintf(&body, "Applied by nova: changeset %d", cs.ID)
	switch {
	case cs.RevertOf != 0:
		fmt.Fprintf(&body, ", which reverts changeset %d", cs.RevertOf)
	case cs.Agent != "":
		fmt.Fprintf(&body, ", written by %s", cs.Agent)
	}
	if cs.BuildID != "" {
		fmt.Fprintf(&body, " (build %s, task %s)", cs.BuildID, cs.TaskID)
	}
	body.WriteString(".\n")
	if task := strings.TrimSpace(cs.Task); task != "" && task != subject && cs.RevertOf == 0 {
		body.WriteString("\nTask: " + clip(task, 2000) + "\n")
	}
	return subject + "\n\n" + body.String()
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// clip cuts s to at most n runes, with an ellipsis.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// GitCommit commits exactly paths (relative to root, slash-separated) of
// the git repository root lies in, with message, and returns the new
// commit's id. Paths that neither exist nor are tracked are left out; none
// left, or nothing changed, is an error saying so.
func GitCommit(ctx context.Context, root string, paths []string, message string) (string, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return "", fmt.Errorf("git commit: %w (git is not installed)", ErrNoGit)
	}
	if _, err := runGit(ctx, root, nil, "rev-parse", "--show-toplevel"); err != nil {
		return "", fmt.Errorf("git commit: %s is %w", root, ErrNoGit)
	}
	tracked := map[string]bool{}
	if out, err := runGit(ctx, root, nil, append([]string{"ls-files", "-z", "--"}, paths...)...); err == nil {
		for _, p := range strings.Split(string(out), "\x00") {
			if p != "" {
				tracked[p] = true
			}
		}
	}
	var keep []string
	for _, p := range paths {
		if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p))); err == nil || tracked[p] {
			keep = append(keep, p)
		}
	}
	if len(keep) == 0 {
		return "", errors.New("git commit: no file of the changeset is in the working tree or in git")
	}
	// Stage these paths only (additions, changes and removals), then commit
	// them alone: --only leaves every other staged change staged.
	if _, err := runGit(ctx, root, nil, append([]string{"add", "-A", "--"}, keep...)...); err != nil {
		return "", fmt.Errorf("git add: %w", err)
	}
	if _, err := runGit(ctx, root, []byte(message), append([]string{"commit", "--only", "--quiet", "--file=-", "--"}, keep...)...); err != nil {
		return "", fmt.Errorf("git commit: %w", err)
	}
	out, err := runGit(ctx, root, nil, "rev-parse", "HEAD")
	if err != nil {
		return "", fmt.Errorf("git rev-parse: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// runGit runs git in dir with literal pathspecs, no prompts and no editor.
func runGit(ctx context.Context, dir string, stdin []byte, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_LITERAL_PATHSPECS=1", "GIT_TERMINAL_PROMPT=0", "GIT_EDITOR=true")
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errOut.String())
		if msg == "" {
			msg = strings.TrimSpace(out.String())
		}
		if msg == "" {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %s", err, clip(msg, 500))
	}
	return out.Bytes(), nil
}
