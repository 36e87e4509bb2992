package team

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nkeys"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startAuthServer runs a NATS server with JetStream whose login the caller
// sets in opts; it returns the client URL.
func startAuthServer(t *testing.T, opts *server.Options, scheme string) string {
	t.Helper()
	opts.Host, opts.Port, opts.JetStream, opts.StoreDir = "127.0.0.1", server.RANDOM_PORT, true, t.TempDir()
	opts.NoSigs, opts.NoLog = true, os.Getenv("NATSLOG") == ""
	srv, err := server.NewServer(opts)
	require.NoError(t, err)
	if !opts.NoLog {
		srv.ConfigureLogger()
	}
	go srv.Start()
	t.Cleanup(srv.Shutdown)
	require.True(t, srv.ReadyForConnections(10*time.Second), "server ready")
	_, port, err := net.SplitHostPort(srv.Addr().String())
	require.NoError(t, err)
	return scheme + "://127.0.0.1:" + port
}

// roundTrip makes two workspaces members and checks that a fact written in
// one reaches the other through the server, with c's login.
func roundTrip(t *testing.T, c Config) {
	t.Helper()
	admin := newKey(t)
	a, _, ma, mb := twoMembers(t, c, admin)
	_, err := a.AddFact(context.Background(), FactBody{Content: "logged in and shared"})
	require.NoError(t, err)
	converged(t, 1, 20*time.Second, ma, mb)
}

func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, data, 0o600))
	return p
}

func TestLoginWithAToken(t *testing.T) {
	t.Parallel()
	url := startAuthServer(t, &server.Options{Authorization: "s3cret-team-token"}, "nats")
	roundTrip(t, Config{URL: url, Name: "tok", Token: "s3cret-team-token"})

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := Connect(ctx, Config{URL: url, Token: "wrong"}, "t")
	require.ErrorIs(t, err, ErrLogin)
	assert.Contains(t, err.Error(), "check team.token")
	_, err = Connect(ctx, Config{URL: url}, "t")
	require.ErrorIs(t, err, ErrLogin, "no credentials at all")
}

func TestLoginWithAnNKeySeed(t *testing.T) {
	t.Parallel()
	kp, err := nkeys.CreateUser()
	require.NoError(t, err)
	pub, err := kp.PublicKey()
	require.NoError(t, err)
	seed, err := kp.Seed()
	require.NoError(t, err)
	url := startAuthServer(t, &server.Options{Nkeys: []*server.NkeyUser{{Nkey: pub}}}, "nats")
	roundTrip(t, Config{URL: url, Name: "nk", NKeyFile: writeFile(t, "user.nk", append(seed, '\n'))})

	// Another user's seed is refused by the server, clearly.
	other, err := nkeys.CreateUser()
	require.NoError(t, err)
	otherSeed, err := other.Seed()
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = Connect(ctx, Config{URL: url, NKeyFile: writeFile(t, "other.nk", otherSeed)}, "t")
	require.ErrorIs(t, err, ErrLogin)
	assert.Contains(t, err.Error(), "check team.nkey")
}

func TestLoginWithACredsFile(t *testing.T) {
	t.Parallel()
	okp, err := nkeys.CreateOperator()
	require.NoError(t, err)
	opub, err := okp.PublicKey()
	require.NoError(t, err)
	oc := jwt.NewOperatorClaims(opub)
	ojwt, err := oc.Encode(okp)
	require.NoError(t, err)
	oclaims, err := jwt.DecodeOperatorClaims(ojwt)
	require.NoError(t, err)

	akp, err := nkeys.CreateAccount()
	require.NoError(t, err)
	apub, err := akp.PublicKey()
	require.NoError(t, err)
	ac := jwt.NewAccountClaims(apub)
	ac.Limits.JetStreamLimits = jwt.JetStreamLimits{MemoryStorage: -1, DiskStorage: -1, Streams: -1, Consumer: -1}
	ajwt, err := ac.Encode(okp)
	require.NoError(t, err)

	ukp, err := nkeys.CreateUser()
	require.NoError(t, err)
	upub, err := ukp.PublicKey()
	require.NoError(t, err)
	ujwt, err := jwt.NewUserClaims(upub).Encode(akp)
	require.NoError(t, err)
	useed, err := ukp.Seed()
	require.NoError(t, err)
	creds, err := jwt.FormatUserConfig(ujwt, useed)
	require.NoError(t, err)

	// JetStream in operator mode needs a system account.
	skp, err := nkeys.CreateAccount()
	require.NoError(t, err)
	spub, err := skp.PublicKey()
	require.NoError(t, err)
	sjwt, err := jwt.NewAccountClaims(spub).Encode(okp)
	require.NoError(t, err)
	resolver := &server.MemAccResolver{}
	require.NoError(t, resolver.Store(apub, ajwt))
	require.NoError(t, resolver.Store(spub, sjwt))
	url := startAuthServer(t, &server.Options{TrustedOperators: []*jwt.OperatorClaims{oclaims}, AccountResolver: resolver,
		SystemAccount: spub}, "nats")
	roundTrip(t, Config{URL: url, Name: "creds", CredsFile: writeFile(t, "user.creds", creds)})
}

// tlsFiles writes a CA, a server certificate for 127.0.0.1 and a client
// certificate, all signed by the CA.
type tlsFiles struct{ ca, srvCert, srvKey, cliCert, cliKey string }

func makeTLSFiles(t *testing.T) tlsFiles {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "nova test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	require.NoError(t, err)
	ca, err := x509.ParseCertificate(caDER)
	require.NoError(t, err)
	leaf := func(name string, serial int64, usage x509.ExtKeyUsage) (string, string) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		require.NoError(t, err)
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), KeyUsage: x509.KeyUsageDigitalSignature,
			ExtKeyUsage: []x509.ExtKeyUsage{usage}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		require.NoError(t, err)
		kder, err := x509.MarshalECPrivateKey(key)
		require.NoError(t, err)
		return writeFile(t, name+".pem", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
			writeFile(t, name+"-key.pem", pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}))
	}
	f := tlsFiles{ca: writeFile(t, "ca.pem", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}))}
	f.srvCert, f.srvKey = leaf("server", 2, x509.ExtKeyUsageServerAuth)
	f.cliCert, f.cliKey = leaf("client", 3, x509.ExtKeyUsageClientAuth)
	return f
}

func TestLoginWithMutualTLS(t *testing.T) {
	t.Parallel()
	f := makeTLSFiles(t)
	tc, err := server.GenTLSConfig(&server.TLSConfigOpts{CertFile: f.srvCert, KeyFile: f.srvKey, CaFile: f.ca, Verify: true})
	require.NoError(t, err)
	url := startAuthServer(t, &server.Options{TLSConfig: tc, TLS: true, TLSVerify: true, TLSTimeout: 5}, "tls")
	roundTrip(t, Config{URL: url, Name: "tls", CAFile: f.ca, CertFile: f.cliCert, KeyFile: f.cliKey})

	// Without the client certificate the server refuses the connection.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = Connect(ctx, Config{URL: url, CAFile: f.ca}, "t")
	require.ErrorIs(t, err, ErrLogin)
	// A CA that did not sign the server's certificate.
	other := makeTLSFiles(t)
	_, err = Connect(ctx, Config{URL: url, CAFile: other.ca, CertFile: f.cliCert, KeyFile: f.cliKey}, "t")
	require.ErrorIs(t, err, ErrLogin)
	assert.Contains(t, err.Error(), "team.tls")
}

// Configuration errors are found before dialling and say what to fix.
func TestLoginConfigErrorsSayWhatToFix(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f := makeTLSFiles(t)
	cases := []struct {
		name string
		c    Config
		want string
	}{
		{"missing nkey file", Config{NKeyFile: filepath.Join(dir, "nope.nk")}, "team.nkey: " + filepath.Join(dir, "nope.nk") + " does not exist"},
		{"bad seed", Config{NKeyFile: writeFile(t, "bad.nk", []byte("SUAAAAnot-a-seed\n"))}, "is not an nkey user seed"},
		{"account seed, not a user's", Config{NKeyFile: writeFile(t, "acct.nk", func() []byte {
			kp, _ := nkeys.CreateAccount()
			s, _ := kp.Seed()
			return s
		}())}, "is not an nkey user seed"},
		{"missing creds", Config{CredsFile: filepath.Join(dir, "nope.creds")}, "team.creds: " + filepath.Join(dir, "nope.creds") + " does not exist"},
		{"creds without a JWT", Config{CredsFile: writeFile(t, "x.creds", []byte("hello"))}, "team.creds"},
		{"missing CA", Config{CAFile: filepath.Join(dir, "ca.pem")}, "team.tls.ca"},
		{"CA that is not PEM", Config{CAFile: writeFile(t, "ca.txt", []byte("not pem"))}, "holds no PEM certificate"},
		{"cert without key", Config{CertFile: f.cliCert}, "go together"},
		{"key of another cert", Config{CertFile: f.cliCert, KeyFile: f.srvKey}, "are not a certificate and its key"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.c.URL = "nats://127.0.0.1:1"
			err := tc.c.CheckLogin()
			require.ErrorIs(t, err, ErrLogin)
			assert.Contains(t, err.Error(), tc.want)
			_, err = Connect(context.Background(), tc.c, "t")
			require.ErrorIs(t, err, ErrLogin, "Connect checks before dialling")
		})
	}
}
