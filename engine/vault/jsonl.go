package vault

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	fastjson "github.com/segmentio/encoding/json"
	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/internal/plural"
	"github.com/nova-dev/nova/storage"
)

// The JSONL dump format: one JSON object per line. An optional first line
// {"kind":"header","format":"nova-vault","version":1,...}; then lines
// {"kind":"node", ...every Node field, body included} and
// {"kind":"edge","id","from","to","relation","strength","createdAt"}. Ids are
// kept, so export → import into an empty vault is lossless.
const (
	DumpFormat  = "nova-vault"
	DumpVersion = 1
	// MaxLineLen bounds one JSONL line (a node with a 1 MB body, escaped).
	MaxLineLen = 8 << 20
	// maxLineErrors bounds the problems reported for one file.
	maxLineErrors = 50
)

type dumpHeader struct {
	Kind       string    `json:"kind"`
	Format     string    `json:"format"`
	Version    int       `json:"version"`
	Nodes      int       `json:"nodes"`
	Edges      int       `json:"edges"`
	ExportedAt time.Time `json:"exportedAt"`
}

type nodeLine struct {
	Kind string `json:"kind"`
	Node
}

type edgeLine struct {
	Kind string `json:"kind"`
	Edge
}

// ExportStats counts what Export wrote.
type ExportStats struct {
	Nodes int `json:"nodes"`
	Edges int `json:"edges"`
}

// Export writes the whole vault (nodes with bodies, then edges) as JSONL
// from one consistent read transaction.
func (v *Vault) Export(ctx context.Context, w io.Writer) (ExportStats, error) {
	if err := ctx.Err(); err != nil {
		return ExportStats{}, err
	}
	var st ExportStats
	bw := bufio.NewWriterSize(w, 256<<10)
	err := v.db.View(func(tx *bolt.Tx) error {
		nodes, edges, bodies, err := buckets(tx)
		if err != nil {
			return err
		}
		enc := json.NewEncoder(bw)
		enc.SetEscapeHTML(false)
		hdr := dumpHeader{Kind: "header", Format: DumpFormat, Version: DumpVersion,
			Nodes: nodes.Stats().KeyN, Edges: edges.Stats().KeyN, ExportedAt: v.now()}
		if err := enc.Encode(hdr); err != nil {
			return err
		}
		c := nodes.Cursor()
		for k, val := c.First(); k != nil; k, val = c.Next() {
			if st.Nodes%1024 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			n, err := nodeCodec.Unmarshal(val)
			if err != nil {
				return fmt.Errorf("export node %d: %w", storage.ParseKey(k), err)
			}
			n.ID = storage.ParseKey(k)
			if n.Tags == nil {
				n.Tags = []string{}
			}
			if n.HasBody {
				n.Body = decodeBody(bodies.Get(k))
			}
			n.HasBody = false
			if err := enc.Encode(nodeLine{Kind: "node", Node: n}); err != nil {
				return err
			}
			st.Nodes++
		}
		c = edges.Cursor()
		for k, val := c.First(); k != nil; k, val = c.Next() {
			e, err := edgeCodec.Unmarshal(val)
			if err != nil {
				return fmt.Errorf("export edge %d: %w", storage.ParseKey(k), err)
			}
			e.ID = storage.ParseKey(k)
			if err := enc.Encode(edgeLine{Kind: "edge", Edge: e}); err != nil {
				return err
			}
			st.Edges++
		}
		return nil
	})
	if err != nil {
		return st, err
	}
	if err := bw.Flush(); err != nil {
		return st, fmt.Errorf("export: %w", err)
	}
	return st, nil
}

// LineError is a problem with one line of a JSONL file.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// ImportError lists every bad line of a rejected import; it matches
// ErrInvalid.
type ImportError struct {
	Lines []LineError
	// More counts problems beyond those listed.
	More int
}

func (e *ImportError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "invalid JSONL: %s, nothing imported", plural.Count(len(e.Lines)+e.More, "bad line", "bad lines"))
	for _, l := range e.Lines {
		b.WriteString("\n  ")
		b.WriteString(l.Error())
	}
	if e.More > 0 {
		fmt.Fprintf(&b, "\n  … and %d more", e.More)
	}
	return b.String()
}

// Unwrap makes errors.Is(err, ErrInvalid) hold.
func (e *ImportError) Unwrap() error { return ErrInvalid }

// Dump is a parsed JSONL file.
type Dump struct {
	Nodes []Node
	Edges []Edge
}

// ParseJSONL reads and validates a JSONL dump without touching a vault. Every
// bad line is reported (up to 50) with its line number in an *ImportError.
// Edges must name nodes of the dump unless known(id) says the node exists
// elsewhere (known may be nil). It never panics.
func ParseJSONL(r io.Reader, known func(id uint64) bool) (*Dump, error) {
	dr := newDumpReader(r)
	d := &Dump{}
	for {
		n, ok, err := dr.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		d.Nodes = append(d.Nodes, n)
	}
	d.Edges = dr.checkEdges(known)
	if err := dr.err(); err != nil {
		return nil, err
	}
	return d, nil
}

// dumpReader reads a JSONL dump line by line: nodes one by one (see next), edges kept for
// checkEdges (they may name nodes of later lines), every bad line recorded.
type dumpReader struct {
	br        *bufio.Reader
	lineNo    int
	lineBuf   []byte
	ie        ImportError
	nodeLines map[uint64]int
	edgeLines map[uint64]int
	edges     []pendingEdge
}

type pendingEdge struct {
	line int
	e    Edge
}

func newDumpReader(r io.Reader) *dumpReader {
	return &dumpReader{br: bufio.NewReaderSize(r, 64<<10), nodeLines: map[uint64]int{}, edgeLines: map[uint64]int{}}
}

func (dr *dumpReader) fail(line int, err error) {
	if len(dr.ie.Lines) < maxLineErrors {
		dr.ie.Lines = append(dr.ie.Lines, LineError{Line: line, Err: err})
	} else {
		dr.ie.More++
	}
}

// bad reports whether a bad line was read.
func (dr *dumpReader) bad() bool { return len(dr.ie.Lines) > 0 }

// err returns the *ImportError listing the bad lines, or nil.
func (dr *dumpReader) err() error {
	if !dr.bad() {
		return nil
	}
	return &dr.ie
}

// has reports whether the dump defines node id (on the lines read so far).
func (dr *dumpReader) has(id uint64) bool {
	_, ok := dr.nodeLines[id]
	return ok
}

// next returns the next valid node; ok is false at the end of the input. err is a read
// error; bad lines are recorded, not returned.
func (dr *dumpReader) next() (Node, bool, error) {
	for {
		line, err := readLine(dr.br, dr.lineBuf[:0])
		dr.lineBuf = line
		if len(line) == 0 && err != nil {
			if errors.Is(err, io.EOF) {
				return Node{}, false, nil
			}
			if errors.Is(err, errLineTooLong) {
				dr.lineNo++
				dr.fail(dr.lineNo, err)
				continue
			}
			return Node{}, false, fmt.Errorf("read JSONL: %w", err)
		}
		dr.lineNo++
		lineNo := dr.lineNo
		if errors.Is(err, errLineTooLong) {
			dr.fail(lineNo, err)
			continue
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		// One decode per line, into every field a line of any kind may have: a 100k-node
		// file is 50 MB of JSON.
		var l dumpLine
		err = decodeLine(line, &l)
		var te *json.UnmarshalTypeError
		if err != nil && (!errors.As(err, &te) || te.Field == "") {
			dr.fail(lineNo, fmt.Errorf("not a JSON object: %s", jsonErr(err)))
			continue
		}
		kind := l.Kind
		if kind == "" { // tolerate hand-written lines without kind
			kind = "node"
			if l.Relation != nil {
				kind = "edge"
			}
		}
		switch kind {
		case "header":
			switch {
			case err != nil:
				dr.fail(lineNo, fmt.Errorf("header: %s", jsonErr(err)))
			case l.Format != "" && l.Format != DumpFormat:
				dr.fail(lineNo, fmt.Errorf("header: format %q is not %q", l.Format, DumpFormat))
			case l.Version > DumpVersion:
				dr.fail(lineNo, fmt.Errorf("header: version %d is newer than this nova reads (%d)", l.Version, DumpVersion))
			}
		case "node":
			n, err := l.node(err)
			if err != nil {
				dr.fail(lineNo, err)
				continue
			}
			if prev, dup := dr.nodeLines[n.ID]; dup {
				dr.fail(lineNo, fmt.Errorf("node id %d already defined on line %d", n.ID, prev))
				continue
			}
			dr.nodeLines[n.ID] = lineNo
			return n, true, nil
		case "edge":
			e, err := l.edge(err)
			if err != nil {
				dr.fail(lineNo, err)
				continue
			}
			if prev, dup := dr.edgeLines[e.ID]; dup {
				dr.fail(lineNo, fmt.Errorf("edge id %d already defined on line %d", e.ID, prev))
				continue
			}
			dr.edgeLines[e.ID] = lineNo
			dr.edges = append(dr.edges, pendingEdge{lineNo, e})
		default:
			dr.fail(lineNo, fmt.Errorf("unknown kind %q (want header, node or edge)", l.Kind))
		}
	}
}

// checkEdges returns the edges whose ends are nodes of the dump or known(id), recording
// the others as bad lines. Call it after the last node.
func (dr *dumpReader) checkEdges(known func(id uint64) bool) []Edge {
	var out []Edge
	for _, pe := range dr.edges {
		ok := true
		for _, id := range []uint64{pe.e.From, pe.e.To} {
			if !dr.has(id) && (known == nil || !known(id)) {
				dr.fail(pe.line, fmt.Errorf("edge %d: node %d is neither in the file nor in the vault", pe.e.ID, id))
				ok = false
				break
			}
		}
		if ok {
			out = append(out, pe.e)
		}
	}
	dr.edges = nil
	return out
}

var errLineTooLong = fmt.Errorf("line longer than %d bytes", MaxLineLen)

// readLine returns the next line without its newline, in buf's storage. A line longer
// than MaxLineLen is skipped and reported with errLineTooLong.
func readLine(br *bufio.Reader, buf []byte) ([]byte, error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) > MaxLineLen {
			// Drain the rest of the line.
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			if err != nil && !errors.Is(err, io.EOF) {
				return nil, err
			}
			return []byte{' '}, errLineTooLong
		}
		buf = append(buf, chunk...)
		switch {
		case err == nil:
			return buf[:len(buf)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return buf, err
		}
	}
}

func jsonErr(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%v (at byte %d)", se, se.Offset)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("field %q: %v is not a valid %v", te.Field, te.Value, te.Type)
	}
	return err.Error()
}

// decodeLine decodes one JSONL line as encoding/json does, with
// segmentio/encoding/json (a drop-in for encoding/json that decodes these lines
// 3–4× faster, already in the binary through the MCP SDK): reflection in
// encoding/json was a fifth of the CPU of a 100k-node import. A line it refuses
// is decoded again by encoding/json, so every error, and what a partly decoded
// line holds, stay encoding/json's (FuzzDecodeLine checks that accepted lines
// decode the same).
func decodeLine(line []byte, l *dumpLine) error {
	if err := fastjson.Unmarshal(line, l); err == nil {
		return nil
	}
	*l = dumpLine{}
	return json.Unmarshal(line, l)
}

// dumpLine holds every field a line of any kind may have, so each line is decoded once.
// Confidence and Strength are pointers to tell a missing value from 0.
type dumpLine struct {
	Kind string `json:"kind"`
	Node
	Confidence *float64  `json:"confidence"`
	From       uint64    `json:"from"`
	To         uint64    `json:"to"`
	Relation   *Relation `json:"relation"`
	Strength   *float64  `json:"strength"`
	Format     string    `json:"format"`
	Version    int       `json:"version"`
}

// node validates a node line; derr is the line's decoding error, if any.
func (l *dumpLine) node(derr error) (Node, error) {
	if derr != nil {
		return Node{}, fmt.Errorf("node: %s", jsonErr(derr))
	}
	n := l.Node
	if n.ID == 0 {
		return Node{}, fmt.Errorf("node: missing id (ids are kept on import)")
	}
	if n.ID > storage.MaxImportID {
		// An id near 2^64 made the counter wrap: the next new node got #0,
		// then #1 replaced starter node #1; an id of 2^53 left the counter
		// with no id to issue.
		return Node{}, fmt.Errorf("node: id %d is larger than %d, the largest id an import may carry (nova would run out of ids to issue); renumber the file's ids", n.ID, uint64(storage.MaxImportID))
	}
	if l.Confidence == nil {
		n.Confidence = DefaultConfidence
	} else {
		n.Confidence = *l.Confidence
	}
	if n.Type == "" {
		return Node{}, fmt.Errorf("node %d: missing type", n.ID)
	}
	if err := n.normalize("", false); err != nil {
		return Node{}, fmt.Errorf("node %d: %w", n.ID, err)
	}
	if n.UserID == "" {
		n.UserID = "local"
	}
	if n.UpdatedAt.Before(n.CreatedAt) {
		n.UpdatedAt = n.CreatedAt
	}
	return n, nil
}

// edge validates an edge line; derr is the line's decoding error, if any.
func (l *dumpLine) edge(derr error) (Edge, error) {
	if derr != nil {
		return Edge{}, fmt.Errorf("edge: %s", jsonErr(derr))
	}
	e := Edge{ID: l.ID, From: l.From, To: l.To, CreatedAt: l.CreatedAt}
	if l.Relation != nil {
		e.Relation = *l.Relation
	}
	if e.ID == 0 {
		return Edge{}, fmt.Errorf("edge: missing id (ids are kept on import)")
	}
	if e.ID > storage.MaxImportID {
		return Edge{}, fmt.Errorf("edge: id %d is larger than %d, the largest id an import may carry (nova would run out of ids to issue); renumber the file's ids", e.ID, uint64(storage.MaxImportID))
	}
	if e.From == 0 || e.To == 0 {
		return Edge{}, fmt.Errorf("edge %d: missing from or to", e.ID)
	}
	if e.From > storage.MaxImportID || e.To > storage.MaxImportID {
		return Edge{}, fmt.Errorf("edge %d: node id out of range (the largest id an import may carry is %d)", e.ID, uint64(storage.MaxImportID))
	}
	if e.From == e.To {
		return Edge{}, fmt.Errorf("edge %d: a node cannot link to itself", e.ID)
	}
	rel, err := ParseRelation(string(e.Relation))
	if err != nil {
		return Edge{}, fmt.Errorf("edge %d: %w", e.ID, err)
	}
	e.Relation = rel
	e.Strength = DefaultStrength
	if l.Strength != nil {
		e.Strength = *l.Strength
	}
	if err := checkConfidence(e.Strength, "strength"); err != nil {
		return Edge{}, fmt.Errorf("edge %d: %w", e.ID, err)
	}
	return e, nil
}

// ImportReport says what Import did.
type ImportReport struct {
	Nodes int `json:"nodes"`
	Edges int `json:"edges"`
	// Replaced counts nodes and edges whose id existed and were overwritten.
	Replaced int `json:"replaced"`
}

// Import reads a JSONL dump (see Export) and writes it, keeping ids: whole
// file or nothing. Any bad line rejects the import with an *ImportError
// listing every bad line by number (errors.Is ErrInvalid), before anything is
// written. A node or edge whose id exists is replaced. An import whose new
// nodes would take the vault over its tier's cap is refused (*CapError) and
// leaves the vault as it was.
//
// A dump of up to importChunk records is written in one transaction. A larger
// one is written in transactions of importChunk records under a journal
// (bucket vault_journal: what each written id held before), so that memory
// stays bounded whatever the dump's size; a failure, a cancellation or the
// tier cap rolls back what was written, and a process killed meanwhile leaves
// the journal for the next write to roll back (see recoverImport). The cap is
// checked before each chunk is written, so a dump over it from its first
// chunk (any dump over the free tier's cap) writes nothing at all.
func (v *Vault) Import(ctx context.Context, r io.Reader) (ImportReport, error) {
	if err := ctx.Err(); err != nil {
		return ImportReport{}, err
	}
	if v.db.ReadOnly() {
		return ImportReport{}, storage.ErrReadOnly
	}
	var existing map[uint64]bool
	err := v.db.View(func(tx *bolt.Tx) error {
		existing = map[uint64]bool{}
		c := tx.Bucket(storage.BucketVaultNodes).Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			existing[storage.ParseKey(k)] = true
		}
		return nil
	})
	if err != nil {
		return ImportReport{}, err
	}
	known := func(id uint64) bool { return existing[id] }
	// Through ctxReader a cancelled import stops at the next read instead of after the
	// whole stream.
	dr := newDumpReader(ctxReader{ctx: ctx, r: r})
	size := v.chunk()
	var first []Node
	for len(first) <= size {
		n, ok, err := dr.next()
		if err != nil {
			return ImportReport{}, err
		}
		if !ok {
			break
		}
		first = append(first, n)
	}
	src := &importSource{dr: dr, known: known, buf: first, more: len(first) > size, count: len(existing)}
	if !src.more {
		edges := dr.checkEdges(known)
		if err := dr.err(); err != nil {
			return ImportReport{}, err
		}
		src.edges, src.checked = edges, true
		if len(first)+len(edges) > size {
			return v.importJournaled(ctx, src)
		}
	} else {
		return v.importJournaled(ctx, src)
	}
	var rep ImportReport
	err = v.update(ctx, "import", func(tx *bolt.Tx, ws *writeSet) error {
		rep = ImportReport{}
		fresh := map[uint64]bool{}
		for i := range first {
			if !hasNode(tx, first[i].ID) {
				fresh[first[i].ID] = true
			}
		}
		if _, err := v.reserve(tx, ws, ByUser, len(fresh), 0); err != nil {
			return err
		}
		return importRecords(ctx, tx, ws, first, src.edges, &rep, nil)
	})
	if err != nil {
		return ImportReport{}, err
	}
	return rep, nil
}

// importSource feeds a large import chunk by chunk while the dump is read: only one
// chunk of nodes is held in memory, whatever the dump's size.
type importSource struct {
	dr      *dumpReader
	known   func(id uint64) bool
	buf     []Node // nodes read ahead
	more    bool   // the input may hold more nodes
	edges   []Edge
	checked bool
	// count is how many nodes the vault held before the import; fresh the distinct ids
	// of the nodes returned so far that it did not hold (for the tier cap).
	count int
	fresh map[uint64]bool
}

// countFresh adds the ids of nodes the vault did not hold to s.fresh and returns
// how many distinct new nodes the import has brought so far.
func (s *importSource) countFresh(nodes []Node) int {
	if s.fresh == nil {
		s.fresh = map[uint64]bool{}
	}
	for i := range nodes {
		if id := nodes[i].ID; !s.known(id) {
			s.fresh[id] = true
		}
	}
	return len(s.fresh)
}

// capError says whether the import's new nodes so far take a vault of tier over its cap.
// When they do, it reads the rest of the dump to report the whole import's count (or the
// dump's bad lines, which come first).
func (s *importSource) capError(tier string, nodes []Node) error {
	if CheckCap(tier, s.count, s.countFresh(nodes)) == nil {
		return nil
	}
	for {
		rest, err := s.nodes(importChunk)
		if err != nil {
			return err
		}
		if len(rest) == 0 {
			break
		}
		s.countFresh(rest)
	}
	return CheckCap(tier, s.count, len(s.fresh))
}

// nodes returns up to n more nodes, nil when there are none. A bad line anywhere in the
// dump stops it: it reads the rest of the dump to report every bad line, and returns the
// *ImportError.
func (s *importSource) nodes(n int) ([]Node, error) {
	for s.more && len(s.buf) < n {
		node, ok, err := s.dr.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			s.more = false
			break
		}
		s.buf = append(s.buf, node)
	}
	if s.dr.bad() {
		for s.more {
			_, ok, err := s.dr.next()
			if err != nil {
				return nil, err
			}
			s.more = ok
		}
		s.dr.checkEdges(s.known)
		return nil, s.dr.err()
	}
	k := min(n, len(s.buf))
	out := s.buf[:k:k]
	// The next chunk's buffer, allocated once at its full size (growing it by appends
	// allocated twice the chunk's nodes, 10 % of an import's allocations).
	s.buf = append(make([]Node, 0, max(n, len(s.buf)-k)), s.buf[k:]...)
	return out, nil
}

// allEdges returns the dump's edges once every node was read, or the *ImportError.
func (s *importSource) allEdges() ([]Edge, error) {
	if !s.checked {
		s.edges, s.checked = s.dr.checkEdges(s.known), true
	}
	if err := s.dr.err(); err != nil {
		return nil, err
	}
	return s.edges, nil
}

// importRecords writes nodes and edges in tx. With journal set, it first records
// there what each id held (see importJournaled).
func importRecords(ctx context.Context, tx *bolt.Tx, ws *writeSet, nodes []Node, edges []Edge, rep *ImportReport, journal *bolt.Bucket) error {
	batch := &ixBatch{ftsSink: ws.ftsSink, coreSink: ws.coreSink}
	var fresh journalIDs
	for i := range nodes {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		n := nodes[i]
		var old *Node
		// hasNode first: a new id (the common case) costs one lookup, not a wrapped error.
		if hasNode(tx, n.ID) {
			if o, err := getNode(tx, n.ID); err == nil {
				old = &o
				rep.Replaced++
			}
		}
		if journal != nil {
			if err := fresh.node(tx, journal, n.ID, old); err != nil {
				return err
			}
		}
		// Replacing removes the old entries now; new ones go in order at the end.
		if err := putNodeTx(tx, &n, old, batch); err != nil {
			return err
		}
		ws.putNode(&n, true)
		rep.Nodes++
	}
	for i := range edges {
		e := edges[i]
		for _, id := range []uint64{e.From, e.To} {
			if !hasNode(tx, id) {
				return fmt.Errorf("edge %d: node %d: %w", e.ID, id, ErrNotFound)
			}
		}
		old, err := getEdge(tx, e.ID)
		replaced := err == nil
		if journal != nil {
			var prev *Edge
			if replaced {
				prev = &old
			}
			if err := fresh.edge(journal, e.ID, prev); err != nil {
				return err
			}
		}
		if replaced {
			if err := removeEdgeTx(tx, ws, e.ID); err != nil {
				return err
			}
			rep.Replaced++
		}
		if err := putEdgeTx(tx, &e, batch); err != nil {
			return err
		}
		ws.edges = append(ws.edges, e.ID)
		rep.Edges++
	}
	if journal != nil {
		if err := fresh.flush(journal); err != nil {
			return err
		}
	}
	return batch.flush(tx)
}

// ctxReader fails its reads once ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
