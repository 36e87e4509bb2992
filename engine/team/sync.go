package team

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/nova-dev/nova/internal/lazyre"
)

// Config is how a workspace reaches its team's NATS servers (config team:).
type Config struct {
	// URL of one or more NATS servers, comma-separated.
	URL string
	// Name of the team (stream NOVA_TEAM_<NAME>); default "nova".
	Name string
	// Credentials: a token, a file holding an nkey seed, or a creds file
	// (JWT and seed). At most one is used, in this order: creds, nkey, token.
	Token     string
	NKeyFile  string
	CredsFile string
	// TLS: a CA bundle, a client certificate and its key (all optional).
	CAFile   string
	CertFile string
	KeyFile  string
	// Replicas of the stream when it is created (0: the most the servers
	// offer, up to 3).
	Replicas int
	// Retention of the stream when it is created (0: DefaultMaxAge,
	// DefaultMaxBytes); see the package's retention notes.
	MaxAge   time.Duration
	MaxBytes int64
}

// DefaultTeam is the team name when none is configured.
const DefaultTeam = "nova"

var teamNameRE = lazyre.New(`^[A-Za-z0-9_-]{1,32}$`)

func (c Config) team() string {
	if c.Name == "" {
		return DefaultTeam
	}
	return c.Name
}

// Validate checks the configuration.
func (c Config) Validate() error {
	if strings.TrimSpace(c.URL) == "" {
		return ErrNotJoined
	}
	if !teamNameRE.MatchString(c.team()) {
		return fmt.Errorf("%w: team name %q (letters, digits, - and _, at most 32)", ErrInvalid, clip(c.Name, 40))
	}
	return nil
}

// StreamName is the team's stream.
func (c Config) StreamName() string { return "NOVA_TEAM_" + strings.ToUpper(c.team()) }

// MembersBucket is the team's key-value bucket of the membership list.
func (c Config) MembersBucket() string { return "NOVA_TEAM_" + strings.ToUpper(c.team()) + "_MEMBERS" }

func (c Config) subjectRoot() string { return "nova.team." + strings.ToLower(c.team()) + ".rec" }

func (c Config) subject(k Kind) string {
	return c.subjectRoot() + "." + strings.ReplaceAll(string(k), ".", "_")
}

// MembersKey is the key of the membership list in MembersBucket.
const MembersKey = "members"

// Connect dials the team's servers: reconnecting forever, credentials and
// TLS as configured.
func Connect(ctx context.Context, c Config, name string) (*nats.Conn, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if err := c.CheckLogin(); err != nil {
		return nil, err
	}
	opts := []nats.Option{nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(100 * time.Millisecond),
		nats.ReconnectJitter(50*time.Millisecond, 200*time.Millisecond), nats.Timeout(5 * time.Second),
		nats.RetryOnFailedConnect(true), nats.ReconnectBufSize(-1)}
	switch {
	case c.CredsFile != "":
		opts = append(opts, nats.UserCredentials(c.CredsFile))
	case c.NKeyFile != "":
		o, err := nats.NkeyOptionFromSeed(c.NKeyFile)
		if err != nil {
			return nil, fmt.Errorf("team nkey seed %s: %w", c.NKeyFile, err)
		}
		opts = append(opts, o)
	case c.Token != "":
		opts = append(opts, nats.Token(c.Token))
	}
	if c.CAFile != "" {
		opts = append(opts, nats.RootCAs(c.CAFile))
	}
	if c.CertFile != "" || c.KeyFile != "" {
		opts = append(opts, nats.ClientCert(c.CertFile, c.KeyFile))
	}
	if c.CAFile != "" || c.CertFile != "" {
		opts = append(opts, nats.Secure(&tls.Config{MinVersion: tls.VersionTLS12}))
	}
	// A first attempt without retrying tells refused credentials or TLS
	// (which no retry mends: the error says what to fix) from a hub that is
	// down (retried until it is back).
	first := append(slices.Clone(opts), nats.RetryOnFailedConnect(false))
	if nc, err := nats.Connect(c.URL, first...); err == nil {
		return nc, nil
	} else if lerr := loginRefused(c, err); lerr != nil {
		return nil, lerr
	}
	nc, err := nats.Connect(c.URL, opts...)
	if err != nil {
		if lerr := loginRefused(c, err); lerr != nil {
			return nil, lerr
		}
		return nil, fmt.Errorf("connect to the team at %s: %w", c.URL, err)
	}
	return nc, nil
}

// EnsureStream creates the team's stream when missing, with the
// replication the servers offer (3 when they can, else 1) unless configured.
func EnsureStream(ctx context.Context, js jetstream.JetStream, c Config) (jetstream.Stream, error) {
	s, err := js.Stream(ctx, c.StreamName())
	if err == nil {
		return s, nil
	}
	if !errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil, fmt.Errorf("team stream: %w", err)
	}
	cfg := jetstream.StreamConfig{
		Name: c.StreamName(), Subjects: []string{c.subjectRoot() + ".>"}, Storage: jetstream.FileStorage,
		Retention: jetstream.LimitsPolicy, Duplicates: 10 * time.Minute, MaxMsgSize: MaxRecordBytes,
		Discard: jetstream.DiscardOld, Description: "nova team records", MaxAge: c.maxAge(), MaxBytes: c.maxBytes(),
	}
	reps := []int{c.Replicas}
	if c.Replicas <= 0 {
		reps = []int{3, 1}
	}
	for _, r := range reps {
		cfg.Replicas = r
		s, err = js.CreateStream(ctx, cfg)
		if err == nil || errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			if err != nil {
				return js.Stream(ctx, c.StreamName())
			}
			return s, nil
		}
	}
	return nil, fmt.Errorf("create the team stream: %w", err)
}

// EnsureMembers returns the team's membership bucket, created when missing.
func EnsureMembers(ctx context.Context, js jetstream.JetStream, c Config, replicas int) (jetstream.KeyValue, error) {
	kv, err := js.KeyValue(ctx, c.MembersBucket())
	if err == nil {
		return kv, nil
	}
	if !errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil, fmt.Errorf("team members bucket: %w", err)
	}
	reps := []int{replicas}
	if replicas <= 0 {
		reps = []int{3, 1}
	}
	for _, r := range reps {
		kv, err = js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: c.MembersBucket(), History: 16, Replicas: r,
			Description: "nova team membership, signed by the admin key"})
		if err == nil {
			return kv, nil
		}
		if errors.Is(err, jetstream.ErrBucketExists) {
			return js.KeyValue(ctx, c.MembersBucket())
		}
	}
	return nil, fmt.Errorf("create the team members bucket: %w", err)
}

// ChangeMembers adds (add true) or removes a member key in the membership
// list, signed with the admin key; the first list of a team is made here.
func ChangeMembers(ctx context.Context, js jetstream.JetStream, c Config, admin ed25519.PrivateKey, key string, add bool) (Membership, error) {
	nk, err := NormalizeKey(key)
	if err != nil {
		return Membership{}, err
	}
	kv, err := EnsureMembers(ctx, js, c, c.Replicas)
	if err != nil {
		return Membership{}, err
	}
	for range 5 {
		var m Membership
		var rev uint64
		e, err := kv.Get(ctx, MembersKey)
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
			m = Membership{Team: c.team()}
		case err != nil:
			return Membership{}, fmt.Errorf("read the membership list: %w", err)
		default:
			if m, err = ParseMembership(e.Value()); err != nil {
				return Membership{}, err
			}
			if m.Admin != FormatKey(admin.Public().(ed25519.PublicKey)) {
				return Membership{}, fmt.Errorf("%w: the list is signed by %s", ErrNotAdmin, ShortKey(m.Admin))
			}
			rev = e.Revision()
		}
		ms := m.Members[:0:0]
		for _, k := range m.Members {
			if k != nk {
				ms = append(ms, k)
			}
		}
		if add {
			ms = append(ms, nk)
		}
		m.Members, m.Version, m.At = ms, m.Version+1, time.Now()
		signed, data, err := SignMembership(m, admin)
		if err != nil {
			return Membership{}, err
		}
		if rev == 0 {
			_, err = kv.Create(ctx, MembersKey, data)
		} else {
			_, err = kv.Update(ctx, MembersKey, data, rev)
		}
		if err == nil {
			return signed, nil
		}
		if !errors.Is(err, jetstream.ErrKeyExists) && !strings.Contains(err.Error(), "wrong last sequence") {
			return Membership{}, fmt.Errorf("write the membership list: %w", err)
		}
	}
	return Membership{}, fmt.Errorf("write the membership list: too many concurrent changes")
}

// SyncStatus is what the syncer knows of the link.
type SyncStatus struct {
	Connected   bool      `json:"connected"`
	URL         string    `json:"url,omitempty"`
	LastError   string    `json:"lastError,omitempty"`
	LastPublish time.Time `json:"lastPublish,omitzero"`
	LastApply   time.Time `json:"lastApply,omitzero"`
	StreamLast  uint64    `json:"streamLast"`
	Published   int       `json:"published"`
	Received    int       `json:"received"`
	Resets      int       `json:"resets"`
	// Resyncs counts the full reads of the team's snapshot (the position
	// was behind what the stream keeps).
	Resyncs int `json:"resyncs"`
	// Lost counts stream records dropped before this workspace read them
	// that no snapshot could bring back (a team without a snapshot).
	Lost uint64 `json:"lost"`
}

// Syncer moves records between a Store and the team's stream.
type Syncer struct {
	store *Store
	cfg   Config
	name  string
	// OnApply is told of every batch applied (optional; called outside
	// transactions).
	OnApply func(ApplyResult)
	logf    func(string, ...any)

	mu sync.Mutex
	st SyncStatus
	nc *nats.Conn
	js jetstream.JetStream

	// snapReady: the snapshot bucket was found or made (publish loop only).
	snapReady bool
	// membersRead is set once the membership list as the hub holds it was
	// read (the watch's initial values): until then this workspace may not
	// know yet that it is a member.
	membersRead atomic.Bool
}

// NewSyncer returns a syncer; Run starts it.
func NewSyncer(s *Store, c Config, logf func(string, ...any)) *Syncer {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	return &Syncer{store: s, cfg: c, name: "nova " + ShortKey(s.Self()), logf: logf}
}

// ConsumerName is this workspace's durable consumer.
func (y *Syncer) ConsumerName() string {
	sum := sha256.Sum256([]byte(y.store.Self()))
	return "ws_" + hex.EncodeToString(sum[:8])
}

// Status returns the link's state.
func (y *Syncer) Status() SyncStatus {
	y.mu.Lock()
	defer y.mu.Unlock()
	st := y.st
	if y.nc != nil {
		st.Connected = y.nc.IsConnected()
		st.URL = y.nc.ConnectedUrlRedacted()
	}
	return st
}

func (y *Syncer) setErr(err error) {
	y.mu.Lock()
	defer y.mu.Unlock()
	if err == nil {
		y.st.LastError = ""
		return
	}
	y.st.LastError = err.Error()
}

// Run syncs until ctx ends: the outbox is published, the team's records
// applied, the membership list followed. Losing the servers is not an
// error: it reconnects and carries on. It returns nil when ctx ends.
func (y *Syncer) Run(ctx context.Context) error {
	nc, err := Connect(ctx, y.cfg, y.name)
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return fmt.Errorf("jetstream: %w", err)
	}
	y.mu.Lock()
	y.nc, y.js = nc, js
	y.mu.Unlock()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); y.publishLoop(ctx, js) }()
	go func() { defer wg.Done(); y.membersLoop(ctx, js) }()
	y.consumeLoop(ctx, js)
	wg.Wait()
	return nil
}

func backoff(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// publishLoop sends the outbox in batches, each record with its id as the
// message id, and removes what the stream acknowledged.
func (y *Syncer) publishLoop(ctx context.Context, js jetstream.JetStream) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for ctx.Err() == nil {
		n, err := y.publishBatch(ctx, js)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			y.setErr(err)
			backoff(ctx, 250*time.Millisecond)
			continue
		}
		if n > 0 {
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-y.store.Kicked():
		case <-tick.C:
		}
	}
}

const publishBatch = 512

func (y *Syncer) publishBatch(ctx context.Context, js jetstream.JetStream) (int, error) {
	if !y.snapReady {
		// Only a workspace that holds records makes and fills the
		// snapshot: an empty one made by a newcomer would hide that the
		// records are missing from it.
		if st, err := y.store.LocalStatus(ctx); err != nil || st.Records == 0 {
			return 0, err
		}
		if _, err := EnsureSnapshot(ctx, js, y.cfg); err != nil {
			return 0, err
		}
		if err := y.fillSnapshot(ctx, js); err != nil {
			return 0, err
		}
		y.snapReady = true
	}
	entries, err := y.store.Outbox(publishBatch)
	if err != nil || len(entries) == 0 {
		return 0, err
	}
	type pending struct {
		key     uint64
		f, snap jetstream.PubAckFuture
	}
	ps := make([]pending, 0, len(entries))
	var firstErr error
	for _, e := range entries {
		msg := &nats.Msg{Subject: y.cfg.subject(e.Kind), Data: e.Data}
		f, err := js.PublishMsgAsync(msg, jetstream.WithMsgID(e.ID.String()))
		if err != nil {
			firstErr = err
			break
		}
		// The record enters the snapshot too: an entry leaves the outbox
		// once both acknowledged it.
		sm, err := y.cfg.snapshotMsg(e.Data)
		if err != nil {
			firstErr = err
			break
		}
		sf, err := js.PublishMsgAsync(sm)
		if err != nil {
			firstErr = err
			break
		}
		ps = append(ps, pending{key: e.Key, f: f, snap: sf})
	}
	var acked []uint64
	timeout := time.NewTimer(5 * time.Second)
	defer timeout.Stop()
	var last uint64
wait:
	for _, p := range ps {
		ok := 0
		for _, f := range []jetstream.PubAckFuture{p.f, p.snap} {
			select {
			case a := <-f.Ok():
				ok++
				if f == p.f {
					last = max(last, a.Sequence)
				}
			case err := <-f.Err():
				if firstErr == nil {
					firstErr = err
				}
				if errors.Is(err, jetstream.ErrNoStreamResponse) || strings.Contains(err.Error(), "no responders") {
					y.snapReady = false // the snapshot bucket may be gone: made again next round
				}
			case <-timeout.C:
				if firstErr == nil {
					firstErr = errors.New("the hub did not acknowledge in 5s")
				}
				break wait
			case <-ctx.Done():
				break wait
			}
		}
		if ok == 2 {
			acked = append(acked, p.key)
		}
	}
	if err := y.store.Acked(acked); err != nil {
		return 0, err
	}
	if len(acked) > 0 {
		y.mu.Lock()
		y.st.LastPublish = time.Now()
		y.st.Published += len(acked)
		y.st.StreamLast = max(y.st.StreamLast, last)
		y.mu.Unlock()
	}
	if firstErr != nil {
		return len(acked), fmt.Errorf("publish to the team: %w", firstErr)
	}
	y.setErr(nil)
	return len(acked), nil
}

// membersLoop follows the membership list.
func (y *Syncer) membersLoop(ctx context.Context, js jetstream.JetStream) {
	for ctx.Err() == nil {
		err := y.watchMembers(ctx, js)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			y.logf("team: membership: %v", err)
		}
		backoff(ctx, 500*time.Millisecond)
	}
}

func (y *Syncer) watchMembers(ctx context.Context, js jetstream.JetStream) error {
	kv, err := EnsureMembers(ctx, js, y.cfg, y.cfg.Replicas)
	if err != nil {
		return err
	}
	w, err := kv.Watch(ctx, MembersKey)
	if err != nil {
		return err
	}
	defer func() { _ = w.Stop() }()
	check := time.NewTicker(2 * time.Second)
	defer check.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case e, ok := <-w.Updates():
			if !ok {
				return errors.New("membership watch ended")
			}
			if e == nil { // the initial values were all delivered
				y.membersRead.Store(true)
				continue
			}
			if e.Operation() != jetstream.KeyValuePut {
				continue
			}
			if _, err := y.store.SetMembership(ctx, e.Value()); err != nil {
				y.logf("team: membership list refused: %v", err)
			}
		case <-check.C:
			// A bucket deleted by hand ends nothing visibly: look again.
			if _, err := js.KeyValue(ctx, y.cfg.MembersBucket()); err != nil {
				return err
			}
		}
	}
}

// consumeLoop runs the durable consumer, starting again after the stream
// or the consumer went away.
func (y *Syncer) consumeLoop(ctx context.Context, js jetstream.JetStream) {
	for ctx.Err() == nil {
		err := y.consume(ctx, js)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			y.setErr(err)
			y.logf("team: %v", err)
		}
		backoff(ctx, 200*time.Millisecond)
	}
}

const applyBatch = 1000

// The consumer's pull requests: how long one waits, and the heartbeat the
// server sends meanwhile (two missed: the request is made again).
const (
	consumeExpiry    = 10 * time.Second
	consumeHeartbeat = 2 * time.Second
)

// watchStream looks at the stream every second until ctx ends; it reports
// on gone when the stream was deleted or made anew, and keeps the stream's
// last sequence in the status.
func (y *Syncer) watchStream(ctx context.Context, js jetstream.JetStream, created string, gone chan<- error) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		si, err := js.Stream(cctx, y.cfg.StreamName())
		cancel()
		var report error
		switch {
		case errors.Is(err, jetstream.ErrStreamNotFound):
			report = errors.New("the team stream is gone; making it again")
		case err == nil:
			if c := si.CachedInfo(); c != nil {
				if c.Created.UTC().Format(time.RFC3339Nano) != created {
					report = errors.New("the team stream was made anew")
				}
				y.mu.Lock()
				y.st.StreamLast = c.State.LastSeq
				y.mu.Unlock()
			}
		}
		if report != nil {
			select {
			case gone <- report:
			default:
			}
			return
		}
	}
}

func (y *Syncer) consume(ctx context.Context, js jetstream.JetStream) error {
	stream, err := EnsureStream(ctx, js, y.cfg)
	if err != nil {
		return err
	}
	info, err := stream.Info(ctx)
	if err != nil {
		return fmt.Errorf("team stream: %w", err)
	}
	created := info.Created.UTC().Format(time.RFC3339Nano)
	pos, seen, err := y.store.StreamMark()
	if err != nil {
		return err
	}
	if seen != created {
		// A stream seen for the first time, or made anew (deleted by hand):
		// read it from the start and send it everything held here.
		n, err := y.store.ResetStream(created, seen != "")
		if err != nil {
			return err
		}
		if seen != "" {
			y.logf("team: the stream was made anew; %d records queued again", n)
			y.mu.Lock()
			y.st.Resets++
			y.mu.Unlock()
			_ = js.DeleteConsumer(ctx, y.cfg.StreamName(), y.ConsumerName())
		}
		pos = 0
	}
	if first := info.State.FirstSeq; first > pos+1 {
		// Records this workspace never read were dropped (retention).
		if err := y.catchUp(ctx, js, pos, first-1); err != nil {
			return err
		}
		pos = first - 1
	}
	cons, err := js.Consumer(ctx, y.cfg.StreamName(), y.ConsumerName())
	if errors.Is(err, jetstream.ErrConsumerNotFound) {
		cc := jetstream.ConsumerConfig{Durable: y.ConsumerName(), AckPolicy: jetstream.AckExplicitPolicy,
			FilterSubject: y.cfg.subjectRoot() + ".>", MaxAckPending: 20000, AckWait: 30 * time.Second,
			DeliverPolicy: jetstream.DeliverAllPolicy, Description: "nova workspace " + ShortKey(y.store.Self())}
		if pos > 0 {
			cc.DeliverPolicy, cc.OptStartSeq = jetstream.DeliverByStartSequencePolicy, pos+1
		}
		cons, err = js.CreateOrUpdateConsumer(ctx, y.cfg.StreamName(), cc)
	}
	if err != nil {
		return fmt.Errorf("team consumer: %w", err)
	}
	msgs := make(chan jetstream.Msg, applyBatch)
	fail := make(chan error, 1)
	cctx, err := cons.Consume(func(m jetstream.Msg) {
		select {
		case msgs <- m:
		case <-ctx.Done():
		}
	}, jetstream.PullMaxMessages(applyBatch),
		// A pull request lost with the server that held it (killed, or a
		// consumer leader that moved) is noticed after two missed
		// heartbeats: 4 s, not the 30 s of the defaults.
		jetstream.PullExpiry(consumeExpiry), jetstream.PullHeartbeat(consumeHeartbeat),
		jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) {
			if errors.Is(err, jetstream.ErrConsumerDeleted) || errors.Is(err, jetstream.ErrConsumerNotFound) ||
				errors.Is(err, jetstream.ErrNoHeartbeat) {
				select {
				case fail <- err:
				default:
				}
			}
		}))
	if err != nil {
		return fmt.Errorf("team consumer: %w", err)
	}
	defer cctx.Stop()
	y.setErr(nil)
	// The stream is looked at apart from the messages: a slow answer (a
	// stream leader being elected) never holds up applying them, and so
	// never the consumer's heartbeats.
	gone := make(chan error, 1)
	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	go y.watchStream(wctx, js, created, gone)
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-fail:
			return fmt.Errorf("team consumer: %w", err)
		case err := <-gone:
			return err
		case m := <-msgs:
			batch := []jetstream.Msg{m}
		drain:
			for len(batch) < applyBatch {
				select {
				case m := <-msgs:
					batch = append(batch, m)
				default:
					break drain
				}
			}
			if err := y.fillGap(ctx, js, batch); err != nil {
				return err
			}
			if err := y.apply(ctx, batch); err != nil {
				return err
			}
		}
	}
}

func (y *Syncer) apply(ctx context.Context, batch []jetstream.Msg) error {
	in := make([]Incoming, 0, len(batch))
	for _, m := range batch {
		var seq uint64
		if md, err := m.Metadata(); err == nil {
			seq = md.Sequence.Stream
		}
		in = append(in, Incoming{Data: m.Data(), Seq: seq})
	}
	res, err := y.store.Apply(ctx, in)
	if err != nil {
		// Not acknowledged: the messages come again.
		return fmt.Errorf("apply team records: %w", err)
	}
	for _, m := range batch {
		_ = m.Ack()
	}
	y.mu.Lock()
	y.st.LastApply = time.Now()
	y.st.Received += len(batch)
	y.mu.Unlock()
	if y.OnApply != nil && (res.Applied > 0 || len(res.Refused) > 0) {
		y.OnApply(res)
	}
	return nil
}

// Pending asks the servers how many of the team's records this workspace
// has not applied yet (the consumer's pending and unacknowledged messages)
// and the stream's last sequence. ok is false when not connected.
func (y *Syncer) Pending(ctx context.Context) (pending, last uint64, ok bool) {
	y.mu.Lock()
	js, nc := y.js, y.nc
	y.mu.Unlock()
	if js == nil || nc == nil || !nc.IsConnected() {
		return 0, 0, false
	}
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	s, err := js.Stream(cctx, y.cfg.StreamName())
	if err != nil {
		return 0, 0, false
	}
	if c := s.CachedInfo(); c != nil {
		last = c.State.LastSeq
	}
	c, err := js.Consumer(cctx, y.cfg.StreamName(), y.ConsumerName())
	if err != nil {
		return 0, last, false
	}
	info := c.CachedInfo()
	if info == nil {
		return 0, last, false
	}
	return info.NumPending + uint64(info.NumAckPending), last, true
}

// Idle waits until the membership list was read, the outbox is empty and
// nothing is pending, or ctx ends.
func (y *Syncer) Idle(ctx context.Context) error {
	t := time.NewTicker(25 * time.Millisecond)
	defer t.Stop()
	for {
		st, err := y.store.LocalStatus(ctx)
		if err != nil {
			return err
		}
		if st.Outbox == 0 && y.membersRead.Load() {
			if p, _, ok := y.Pending(ctx); ok && p == 0 {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// InitMembers writes the team's first membership list (no members yet),
// signed by admin, when the bucket holds none: a workspace joining pins the
// admin key from it.
func InitMembers(ctx context.Context, js jetstream.JetStream, c Config, admin ed25519.PrivateKey) (Membership, error) {
	kv, err := EnsureMembers(ctx, js, c, c.Replicas)
	if err != nil {
		return Membership{}, err
	}
	if e, err := kv.Get(ctx, MembersKey); err == nil {
		return ParseMembership(e.Value())
	} else if !errors.Is(err, jetstream.ErrKeyNotFound) {
		return Membership{}, fmt.Errorf("read the membership list: %w", err)
	}
	m, data, err := SignMembership(Membership{Team: c.team(), Version: 1, Members: []string{}, At: time.Now()}, admin)
	if err != nil {
		return Membership{}, err
	}
	if _, err := kv.Create(ctx, MembersKey, data); err != nil && !errors.Is(err, jetstream.ErrKeyExists) {
		return Membership{}, fmt.Errorf("write the membership list: %w", err)
	}
	return m, nil
}

// FetchMembership reads the team's membership list from the servers.
func FetchMembership(ctx context.Context, js jetstream.JetStream, c Config) (Membership, error) {
	kv, err := js.KeyValue(ctx, c.MembersBucket())
	if err != nil {
		return Membership{}, fmt.Errorf("team members bucket: %w", err)
	}
	e, err := kv.Get(ctx, MembersKey)
	if err != nil {
		return Membership{}, fmt.Errorf("read the membership list: %w", err)
	}
	return ParseMembership(e.Value())
}
