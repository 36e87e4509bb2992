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

	bolt "go.etcd.io/bbolt"

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
	fmt.Fprintf(&b, "invalid JSONL: %d bad line(s), nothing imported", len(e.Lines)+e.More)
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
	d := &Dump{}
	ie := &ImportError{}
	fail := func(line int, err error) {
		if len(ie.Lines) < maxLineErrors {
			ie.Lines = append(ie.Lines, LineError{Line: line, Err: err})
		} else {
			ie.More++
		}
	}
	br := bufio.NewReaderSize(r, 64<<10)
	nodeLines := map[uint64]int{}
	edgeLines := map[uint64]int{}
	type pendingEdge struct {
		line int
		e    Edge
	}
	var edges []pendingEdge
	lineNo := 0
	for {
		line, err := readLine(br)
		if len(line) == 0 && err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			if errors.Is(err, errLineTooLong) {
				lineNo++
				fail(lineNo, err)
				continue
			}
			return nil, fmt.Errorf("read JSONL: %w", err)
		}
		lineNo++
		if errors.Is(err, errLineTooLong) {
			fail(lineNo, err)
			continue
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var probe struct {
			Kind     string          `json:"kind"`
			Relation json.RawMessage `json:"relation"`
		}
		if err := json.Unmarshal(line, &probe); err != nil {
			fail(lineNo, fmt.Errorf("not a JSON object: %s", jsonErr(err)))
			continue
		}
		kind := probe.Kind
		if kind == "" { // tolerate hand-written lines without kind
			kind = "node"
			if len(probe.Relation) > 0 {
				kind = "edge"
			}
		}
		switch kind {
		case "header":
			var h dumpHeader
			if err := json.Unmarshal(line, &h); err != nil {
				fail(lineNo, fmt.Errorf("header: %s", jsonErr(err)))
			} else if h.Format != "" && h.Format != DumpFormat {
				fail(lineNo, fmt.Errorf("header: format %q is not %q", h.Format, DumpFormat))
			} else if h.Version > DumpVersion {
				fail(lineNo, fmt.Errorf("header: version %d is newer than this nova reads (%d)", h.Version, DumpVersion))
			}
		case "node":
			n, err := parseNodeLine(line)
			if err != nil {
				fail(lineNo, err)
				continue
			}
			if prev, dup := nodeLines[n.ID]; dup {
				fail(lineNo, fmt.Errorf("node id %d already defined on line %d", n.ID, prev))
				continue
			}
			nodeLines[n.ID] = lineNo
			d.Nodes = append(d.Nodes, n)
		case "edge":
			e, err := parseEdgeLine(line)
			if err != nil {
				fail(lineNo, err)
				continue
			}
			if prev, dup := edgeLines[e.ID]; dup {
				fail(lineNo, fmt.Errorf("edge id %d already defined on line %d", e.ID, prev))
				continue
			}
			edgeLines[e.ID] = lineNo
			edges = append(edges, pendingEdge{lineNo, e})
		default:
			fail(lineNo, fmt.Errorf("unknown kind %q (want header, node or edge)", probe.Kind))
		}
	}
	for _, pe := range edges {
		ok := true
		for _, id := range []uint64{pe.e.From, pe.e.To} {
			if _, in := nodeLines[id]; !in && (known == nil || !known(id)) {
				fail(pe.line, fmt.Errorf("edge %d: node %d is neither in the file nor in the vault", pe.e.ID, id))
				ok = false
				break
			}
		}
		if ok {
			d.Edges = append(d.Edges, pe.e)
		}
	}
	if len(ie.Lines) > 0 {
		return nil, ie
	}
	return d, nil
}

var errLineTooLong = fmt.Errorf("line longer than %d bytes", MaxLineLen)

// readLine returns the next line without its newline. A line longer than
// MaxLineLen is skipped and reported with errLineTooLong.
func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
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

func parseNodeLine(line []byte) (Node, error) {
	var raw struct {
		nodeLine
		Confidence *float64 `json:"confidence"`
	}
	if err := json.Unmarshal(line, &raw); err != nil {
		return Node{}, fmt.Errorf("node: %s", jsonErr(err))
	}
	n := raw.Node
	if n.ID == 0 {
		return Node{}, fmt.Errorf("node: missing id (ids are kept on import)")
	}
	if n.ID > storage.MaxID {
		// An id near 2^64 made the counter wrap: the next new node got #0,
		// then #1 replaced starter node #1.
		return Node{}, fmt.Errorf("node: id %d is larger than %d, the largest id nova accepts (ids must stay exact in JSON); renumber the file's ids", n.ID, uint64(storage.MaxID))
	}
	if raw.Confidence == nil {
		n.Confidence = DefaultConfidence
	} else {
		n.Confidence = *raw.Confidence
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

func parseEdgeLine(line []byte) (Edge, error) {
	var raw struct {
		edgeLine
		Strength *float64 `json:"strength"`
	}
	if err := json.Unmarshal(line, &raw); err != nil {
		return Edge{}, fmt.Errorf("edge: %s", jsonErr(err))
	}
	e := raw.Edge
	if e.ID == 0 {
		return Edge{}, fmt.Errorf("edge: missing id (ids are kept on import)")
	}
	if e.ID > storage.MaxID {
		return Edge{}, fmt.Errorf("edge: id %d is larger than %d, the largest id nova accepts (ids must stay exact in JSON); renumber the file's ids", e.ID, uint64(storage.MaxID))
	}
	if e.From == 0 || e.To == 0 {
		return Edge{}, fmt.Errorf("edge %d: missing from or to", e.ID)
	}
	if e.From > storage.MaxID || e.To > storage.MaxID {
		return Edge{}, fmt.Errorf("edge %d: node id out of range (the largest id nova accepts is %d)", e.ID, uint64(storage.MaxID))
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
	if raw.Strength != nil {
		e.Strength = *raw.Strength
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

// Import reads a JSONL dump (see Export) and writes it in one transaction,
// keeping ids: whole file or nothing. Any bad line rejects the import with
// an *ImportError listing every bad line by number (errors.Is ErrInvalid).
// A node or edge whose id exists is replaced. An import whose new nodes would
// take the vault over its tier's cap is refused (*CapError) before anything
// is written.
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
	// Parsing reads r to its end: through ctxReader a cancelled import
	// stops at the next read instead of after the whole stream.
	d, err := ParseJSONL(ctxReader{ctx: ctx, r: r}, func(id uint64) bool { return existing[id] })
	if err != nil {
		if ctx.Err() != nil {
			return ImportReport{}, ctx.Err()
		}
		return ImportReport{}, err
	}
	var rep ImportReport
	err = v.update(ctx, "import", func(tx *bolt.Tx, ws *writeSet) error {
		rep = ImportReport{}
		fresh := 0
		for i := range d.Nodes {
			if !hasNode(tx, d.Nodes[i].ID) {
				fresh++
			}
		}
		if _, err := v.reserve(tx, ws, ByUser, fresh, 0); err != nil {
			return err
		}
		ws.rebuild = len(d.Nodes) > rebuildThreshold
		batch := &ixBatch{}
		for i := range d.Nodes {
			if i%1024 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			n := d.Nodes[i]
			var old *Node
			if o, err := getNode(tx, n.ID); err == nil {
				old = &o
				rep.Replaced++
			}
			if old != nil {
				// Replacing: remove the old entries now, add the new ones in order below.
				if err := putNodeTx(tx, &n, old); err != nil {
					return err
				}
			} else if err := putNodeTx(tx, &n, nil, batch); err != nil {
				return err
			}
			ws.putNode(&n, true)
			rep.Nodes++
		}
		for i := range d.Edges {
			e := d.Edges[i]
			for _, id := range []uint64{e.From, e.To} {
				if !hasNode(tx, id) {
					return fmt.Errorf("edge %d: node %d: %w", e.ID, id, ErrNotFound)
				}
			}
			if _, err := getEdge(tx, e.ID); err == nil {
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
		return batch.flush(tx)
	})
	if err != nil {
		return ImportReport{}, err
	}
	return rep, nil
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
