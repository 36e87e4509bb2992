// Package workspace finds, creates and describes a nova workspace: a
// directory holding .nova/ (config.yaml, agents/, patterns/, prds/,
// templates/, themes/ and the nova.db database).
package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/parser"

	"github.com/nova-dev/nova/internal/yamlguard"
)

// Names inside a workspace.
const (
	DirName    = ".nova"
	ConfigName = "config.yaml"
	DBName     = "nova.db"
	EnvVar     = "NOVA_WORKSPACE"
)

// ErrNotFound means no .nova/ was found walking up from the start directory.
var ErrNotFound = errors.New("no nova workspace found")

// Workspace is a located, configured workspace.
type Workspace struct {
	Root      string     // the project directory (parent of .nova)
	Config    Config     // effective config (file + env overrides)
	Overrides []Override // environment overrides applied
	// ConfigSum is the SHA-256 (hex) of the config.yaml bytes Config was
	// parsed from; empty when there was no file (defaults). A client of an
	// owner compares it with its own file's to skip parsing (ConfigSum).
	ConfigSum string
}

// Dir is the .nova directory.
func (w *Workspace) Dir() string { return filepath.Join(w.Root, DirName) }

// ConfigPath is .nova/config.yaml.
func (w *Workspace) ConfigPath() string { return filepath.Join(w.Dir(), ConfigName) }

// DBPath is .nova/nova.db.
func (w *Workspace) DBPath() string { return filepath.Join(w.Dir(), DBName) }

// Path joins elements under .nova.
func (w *Workspace) Path(elem ...string) string {
	return filepath.Join(append([]string{w.Dir()}, elem...)...)
}

// Locate resolves the workspace root: explicit (flag) first, then
// NOVA_WORKSPACE, then a walk up from start to the nearest .nova/.
func Locate(explicit, start string, getenv func(string) string) (string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	for _, cand := range []struct{ src, dir string }{{"--workspace", explicit}, {EnvVar, getenv(EnvVar)}} {
		if cand.dir == "" {
			continue
		}
		abs, err := filepath.Abs(cand.dir)
		if err != nil {
			return "", fmt.Errorf("%s %s: %w", cand.src, cand.dir, err)
		}
		if filepath.Base(abs) == DirName {
			abs = filepath.Dir(abs)
		}
		if !isDir(filepath.Join(abs, DirName)) {
			return "", fmt.Errorf("%s %s: %w there (run `nova init %s`)", cand.src, cand.dir, ErrNotFound, cand.dir)
		}
		return abs, nil
	}
	dir, err := filepath.Abs(start)
	if err != nil {
		return "", err
	}
	for {
		if isDir(filepath.Join(dir, DirName)) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("%w in %s or any parent (run `nova init` to create one)", ErrNotFound, start)
		}
		dir = parent
	}
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// Load reads and validates the workspace at root, then applies env overrides.
func Load(root string, getenv func(string) string) (*Workspace, error) {
	w := &Workspace{Root: root}
	data, err := yamlguard.ReadFile(w.ConfigPath(), configLimits)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		w.Config = Defaults()
	case err != nil:
		return nil, yamlError(w.ConfigPath(), fmt.Errorf("read: %w", err))
	default:
		cfg, err := ParseConfig(w.ConfigPath(), data)
		if err != nil {
			return nil, err
		}
		w.Config = cfg
		w.ConfigSum = configSum(data)
	}
	ov, err := w.Config.ApplyEnv(getenv)
	if err != nil {
		return nil, err
	}
	w.Overrides = ov
	return w, nil
}

// ConfigSum is the Workspace.ConfigSum that Load would give root's
// config.yaml now, without parsing it: "" when there is no file. A file Load
// could not read (too large, a read error) is an error.
func ConfigSum(root string) (string, error) {
	data, err := yamlguard.ReadFile((&Workspace{Root: root}).ConfigPath(), configLimits)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", nil
	case err != nil:
		return "", err
	}
	return configSum(data), nil
}

func configSum(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// InitReport lists what Init did.
type InitReport struct {
	Root    string   `json:"root"`
	Created []string `json:"created"`
	Kept    []string `json:"kept"`
	// Checks is what DetectChecks found and Init wrote into the new
	// config.yaml's checks:; nil when config.yaml was kept as it was.
	Checks *Detected `json:"checks,omitempty"`
}

// Init writes .nova/ under root from the defaults FS (whose top directory is
// ".nova"). It is idempotent: existing files are kept, never overwritten.
// A config.yaml it creates gets the project's checks (DetectChecks) in place
// of the shipped `checks: []`.
func Init(root string, defaults fs.FS) (InitReport, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return InitReport{}, err
	}
	rep := InitReport{Root: abs}
	if err := os.MkdirAll(filepath.Join(abs, DirName), 0o755); err != nil {
		return rep, fmt.Errorf("create %s: %w", filepath.Join(abs, DirName), err)
	}
	err = fs.WalkDir(defaults, DirName, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(abs, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		rel := strings.TrimPrefix(p, DirName+"/")
		if _, err := os.Lstat(dst); err == nil {
			rep.Kept = append(rep.Kept, rel)
			return nil
		}
		data, err := fs.ReadFile(defaults, p)
		if err != nil {
			return err
		}
		var detected *Detected
		if rel == ConfigName {
			data, detected = withDetectedChecks(abs, data)
		}
		// O_EXCL: never clobber a file that appeared meanwhile.
		f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			if errors.Is(err, fs.ErrExist) {
				rep.Kept = append(rep.Kept, rel)
				return nil
			}
			return err
		}
		if _, err := f.Write(data); err != nil {
			_ = f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		rep.Created = append(rep.Created, rel)
		if detected != nil {
			rep.Checks = detected
		}
		return nil
	})
	if err != nil {
		return rep, fmt.Errorf("init %s: %w", abs, err)
	}
	return rep, nil
}

// withDetectedChecks is the shipped config data with root's detected checks
// written in. Data it cannot rewrite into a valid config (a changed default
// without `checks: []`) is returned as it was, with no detection reported.
func withDetectedChecks(root string, data []byte) ([]byte, *Detected) {
	d, err := DetectChecks(root)
	if err != nil {
		d = Detected{Checks: []string{}, Unreadable: []string{root + " (" + reasonOf(err) + ")"}}
	}
	out, ok := WithChecks(data, d)
	if !ok {
		return data, nil
	}
	if cfg, err := ParseConfig(ConfigName, out); err != nil || len(cfg.Checks) != len(d.Checks) {
		return data, nil
	}
	return out, &d
}

// SetConfigValue sets one top-level scalar key (e.g. "theme") in
// config.yaml, keeping comments and layout; it appends the key if absent.
func SetConfigValue(path, key, value string) error {
	data, err := yamlguard.ReadFile(path, configLimits)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if len(data) > 0 {
		// The limits first: the comment-keeping parse below is not guarded.
		if _, err := yamlguard.Parse(path, data, configLimits); err != nil {
			return yamlError(path, err)
		}
	}
	quoted, err := yaml.Marshal(value)
	if err != nil {
		return err
	}
	out := []byte(nil)
	if len(data) > 0 {
		f, perr := parser.ParseBytes(data, parser.ParseComments)
		if perr != nil {
			return yamlError(path, perr)
		}
		p, _ := yaml.PathString("$." + key)
		if _, ferr := p.FilterFile(f); ferr == nil {
			if rerr := p.ReplaceWithReader(f, strings.NewReader(strings.TrimSpace(string(quoted)))); rerr != nil {
				return fmt.Errorf("update %s: %w", path, rerr)
			}
			out = []byte(f.String())
			if !strings.HasSuffix(string(out), "\n") {
				out = append(out, '\n')
			}
		}
	}
	if out == nil {
		out = append([]byte{}, data...)
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		out = append(out, fmt.Sprintf("%s: %s", key, quoted)...)
	}
	// Validate before writing so a bad value never lands on disk.
	if _, err := ParseConfig(path, out); err != nil {
		return err
	}
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
