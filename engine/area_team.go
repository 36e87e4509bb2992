package engine

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/ace"
	"github.com/nova-dev/nova/engine/knowledge/facts"
	"github.com/nova-dev/nova/engine/team"
	"github.com/nova-dev/nova/engine/team/teamlink"
	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/engine/workspace"
	"github.com/nova-dev/nova/storage"
)

// TeamVerbs share what this workspace learns with its team over NATS
// JetStream (engine/team): signed records, an outbox committed with each
// local write, a durable consumer per workspace.
type TeamVerbs interface {
	// TeamStatus reports the team state: members, lag, outbox, last sync,
	// refused records.
	TeamStatus(ctx context.Context) (TeamStatus, error)
	// TeamJoin joins the team at req.URL: it writes the team: section of
	// config.yaml, pins the admin key (given, or read from the team's
	// membership list), starts syncing and waits up to req.WaitMS for the
	// first sync.
	TeamJoin(ctx context.Context, req TeamJoinRequest) (TeamStatus, error)
	// TeamSync publishes the outbox and applies the team's records, and
	// returns once nothing is left either way (or after req.TimeoutMS).
	TeamSync(ctx context.Context, req TeamSyncRequest) (TeamStatus, error)
	// TeamMembersChange adds or removes a member key in the team's
	// membership list, signed with the admin key file (req.AdminKeyFile, or
	// config team.adminKey).
	TeamMembersChange(ctx context.Context, req TeamMembersRequest) (team.Membership, error)
	// TeamShared lists the shared items as the team's records merge them:
	// patterns with their backers, fact chains, rule and node versions.
	TeamShared(ctx context.Context) (team.Views, error)
	// TeamShareNode marks a vault node shared with the team and publishes
	// it (a new version when it changed since); from then on each edit of
	// the node is published as a new version in the edit's transaction,
	// until TeamUnshare. It returns the shared item's subject.
	TeamShareNode(ctx context.Context, id uint64) (TeamShareResult, error)
	// TeamShareRule marks a playbook rule (agent and rule id) shared with
	// the team, as TeamShareNode does for a node.
	TeamShareRule(ctx context.Context, req TeamShareRuleRequest) (TeamShareResult, error)
	// TeamUnshare removes the shared mark of a rule or a vault node: later
	// edits are no longer published (what was published stays with the
	// team).
	TeamUnshare(ctx context.Context, req TeamUnshareRequest) (TeamUnshareResult, error)
	// TeamMarks lists the rules and vault nodes this workspace marked
	// shared.
	TeamMarks(ctx context.Context) ([]team.Mark, error)
	// TeamTake applies a teammate's current version of a shared rule or
	// vault node here over the local edit that kept it out (a teammate's
	// newer version never overwrites a local edit by itself).
	TeamTake(ctx context.Context, req TeamUnshareRequest) (TeamTakeResult, error)
}

// TeamStatus is the workspace's team state.
type TeamStatus struct {
	Joined bool   `json:"joined"`
	URL    string `json:"url,omitempty"`
	Team   string `json:"team,omitempty"`
	// Key is this workspace's public key: what the admin adds with `nova
	// team members add KEY`.
	Key string `json:"key"`
	// Member: the membership list holds Key.
	Member  bool         `json:"member"`
	Admin   string       `json:"admin,omitempty"`
	Members []TeamMember `json:"members"`
	// Connected: a sync is running in this process and reaches a server.
	Connected bool   `json:"connected"`
	LastError string `json:"lastError,omitempty"`
	// Lag is how many of the team's records the servers hold that this
	// workspace has not applied (known only when connected).
	Lag        uint64 `json:"lag"`
	LagKnown   bool   `json:"lagKnown"`
	StreamLast uint64 `json:"streamLast"`
	Position   uint64 `json:"position"`
	Outbox     int    `json:"outbox"`
	Records    int    `json:"records"`
	// LastSync is when records were last applied from the stream.
	LastSync      time.Time            `json:"lastSync,omitzero"`
	Refused       map[string]int       `json:"refused"`
	RefusedTotal  int                  `json:"refusedTotal"`
	RecentRefused []team.RefusedRecord `json:"recentRefused"`
	Shared        TeamCounts           `json:"shared"`
	// Marked counts the rules and nodes this workspace marked shared.
	Marked int `json:"marked"`
	// Resyncs counts the reads of the team's snapshot by this process's
	// sync (its position was behind the stream's retention); Lost counts
	// records dropped by retention that no snapshot brought back.
	Resyncs int    `json:"resyncs"`
	Lost    uint64 `json:"lost"`
}

// TeamMember is one member key.
type TeamMember struct {
	Key  string `json:"key"`
	Name string `json:"name"`
	Self bool   `json:"self,omitempty"`
}

// TeamCounts counts the shared items.
type TeamCounts struct {
	Patterns       int `json:"patterns"`
	ActivePatterns int `json:"activePatterns"`
	Facts          int `json:"facts"`
	Rules          int `json:"rules"`
	Nodes          int `json:"nodes"`
}

// TeamJoinRequest is TeamJoin's input.
type TeamJoinRequest struct {
	URL  string `json:"url"`
	Name string `json:"name,omitempty"`
	// Admin pins the team's admin key; empty: the key that signed the
	// team's membership list (shown to check).
	Admin string `json:"admin,omitempty"`
	Token string `json:"token,omitempty"`
	NKey  string `json:"nkey,omitempty"`
	Creds string `json:"creds,omitempty"`
	// WaitMS bounds the wait for the first sync (0: 5000).
	WaitMS int `json:"waitMs,omitempty"`
}

// TeamSyncRequest is TeamSync's input.
type TeamSyncRequest struct {
	// TimeoutMS bounds the sync (0: 10000).
	TimeoutMS int `json:"timeoutMs,omitempty"`
}

// TeamMembersRequest is TeamMembersChange's input.
type TeamMembersRequest struct {
	Key string `json:"key"`
	// Remove: remove the key (else add it).
	Remove       bool   `json:"remove,omitempty"`
	AdminKeyFile string `json:"adminKeyFile,omitempty"`
}

// TeamShareRuleRequest names a playbook rule.
type TeamShareRuleRequest struct {
	Agent  string `json:"agent"`
	RuleID string `json:"ruleId"`
}

// TeamUnshareRequest names a marked item: a vault node id, or an agent and
// a rule id.
type TeamUnshareRequest struct {
	NodeID uint64 `json:"nodeId,omitempty"`
	Agent  string `json:"agent,omitempty"`
	RuleID string `json:"ruleId,omitempty"`
}

// TeamUnshareResult says whether the item was marked.
type TeamUnshareResult struct {
	WasShared bool `json:"wasShared"`
}

// TeamTakeResult says whether the local copy changed.
type TeamTakeResult struct {
	Changed bool `json:"changed"`
}

// TeamShareResult is the shared item.
type TeamShareResult struct {
	Subject string `json:"subject"`
}

// teamArea is the team share of a Local: the store (built on first use),
// the links into the vault and facts, and the sync running in the
// background while the workspace is open and joined.
type teamArea struct{ *core }

// teamState is the team share's state in a workspace's core.
type teamState struct {
	mu     sync.Mutex
	store  *team.Store
	linker *teamlink.Linker
	syncer *team.Syncer
	cancel context.CancelFunc
	done   chan struct{}
}

func (a teamArea) teamCfg() workspace.TeamConfig { return a.Config().Team }

// teamConfig is the engine/team configuration of the team: section.
func (a teamArea) teamConfig() team.Config {
	c := a.teamCfg()
	root := a.ws.Root
	tok := c.Token
	if strings.Contains(tok, "${") {
		tok = os.Expand(tok, a.getenv)
	}
	return team.Config{URL: c.URL, Name: c.Name, Token: tok, NKeyFile: workspace.TeamPath(root, c.NKey),
		CredsFile: workspace.TeamPath(root, c.Creds), CAFile: workspace.TeamPath(root, c.TLS.CA),
		CertFile: workspace.TeamPath(root, c.TLS.Cert), KeyFile: workspace.TeamPath(root, c.TLS.Key), Replicas: c.Replicas,
		MaxAge: time.Duration(c.Retention.MaxAge), MaxBytes: c.Retention.MaxBytes}
}

// teamStore returns the store, built on first use (it makes the workspace
// key when there is none yet, so it needs a writable workspace then).
func (a teamArea) teamStore() (*team.Store, error) {
	a.tm.mu.Lock()
	defer a.tm.mu.Unlock()
	if a.tm.store != nil {
		return a.tm.store, nil
	}
	var key ed25519.PrivateKey
	err := a.db.View(func(tx *bolt.Tx) error {
		var err error
		key, err = vault.SigningKeyTx(tx)
		return err
	})
	if err == nil && key == nil {
		if a.db.ReadOnly() {
			return nil, fmt.Errorf("team: this workspace has no key yet: %w", storage.ErrReadOnly)
		}
		err = a.db.Update(func(tx *bolt.Tx) error {
			var err error
			key, err = vault.SigningKeyTx(tx)
			return err
		})
	}
	if err != nil {
		return nil, fmt.Errorf("team: the workspace key: %w", err)
	}
	s, err := team.Open(team.Options{DB: a.db, Key: key, Now: a.now})
	if err != nil {
		return nil, err
	}
	a.tm.store = s
	a.tm.linker = teamlink.New(s, nil)
	return s, nil
}

// attachTeam links the vault's wisdom and the facts service to the team
// when the workspace has joined one (called when they are built).
func (l *core) attachTeamWisdom(v *vault.Vault) {
	if !l.Config().Team.Joined() || l.db.ReadOnly() {
		return
	}
	if _, err := (teamArea{l}).teamStore(); err != nil {
		return
	}
	l.tm.linker.SetWisdom(v.Wisdom())
	v.Wisdom().SetTeamHook(l.tm.linker.WisdomHook)
	l.tm.linker.SetVault(v)
}

// startTeam starts the background sync of a joined, writable workspace
// (Open, TeamJoin).
func (l *core) startTeam() error {
	a := teamArea{l}
	if !a.teamCfg().Joined() || l.db.ReadOnly() {
		return nil
	}
	s, err := a.teamStore()
	if err != nil {
		return err
	}
	// Projection needs the vault's wisdom and the facts service linked.
	a.tm.linker.SetWisdom(l.Vault().Wisdom())
	l.Vault().Wisdom().SetTeamHook(a.tm.linker.WisdomHook)
	l.Knowledge().Facts().SetTeam(a.tm.linker)
	// Teammates' rules and nodes merge into the playbooks and the vault;
	// edits of the ones marked shared here are published.
	a.tm.linker.SetPlaybooks(l.ACE().Playbooks())
	a.tm.linker.SetVault(l.Vault())
	a.tm.mu.Lock()
	defer a.tm.mu.Unlock()
	if a.tm.syncer != nil {
		return nil
	}
	y := team.NewSyncer(s, a.teamConfig(), func(f string, args ...any) {
		l.Publish(Event{Type: EventLog, Topic: TopicTeam, Text: fmt.Sprintf(f, args...)})
	})
	y.OnApply = func(r team.ApplyResult) { l.publishTeamRecords(r) }
	ctx, cancel := context.WithCancel(context.Background())
	a.tm.syncer, a.tm.cancel, a.tm.done = y, cancel, make(chan struct{})
	go func() {
		defer close(a.tm.done)
		if err := y.Run(ctx); err != nil {
			l.Publish(Event{Type: EventLog, Topic: TopicTeam, Text: "team sync: " + err.Error()})
		}
	}()
	return nil
}

// stopTeam stops the sync; the outbox gets up to a second to reach a
// connected hub first (what is left is sent by the next process).
func (l *core) stopTeam() {
	a := teamArea{l}
	a.tm.mu.Lock()
	y, cancel, done := a.tm.syncer, a.tm.cancel, a.tm.done
	a.tm.syncer, a.tm.cancel = nil, nil
	a.tm.mu.Unlock()
	if y == nil {
		return
	}
	if y.Status().Connected {
		if st, err := a.tm.store.LocalStatus(context.Background()); err == nil && st.Outbox > 0 {
			ctx, c := context.WithTimeout(context.Background(), time.Second)
			_ = y.Idle(ctx)
			c()
		}
	}
	cancel()
	<-done
}

// publishTeamRecords tells the activity feed what teammates shared.
func (l *core) publishTeamRecords(r team.ApplyResult) {
	for _, rec := range r.Records {
		if rec.Author == l.tm.store.Self() {
			continue
		}
		l.Publish(Event{Type: EventTeamRecord, Topic: TopicTeam, Op: string(rec.Kind), Status: team.ShortKey(rec.Author),
			Text: teamRecordSummary(rec)})
	}
	if n := 0; len(r.Refused) > 0 {
		for _, c := range r.Refused {
			n += c
		}
		l.Publish(Event{Type: EventLog, Topic: TopicTeam, Done: n, Text: fmt.Sprintf("team: %d record(s) refused (%v)", n, r.Refused)})
	}
	l.Publish(Event{Type: EventChanged, Topic: TopicTeam, Text: "records", Done: r.Applied})
}

func teamRecordSummary(rec team.Record) string {
	var body struct {
		Content string `json:"content"`
		Text    string `json:"text"`
		Title   string `json:"title"`
	}
	_ = json.Unmarshal(rec.Body, &body)
	s := body.Title
	if s == "" {
		s = body.Content
	}
	if s == "" {
		s = body.Text
	}
	// A teammate's text is data: no control characters (no terminal
	// escapes) reach a screen.
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || (r >= 0x7f && r < 0xa0) {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 120 {
		s = string(r[:117]) + "..."
	}
	return s
}

func (a teamArea) syncerNow() *team.Syncer {
	a.tm.mu.Lock()
	defer a.tm.mu.Unlock()
	return a.tm.syncer
}

// TeamStatus implements TeamVerbs.
func (a teamArea) TeamStatus(ctx context.Context) (TeamStatus, error) {
	if err := ctx.Err(); err != nil {
		return TeamStatus{}, err
	}
	c := a.teamCfg()
	st := TeamStatus{Joined: c.Joined(), URL: c.URL, Team: cmpOr(c.Name, team.DefaultTeam), Admin: c.Admin,
		Members: []TeamMember{}, Refused: map[string]int{}, RecentRefused: []team.RefusedRecord{}}
	s, err := a.teamStore()
	if err != nil {
		if errors.Is(err, storage.ErrReadOnly) {
			return st, nil
		}
		return st, err
	}
	ls, err := s.LocalStatus(ctx)
	if err != nil {
		return st, err
	}
	st.Key, st.Position, st.Outbox, st.Records, st.LastSync = ls.Self, ls.Position, ls.Outbox, ls.Records, ls.LastSync
	st.Refused, st.RefusedTotal, st.RecentRefused = ls.Refused, ls.RefusedTotal, ls.RecentRefused
	if ls.Admin != "" {
		st.Admin = ls.Admin
	}
	for _, k := range ls.Members {
		st.Members = append(st.Members, TeamMember{Key: k, Name: team.ShortKey(k), Self: k == ls.Self})
		if k == ls.Self {
			st.Member = true
		}
	}
	if y := a.syncerNow(); y != nil {
		ys := y.Status()
		st.Connected, st.LastError, st.StreamLast = ys.Connected, ys.LastError, ys.StreamLast
		st.Resyncs, st.Lost = ys.Resyncs, ys.Lost
		if p, last, ok := y.Pending(ctx); ok {
			st.Lag, st.LagKnown, st.StreamLast = p, true, last
		}
	}
	if ms, err := s.Marks(ctx); err == nil {
		st.Marked = len(ms)
	}
	if v, err := s.Views(ctx); err == nil {
		st.Shared = TeamCounts{Patterns: len(v.Wisdom), Facts: len(v.Facts), Rules: len(v.Rules), Nodes: len(v.Nodes)}
		for _, w := range v.Wisdom {
			if w.Status == team.StatusActive {
				st.Shared.ActivePatterns++
			}
		}
	}
	return st, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// TeamJoin implements TeamVerbs.
func (a teamArea) TeamJoin(ctx context.Context, req TeamJoinRequest) (TeamStatus, error) {
	if err := ctx.Err(); err != nil {
		return TeamStatus{}, err
	}
	if a.db.ReadOnly() {
		return TeamStatus{}, storage.ErrReadOnly
	}
	url := strings.TrimSpace(req.URL)
	if url == "" {
		return TeamStatus{}, fmt.Errorf("%w: team join needs the hub's URL (nats://host:4222)", team.ErrInvalid)
	}
	s, err := a.teamStore()
	if err != nil {
		return TeamStatus{}, err
	}
	c := a.teamConfig()
	c.URL = url
	if req.Name != "" {
		c.Name = req.Name
	}
	if req.Token != "" {
		c.Token = req.Token
	}
	if req.NKey != "" {
		c.NKeyFile = workspace.TeamPath(a.ws.Root, req.NKey)
	}
	if req.Creds != "" {
		c.CredsFile = workspace.TeamPath(a.ws.Root, req.Creds)
	}
	// Reach the hub and read who the admin is before writing anything.
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	nc, err := team.Connect(cctx, c, "nova join")
	if err != nil {
		return TeamStatus{}, err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return TeamStatus{}, fmt.Errorf("jetstream: %w", err)
	}
	admin := strings.TrimSpace(req.Admin)
	if m, err := team.FetchMembership(cctx, js, c); err == nil {
		if admin != "" {
			if nk, err := team.NormalizeKey(admin); err != nil {
				return TeamStatus{}, err
			} else if nk != m.Admin {
				return TeamStatus{}, fmt.Errorf("%w: the team's list is signed by %s, not the admin key you gave", team.ErrNotAdmin, team.ShortKey(m.Admin))
			}
		}
		admin = m.Admin
	} else if admin == "" {
		return TeamStatus{}, fmt.Errorf("team join: %w (is `nova hub` running there? or pass --admin KEY)", err)
	}
	if err := s.PinAdmin(ctx, admin); err != nil {
		return TeamStatus{}, err
	}
	kv := map[string]string{"url": url, "admin": admin}
	order := []string{"url", "name", "admin", "token", "nkey", "creds"}
	if req.Name != "" {
		kv["name"] = req.Name
	}
	if req.Token != "" {
		kv["token"] = req.Token
	}
	if req.NKey != "" {
		kv["nkey"] = req.NKey
	}
	if req.Creds != "" {
		kv["creds"] = req.Creds
	}
	if err := workspace.SetTeamConfig(a.ws.ConfigPath(), kv, order); err != nil {
		return TeamStatus{}, fmt.Errorf("save team config: %w", err)
	}
	a.mu.Lock()
	a.cfg.Team.URL, a.cfg.Team.Admin = url, admin
	if req.Name != "" {
		a.cfg.Team.Name = req.Name
	}
	if req.Token != "" {
		a.cfg.Team.Token = req.Token
	}
	if req.NKey != "" {
		a.cfg.Team.NKey = req.NKey
	}
	if req.Creds != "" {
		a.cfg.Team.Creds = req.Creds
	}
	a.mu.Unlock()
	if err := a.startTeam(); err != nil {
		return TeamStatus{}, err
	}
	wait := time.Duration(req.WaitMS) * time.Millisecond
	if wait <= 0 {
		wait = 5 * time.Second
	}
	return a.TeamSync(ctx, TeamSyncRequest{TimeoutMS: int(wait / time.Millisecond)})
}

// TeamSync implements TeamVerbs.
func (a teamArea) TeamSync(ctx context.Context, req TeamSyncRequest) (TeamStatus, error) {
	if !a.teamCfg().Joined() {
		return TeamStatus{}, team.ErrNotJoined
	}
	if err := a.startTeam(); err != nil {
		return TeamStatus{}, err
	}
	y := a.syncerNow()
	if y == nil {
		return a.TeamStatus(ctx)
	}
	d := time.Duration(req.TimeoutMS) * time.Millisecond
	if d <= 0 {
		d = 10 * time.Second
	}
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	err := y.Idle(wctx)
	st, serr := a.TeamStatus(ctx)
	if serr != nil {
		return st, serr
	}
	if err != nil && ctx.Err() == nil {
		// Not caught up in time (the hub is unreachable): report, not fail.
		if st.LastError == "" {
			st.LastError = "not caught up in " + d.String() + " (is the hub reachable?)"
		}
		return st, nil
	}
	return st, ctx.Err()
}

// TeamMembersChange implements TeamVerbs.
func (a teamArea) TeamMembersChange(ctx context.Context, req TeamMembersRequest) (team.Membership, error) {
	if !a.teamCfg().Joined() {
		return team.Membership{}, team.ErrNotJoined
	}
	file := req.AdminKeyFile
	if file == "" {
		file = workspace.TeamPath(a.ws.Root, a.teamCfg().AdminKey)
	}
	if file == "" {
		return team.Membership{}, fmt.Errorf("%w: members add|remove needs the admin key file (--admin-key FILE; `nova hub` printed its path)", team.ErrNotAdmin)
	}
	admin, err := team.LoadAdminKey(file)
	if err != nil {
		return team.Membership{}, err
	}
	c := a.teamConfig()
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	nc, err := team.Connect(cctx, c, "nova members")
	if err != nil {
		return team.Membership{}, err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return team.Membership{}, fmt.Errorf("jetstream: %w", err)
	}
	return team.ChangeMembers(cctx, js, c, admin, req.Key, !req.Remove)
}

// TeamShared implements TeamVerbs.
func (a teamArea) TeamShared(ctx context.Context) (team.Views, error) {
	s, err := a.teamStore()
	if err != nil {
		return team.Views{}, err
	}
	return s.Views(ctx)
}

func (a teamArea) joinedStore() (*team.Store, error) {
	if !a.teamCfg().Joined() {
		return nil, team.ErrNotJoined
	}
	if a.db.ReadOnly() {
		return nil, storage.ErrReadOnly
	}
	return a.teamStore()
}

// teamLinker is the linker of a joined, writable workspace with the
// playbooks and the vault linked.
func (a teamArea) teamLinker() (*teamlink.Linker, error) {
	if _, err := a.joinedStore(); err != nil {
		return nil, err
	}
	if err := a.startTeam(); err != nil {
		return nil, err
	}
	a.tm.linker.SetPlaybooks(a.ACE().Playbooks())
	a.tm.linker.SetVault(a.Vault())
	return a.tm.linker, nil
}

// TeamShareNode implements TeamVerbs.
func (a teamArea) TeamShareNode(ctx context.Context, id uint64) (TeamShareResult, error) {
	l, err := a.teamLinker()
	if err != nil {
		return TeamShareResult{}, err
	}
	m, err := l.ShareNode(ctx, id)
	return TeamShareResult{Subject: m.Subject}, err
}

// TeamShareRule implements TeamVerbs.
func (a teamArea) TeamShareRule(ctx context.Context, req TeamShareRuleRequest) (TeamShareResult, error) {
	l, err := a.teamLinker()
	if err != nil {
		return TeamShareResult{}, err
	}
	m, err := l.ShareRule(ctx, req.Agent, req.RuleID)
	return TeamShareResult{Subject: m.Subject}, err
}

// TeamUnshare implements TeamVerbs.
func (a teamArea) TeamUnshare(ctx context.Context, req TeamUnshareRequest) (TeamUnshareResult, error) {
	s, err := a.joinedStore()
	if err != nil {
		return TeamUnshareResult{}, err
	}
	var key []byte
	switch {
	case req.NodeID != 0 && req.RuleID == "":
		key = team.NodeMarkKey(req.NodeID)
	case req.NodeID == 0 && req.Agent != "" && req.RuleID != "":
		key = team.RuleMarkKey(ace.CanonAgent(req.Agent), req.RuleID)
	default:
		return TeamUnshareResult{}, fmt.Errorf("%w: unshare names a vault node id, or an agent and a rule id", team.ErrInvalid)
	}
	found, err := s.Unmark(ctx, key)
	return TeamUnshareResult{WasShared: found}, err
}

// TeamTake implements TeamVerbs.
func (a teamArea) TeamTake(ctx context.Context, req TeamUnshareRequest) (TeamTakeResult, error) {
	l, err := a.teamLinker()
	if err != nil {
		return TeamTakeResult{}, err
	}
	var changed bool
	switch {
	case req.NodeID != 0 && req.RuleID == "":
		changed, err = l.TakeNode(ctx, req.NodeID)
	case req.NodeID == 0 && req.Agent != "" && req.RuleID != "":
		changed, err = l.TakeRule(ctx, req.Agent, req.RuleID)
	default:
		return TeamTakeResult{}, fmt.Errorf("%w: take names a vault node id, or an agent and a rule id", team.ErrInvalid)
	}
	return TeamTakeResult{Changed: changed}, err
}

// TeamMarks implements TeamVerbs.
func (a teamArea) TeamMarks(ctx context.Context) ([]team.Mark, error) {
	s, err := a.teamStore()
	if err != nil {
		return nil, err
	}
	return s.Marks(ctx)
}

// attachTeamFacts links the facts service to the team when the workspace
// has joined one: team-scope facts are shared.
func (l *core) attachTeamFacts(fs *facts.Service) {
	if !l.Config().Team.Joined() || l.db.ReadOnly() {
		return
	}
	if _, err := (teamArea{l}).teamStore(); err != nil {
		return
	}
	fs.SetTeam(l.tm.linker)
}
