package vault

// Wisdom bundles: how wisdom travels between users. A bundle is one JSON
// document written by ExportBundle and read by ImportBundle:
//
//	{"format":"nova.wisdom/1","author":"u-0123456789abcdef","createdAt":"…",
//	 "patterns":[{"type":"Pattern","title":"…","content":"…","body":"…","tags":[…],
//	              "language":"go","confidence":0.9,"helpfulCount":3,"harm":""}]}
//
// A bundle carries its author's pseudonymous id (AuthorID), never an e-mail,
// and only sanitized text. ExportBundle signs it with the workspace key
// ("key" and "signature" fields, signing.go); only backing signed by a
// trusted key counts towards activation. Importing it adds that one author as a backer of
// each pattern it carries (or, for a pattern marked "harm", as a reporter),
// creating pending patterns for new ones; a bundle of this workspace's own
// author adds nothing; the same bundle imported twice counts once.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/textindex"
	"github.com/nova-dev/nova/internal/lazyre"
	"github.com/nova-dev/nova/storage"
)

// BundleFormat is the format tag of a wisdom bundle.
const BundleFormat = "nova.wisdom/1"

// Bundle limits: what ParseBundle accepts.
const (
	MaxBundleBytes    = 8 << 20
	MaxBundlePatterns = 2000
)

// Bundle is a set of wisdom patterns shared by one author.
type Bundle struct {
	Format    string          `json:"format"`
	Author    string          `json:"author"`
	CreatedAt time.Time       `json:"createdAt"`
	Patterns  []BundlePattern `json:"patterns"`
	// Key is the signer's public key ("ed25519:" base64) and Signature the
	// base64 ed25519 signature of the bundle with Signature empty (compact
	// JSON). Both empty: an unsigned bundle (imported for reading only).
	Key       string `json:"key,omitempty"`
	Signature string `json:"signature,omitempty"`
}

// BundlePattern is one shared pattern: its sanitized text, and whether the
// author backs it ("harm" empty) or reports that it did harm (the reason).
type BundlePattern struct {
	Type         NodeType `json:"type"`
	Title        string   `json:"title,omitempty"`
	Content      string   `json:"content"`
	Body         string   `json:"body,omitempty"`
	Tags         []string `json:"tags,omitempty"`
	Language     string   `json:"language,omitempty"`
	Confidence   float64  `json:"confidence"`
	HelpfulCount int      `json:"helpfulCount,omitempty"`
	Harm         string   `json:"harm,omitempty"`
}

// BundleImport is the record of an imported bundle (wisdom/bundles) and
// ImportBundle's report.
type BundleImport struct {
	// ID is the bundle's SHA-256 (hex).
	ID         string    `json:"id"`
	Author     string    `json:"author"`
	Patterns   int       `json:"patterns"`
	Created    int       `json:"created"`  // new pending patterns
	Backed     int       `json:"backed"`   // existing patterns the author now backs
	Reported   int       `json:"reported"` // harm reports added
	Unchanged  int       `json:"unchanged"`
	ImportedAt time.Time `json:"importedAt"`
	// Key is the key that signed the bundle ("" unsigned); Trusted says
	// whether this workspace trusts it (its backing counts towards
	// activation) when it was imported.
	Key     string `json:"key,omitempty"`
	Trusted bool   `json:"trusted"`
	// Already: the same bundle was imported before (nothing changed); Own:
	// the bundle's author is this workspace's identity (nothing changed).
	Already bool `json:"already,omitempty"`
	Own     bool `json:"own,omitempty"`
}

var (
	bundleImportCodec = storage.Codec[BundleImport]{Version: 1}
	authorRE          = lazyre.New(`^u-[0-9a-f]{16}$`)
)

// ParseBundle reads and validates a bundle: one JSON document of at most
// MaxBundleBytes, format nova.wisdom/1, an author id of the AuthorID form and
// at most MaxBundlePatterns valid patterns. Bad input is an error wrapping
// ErrInvalid; it never panics.
func ParseBundle(r io.Reader) (Bundle, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxBundleBytes+1))
	if err != nil {
		return Bundle{}, fmt.Errorf("read wisdom bundle: %w", err)
	}
	return parseBundle(data)
}

func parseBundle(data []byte) (Bundle, error) {
	if len(data) > MaxBundleBytes {
		return Bundle{}, invalidf("wisdom bundle is larger than %d bytes", MaxBundleBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var b Bundle
	if err := dec.Decode(&b); err != nil {
		return Bundle{}, invalidf("wisdom bundle: %s", jsonErr(err))
	}
	if dec.More() {
		return Bundle{}, invalidf("wisdom bundle: more than one JSON document")
	}
	if b.Format != BundleFormat {
		return Bundle{}, invalidf("wisdom bundle: format %q, want %q", b.Format, BundleFormat)
	}
	if !authorRE.MatchString(b.Author) {
		return Bundle{}, invalidf("wisdom bundle: author %q is not an author id (u- and 16 hex digits)", b.Author)
	}
	if len(b.Patterns) > MaxBundlePatterns {
		return Bundle{}, invalidf("wisdom bundle: %d patterns, at most %d", len(b.Patterns), MaxBundlePatterns)
	}
	// The signature covers the bundle as it was written, before its text is
	// normalised below.
	if _, err := verifyBundle(b); err != nil {
		return Bundle{}, err
	}
	for i := range b.Patterns {
		p := &b.Patterns[i]
		n := Node{Type: p.Type, Title: p.Title, Content: p.Content, Body: p.Body, Tags: p.Tags,
			Language: p.Language, Confidence: p.Confidence, HelpfulCount: max(p.HelpfulCount, 0)}
		if err := n.normalize("", true); err != nil {
			return Bundle{}, fmt.Errorf("wisdom bundle: pattern %d: %w", i+1, err)
		}
		p.Type, p.Title, p.Content, p.Body, p.Tags, p.Language = n.Type, n.Title, n.Content, n.Body, n.Tags, n.Language
		p.HelpfulCount = n.HelpfulCount
		p.Harm = oneLine(cleanText(p.Harm), 500)
	}
	return b, nil
}

// ExportBundle writes the patterns the workspace identity backs, and those it
// reported as harmful, as a bundle authored by its author id.
func (w *Wisdom) ExportBundle(ctx context.Context, out io.Writer) (Bundle, error) {
	ps, err := w.List(ctx, "")
	if err != nil {
		return Bundle{}, err
	}
	me := w.Me()
	b := Bundle{Format: BundleFormat, Author: me, CreatedAt: w.v.now(), Patterns: []BundlePattern{}}
	for _, p := range ps {
		bp := BundlePattern{Type: p.Node.Type, Title: p.Node.Title, Content: p.Node.Content, Body: p.Node.Body,
			Tags: p.Node.Tags, Language: p.Node.Language, Confidence: p.Node.Confidence, HelpfulCount: p.Node.HelpfulCount}
		switch {
		case slices.ContainsFunc(p.HarmReports, func(r HarmReport) bool { return r.UserID == me }):
			i := slices.IndexFunc(p.HarmReports, func(r HarmReport) bool { return r.UserID == me })
			bp.Harm = cmpStr(scrub(p.HarmReports[i].Reason, w.v.opts.ProjectTerms), "reported as harmful")
		case slices.Contains(p.Backers, me):
		default:
			continue
		}
		b.Patterns = append(b.Patterns, bp)
	}
	var priv []byte
	if err := w.write(ctx, "key", func(tx *bolt.Tx) error {
		k, err := signingKeyTx(tx)
		priv = k
		return err
	}); err != nil {
		return Bundle{}, err
	}
	if err := SignBundle(&b, priv); err != nil {
		return Bundle{}, fmt.Errorf("sign wisdom bundle: %w", err)
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(b); err != nil {
		return Bundle{}, fmt.Errorf("write wisdom bundle: %w", err)
	}
	return b, nil
}

func cmpStr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// ImportBundle reads a bundle another user exported and records its author
// as a backer of each pattern it carries (a similar pattern, Jaccard ≥ 0.7,
// is the same pattern; a new one is created pending) or as a reporter of the
// patterns it marks as harmful. The text is sanitized again on the way in.
// One bundle is one author: importing the same bundle twice, or a bundle of
// this workspace's own author, changes nothing.
func (w *Wisdom) ImportBundle(ctx context.Context, r io.Reader) (BundleImport, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxBundleBytes+1))
	if err != nil {
		return BundleImport{}, fmt.Errorf("read wisdom bundle: %w", err)
	}
	b, err := parseBundle(data)
	if err != nil {
		return BundleImport{}, err
	}
	sum := sha256.Sum256(data)
	rep := BundleImport{ID: hex.EncodeToString(sum[:]), Author: b.Author, Patterns: len(b.Patterns), ImportedAt: w.v.now(), Key: b.Key}
	if b.Author == w.Me() {
		rep.Own = true
		return rep, nil
	}
	err = w.write(ctx, "bundle", func(tx *bolt.Tx) error {
		bundles, err := wisdomBucket(tx, wbBundles, true)
		if err != nil {
			return err
		}
		if prev := bundles.Get([]byte(rep.ID)); prev != nil {
			if old, err := bundleImportCodec.Unmarshal(prev); err == nil {
				rep = old
			}
			rep.Already = true
			return errAlreadyImported
		}
		patterns, err := wisdomBucket(tx, wbPatterns, true)
		if err != nil {
			return err
		}
		ts, me := trustTx(tx), w.Me()
		rep.Trusted = ts.counts(b.Key)
		now := w.v.now()
		for _, bp := range b.Patterns {
			clean := Sanitize(Node{Type: bp.Type, Title: bp.Title, Content: bp.Content, Body: bp.Body, Tags: bp.Tags,
				Language: bp.Language, Confidence: bp.Confidence, HelpfulCount: bp.HelpfulCount}, w.v.opts.ProjectTerms...)
			id, found := similarPattern(patterns, clean.Content)
			var p WisdomPattern
			switch {
			case found:
				p, err = getPattern(tx, id)
				if err != nil {
					return err
				}
			case bp.Harm != "":
				rep.Unchanged++ // a harm report about a pattern this workspace does not have
				continue
			default:
				nid, err := storage.NextID(patterns)
				if err != nil {
					return err
				}
				clean.ID, clean.CreatedAt, clean.UpdatedAt = nid, now, now
				p = WisdomPattern{ID: nid, Node: clean, SourceNodeIDs: []uint64{}, Backers: []string{}, HarmReports: []HarmReport{}, CreatedAt: now, UpdatedAt: now}
				rep.Created++
			}
			changed := !found
			if bp.Harm != "" {
				if addHarm(&p, b.Author, bp.Harm, now) {
					rep.Reported++
					changed = true
				}
			} else {
				if !slices.Contains(p.Backers, b.Author) {
					p.Backers = append(p.Backers, b.Author)
					p.UpdatedAt = now
					if found {
						rep.Backed++
					}
					changed = true
				}
				// The author's backing is bound to the key that signed it;
				// a trusted key replaces an untrusted one, never the reverse
				// (a forged bundle cannot take over a trusted author).
				if b.Key != "" && p.BackerKeys[b.Author] != b.Key && !ts.counts(p.BackerKeys[b.Author]) {
					if p.BackerKeys == nil {
						p.BackerKeys = map[string]string{}
					}
					p.BackerKeys[b.Author] = b.Key
					changed = true
				}
			}
			if !changed {
				rep.Unchanged++
				continue
			}
			p.Status = statusOf(&p, me, ts)
			if err := patternCodec.Put(patterns, storage.Key(p.ID), p); err != nil {
				return fmt.Errorf("store wisdom pattern %d: %w", p.ID, err)
			}
		}
		return bundleImportCodec.Put(bundles, []byte(rep.ID), rep)
	})
	if errors.Is(err, errAlreadyImported) {
		return rep, nil
	}
	return rep, err
}

var errAlreadyImported = errors.New("bundle already imported")

// similarPattern finds the existing pattern most similar to content
// (Jaccard ≥ WisdomDedupThreshold).
func similarPattern(patterns *bolt.Bucket, content string) (uint64, bool) {
	words := textindex.WordTokens(content)
	best, bestSim := uint64(0), 0.0
	c := patterns.Cursor()
	for k, val := c.First(); k != nil; k, val = c.Next() {
		p, err := patternCodec.Unmarshal(val)
		if err != nil {
			continue
		}
		if sim := textindex.JaccardSets(words, textindex.WordTokens(p.Node.Content)); sim >= WisdomDedupThreshold && sim > bestSim {
			best, bestSim = storage.ParseKey(k), sim
		}
	}
	return best, best != 0
}

// Bundles lists the imported bundles.
func (w *Wisdom) Bundles(ctx context.Context) ([]BundleImport, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := []BundleImport{}
	err := w.v.db.View(func(tx *bolt.Tx) error {
		b, err := wisdomBucket(tx, wbBundles, false)
		if err != nil {
			return err
		}
		return b.ForEach(func(_, v []byte) error {
			if bi, err := bundleImportCodec.Unmarshal(v); err == nil {
				out = append(out, bi)
			}
			return nil
		})
	})
	slices.SortFunc(out, func(a, b BundleImport) int { return b.ImportedAt.Compare(a.ImportedAt) })
	return out, err
}
