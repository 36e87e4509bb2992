package main

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/team"
)

// hubOptions is `nova hub`.
type hubOptions struct {
	*Env
	Dir, Host, Token, Name string
	Port                   int
	JSON                   bool
	// MaxAge and MaxBytes are the stream's retention (0: the defaults).
	MaxAge   time.Duration
	MaxBytes int64
	// ready, when set (tests), receives the hub once it listens.
	ready func(hubReport)
}

type hubReport struct {
	URL      string `json:"url"`
	Dir      string `json:"dir"`
	Admin    string `json:"admin"`
	AdminKey string `json:"adminKey"`
	Team     string `json:"team"`
	// MaxAge and MaxBytes are the stream's retention.
	MaxAge   string `json:"maxAge"`
	MaxBytes int64  `json:"maxBytes"`
}

func newHubCmd(env *Env, runF func(context.Context, *hubOptions) error) *cobra.Command {
	opts := &hubOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "hub",
		Short: "Run a NATS server with JetStream for a small team (until Ctrl-C)",
		Long: "nova hub runs an embedded NATS server with JetStream, its data in --dir (default\n" +
			"~/.nova-hub), and prints its URL, the team's admin key and how to add members. The\n" +
			"admin key (DIR/admin.key, made on first run) signs the team's membership list: keep it\n" +
			"on this machine. Any NATS cluster with JetStream works as a hub too.\n\n" +
			"Retention: the team's stream keeps records for --max-age (default 30 days) and up to\n" +
			"--max-bytes (default 1 GiB), oldest dropped first; the team's snapshot keeps what the team\n" +
			"holds (compacted per kind), and a workspace that was away longer reads it again.",
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return pick(runF, runHub)(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Dir, "dir", "", "where the hub keeps its data and admin key (default ~/.nova-hub)")
	cmd.Flags().StringVar(&opts.Host, "host", "127.0.0.1", "address to listen on (0.0.0.0: every interface)")
	cmd.Flags().IntVar(&opts.Port, "port", 4222, "port to listen on (0: any free port)")
	cmd.Flags().StringVar(&opts.Token, "token", "", "require this token of clients (members set team.token)")
	cmd.Flags().StringVar(&opts.Name, "team", team.DefaultTeam, "the team's name")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the URL and admin key as one JSON document")
	cmd.Flags().DurationVar(&opts.MaxAge, "max-age", team.DefaultMaxAge, "how long the team's stream keeps a record (at least 1h)")
	cmd.Flags().Int64Var(&opts.MaxBytes, "max-bytes", team.DefaultMaxBytes, "how many bytes the team's stream keeps (at least 1 MiB)")
	return cmd
}

func runHub(ctx context.Context, opts *hubOptions) error {
	dir := opts.Dir
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return fmt.Errorf("hub: no home directory; pass --dir: %w", err)
		}
		dir = filepath.Join(home, ".nova-hub")
	}
	dir = opts.abs(dir)
	if opts.MaxAge < time.Hour || opts.MaxBytes < 1<<20 {
		return usagef("--max-age must be at least 1h and --max-bytes at least 1048576")
	}
	admin, _, err := team.AdminKey(dir)
	if err != nil {
		return err
	}
	h, err := team.StartHub(team.HubOptions{Dir: dir, Host: opts.Host, Port: opts.Port, Token: opts.Token, Name: "nova-hub"})
	if err != nil {
		return err
	}
	defer h.Shutdown()
	c := team.Config{URL: h.URL, Name: opts.Name, Token: opts.Token, MaxAge: opts.MaxAge, MaxBytes: opts.MaxBytes}
	ictx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := initHub(ictx, c, admin); err != nil {
		return err
	}
	rep := hubReport{URL: h.URL, Dir: dir, Admin: team.FormatKey(admin.Public().(ed25519.PublicKey)),
		AdminKey: filepath.Join(dir, team.AdminKeyFile), Team: opts.Name, MaxAge: opts.MaxAge.String(), MaxBytes: opts.MaxBytes}
	if opts.JSON {
		if err := opts.IO.PrintJSON(rep); err != nil {
			return err
		}
	} else {
		opts.IO.Printf("nova hub: %s (team %q, data in %s)\n", rep.URL, rep.Team, rep.Dir)
		opts.IO.Printf("retention: the stream keeps %s and %d bytes; the snapshot keeps the rest\n", rep.MaxAge, rep.MaxBytes)
		opts.IO.Printf("admin key: %s\n  (private part: %s — keep it on this machine)\n\n", rep.Admin, rep.AdminKey)
		opts.IO.Printf("In each workspace:   nova team join %s\n", rep.URL)
		opts.IO.Printf("Then, from a workspace on this machine that joined, for each key `nova team join` printed:\n")
		opts.IO.Printf("                     nova team members add KEY --admin-key %s\n", rep.AdminKey)
		opts.IO.Printf("Ctrl-C stops the hub; workspaces keep working and sync when it is back.\n")
	}
	if opts.ready != nil {
		opts.ready(rep)
	}
	<-ctx.Done()
	return nil
}

// initHub makes the team's stream and its first membership list.
func initHub(ctx context.Context, c team.Config, admin ed25519.PrivateKey) error {
	nc, err := team.Connect(ctx, c, "nova hub")
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return fmt.Errorf("jetstream: %w", err)
	}
	// The hub's retention applies to the stream, made now or before.
	if _, err := team.SetRetention(ctx, js, c); err != nil {
		return err
	}
	// The snapshot is made by the first workspace that holds records (and
	// fills it with them): one made empty here would hide, from a newcomer,
	// records that retention dropped before any workspace filled it.
	_, err = team.InitMembers(ctx, js, c, admin)
	return err
}

func newTeamCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "team",
		Short: "Share wisdom, team facts, rules and nodes with your team over NATS JetStream",
		Long: "A workspace that joined a team shares, signed and redacted: global-wisdom backing and harm\n" +
			"reports, facts at the `team` scope (nova facts add --scope team), and the rules and vault\n" +
			"nodes you share (nova team share). Every write commits locally first and is sent when the\n" +
			"hub is reachable; the team's records arrive while nova runs (or with `nova team sync`).",
	}
	members := &cobra.Command{Use: "members", Short: "Change the team's membership list (needs the admin key)"}
	members.AddCommand(newTeamMembersCmd(env, "add", nil), newTeamMembersCmd(env, "remove", nil))
	share := &cobra.Command{Use: "share", Short: "Mark a vault node or a playbook rule shared: its later edits are published too"}
	share.AddCommand(newTeamShareNodeCmd(env, nil), newTeamShareRuleCmd(env, nil))
	unshare := &cobra.Command{Use: "unshare", Short: "Stop publishing the edits of a shared node or rule (what was sent stays)"}
	unshare.AddCommand(newTeamUnshareCmd(env, "node", nil), newTeamUnshareCmd(env, "rule", nil))
	take := &cobra.Command{Use: "take", Short: "Replace your edit of a teammate's node or rule with the teammate's current version"}
	take.AddCommand(newTeamTakeCmd(env, "node", nil), newTeamTakeCmd(env, "rule", nil))
	cmd.AddCommand(newTeamJoinCmd(env, nil), newTeamStatusCmd(env, nil), newTeamSyncCmd(env, nil), members, share,
		unshare, take, newTeamSharedCmd(env, nil))
	return cmd
}

// teamJoinOptions is `nova team join URL`.
type teamJoinOptions struct {
	*Env
	Req  engine.TeamJoinRequest
	JSON bool
}

func newTeamJoinCmd(env *Env, runF func(context.Context, *teamJoinOptions) error) *cobra.Command {
	opts := &teamJoinOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "join URL",
		Short: "Join the team whose hub is at URL (writes team: in config.yaml)",
		Args:  exactArgs(1, "the hub's URL (nats://host:4222)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Req.URL = args[0]
			return pick(runF, runTeamJoin)(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Req.Name, "team", "", "the team's name (default nova)")
	cmd.Flags().StringVar(&opts.Req.Admin, "admin", "", "the admin key the hub printed (checked against the team's list)")
	cmd.Flags().StringVar(&opts.Req.Token, "token", "", "the hub's token (or ${VAR})")
	cmd.Flags().StringVar(&opts.Req.NKey, "nkey", "", "an nkey seed file to log in with")
	cmd.Flags().StringVar(&opts.Req.Creds, "creds", "", "a NATS creds file to log in with")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the team status as JSON")
	return cmd
}

func runTeamJoin(ctx context.Context, opts *teamJoinOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		st, err := ws.TeamJoin(ctx, opts.Req)
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(st)
		}
		opts.IO.Printf("joined %s (team %s, admin %s)\n", st.URL, st.Team, team.ShortKey(st.Admin))
		if !st.Member {
			opts.IO.Printf("not a member yet: on the hub's machine, run\n  nova team members add %s --admin-key ADMIN.KEY\n", st.Key)
		}
		printTeamStatus(opts.IO, st)
		return nil
	})
}

// teamStatusOptions is `nova team status`.
type teamStatusOptions struct {
	*Env
	JSON bool
	Wait time.Duration
}

func newTeamStatusCmd(env *Env, runF func(context.Context, *teamStatusOptions) error) *cobra.Command {
	opts := &teamStatusOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show members, lag, outbox, last sync and refused records",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return pick(runF, runTeamStatus)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the status as JSON")
	return cmd
}

func runTeamStatus(ctx context.Context, opts *teamStatusOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		st, err := ws.TeamStatus(ctx)
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(st)
		}
		printTeamStatus(opts.IO, st)
		return nil
	})
}

func printTeamStatus(io *IOStreams, st engine.TeamStatus) {
	if !st.Joined {
		io.Printf("not in a team: `nova team join URL` joins one (`nova hub` runs a hub)\n")
		if st.Key != "" {
			io.Printf("this workspace's key: %s\n", st.Key)
		}
		return
	}
	link := "offline"
	if st.Connected {
		link = "connected"
	}
	io.Printf("team %s at %s (%s)\n", st.Team, st.URL, link)
	if st.LastError != "" {
		io.Printf("  last error: %s\n", st.LastError)
	}
	member := "not a member yet"
	if st.Member {
		member = "member"
	}
	io.Printf("this workspace: %s (%s, %s)\n", team.ShortKey(st.Key), st.Key, member)
	io.Printf("admin: %s\n", orDash(st.Admin))
	io.Printf("members (%d):\n", len(st.Members))
	for _, m := range st.Members {
		self := ""
		if m.Self {
			self = "  (this workspace)"
		}
		io.Printf("  %s  %s%s\n", m.Name, m.Key, self)
	}
	lag := "unknown (offline)"
	if st.LagKnown {
		lag = strconv.FormatUint(st.Lag, 10)
	}
	io.Printf("lag: %s  outbox: %d  records: %d  position: %d/%d\n", lag, st.Outbox, st.Records, st.Position, st.StreamLast)
	last := "never"
	if !st.LastSync.IsZero() {
		last = st.LastSync.Local().Format("2006-01-02 15:04:05")
	}
	io.Printf("last sync: %s\n", last)
	io.Printf("shared: %d patterns (%d active), %d facts, %d rules, %d nodes; marked shared here: %d\n", st.Shared.Patterns,
		st.Shared.ActivePatterns, st.Shared.Facts, st.Shared.Rules, st.Shared.Nodes, st.Marked)
	if st.Resyncs > 0 || st.Lost > 0 {
		io.Printf("retention: read the team's snapshot again %d time(s); %d record(s) past retention could not be read\n", st.Resyncs, st.Lost)
	}
	io.Printf("refused: %d", st.RefusedTotal)
	if st.RefusedTotal > 0 {
		var parts []string
		for k, v := range st.Refused {
			parts = append(parts, fmt.Sprintf("%s %d", k, v))
		}
		sort.Strings(parts)
		io.Printf(" (%s)", strings.Join(parts, ", "))
	}
	io.Printf("\n")
}

// teamSyncOptions is `nova team sync`.
type teamSyncOptions struct {
	*Env
	Timeout time.Duration
	JSON    bool
}

func newTeamSyncCmd(env *Env, runF func(context.Context, *teamSyncOptions) error) *cobra.Command {
	opts := &teamSyncOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "sync",
		Short: "Send the outbox and apply the team's records, then print the status",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return pick(runF, runTeamSync)(cmd.Context(), opts)
		},
	}
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", 10*time.Second, "give up waiting after this long")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the status as JSON")
	return cmd
}

func runTeamSync(ctx context.Context, opts *teamSyncOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		st, err := ws.TeamSync(ctx, engine.TeamSyncRequest{TimeoutMS: int(opts.Timeout / time.Millisecond)})
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(st)
		}
		printTeamStatus(opts.IO, st)
		return nil
	})
}

// teamMembersOptions is `nova team members add|remove KEY`.
type teamMembersOptions struct {
	*Env
	Req  engine.TeamMembersRequest
	JSON bool
}

func newTeamMembersCmd(env *Env, verb string, runF func(context.Context, *teamMembersOptions) error) *cobra.Command {
	opts := &teamMembersOptions{Env: env}
	short := "Add a workspace's key to the team"
	if verb == "remove" {
		short = "Remove a key from the team (its records stop counting everywhere)"
	}
	cmd := &cobra.Command{
		Use:   verb + " KEY",
		Short: short,
		Args:  exactArgs(1, "a workspace key (ed25519:…, as `nova team join` or `nova team status` prints it)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Req.Key, opts.Req.Remove = args[0], verb == "remove"
			opts.Req.AdminKeyFile = opts.abs(opts.Req.AdminKeyFile)
			return pick(runF, runTeamMembers)(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Req.AdminKeyFile, "admin-key", "", "the admin key file (`nova hub` printed it; default team.adminKey)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the new membership list as JSON")
	return cmd
}

func runTeamMembers(ctx context.Context, opts *teamMembersOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		m, err := ws.TeamMembersChange(ctx, opts.Req)
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(m)
		}
		verb := "added"
		if opts.Req.Remove {
			verb = "removed"
		}
		opts.IO.Printf("%s %s; the team has %s (list version %d)\n", verb, team.ShortKey(strings.TrimSpace(opts.Req.Key)), plural(len(m.Members), "member", "members"), m.Version)
		return nil
	})
}

// teamSharedOptions is `nova team shared`.
type teamSharedOptions struct {
	*Env
	JSON bool
}

func newTeamSharedCmd(env *Env, runF func(context.Context, *teamSharedOptions) error) *cobra.Command {
	opts := &teamSharedOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "shared",
		Short: "List what the team shares, merged: patterns and backers, fact chains, rule and node versions",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return pick(runF, runTeamShared)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the merged views as JSON")
	return cmd
}

func runTeamShared(ctx context.Context, opts *teamSharedOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		v, err := ws.TeamShared(ctx)
		if err != nil {
			return err
		}
		marks, err := ws.TeamMarks(ctx)
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(struct {
				team.Views
				Marked []team.Mark `json:"marked"`
			}{v, marks})
		}
		for _, m := range marks {
			if m.Kind == team.KindRule {
				opts.IO.Printf("marked shared: rule %s %s as %s\n", m.Agent, m.RuleID, m.Subject)
			} else {
				opts.IO.Printf("marked shared: node %d as %s\n", m.NodeID, m.Subject)
			}
		}
		for _, w := range v.Wisdom {
			opts.IO.Printf("pattern %s  %-7s backers %d  harm %d  %s\n", w.Subject, w.Status, len(w.Backers), len(w.Harm), clipLine(w.Pattern.Content, 70))
		}
		for _, c := range v.Facts {
			cur := c.Current()
			text, by := "(invalidated)", ""
			if cur != nil {
				text, by = cur.Content, team.ShortKey(cur.Author)
			}
			opts.IO.Printf("fact %s  %d version(s)  %s  %s\n", c.Subject, len(c.Versions), by, clipLine(text, 70))
		}
		for _, k := range sortedKeys(v.Rules) {
			vs := v.Rules[k]
			var b team.RuleBody
			_ = json.Unmarshal(vs[len(vs)-1].Body, &b)
			opts.IO.Printf("rule %s  %d version(s)  %s  %s  %s\n", k, len(vs), team.ShortKey(vs[len(vs)-1].Author), b.Agent, clipLine(b.Text, 60))
		}
		for _, k := range sortedKeys(v.Nodes) {
			vs := v.Nodes[k]
			var b team.NodeBody
			_ = json.Unmarshal(vs[len(vs)-1].Body, &b)
			opts.IO.Printf("node %s  %d version(s)  %s  %s\n", k, len(vs), team.ShortKey(vs[len(vs)-1].Author), clipLine(b.Content, 60))
		}
		if len(v.Wisdom)+len(v.Facts)+len(v.Rules)+len(v.Nodes) == 0 {
			opts.IO.Printf("nothing shared yet\n")
		}
		return nil
	})
}

// teamShareNodeOptions is `nova team share node ID`.
type teamShareNodeOptions struct {
	*Env
	ID uint64
}

func newTeamShareNodeCmd(env *Env, runF func(context.Context, *teamShareNodeOptions) error) *cobra.Command {
	opts := &teamShareNodeOptions{Env: env}
	return &cobra.Command{
		Use:   "node ID",
		Short: "Mark a vault node shared: it and each later edit are published to the team",
		Args:  exactArgs(1, "a vault node id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID(args[0], "vault node", "nova vault list")
			if err != nil {
				return err
			}
			opts.ID = id
			return pick(runF, runTeamShareNode)(cmd.Context(), opts)
		},
	}
}

func runTeamShareNode(ctx context.Context, opts *teamShareNodeOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		r, err := ws.TeamShareNode(ctx, opts.ID)
		if err != nil {
			return err
		}
		opts.IO.Printf("shared node %d as %s; its edits are published until `nova team unshare node %d`\n", opts.ID, r.Subject, opts.ID)
		return nil
	})
}

// teamShareRuleOptions is `nova team share rule AGENT RULE`.
type teamShareRuleOptions struct {
	*Env
	Req engine.TeamShareRuleRequest
}

func newTeamShareRuleCmd(env *Env, runF func(context.Context, *teamShareRuleOptions) error) *cobra.Command {
	opts := &teamShareRuleOptions{Env: env}
	return &cobra.Command{
		Use:   "rule AGENT RULE",
		Short: "Mark a playbook rule shared: it and each later edit are published to the team",
		Args:  exactArgs(2, "an agent and a rule id (r3)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Req = engine.TeamShareRuleRequest{Agent: args[0], RuleID: args[1]}
			return pick(runF, runTeamShareRule)(cmd.Context(), opts)
		},
	}
}

func runTeamShareRule(ctx context.Context, opts *teamShareRuleOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		r, err := ws.TeamShareRule(ctx, opts.Req)
		if err != nil {
			return err
		}
		opts.IO.Printf("shared %s %s as %s; its edits are published until `nova team unshare rule %s %s`\n", opts.Req.Agent,
			opts.Req.RuleID, r.Subject, opts.Req.Agent, opts.Req.RuleID)
		return nil
	})
}

// teamUnshareOptions is `nova team unshare node ID` and `nova team unshare
// rule AGENT RULE`.
type teamUnshareOptions struct {
	*Env
	Req engine.TeamUnshareRequest
}

func newTeamUnshareCmd(env *Env, what string, runF func(context.Context, *teamUnshareOptions) error) *cobra.Command {
	opts := &teamUnshareOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "node ID",
		Short: "Stop publishing a vault node's edits",
		Args:  exactArgs(1, "a vault node id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID(args[0], "vault node", "nova vault list")
			if err != nil {
				return err
			}
			opts.Req = engine.TeamUnshareRequest{NodeID: id}
			return pick(runF, runTeamUnshare)(cmd.Context(), opts)
		},
	}
	if what == "rule" {
		cmd.Use, cmd.Short, cmd.Args = "rule AGENT RULE", "Stop publishing a playbook rule's edits", exactArgs(2, "an agent and a rule id (r3)")
		cmd.RunE = func(cmd *cobra.Command, args []string) error {
			opts.Req = engine.TeamUnshareRequest{Agent: args[0], RuleID: args[1]}
			return pick(runF, runTeamUnshare)(cmd.Context(), opts)
		}
	}
	return cmd
}

func runTeamUnshare(ctx context.Context, opts *teamUnshareOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		r, err := ws.TeamUnshare(ctx, opts.Req)
		if err != nil {
			return err
		}
		what := teamItem(opts.Req)
		if !r.WasShared {
			opts.IO.Printf("%s was not marked shared\n", what)
			return nil
		}
		opts.IO.Printf("%s is no longer shared: later edits stay here (what was sent stays with the team)\n", what)
		return nil
	})
}

// teamItem names the node or rule of an unshare or take request.
func teamItem(req engine.TeamUnshareRequest) string {
	if req.RuleID != "" {
		return req.Agent + " " + req.RuleID
	}
	return fmt.Sprintf("node %d", req.NodeID)
}

// newTeamTakeCmd is `nova team take node ID` and `nova team take rule
// AGENT RULE`.
func newTeamTakeCmd(env *Env, what string, runF func(context.Context, *teamUnshareOptions) error) *cobra.Command {
	if runF == nil {
		runF = runTeamTake
	}
	cmd := newTeamUnshareCmd(env, what, runF)
	cmd.Short = "Take the teammate's current version of this node over your edit"
	if what == "rule" {
		cmd.Short = "Take the teammate's current version of this rule over your edit"
	}
	return cmd
}

func runTeamTake(ctx context.Context, opts *teamUnshareOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		r, err := ws.TeamTake(ctx, opts.Req)
		if err != nil {
			return err
		}
		what := teamItem(opts.Req)
		if !r.Changed {
			opts.IO.Printf("%s already holds the teammate's current version\n", what)
			return nil
		}
		opts.IO.Printf("%s now holds the teammate's current version; their later versions apply again\n", what)
		return nil
	})
}
