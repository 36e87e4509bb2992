package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/parser"

	"github.com/nova-dev/nova/internal/lazyre"
	"github.com/nova-dev/nova/internal/yamlguard"
)

// TeamConfig is the team: section: the team's NATS servers and how to log
// in. Relative file paths are read from the workspace root.
type TeamConfig struct {
	// URL of the team's NATS servers (nats://host:4222, comma-separated for
	// several); empty: the workspace shares nothing.
	URL string `yaml:"url" json:"url,omitempty"`
	// Name of the team (its stream is NOVA_TEAM_<NAME>); default "nova".
	Name string `yaml:"name" json:"name,omitempty"`
	// Admin is the team admin's public key (ed25519:…), pinned at join: only
	// membership lists it signed are accepted.
	Admin string `yaml:"admin" json:"admin,omitempty"`
	// AdminKey is the admin's private key file (only on the admin's
	// machine; `nova hub` writes it): `nova team members add|remove` signs
	// with it.
	AdminKey string `yaml:"adminKey" json:"adminKey,omitempty"`
	// Credentials, at most one: a creds file (JWT and seed), an nkey seed
	// file, or a token (write ${VAR} to read it from the environment).
	Creds string `yaml:"creds" json:"creds,omitempty"`
	NKey  string `yaml:"nkey" json:"nkey,omitempty"`
	Token string `yaml:"token" json:"token,omitempty"`
	// TLS: a CA bundle, a client certificate and its key (files).
	TLS TeamTLSConfig `yaml:"tls" json:"tls"`
	// Replicas of the stream when nova creates it (0: 3 when the servers
	// can, else 1).
	Replicas int `yaml:"replicas" json:"replicas,omitempty"`
	// Retention of the team's stream when nova creates it (engine/team's
	// retention policy; `nova hub --max-age/--max-bytes` changes a running
	// team's).
	Retention TeamRetention `yaml:"retention" json:"retention"`
}

// TeamRetention is team.retention: how long and how much the team's stream
// keeps (0: the defaults, 30 days and 1 GiB). Records older or beyond are
// dropped from the stream, never from the team's snapshot: a workspace
// that fell behind reads the snapshot again.
type TeamRetention struct {
	MaxAge   Duration `yaml:"maxAge" json:"maxAge,omitempty"`
	MaxBytes int64    `yaml:"maxBytes" json:"maxBytes,omitempty"`
}

// TeamTLSConfig is team.tls.
type TeamTLSConfig struct {
	CA   string `yaml:"ca" json:"ca,omitempty"`
	Cert string `yaml:"cert" json:"cert,omitempty"`
	Key  string `yaml:"key" json:"key,omitempty"`
}

var teamNamePattern = lazyre.New(`^[A-Za-z0-9_-]{1,32}$`)

// Joined reports whether the workspace shares with a team.
func (c TeamConfig) Joined() bool { return strings.TrimSpace(c.URL) != "" }

func (c TeamConfig) validate(bad func(field, format string, a ...any)) {
	if !c.Joined() {
		return
	}
	for _, u := range strings.Split(c.URL, ",") {
		p, err := url.Parse(strings.TrimSpace(u))
		if err != nil || p.Host == "" || !strings.Contains("nats tls ws wss", p.Scheme) || p.Scheme == "" {
			bad("team.url", "want nats://host:port (tls://, ws://, wss:// too), got %q", strings.TrimSpace(u))
		}
	}
	if c.Name != "" && !teamNamePattern.MatchString(c.Name) {
		bad("team.name", "letters, digits, - and _, at most 32; got %q", c.Name)
	}
	n := 0
	for _, s := range []string{c.Creds, c.NKey, c.Token} {
		if s != "" {
			n++
		}
	}
	if n > 1 {
		bad("team", "set at most one of creds, nkey and token")
	}
	if c.Replicas < 0 || c.Replicas > 5 {
		bad("team.replicas", "must be between 0 and 5, got %d", c.Replicas)
	}
	if c.Retention.MaxAge == invalidDuration || (c.Retention.MaxAge > 0 && time.Duration(c.Retention.MaxAge) < time.Hour) {
		bad("team.retention.maxAge", "want a duration of at least 1h (720h is 30 days)")
	}
	if c.Retention.MaxBytes < 0 || (c.Retention.MaxBytes > 0 && c.Retention.MaxBytes < 1<<20) {
		bad("team.retention.maxBytes", "want bytes, at least 1048576 (1 MiB), got %d", c.Retention.MaxBytes)
	}
}

// TeamPath resolves a file path of the team: section against root.
func TeamPath(root, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[2:])
		}
	}
	return filepath.Join(root, p)
}

// SetTeamConfig writes the team: section's scalar keys given in kv (url,
// name, admin, ...) into config.yaml, keeping the rest of the file and its
// comments; the section is added when absent.
func SetTeamConfig(path string, kv map[string]string, order []string) error {
	data, err := yamlguard.ReadFile(path, configLimits)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s: %w", path, err)
	}
	hasSection := false
	if len(data) > 0 {
		f, perr := parser.ParseBytes(data, parser.ParseComments)
		if perr != nil {
			return yamlError(path, perr)
		}
		p, _ := yaml.PathString("$.team")
		if n, ferr := p.FilterFile(f); ferr == nil && n != nil && n.String() != "null" && strings.TrimSpace(n.String()) != "" {
			hasSection = true
		}
	}
	if !hasSection {
		out := append([]byte{}, data...)
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		out = append(out, "\n# Team sharing over NATS JetStream (`nova team status`).\nteam:\n"...)
		for _, k := range order {
			if v, ok := kv[k]; ok {
				q, err := yaml.Marshal(v)
				if err != nil {
					return err
				}
				out = append(out, fmt.Sprintf("  %s: %s\n", k, strings.TrimSpace(string(q)))...)
			}
		}
		if _, err := ParseConfig(path, out); err != nil {
			return err
		}
		return writeConfigFile(path, out)
	}
	for _, k := range order {
		v, ok := kv[k]
		if !ok {
			continue
		}
		if err := setNestedValue(path, "team", k, v); err != nil {
			return err
		}
	}
	return nil
}

// setNestedValue sets section.key in an existing section, adding the key
// when the section lacks it.
func setNestedValue(path, section, key, value string) error {
	data, err := yamlguard.ReadFile(path, configLimits)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	f, perr := parser.ParseBytes(data, parser.ParseComments)
	if perr != nil {
		return yamlError(path, perr)
	}
	q, err := yaml.Marshal(value)
	if err != nil {
		return err
	}
	p, _ := yaml.PathString("$." + section + "." + key)
	var out []byte
	if _, ferr := p.FilterFile(f); ferr == nil {
		if rerr := p.ReplaceWithReader(f, strings.NewReader(strings.TrimSpace(string(q)))); rerr != nil {
			return fmt.Errorf("update %s: %w", path, rerr)
		}
		out = []byte(f.String())
		if !strings.HasSuffix(string(out), "\n") {
			out = append(out, '\n')
		}
	} else {
		// Insert the key as the section's first line.
		lines := strings.SplitAfter(string(data), "\n")
		done := false
		for i, l := range lines {
			if strings.TrimRight(l, " \r\n") == section+":" {
				ins := fmt.Sprintf("  %s: %s\n", key, strings.TrimSpace(string(q)))
				lines = append(lines[:i+1], append([]string{ins}, lines[i+1:]...)...)
				done = true
				break
			}
		}
		if !done {
			return fmt.Errorf("update %s: could not place %s.%s (write it by hand)", path, section, key)
		}
		out = []byte(strings.Join(lines, ""))
	}
	if _, err := ParseConfig(path, out); err != nil {
		return err
	}
	return writeConfigFile(path, out)
}

func writeConfigFile(path string, out []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, out, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
