package team

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"

	"github.com/nova-dev/nova/internal/safefile"
)

// ErrLogin: the team's credentials or TLS files are missing or unusable,
// or the servers refused them. The message says which setting to fix.
var ErrLogin = errors.New("team login")

// maxLoginFile bounds the credential and certificate files read.
const maxLoginFile = 1 << 20

// readLoginFile reads a credential file named by config key setting.
func readLoginFile(setting, path string) ([]byte, error) {
	data, err := safefile.ReadFile(path, maxLoginFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%w: team.%s: %s does not exist (set team.%s in .nova/config.yaml to the file, a path relative to the workspace or absolute)",
			ErrLogin, setting, path, setting)
	case err != nil:
		return nil, fmt.Errorf("%w: team.%s: %w", ErrLogin, setting, err)
	}
	return data, nil
}

// CheckLogin reads the credential and TLS files the configuration names and
// checks that they can be used: an nkey file holds a user seed, a creds
// file a user JWT and its seed, a CA file PEM certificates, a client
// certificate its key. Every error says which setting to fix (ErrLogin).
func (c Config) CheckLogin() error {
	if c.CredsFile != "" {
		data, err := readLoginFile("creds", c.CredsFile)
		if err != nil {
			return err
		}
		if _, err := nkeys.ParseDecoratedJWT(data); err != nil {
			return fmt.Errorf("%w: team.creds: %s holds no user JWT (a creds file is made with `nsc generate creds`): %w", ErrLogin, c.CredsFile, err)
		}
		kp, err := nkeys.ParseDecoratedNKey(data)
		if err != nil {
			return fmt.Errorf("%w: team.creds: %s holds no user seed after its JWT: %w", ErrLogin, c.CredsFile, err)
		}
		kp.Wipe()
	} else if c.NKeyFile != "" {
		data, err := readLoginFile("nkey", c.NKeyFile)
		if err != nil {
			return err
		}
		seed := strings.TrimSpace(string(data))
		kp, err := nkeys.FromSeed([]byte(seed))
		if err != nil || !strings.HasPrefix(seed, "SU") {
			return fmt.Errorf("%w: team.nkey: %s is not an nkey user seed (one line starting with SU, as `nk -gen user` prints it)", ErrLogin, c.NKeyFile)
		}
		kp.Wipe()
	}
	if c.CAFile != "" {
		data, err := readLoginFile("tls.ca", c.CAFile)
		if err != nil {
			return err
		}
		if !x509.NewCertPool().AppendCertsFromPEM(data) {
			return fmt.Errorf("%w: team.tls.ca: %s holds no PEM certificate", ErrLogin, c.CAFile)
		}
	}
	if (c.CertFile == "") != (c.KeyFile == "") {
		return fmt.Errorf("%w: team.tls.cert and team.tls.key go together (a client certificate and its private key)", ErrLogin)
	}
	if c.CertFile != "" {
		cert, err := readLoginFile("tls.cert", c.CertFile)
		if err != nil {
			return err
		}
		key, err := readLoginFile("tls.key", c.KeyFile)
		if err != nil {
			return err
		}
		if _, err := tls.X509KeyPair(cert, key); err != nil {
			return fmt.Errorf("%w: team.tls.cert and team.tls.key: %s and %s are not a certificate and its key: %w", ErrLogin, c.CertFile, c.KeyFile, err)
		}
	}
	return nil
}

// loginRefused turns the servers' refusal of the first connection into an
// error naming what to fix; nil for other failures (a hub that is down is
// retried).
func loginRefused(c Config, err error) error {
	if err == nil {
		return nil
	}
	msg := strings.ToLower(err.Error())
	switch {
	case errors.Is(err, nats.ErrAuthorization), errors.Is(err, nats.ErrAuthExpired), errors.Is(err, nats.ErrAuthRevoked),
		strings.Contains(msg, "authorization violation"), strings.Contains(msg, "authentication"):
		return fmt.Errorf("%w: the servers at %s refused this workspace's credentials: check team.%s in .nova/config.yaml: %w",
			ErrLogin, c.URL, c.loginSetting(), err)
	case strings.Contains(msg, "x509") || strings.Contains(msg, "tls:") || strings.Contains(msg, "certificate"):
		return fmt.Errorf("%w: TLS with the servers at %s failed: check team.tls (ca, cert, key) in .nova/config.yaml: %w",
			ErrLogin, c.URL, err)
	case c.usesTLS() && (errors.Is(err, io.EOF) || strings.Contains(msg, "connection reset") || strings.Contains(msg, "broken pipe")):
		// A server that requires a client certificate it did not get (or
		// did not accept) closes the connection right after the handshake.
		return fmt.Errorf("%w: the servers at %s closed the TLS connection (a client certificate missing or not accepted?): check team.tls.cert and team.tls.key in .nova/config.yaml: %w",
			ErrLogin, c.URL, err)
	case strings.Contains(msg, "secure connection"):
		return fmt.Errorf("%w: the servers at %s and this workspace disagree on TLS: check team.tls in .nova/config.yaml: %w",
			ErrLogin, c.URL, err)
	}
	return nil
}

func (c Config) usesTLS() bool {
	return c.CAFile != "" || c.CertFile != "" || strings.Contains(strings.ToLower(c.URL), "tls://")
}

func (c Config) loginSetting() string {
	switch {
	case c.CredsFile != "":
		return "creds"
	case c.NKeyFile != "":
		return "nkey"
	case c.Token != "":
		return "token"
	}
	return "token, team.nkey or team.creds (none is set)"
}
