package team

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/nova-dev/nova/internal/safefile"
)

// HubOptions configure an embedded NATS server with JetStream.
type HubOptions struct {
	// Dir holds JetStream's data and the admin key.
	Dir  string
	Host string
	// Port 0 picks a free one; -1 is the NATS default (4222).
	Port int
	// Token, when set, is required of clients.
	Token string
	Name  string
	// Cluster, when set, joins a cluster of servers (tests, larger teams).
	Cluster *HubCluster
	// Logf receives the server's notices (nil: silent).
	Logf func(string, ...any)
}

// HubCluster is the cluster part of HubOptions.
type HubCluster struct {
	Name   string
	Host   string
	Port   int
	Routes []string
}

// Hub is a running embedded server.
type Hub struct {
	srv *server.Server
	// URL is what workspaces join.
	URL string
}

// StartHub runs an embedded NATS server with JetStream on o.Dir.
func StartHub(o HubOptions) (*Hub, error) {
	if o.Dir == "" {
		return nil, fmt.Errorf("%w: the hub needs a directory", ErrInvalid)
	}
	if err := os.MkdirAll(o.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("hub directory: %w", err)
	}
	if o.Host == "" {
		o.Host = "127.0.0.1"
	}
	opts := &server.Options{
		ServerName: o.Name, Host: o.Host, Port: o.Port, JetStream: true, StoreDir: filepath.Join(o.Dir, "jetstream"),
		Authorization: o.Token, NoSigs: true, MaxPayload: MaxRecordBytes + 64<<10,
	}
	if o.Port == 0 {
		opts.Port = server.RANDOM_PORT
	}
	if o.Cluster != nil {
		opts.Cluster = server.ClusterOpts{Name: o.Cluster.Name, Host: o.Cluster.Host, Port: o.Cluster.Port}
		for _, r := range o.Cluster.Routes {
			u, err := url.Parse(r)
			if err != nil {
				return nil, fmt.Errorf("%w: route %q: %w", ErrInvalid, r, err)
			}
			opts.Routes = append(opts.Routes, u)
		}
	}
	srv, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("start the hub: %w", err)
	}
	if o.Logf != nil {
		srv.SetLoggerV2(hubLogger{o.Logf}, false, false, false)
	}
	go srv.Start()
	if !srv.ReadyForConnections(15 * time.Second) {
		srv.Shutdown()
		return nil, errors.New("start the hub: the server was not ready in 15s")
	}
	return &Hub{srv: srv, URL: srv.ClientURL()}, nil
}

// Shutdown stops the server and waits for it.
func (h *Hub) Shutdown() {
	h.srv.Shutdown()
	h.srv.WaitForShutdown()
}

// Server is the embedded server (tests).
func (h *Hub) Server() *server.Server { return h.srv }

type hubLogger struct{ logf func(string, ...any) }

func (l hubLogger) Noticef(f string, a ...any) { l.logf(f, a...) }
func (l hubLogger) Warnf(f string, a ...any)   { l.logf("warning: "+f, a...) }
func (l hubLogger) Fatalf(f string, a ...any)  { l.logf("fatal: "+f, a...) }
func (l hubLogger) Errorf(f string, a ...any)  { l.logf("error: "+f, a...) }
func (l hubLogger) Debugf(string, ...any)      {}
func (l hubLogger) Tracef(string, ...any)      {}

// AdminKeyFile is the admin key's file in a hub directory.
const AdminKeyFile = "admin.key"

// LoadAdminKey reads an admin key file (the base64 of a 32-byte ed25519
// seed).
func LoadAdminKey(path string) (ed25519.PrivateKey, error) {
	data, err := safefile.ReadFile(path, 4096)
	if err != nil {
		return nil, fmt.Errorf("admin key: %w", err)
	}
	seed, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(data)))
	if err != nil || len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("%w: %s is not an admin key", ErrInvalid, path)
	}
	return ed25519.NewKeyFromSeed(seed), nil
}

// AdminKey returns the admin key of a hub directory, made on first use
// (file mode 0600).
func AdminKey(dir string) (ed25519.PrivateKey, bool, error) {
	path := filepath.Join(dir, AdminKeyFile)
	k, err := LoadAdminKey(path)
	if err == nil {
		return k, false, nil
	}
	if _, statErr := os.Stat(path); !errors.Is(statErr, fs.ErrNotExist) {
		return nil, false, err
	}
	seed := make([]byte, ed25519.SeedSize)
	if _, err := rand.Read(seed); err != nil {
		return nil, false, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, false, err
	}
	if err := os.WriteFile(path, []byte(base64.StdEncoding.EncodeToString(seed)+"\n"), 0o600); err != nil {
		return nil, false, fmt.Errorf("write the admin key: %w", err)
	}
	return ed25519.NewKeyFromSeed(seed), true, nil
}
