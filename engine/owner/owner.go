// Package owner makes one nova process the owner of a workspace and every
// other one its client. bbolt allows one writer process, so the first nova
// that opens .nova/nova.db keeps it (bbolt's flock is the lock) and serves
// the engine on a Unix socket, .nova/nova.sock (mode 0600); every other
// nova on the workspace finds that owner and works through it (engine/rpc).
//
// Join runs the election:
//
//  1. Dial the socket. A live owner answers: become its client.
//  2. Otherwise open the database with a short lock timeout. The lock is
//     free: become the owner. A socket file left by a killed owner is
//     stale (its lock died with it) and is replaced.
//  3. The lock is held but nobody serves yet (another process is opening
//     it, or an older nova or an exclusive operation holds it): wait and
//     go back to 1, up to WaitOwner, then fail with storage.ErrInUse.
//
// Two processes racing: the lock admits one owner; the other finds the
// lock held and becomes the client as soon as the winner listens. The
// owner listens only after its database is open (and migrated), and it
// closes its socket before it releases the lock, so a second owner never
// serves and a socket never outlives its owner's lock except after a kill.
//
// Safety: the socket must be .nova/nova.sock, or, when that path is longer
// than a Unix socket allows, <runtime dir>/<hash>.sock named by
// .nova/nova.sock.path, where the runtime dir is $XDG_RUNTIME_DIR/nova or
// <temp>/nova-<uid> (mode 0700, ours). A socket path that is a symlink, not
// a socket, or another user's is refused and never removed. Both sides
// check the other's uid (SO_PEERCRED): the owner refuses other users, a
// client refuses an owner running as another user.
//
// Nothing hangs: every dial, handshake and wait has a bound.
package owner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nova-dev/nova/engine/rpc"
	"github.com/nova-dev/nova/storage"
)

// Errors callers branch on.
var (
	// ErrNoOwner: no process serves the workspace.
	ErrNoOwner = errors.New("no nova process serves this workspace")
	// ErrUnsafeSocket: the socket's path is a symlink, not a socket,
	// another user's, or outside the workspace and the runtime directory.
	ErrUnsafeSocket = errors.New("unsafe socket")
	// ErrAlreadyServed: `nova serve` found another owner.
	ErrAlreadyServed = errors.New("workspace already served")
	// ErrNotExclusive: an exclusive operation (db compact, db recover,
	// migrations) needs the workspace to itself.
	ErrNotExclusive = errors.New("the workspace is in use by other nova processes")
	// errNoPeerCred: this platform cannot tell who is on the other end.
	errNoPeerCred = errors.New("peer credentials unavailable")
)

// cred is who is on the other end of a connection.
type cred struct{ uid, pid int }

// Mode says what Join may become.
type Mode int

const (
	// Auto: the client of a live owner, or the owner.
	Auto Mode = iota
	// ServeOnly: the owner, or ErrAlreadyServed when another one lives
	// (`nova serve`).
	ServeOnly
	// Takeover: wait for the database lock, however long the current owner
	// takes to release it (up to TakeoverWait), then own. Used by the new
	// owner of a hand-over; never dials the old one.
	Takeover
)

// Options configures Join.
type Options[T io.Closer] struct {
	// Root is the workspace root (the directory holding .nova/).
	Root string
	// Open opens the workspace's database, waiting at most lockTimeout
	// for another process's lock; it returns an error matching
	// storage.ErrInUse when the lock stays held.
	Open func(ctx context.Context, lockTimeout time.Duration) (T, error)
	// Handler serves the opened value on the socket, e.g.
	// rpc.NewServer[engine.Workspace](ws, …).
	Handler func(T) (http.Handler, error)
	// Mode: Auto (default), ServeOnly or Takeover.
	Mode Mode
	// Version is this nova's version (reported to clients and in errors).
	Version string
	// WaitOwner bounds how long Join waits for a process that holds the
	// lock to start serving (default 5 s).
	WaitOwner time.Duration
	// LockTimeout is the lock wait of each attempt to own (default 100 ms).
	LockTimeout time.Duration
	// TakeoverWait bounds the wait for the lock in Takeover mode (default
	// 30 s).
	TakeoverWait time.Duration
	// Client configures the rpc client of a client session.
	Client rpc.ClientOptions
	// Adopt: a client whose owner goes away (it exited, or was killed)
	// and that nobody else took over within adoptAfter owns the workspace
	// itself, and its calls go on through its own socket (a CLI command:
	// two commands started together, the owner one ends first). The
	// session's Close then stops serving. The TUI rejoins by itself
	// instead (Session.Rejoin), to say so on screen.
	Adopt bool
	// Logf logs refused connections and other owner-side events; nil is
	// silent.
	Logf func(format string, args ...any)

	// uid is the uid allowed to connect (tests); 0 with uidSet false means
	// os.Getuid().
	uid    int
	uidSet bool
}

func (o *Options[T]) defaults() {
	if o.WaitOwner <= 0 {
		o.WaitOwner = 5 * time.Second
	}
	if o.LockTimeout <= 0 {
		o.LockTimeout = 100 * time.Millisecond
	}
	if o.TakeoverWait <= 0 {
		o.TakeoverWait = 30 * time.Second
	}
	if !o.uidSet {
		o.uid = os.Getuid()
	}
	if o.Client.Version == "" {
		o.Client.Version = o.Version
	}
}

// Session is the outcome of Join: exactly one of Owner and Client is set.
type Session[T io.Closer] struct {
	// Owner is set when this process owns the workspace.
	Owner *Owner[T]
	// Client is set when another process owns it; wrap it in the generated
	// remote implementation (remote.NewWorkspace).
	Client *rpc.Client
	// Info describes the owner (for a client, as it answered on joining).
	Info Info

	opts    Options[T]
	adopter *adopter[T] // Options.Adopt: the owner this client became
}

// Rejoin closes this session and joins again with the same options: a
// client whose owner is gone (rpc.ErrOwnerGone: it exited and nobody took
// over) becomes the owner itself, or the client of whoever did.
func (s *Session[T]) Rejoin(ctx context.Context) (*Session[T], error) {
	_ = s.Close()
	opts := s.opts
	if opts.Mode == Takeover {
		opts.Mode = Auto
	}
	return Join(ctx, opts)
}

// Close closes the client, or stops serving and releases the database.
func (s *Session[T]) Close() error {
	if s.Owner != nil {
		return s.Owner.Close()
	}
	var err error
	if s.Client != nil {
		err = s.Client.Close()
	}
	if s.adopter != nil {
		err = errors.Join(err, s.adopter.close())
	}
	return err
}

// Adopted is the owner a client session became (Options.Adopt), or nil.
func (s *Session[T]) Adopted() *Owner[T] {
	if s.adopter == nil {
		return nil
	}
	s.adopter.mu.Lock()
	defer s.adopter.mu.Unlock()
	return s.adopter.owner
}

// adoptAfter is how long a client waits for another process to take a
// gone owner's place before it owns the workspace itself: a hand-over's
// headless owner polls for the lock every 50 ms and gets there first.
const adoptAfter = 750 * time.Millisecond

// adopter makes a client the owner of a workspace whose owner went away
// (Options.Adopt): its dial function owns the workspace, then dials its own
// socket.
type adopter[T io.Closer] struct {
	loc  location
	opts Options[T]

	mu    sync.Mutex
	gone  time.Time // first dial that found no owner, since the last success
	owner *Owner[T]
}

func (a *adopter[T]) wrap(dial rpc.DialFunc) rpc.DialFunc {
	return func(ctx context.Context) (net.Conn, error) {
		conn, err := dial(ctx)
		a.mu.Lock()
		defer a.mu.Unlock()
		if err == nil || !errors.Is(err, ErrNoOwner) || a.owner != nil {
			if err == nil {
				a.gone = time.Time{}
			}
			return conn, err
		}
		now := time.Now()
		if a.gone.IsZero() {
			a.gone = now
		}
		if now.Sub(a.gone) < adoptAfter || handingOver(a.loc) {
			return nil, err
		}
		o, oerr := own(ctx, a.loc, a.opts, a.opts.LockTimeout)
		if oerr != nil {
			return nil, err // another process holds the lock: it serves soon
		}
		a.owner = o
		return dial(ctx)
	}
}

func (a *adopter[T]) close() error {
	a.mu.Lock()
	o := a.owner
	a.mu.Unlock()
	if o == nil {
		return nil
	}
	return o.Close()
}

// Info describes an owner (GET /v1/owner, `nova doctor`).
type Info struct {
	PID      int       `json:"pid"`
	Since    time.Time `json:"since"`
	Version  string    `json:"version"`
	Protocol int       `json:"protocol"`
	Root     string    `json:"root"`
	Socket   string    `json:"socket"`
	// Clients are the processes connected now (the asking one excluded).
	Clients []ClientInfo `json:"clients"`
	// Exclusive names the exclusive operation running, if any.
	Exclusive string `json:"exclusive,omitempty"`
}

// ClientInfo is one connected process.
type ClientInfo struct {
	PID   int       `json:"pid"`
	Since time.Time `json:"since"`
	Conns int       `json:"conns"`
}

// pathOwner is the owner's own endpoint beside the rpc server's.
func pathOwner() string { return rpc.Prefix() + "/owner" }

// Join finds the live owner of the workspace and becomes its client, or
// becomes the owner (see the package comment).
func Join[T io.Closer](ctx context.Context, opts Options[T]) (*Session[T], error) {
	opts.defaults()
	if opts.Open == nil || opts.Handler == nil {
		return nil, errors.New("owner: Open and Handler are required")
	}
	loc, err := locate(opts.Root)
	if err != nil {
		return nil, err
	}
	if opts.Mode == Takeover {
		return takeover(ctx, loc, opts)
	}
	deadline := time.Now().Add(opts.WaitOwner)
	var lastWhy error
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var ad *adopter[T]
		var wrap func(rpc.DialFunc) rpc.DialFunc
		if opts.Adopt && opts.Mode == Auto {
			ad = &adopter[T]{loc: loc, opts: opts}
			wrap = ad.wrap
		}
		c, info, err := connectVia(ctx, loc, opts, wrap)
		switch {
		case err == nil:
			if opts.Mode == ServeOnly {
				_ = c.Close()
				return nil, fmt.Errorf("%w by nova pid %d (since %s) on %s; use it, or stop it first",
					ErrAlreadyServed, info.PID, info.Since.Local().Format(time.DateTime), info.Socket)
			}
			return &Session[T]{Client: c, Info: info, opts: opts, adopter: ad}, nil
		case errors.Is(err, ErrUnsafeSocket), errors.Is(err, rpc.ErrProtocolMismatch):
			return nil, err
		case ctx.Err() != nil:
			// Cancelled or out of time while looking: say so, not what the
			// look found meanwhile (callers branch on context errors).
			return nil, ctx.Err()
		}
		lastWhy = err
		if handingOver(loc) {
			// The workspace goes to a hand-over's new owner: wait for it.
			if time.Now().After(deadline) {
				return nil, fmt.Errorf("%w: %s is being handed over to another nova, which has not started serving yet; retry in a moment",
					storage.ErrInUse, loc.root)
			}
			if err := sleep(ctx, 50*time.Millisecond); err != nil {
				return nil, err
			}
			continue
		}
		o, err := own(ctx, loc, opts, opts.LockTimeout)
		if err == nil {
			return &Session[T]{Owner: o, Info: o.Info(), opts: opts}, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if !errors.Is(err, storage.ErrInUse) {
			return nil, err
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%w: another nova process holds %s/.nova/nova.db but does not serve it (%v); "+
				"it may be an older nova or an exclusive operation such as `nova db compact`: close it, or retry in a moment",
				storage.ErrInUse, loc.root, lastWhy)
		}
		if err := sleep(ctx, 50*time.Millisecond); err != nil {
			return nil, err
		}
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Dialer returns the rpc dial function of a client of the workspace at
// root: each connection finds the socket again and checks it, so a client
// follows a new owner after a hand-over or a restart.
func Dialer(root string) (rpc.DialFunc, error) {
	loc, err := locate(root)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) (net.Conn, error) {
		path, err := findSocket(loc)
		if errors.Is(err, errNoSocket) {
			return nil, fmt.Errorf("%w (%s does not exist)", ErrNoOwner, path)
		}
		if err == nil {
			var conn net.Conn
			conn, err = dialSocket(ctx, path)
			if err == nil {
				return conn, nil
			}
		}
		if errors.Is(err, ErrUnsafeSocket) {
			return nil, rpc.Permanent(err) // waiting will not make it safe
		}
		return nil, err
	}, nil
}

// handshakeTimeout bounds the owner's first answer.
const handshakeTimeout = 3 * time.Second

// connect dials the live owner and asks who it is.
func connect[T io.Closer](ctx context.Context, loc location, opts Options[T]) (*rpc.Client, Info, error) {
	return connectVia(ctx, loc, opts, nil)
}

// connectVia is connect with the client's dial function wrapped (nil:
// as it is).
func connectVia[T io.Closer](ctx context.Context, loc location, opts Options[T], wrap func(rpc.DialFunc) rpc.DialFunc) (*rpc.Client, Info, error) {
	var info Info
	path, err := findSocket(loc)
	if errors.Is(err, errNoSocket) {
		return nil, info, fmt.Errorf("%w (%s does not exist)", ErrNoOwner, path)
	}
	if err != nil {
		return nil, info, err
	}
	dial, err := Dialer(loc.root)
	if err != nil {
		return nil, info, err
	}
	if wrap != nil {
		dial = wrap(dial)
	}
	hctx, cancel := context.WithTimeout(ctx, handshakeTimeout)
	defer cancel()
	// Get does not retry: a refused connection answers at once.
	c := rpc.NewClient(dial, opts.Client)
	if err := c.Get(hctx, pathOwner(), &info); err != nil {
		_ = c.Close()
		if errors.Is(err, rpc.ErrProtocolMismatch) || ctx.Err() != nil {
			return nil, info, err
		}
		// A socket that does not answer like an owner (it died between
		// accept and answer, or is not nova's): not an owner.
		return nil, info, fmt.Errorf("%w (%s did not answer: %w)", ErrNoOwner, path, err)
	}
	return c, info, nil
}

// Probe asks the live owner of the workspace at root who it is, for
// `nova doctor`. It returns ErrNoOwner when nobody serves it.
func Probe(ctx context.Context, root, version string) (Info, error) {
	loc, err := locate(root)
	if err != nil {
		return Info{}, err
	}
	c, info, err := connect(ctx, loc, Options[io.Closer]{Version: version, Client: rpc.ClientOptions{Version: version}})
	if err != nil {
		return Info{}, err
	}
	_ = c.Close()
	return info, nil
}

// Owner is this process serving its workspace.
type Owner[T io.Closer] struct {
	opts Options[T]
	loc  location
	sock string

	since   time.Time
	ln      net.Listener
	srv     *http.Server
	life    context.Context // every request's parent; cancelled last on stop
	kill    context.CancelFunc
	streams context.Context // streams' parent; cancelled first on stop
	endAll  context.CancelFunc
	served  chan struct{} // closed when Serve returns

	mu      sync.Mutex
	value   T
	handler http.Handler
	conns   map[net.Conn]connInfo
	// fresh are the accepted connections whose first request has not been
	// read yet (http.StateNew): Shutdown would drop that request.
	fresh     map[net.Conn]bool
	exclusive string
	stopped   bool

	closeOnce sync.Once
	closeErr  error
}

type connInfo struct {
	pid   int
	since time.Time
}

// own opens the database and, holding its lock, serves it on the socket.
func own[T io.Closer](ctx context.Context, loc location, opts Options[T], lockTimeout time.Duration) (*Owner[T], error) {
	v, err := opts.Open(ctx, lockTimeout)
	if err != nil {
		return nil, err
	}
	o, err := serve(loc, opts, v)
	if err != nil {
		_ = v.Close()
		return nil, err
	}
	return o, nil
}

// serve listens on the workspace's socket; the caller holds the lock.
func serve[T io.Closer](loc location, opts Options[T], v T) (*Owner[T], error) {
	h, err := opts.Handler(v)
	if err != nil {
		return nil, err
	}
	sock := loc.socket()
	if loc.long {
		if err := ensureRuntimeDir(filepath.Dir(sock)); err != nil {
			return nil, err
		}
	}
	// We hold the lock, so a socket file here is stale: its owner died
	// without removing it. Replace it, unless it is not ours to remove.
	switch err := checkSocket(sock); {
	case errors.Is(err, errNoSocket):
	case err != nil:
		return nil, err
	default:
		if err := os.Remove(sock); err != nil {
			return nil, fmt.Errorf("remove the stale socket %s: %w", sock, err)
		}
	}
	ln, err := net.Listen("unix", sock)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", sock, err)
	}
	// net.Listen applies the umask; a connection accepted before this
	// chmod is still checked by its peer's uid.
	if err := os.Chmod(sock, 0o600); err != nil {
		_ = ln.Close()
		return nil, fmt.Errorf("protect %s: %w", sock, err)
	}
	if loc.long {
		if err := writePointer(loc.pointer, sock); err != nil {
			_ = ln.Close()
			return nil, err
		}
	} else {
		_ = os.Remove(loc.pointer) // a stale pointer from a longer past
	}
	o := &Owner[T]{
		opts: opts, loc: loc, sock: sock, since: time.Now(),
		value: v, handler: h, conns: map[net.Conn]connInfo{}, fresh: map[net.Conn]bool{},
		served: make(chan struct{}),
	}
	o.life, o.kill = context.WithCancel(context.Background())
	o.streams, o.endAll = context.WithCancel(o.life)
	o.ln = &credListener[T]{Listener: ln, o: o, drained: make(chan struct{})}
	o.srv = &http.Server{
		Handler:           http.HandlerFunc(o.serveHTTP),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       10 * time.Minute,
		BaseContext:       func(net.Listener) context.Context { return o.life },
		ConnContext:       o.connContext,
		ConnState:         o.connState,
	}
	go func() {
		defer close(o.served)
		if err := o.srv.Serve(o.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			o.logf("nova: serving %s stopped: %v", sock, err)
		}
	}()
	return o, nil
}

// writePointer writes .nova/nova.sock.path atomically.
func writePointer(pointer, sock string) error {
	tmp := pointer + ".tmp"
	if err := os.WriteFile(tmp, []byte(sock+"\n"), 0o600); err != nil {
		return fmt.Errorf("write %s: %w", pointer, err)
	}
	if err := os.Rename(tmp, pointer); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write %s: %w", pointer, err)
	}
	return nil
}

func (o *Owner[T]) logf(format string, args ...any) {
	if o.opts.Logf != nil {
		o.opts.Logf(format, args...)
	}
}

// Value is the opened workspace this process serves.
func (o *Owner[T]) Value() T {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.value
}

// Socket is where the owner listens.
func (o *Owner[T]) Socket() string { return o.sock }

// Done is closed when the owner stops serving.
func (o *Owner[T]) Done() <-chan struct{} { return o.served }

// Info describes the owner and its clients now.
func (o *Owner[T]) Info() Info { return o.info(nil) }

func (o *Owner[T]) info(skip net.Conn) Info {
	o.mu.Lock()
	defer o.mu.Unlock()
	return Info{
		PID: os.Getpid(), Since: o.since, Version: o.opts.Version, Protocol: rpc.ProtocolVersion,
		Root: o.loc.root, Socket: o.sock, Clients: o.clientsLocked(skip), Exclusive: o.exclusive,
	}
}

// Clients lists the processes connected now.
func (o *Owner[T]) Clients() []ClientInfo {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.clientsLocked(nil)
}

func (o *Owner[T]) clientsLocked(skip net.Conn) []ClientInfo {
	byPID := map[int]*ClientInfo{}
	for c, ci := range o.conns {
		if c == skip {
			continue
		}
		cl := byPID[ci.pid]
		if cl == nil {
			cl = &ClientInfo{PID: ci.pid, Since: ci.since}
			byPID[ci.pid] = cl
		}
		cl.Conns++
		if ci.since.Before(cl.Since) {
			cl.Since = ci.since
		}
	}
	out := make([]ClientInfo, 0, len(byPID))
	for _, cl := range byPID {
		out = append(out, *cl)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PID < out[j].PID })
	return out
}

// credListener refuses connections from other users and tracks the
// accepted ones.
type credListener[T io.Closer] struct {
	net.Listener
	o *Owner[T]

	draining    atomic.Bool
	drained     chan struct{}
	drainedOnce sync.Once
}

// drain stops new connections without losing the ones already made: the
// socket's name goes first (a nova that looks for the owner now finds
// none and waits for the database), then the connections that were made
// before — maybe still waiting in the listener's backlog, where closing
// the listener would reset them and their call would be lost halfway
// ("connection lost … may or may not have been applied") — are accepted
// and handed to the server, which Shutdown then waits for. It costs the
// stopping owner a few milliseconds.
func (l *credListener[T]) drain(sock string) {
	ul, ok := l.Listener.(*net.UnixListener)
	if !ok {
		return
	}
	ul.SetUnlinkOnClose(false) // the name is removed here, once
	_ = os.Remove(sock)
	l.draining.Store(true)
	_ = ul.SetDeadline(time.Now().Add(drainQuiet)) // wakes an Accept that waits
	select {
	case <-l.drained:
	case <-l.o.served:
	case <-time.After(time.Second): // the server is not accepting (a hang would be worse)
	}
}

// drainQuiet is how long a draining listener waits for one more
// connection from its backlog before it counts it empty.
const drainQuiet = 2 * time.Millisecond

func (l *credListener[T]) isDrained() bool {
	select {
	case <-l.drained:
		return true
	default:
		return false
	}
}

func (l *credListener[T]) Accept() (net.Conn, error) {
	for {
		ul, _ := l.Listener.(*net.UnixListener)
		if ul != nil && l.draining.Load() && !l.isDrained() {
			// Draining: the backlog is empty once no connection comes for
			// drainQuiet (no new one can: the name is gone).
			_ = ul.SetDeadline(time.Now().Add(drainQuiet))
		}
		c, err := l.Listener.Accept()
		if err != nil && ul != nil && l.draining.Load() && !l.isDrained() && errors.Is(err, os.ErrDeadlineExceeded) {
			// Every connection made before the name went has been
			// accepted; wait for Shutdown to close the listener.
			l.drainedOnce.Do(func() { close(l.drained) })
			_ = ul.SetDeadline(time.Time{})
			continue
		}
		if err != nil {
			return nil, err
		}
		cr, err := peerCred(c)
		switch {
		case errors.Is(err, errNoPeerCred):
			cr = cred{uid: l.o.opts.uid}
		case err != nil:
			l.o.logf("nova: refused a connection: %v", err)
			_ = c.Close()
			continue
		}
		if cr.uid != l.o.opts.uid {
			l.o.logf("nova: refused a connection from uid %d (pid %d): only uid %d may use this workspace", cr.uid, cr.pid, l.o.opts.uid)
			_ = c.Close()
			continue
		}
		l.o.mu.Lock()
		l.o.conns[c] = connInfo{pid: cr.pid, since: time.Now()}
		l.o.mu.Unlock()
		return c, nil
	}
}

func (o *Owner[T]) connState(c net.Conn, st http.ConnState) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch st {
	case http.StateNew:
		o.fresh[c] = true
	case http.StateClosed, http.StateHijacked:
		delete(o.conns, c)
		delete(o.fresh, c)
	default:
		delete(o.fresh, c)
	}
}

// waitFresh waits, at most limit, until every accepted connection has had
// its first request read: net/http's Shutdown closes a connection whose
// request it reads after Shutdown began, unanswered. A client sends its
// request as soon as it connects, so this is a matter of microseconds.
func (o *Owner[T]) waitFresh(limit time.Duration) {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		o.mu.Lock()
		n := len(o.fresh)
		o.mu.Unlock()
		if n == 0 {
			return
		}
	}
}

type connKey struct{}

func (o *Owner[T]) connContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

func (o *Owner[T]) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == pathOwner() {
		if err := rpc.CheckProtocol(r, o.opts.Version); err != nil {
			rpc.WriteError(w, err)
			return
		}
		conn, _ := r.Context().Value(connKey{}).(net.Conn)
		rpc.WriteJSON(w, http.StatusOK, o.info(conn))
		return
	}
	o.mu.Lock()
	h, excl := o.handler, o.exclusive
	o.mu.Unlock()
	if excl != "" && r.URL.Path != rpc.PathVersion {
		rpc.WriteError(w, fmt.Errorf("%w: the owning nova (pid %d) is running %s; retry in a moment", rpc.ErrBusy, os.Getpid(), excl))
		return
	}
	if strings.HasPrefix(r.URL.Path, rpc.Prefix()+"/stream/") {
		if o.streams.Err() != nil {
			// Stopping: the client subscribes again with the next owner.
			rpc.WriteError(w, fmt.Errorf("%w: the owning nova (pid %d) is stopping", rpc.ErrBusy, os.Getpid()))
			return
		}
		// Streams end first when the owner stops, so that in-flight calls
		// can finish.
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		stop := context.AfterFunc(o.streams, cancel)
		defer stop()
		r = r.WithContext(ctx)
	}
	h.ServeHTTP(w, r)
}

// stopGrace is how long in-flight calls may finish when the owner stops;
// after it they are cancelled (their work is resumable).
const stopGrace = 3 * time.Second

// stopServing closes the socket (so no new client connects), ends the
// streams, lets in-flight calls finish for stopGrace, then cancels them.
// The database stays open.
func (o *Owner[T]) stopServing() {
	o.mu.Lock()
	if o.stopped {
		o.mu.Unlock()
		return
	}
	o.stopped = true
	o.mu.Unlock()
	o.endAll()
	if cl, ok := o.ln.(*credListener[T]); ok {
		cl.drain(o.sock)
	}
	o.waitFresh(time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), stopGrace)
	defer cancel()
	if err := o.srv.Shutdown(ctx); err != nil {
		o.kill()
		_ = o.srv.Close()
	}
	o.kill()
	<-o.served
	if o.loc.long {
		_ = os.Remove(o.loc.pointer)
	}
}

// Close stops serving (the socket goes first), then closes the workspace,
// releasing the database lock: the next nova becomes the owner.
func (o *Owner[T]) Close() error {
	o.closeOnce.Do(func() {
		o.stopServing()
		o.mu.Lock()
		v := o.value
		o.mu.Unlock()
		o.closeErr = v.Close()
	})
	return o.closeErr
}

// Wait blocks until ctx ends (SIGINT/SIGTERM in `nova serve`) or the owner
// stops serving, then closes it.
func (o *Owner[T]) Wait(ctx context.Context) error {
	select {
	case <-ctx.Done():
	case <-o.served:
	}
	return o.Close()
}

// Serve makes this process the owner for `nova serve`: it takes the
// workspace over from the old owner when Handover started it (Takeover),
// and otherwise owns it or fails with ErrAlreadyServed.
func Serve[T io.Closer](ctx context.Context, opts Options[T]) (*Owner[T], error) {
	opts.Mode = ServeOnly
	if IsTakeover() {
		opts.Mode = Takeover
	}
	s, err := Join(ctx, opts)
	if err != nil {
		return nil, err
	}
	return s.Owner, nil
}

// Others are the clients of other processes: a TUI that took the
// workspace over keeps working through its own socket, and those
// connections are not other novas.
func (i Info) Others() []ClientInfo {
	out := make([]ClientInfo, 0, len(i.Clients))
	for _, c := range i.Clients {
		if c.PID != i.PID {
			out = append(out, c)
		}
	}
	return out
}

// Describe is one line about an owner for `nova doctor`, e.g. "pid 4242
// (nova v0.4.0) since 2026-11-24 10:02:11 on .nova/nova.sock, 2 clients:
// pid 4300, pid 4301".
func Describe(info Info) string {
	var b strings.Builder
	fmt.Fprintf(&b, "pid %d (nova %s) since %s on %s", info.PID, orDev(info.Version), info.Since.Local().Format(time.DateTime), info.Socket)
	switch others := info.Others(); len(others) {
	case 0:
		b.WriteString(", no clients")
	default:
		fmt.Fprintf(&b, ", %s: %s", plural(len(others), "client", "clients"), pids(others))
	}
	if info.Exclusive != "" {
		fmt.Fprintf(&b, ", running %s", info.Exclusive)
	}
	return b.String()
}

func orDev(v string) string {
	if v == "" {
		return "dev"
	}
	return v
}
