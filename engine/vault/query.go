package vault

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/storage"
)

// ListOptions filters and pages List. Every filter is optional; filters on
// type, tag and user are answered from the secondary indexes.
type ListOptions struct {
	Type   NodeType
	Tag    string
	UserID string
	// Query keeps nodes whose title, content or tags contain it
	// (case-insensitive substring). It needs a scan of the candidates.
	Query string
	// MinConfidence keeps nodes at or above it.
	MinConfidence float64
	// Offset skips that many matches; Limit caps the page (0 = all).
	Offset, Limit int
	// Newest lists the newest (highest id) first.
	Newest bool
}

// Page is one page of List.
type Page struct {
	Nodes []Node `json:"nodes"`
	// Total counts every match, not just this page.
	Total  int `json:"total"`
	Offset int `json:"offset"`
}

// List returns one page of nodes (without bodies) matching o, in id order.
func (v *Vault) List(ctx context.Context, o ListOptions) (Page, error) {
	if err := ctx.Err(); err != nil {
		return Page{}, err
	}
	if o.Type != "" && !o.Type.Valid() {
		t, err := ParseNodeType(string(o.Type))
		if err != nil {
			return Page{}, err
		}
		o.Type = t
	}
	if err := checkConfidence(o.MinConfidence, "minimum confidence"); err != nil {
		return Page{}, err
	}
	o.Offset = max(o.Offset, 0)
	o.Limit = max(o.Limit, 0)
	o.Tag = strings.TrimLeft(strings.ToLower(cleanKey(o.Tag)), "#")
	o.UserID = cleanKey(o.UserID)
	page := Page{Nodes: []Node{}, Offset: o.Offset}
	err := v.db.View(func(tx *bolt.Tx) error {
		nodes := tx.Bucket(storage.BucketVaultNodes)
		if nodes == nil {
			return nil
		}
		ids, indexed := candidateIDs(tx, o)
		scan := o.Query != "" || o.MinConfidence > 0
		if !indexed && !scan {
			return pageAll(nodes, o, &page)
		}
		if !indexed {
			ids = allIDs(nodes)
		}
		if o.Newest {
			slices.Reverse(ids)
		}
		if !scan {
			page.Total = len(ids)
			lo := min(o.Offset, len(ids))
			hi := len(ids)
			if o.Limit > 0 {
				hi = min(hi, lo+o.Limit)
			}
			for _, id := range ids[lo:hi] {
				if n, err := getNode(tx, id); err == nil {
					page.Nodes = append(page.Nodes, n)
				}
			}
			return nil
		}
		q := strings.ToLower(strings.TrimSpace(o.Query))
		for i, id := range ids {
			if i%4096 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			n, err := getNode(tx, id)
			if err != nil || n.Confidence < o.MinConfidence || (q != "" && !matchesSubstring(&n, q)) {
				continue
			}
			if page.Total >= o.Offset && (o.Limit == 0 || len(page.Nodes) < o.Limit) {
				page.Nodes = append(page.Nodes, n)
			}
			page.Total++
		}
		return nil
	})
	return page, err
}

func matchesSubstring(n *Node, q string) bool {
	if containsFold(n.Content, q) || containsFold(n.Title, q) {
		return true
	}
	for _, t := range n.Tags {
		if strings.Contains(t, q) {
			return true
		}
	}
	return false
}

// containsFold reports whether s contains lower-case q, ignoring case.
func containsFold(s, q string) bool {
	if len(q) > len(s) {
		return false
	}
	return strings.Contains(strings.ToLower(s), q)
}

// candidateIDs intersects the index lists selected by o; indexed is false
// when o has no indexed filter.
func candidateIDs(tx *bolt.Tx, o ListOptions) (ids []uint64, indexed bool) {
	var lists [][]uint64
	add := func(ix storage.Index, value string) {
		var l []uint64
		ix.IDs(tx, value, func(id uint64) bool { l = append(l, id); return true })
		lists = append(lists, l)
	}
	if o.Tag != "" {
		add(ixTag, o.Tag)
	}
	if o.Type != "" {
		add(ixType, string(o.Type))
	}
	if o.UserID != "" {
		add(ixUser, o.UserID)
	}
	if len(lists) == 0 {
		return nil, false
	}
	slices.SortFunc(lists, func(a, b []uint64) int { return cmp.Compare(len(a), len(b)) })
	out := lists[0]
	for _, l := range lists[1:] {
		out = intersectSorted(out, l)
	}
	return out, true
}

func intersectSorted(a, b []uint64) []uint64 {
	out := a[:0:0]
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

func allIDs(b *bolt.Bucket) []uint64 {
	var ids []uint64
	c := b.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		ids = append(ids, storage.ParseKey(k))
	}
	return ids
}

// pageAll pages the whole node bucket with a cursor, decoding only the page.
func pageAll(nodes *bolt.Bucket, o ListOptions, page *Page) error {
	page.Total = nodeCount(nodes.Tx())
	c := nodes.Cursor()
	first, next := c.First, c.Next
	if o.Newest {
		first, next = c.Last, c.Prev
	}
	skip := o.Offset
	for k, v := first(); k != nil; k, v = next() {
		if skip > 0 {
			skip--
			continue
		}
		if o.Limit > 0 && len(page.Nodes) >= o.Limit {
			break
		}
		n, err := nodeCodec.Unmarshal(v)
		if err != nil {
			continue
		}
		n.ID = storage.ParseKey(k)
		if n.Tags == nil {
			n.Tags = []string{}
		}
		page.Nodes = append(page.Nodes, n)
	}
	return nil
}

// Count returns how many nodes match o (ignoring Offset and Limit).
func (v *Vault) Count(ctx context.Context, o ListOptions) (int, error) {
	o.Offset, o.Limit = 0, 1
	p, err := v.List(ctx, o)
	return p.Total, err
}

// ByType lists nodes of one type (limit 0 = all).
func (v *Vault) ByType(ctx context.Context, t NodeType, limit int) ([]Node, error) {
	p, err := v.List(ctx, ListOptions{Type: t, Limit: limit})
	return p.Nodes, err
}

// ByTag lists nodes carrying a tag (limit 0 = all).
func (v *Vault) ByTag(ctx context.Context, tag string, limit int) ([]Node, error) {
	p, err := v.List(ctx, ListOptions{Tag: tag, Limit: limit})
	return p.Nodes, err
}

// SearchSubstring lists nodes whose title, content or tags contain q
// (case-insensitive), oldest first. For ranked retrieval use Search.
func (v *Vault) SearchSubstring(ctx context.Context, q string, limit int) ([]Node, error) {
	if strings.TrimSpace(q) == "" {
		return []Node{}, nil
	}
	p, err := v.List(ctx, ListOptions{Query: q, Limit: limit})
	return p.Nodes, err
}

// HighConfidenceNodes lists nodes whose confidence is at least threshold
// (0 means HighConfidence), highest first, from the confidence index.
func (v *Vault) HighConfidenceNodes(ctx context.Context, threshold float64, limit int) ([]Node, error) {
	if threshold == 0 {
		threshold = HighConfidence
	}
	if err := checkConfidence(threshold, "threshold"); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := []Node{}
	err := v.db.View(func(tx *bolt.Tx) error {
		confRange(tx, threshold, true, func(id uint64, _ float64) bool {
			if n, err := getNode(tx, id); err == nil {
				out = append(out, n)
			}
			return limit <= 0 || len(out) < limit
		})
		return nil
	})
	return out, err
}

// Link is one edge seen from a node: the edge and the node at its other end.
type Link struct {
	Edge Edge `json:"edge"`
	// Direction is "out" when the edge leaves the node, "in" when it enters.
	Direction string `json:"direction"`
	Node      Node   `json:"node"`
}

// Related returns the nodes linked to id in either direction, optionally
// only through one relation ("" = any), ordered by edge id.
func (v *Vault) Related(ctx context.Context, id uint64, rel Relation) ([]Link, error) {
	if rel != "" && !rel.Valid() {
		r, err := ParseRelation(string(rel))
		if err != nil {
			return nil, err
		}
		rel = r
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := []Link{}
	err := v.db.View(func(tx *bolt.Tx) error {
		if !hasNode(tx, id) {
			return fmt.Errorf("node %d: %w", id, ErrNotFound)
		}
		out = linksTx(tx, id, rel)
		return nil
	})
	return out, err
}

func linksTx(tx *bolt.Tx, id uint64, rel Relation) []Link {
	var out []Link
	for _, eid := range edgeIDsOf(tx, id, true, true) {
		e, err := getEdge(tx, eid)
		if err != nil || (rel != "" && e.Relation != rel) {
			continue
		}
		l := Link{Edge: e, Direction: "out"}
		other := e.To
		if e.To == id && e.From != id {
			l.Direction, other = "in", e.From
		}
		n, err := getNode(tx, other)
		if err != nil {
			continue
		}
		l.Node = n
		out = append(out, l)
	}
	return out
}

// RelationGroup holds a node's links through one relation.
type RelationGroup struct {
	Relation Relation `json:"relation"`
	Out      []Link   `json:"out"`
	In       []Link   `json:"in"`
}

// Neighbours returns a node's links grouped by relation (in Relations
// order, only relations that occur), each split into outgoing and incoming.
func (v *Vault) Neighbours(ctx context.Context, id uint64) ([]RelationGroup, error) {
	links, err := v.Related(ctx, id, "")
	if err != nil {
		return nil, err
	}
	return groupLinks(links), nil
}

func groupLinks(links []Link) []RelationGroup {
	out := []RelationGroup{}
	for _, r := range Relations() {
		g := RelationGroup{Relation: r, Out: []Link{}, In: []Link{}}
		for _, l := range links {
			if l.Edge.Relation != r {
				continue
			}
			if l.Direction == "out" {
				g.Out = append(g.Out, l)
			} else {
				g.In = append(g.In, l)
			}
		}
		if len(g.Out)+len(g.In) > 0 {
			out = append(out, g)
		}
	}
	return out
}

// Direction options for Traverse.
const (
	Both     = ""
	Outgoing = "out"
	Incoming = "in"
)

// TraverseOptions configures Traverse.
type TraverseOptions struct {
	// Depth is the most hops from the start (0 means 3).
	Depth int
	// Relation follows only edges of this relation ("" = any).
	Relation Relation
	// Direction is Both (default), Outgoing or Incoming.
	Direction string
	// Limit caps the nodes visited (0 means 1000).
	Limit int
}

// Step is one node reached by Traverse.
type Step struct {
	Node  Node `json:"node"`
	Depth int  `json:"depth"`
	// Via is the edge it was reached through (nil for the start node).
	Via *Edge `json:"via,omitempty"`
}

// Traverse walks the graph breadth first from start and returns every node
// reached within the depth, the start first, each once at its least depth.
func (v *Vault) Traverse(ctx context.Context, start uint64, o TraverseOptions) ([]Step, error) {
	if o.Depth <= 0 {
		o.Depth = 3
	}
	if o.Limit <= 0 {
		o.Limit = 1000
	}
	if o.Relation != "" && !o.Relation.Valid() {
		r, err := ParseRelation(string(o.Relation))
		if err != nil {
			return nil, err
		}
		o.Relation = r
	}
	if o.Direction != Both && o.Direction != Outgoing && o.Direction != Incoming {
		return nil, invalidf("unknown direction %q (want out, in or empty for both)", o.Direction)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []Step
	err := v.db.View(func(tx *bolt.Tx) error {
		n, err := getNode(tx, start)
		if err != nil {
			return err
		}
		seen := map[uint64]bool{start: true}
		out = append(out, Step{Node: n})
		frontier := []uint64{start}
		for depth := 1; depth <= o.Depth && len(frontier) > 0 && len(out) < o.Limit; depth++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			var next []uint64
			for _, id := range frontier {
				for _, eid := range edgeIDsOf(tx, id, o.Direction != Incoming, o.Direction != Outgoing) {
					e, err := getEdge(tx, eid)
					if err != nil || (o.Relation != "" && e.Relation != o.Relation) {
						continue
					}
					other := e.To
					if e.To == id {
						other = e.From
					}
					if seen[other] || len(out) >= o.Limit {
						continue
					}
					n, err := getNode(tx, other)
					if err != nil {
						continue
					}
					seen[other] = true
					via := e
					out = append(out, Step{Node: n, Depth: depth, Via: &via})
					next = append(next, other)
				}
			}
			frontier = next
		}
		return nil
	})
	return out, err
}

// Conflict is a pair of nodes joined by a contradicts edge.
type Conflict struct {
	Edge Edge `json:"edge"`
	A    Node `json:"a"`
	B    Node `json:"b"`
}

// Conflicts lists every contradicts edge with its two nodes, by edge id.
func (v *Vault) Conflicts(ctx context.Context) ([]Conflict, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := []Conflict{}
	err := v.db.View(func(tx *bolt.Tx) error {
		var ids []uint64
		ixRel.IDs(tx, string(Contradicts), func(id uint64) bool { ids = append(ids, id); return true })
		for _, eid := range ids {
			e, err := getEdge(tx, eid)
			if err != nil {
				continue
			}
			a, errA := getNode(tx, e.From)
			b, errB := getNode(tx, e.To)
			if errA != nil || errB != nil {
				continue
			}
			out = append(out, Conflict{Edge: e, A: a, B: b})
		}
		return nil
	})
	return out, err
}

// Stats summarises the vault.
type Stats struct {
	Nodes         int            `json:"nodes"`
	Edges         int            `json:"edges"`
	ByType        map[string]int `json:"byType"`
	ByRelation    map[string]int `json:"byRelation"`
	AvgConfidence float64        `json:"avgConfidence"`
	Tags          int            `json:"tags"`
	Conflicts     int            `json:"conflicts"`
	Revision      uint64         `json:"revision"`
}

// Stats counts nodes, edges, nodes per type and edges per relation, tags and
// conflicts, and averages confidence, from the counters every write keeps (a
// few reads, whatever the vault's size; see counters.go).
func (v *Vault) Stats(ctx context.Context) (Stats, error) {
	if err := ctx.Err(); err != nil {
		return Stats{}, err
	}
	st := Stats{ByType: map[string]int{}, ByRelation: map[string]int{}}
	for _, t := range NodeTypes() {
		st.ByType[string(t)] = 0
	}
	err := v.db.View(func(tx *bolt.Tx) error {
		if _, _, _, err := buckets(tx); err != nil {
			return err
		}
		c, err := counts(tx)
		if err != nil {
			return err
		}
		st.Nodes, st.Edges, st.Tags = int(c[cntNodes]), int(c[cntEdges]), int(c[cntTags])
		typ, rel := cntKey(ixType.Name, ""), cntKey(ixRel.Name, "")
		for k, n := range c {
			switch {
			case strings.HasPrefix(k, typ):
				st.ByType[k[len(typ):]] = int(n)
			case strings.HasPrefix(k, rel):
				st.ByRelation[k[len(rel):]] = int(n)
			}
		}
		st.Conflicts = st.ByRelation[string(Contradicts)]
		if st.Nodes > 0 {
			st.AvgConfidence = math.Round(float64(c[cntConf])/1e6/float64(st.Nodes)*1e4) / 1e4
		}
		st.Revision = storage.ParseKey(tx.Bucket(storage.BucketVaultIndex).Get(revKey))
		return nil
	})
	return st, err
}

// TagCount is a tag and how many nodes carry it.
type TagCount struct {
	Tag   string `json:"tag"`
	Count int    `json:"count"`
}

// Tags lists every tag with its node count, most used first (from the
// counters).
func (v *Vault) Tags(ctx context.Context) ([]TagCount, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := []TagCount{}
	err := v.db.View(func(tx *bolt.Tx) error {
		c, err := counts(tx)
		if err != nil {
			return err
		}
		tag := cntKey(ixTag.Name, "")
		for k, n := range c {
			if strings.HasPrefix(k, tag) && n > 0 {
				out = append(out, TagCount{Tag: k[len(tag):], Count: int(n)})
			}
		}
		return nil
	})
	slices.SortFunc(out, func(a, b TagCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Tag, b.Tag))
	})
	return out, err
}
