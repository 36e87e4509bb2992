package vault

// Team nodes (engine/team). A vault node an author marked shared travels as
// versions of one subject; PutTeamNodeTx merges the version that holds into
// this vault as a node marked with the team source and its author (Meta
// MetaTeamAuthor). A node edited here keeps the local text (the newer
// version is noted in MetaTeamNewer); a team node the user removed stays
// removed. NodeHook sees a user's edits and removals in their transaction,
// so that engine/team publishes new versions of the nodes marked shared.

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// SourceTeam is the source of a node a teammate shared.
const SourceTeam = "team"

// Meta keys of a teammate's shared node.
const (
	MetaTeamSubject = "team.subject"
	MetaTeamAuthor  = "team.author"
	MetaTeamVersion = "team.version"
	MetaTeamHash    = "team.hash"
	MetaTeamNewer   = "team.newer"
)

// TeamAuthor is the short key of the teammate who shared n ("" when n is
// not a team node).
func (n Node) TeamAuthor() string {
	if n.Source != SourceTeam {
		return ""
	}
	return n.Meta[MetaTeamAuthor]
}

// TeamNode is the version of a teammate's shared node that holds.
type TeamNode struct {
	Subject  string
	Author   string
	Version  string
	Type     string
	Title    string
	Content  string
	Body     string
	Tags     []string
	Language string
	Deleted  bool
	At       time.Time
	// Force applies the version over a local edit (the user took the
	// teammate's version).
	Force bool
}

// NodeTextHash hashes what a shared node carries (type, title, content,
// body, tags, language) as the vault stores it.
func NodeTextHash(n Node) string {
	h := sha256.New()
	for _, s := range []string{string(n.Type), n.Title, n.Content, n.Body, strings.Join(n.Tags, "\x1f"), n.Language} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// Results of PutTeamNodeTx.
const (
	TeamNodeUnchanged = "unchanged"
	TeamNodeAdded     = "added"
	TeamNodeUpdated   = "updated"
	TeamNodeRemoved   = "removed"
	TeamNodeKept      = "kept local edit"
	TeamNodeDropped   = "dropped here"
)

// PutTeamNodeTx merges a teammate's shared node into the vault in the
// caller's write transaction (the team's apply): into node id when it is not
// 0 (the node linked to the subject), else into a new node. It returns the
// node id (0 when none holds it) and what it did. Team nodes do not count
// against the tier's cap of user nodes.
func (v *Vault) PutTeamNodeTx(tx *bolt.Tx, id uint64, tn TeamNode) (uint64, string, error) {
	if err := ensureDerived(tx); err != nil {
		return id, TeamNodeUnchanged, err
	}
	ws := newWriteSet("team")
	res, nid, err := v.putTeamNode(tx, ws, id, tn)
	if err != nil || len(ws.nodes) == 0 {
		return nid, res, err
	}
	rev, err := bumpRevision(tx)
	if err != nil {
		return nid, res, err
	}
	ws.rev = rev
	tx.OnCommit(func() {
		v.emb.forget(ws)
		v.notify(ws.change())
	})
	return nid, res, nil
}

func (v *Vault) putTeamNode(tx *bolt.Tx, ws *writeSet, id uint64, tn TeamNode) (string, uint64, error) {
	n := Node{Type: NodeType(tn.Type), Title: tn.Title, Content: tn.Content, Body: tn.Body, Tags: tn.Tags,
		Language: tn.Language, UserID: tn.Author, Source: SourceTeam}
	if id == 0 {
		if tn.Deleted {
			return TeamNodeUnchanged, 0, nil
		}
		redactNode(&n)
		if err := n.normalize(tn.Author, true); err != nil {
			return TeamNodeUnchanged, 0, fmt.Errorf("team node %s: %w", tn.Subject, err)
		}
		n.CreatedAt, n.UpdatedAt = tn.At, tn.At
		n.Meta = map[string]string{MetaTeamSubject: tn.Subject, MetaTeamAuthor: tn.Author, MetaTeamVersion: tn.Version,
			MetaTeamHash: NodeTextHash(n)}
		if err := putNodeTx(tx, &n, nil); err != nil {
			return TeamNodeUnchanged, 0, err
		}
		ws.putNode(&n, true)
		return TeamNodeAdded, n.ID, nil
	}
	old, err := getNode(tx, id)
	if errors.Is(err, ErrNotFound) {
		return TeamNodeDropped, id, nil
	}
	if err != nil {
		return TeamNodeUnchanged, id, err
	}
	if old.HasBody {
		old.Body = getBody(tx, id)
	}
	if old.Meta[MetaTeamVersion] == tn.Version && !tn.Force {
		return TeamNodeUnchanged, id, nil
	}
	next := old.clone()
	if next.Meta == nil {
		next.Meta = map[string]string{}
	}
	if NodeTextHash(old) != old.Meta[MetaTeamHash] && !tn.Force {
		if old.Meta[MetaTeamNewer] == tn.Version {
			return TeamNodeKept, id, nil
		}
		next.Meta[MetaTeamNewer] = tn.Version
		if err := putNodeTx(tx, &next, &old); err != nil {
			return TeamNodeUnchanged, id, err
		}
		ws.putNode(&next, false)
		return TeamNodeKept, id, nil
	}
	if tn.Deleted {
		if err := removeNodeTx(tx, ws, id); err != nil {
			return TeamNodeUnchanged, id, err
		}
		return TeamNodeRemoved, id, nil
	}
	n.Confidence, n.HelpfulCount = old.Confidence, old.HelpfulCount
	redactNode(&n)
	if err := n.normalize(tn.Author, false); err != nil {
		return TeamNodeUnchanged, id, fmt.Errorf("team node %s: %w", tn.Subject, err)
	}
	n.ID, n.CreatedAt, n.UpdatedAt = id, old.CreatedAt, tn.At
	n.Meta = next.Meta
	n.Meta[MetaTeamAuthor], n.Meta[MetaTeamVersion], n.Meta[MetaTeamHash] = tn.Author, tn.Version, NodeTextHash(n)
	delete(n.Meta, MetaTeamNewer)
	if err := putNodeTx(tx, &n, &old); err != nil {
		return TeamNodeUnchanged, id, err
	}
	ws.putNode(&n, true)
	return TeamNodeUpdated, id, nil
}

// NodeHook sees a user's edit (removed false) or removal of node n in the
// transaction that makes it.
type NodeHook func(tx *bolt.Tx, n Node, removed bool) error

// SetNodeHook sets (nil: clears) the node hook.
func (v *Vault) SetNodeHook(h NodeHook) {
	if h == nil {
		v.nodeHook.Store(nil)
		return
	}
	v.nodeHook.Store(&h)
}

func (v *Vault) nodeHookTx(tx *bolt.Tx, n Node, removed bool) error {
	h := v.nodeHook.Load()
	if h == nil {
		return nil
	}
	if !removed && n.HasBody && n.Body == "" {
		n.Body = getBody(tx, n.ID)
	}
	if err := (*h)(tx, n, removed); err != nil {
		return fmt.Errorf("share with the team: %w", err)
	}
	return nil
}
