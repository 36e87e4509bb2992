package workspace

import (
	"context"
	"os/exec"
	"strings"
	"time"
)

// DefaultUserID is config userId's default.
const DefaultUserID = "local"

// Identity is the workspace identity: who promotes, backs and reports global
// wisdom from this workspace. It is config userId, or, when that is the
// default "local" (or empty), git's user.email for the workspace root (git
// config, asked with a short timeout); "local" when neither says more. It is
// never taken from a command-line flag.
func Identity(root, userID string) string {
	if u := strings.TrimSpace(userID); u != "" && u != DefaultUserID {
		return u
	}
	if email := gitEmail(root); email != "" {
		return email
	}
	return DefaultUserID
}

// gitEmail asks git for user.email in root; "" when git is absent, slow or
// has none.
func gitEmail(root string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "config", "--get", "user.email")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
