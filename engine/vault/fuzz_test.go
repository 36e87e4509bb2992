package vault_test

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/nova-dev/nova/engine/vault"
)

// FuzzImportJSONL feeds arbitrary bytes to the JSONL parser: it must never
// panic, and whatever it accepts must export and re-import unchanged.
func FuzzImportJSONL(f *testing.F) {
	f.Add([]byte(`{"kind":"header","format":"nova-vault","version":1}` + "\n" +
		`{"kind":"node","id":1,"type":"Pattern","content":"a","tags":["x"],"body":"b\nc"}` + "\n" +
		`{"kind":"node","id":2,"type":"Mistake","content":"z","confidence":0.1}` + "\n" +
		`{"kind":"edge","id":1,"from":1,"to":2,"relation":"supports","strength":0.3}`))
	f.Add([]byte(`{"id":1,"type":"pattern","content":"\u0000nul"}`))
	f.Add([]byte("{\n}\n{\"kind\":\"edge\"}\n\xff\xfe"))
	f.Add([]byte(`{"kind":"node","id":18446744073709551615,"type":"Decision","content":"max id","createdAt":"2026-01-01T00:00:00Z"}`))
	f.Add([]byte(`{"kind":"node","id":3,"type":"Pattern","content":"c","confidence":1e308,"helpfulCount":-5}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := vault.ParseJSONL(bytes.NewReader(data), nil)
		if err != nil {
			if !strings.Contains(err.Error(), "line") && !strings.Contains(err.Error(), "read JSONL") {
				t.Fatalf("error without a line number: %v", err)
			}
			return
		}
		if len(d.Nodes) > 20 || len(d.Edges) > 20 {
			return // keep the database round trip cheap
		}
		e := newEnv(t)
		if _, err := e.v.Import(t.Context(), bytes.NewReader(data)); err != nil {
			t.Fatalf("parsed but did not import: %v", err)
		}
		var out bytes.Buffer
		if _, err := e.v.Export(t.Context(), &out); err != nil {
			t.Fatal(err)
		}
		d2, err := vault.ParseJSONL(&out, nil)
		if err != nil {
			t.Fatalf("the export does not parse: %v", err)
		}
		if want, got := canon(t, d.Nodes, d.Edges), canon(t, d2.Nodes, d2.Edges); want != got {
			t.Fatalf("round trip changed the data:\n%s\n%s", want, got)
		}
		e.verify()
	})
}

// FuzzDetectConflict checks DetectConflict never panics, is symmetric, and
// never calls a statement its own contradiction.
func FuzzDetectConflict(f *testing.F) {
	for _, s := range [][2]string{
		{"never use eval", "always use eval"}, {"avoid globals", "prefer globals over params"},
		{"do not log secrets", "log secrets"}, {"Don’t panic", "panic"}, {"", ""}, {"never never", "always"},
		{"\xff\xfe never", "always \x00"}, {"you should not", "not not not"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		ab := vault.DetectConflict(a, b)
		if ab != vault.DetectConflict(b, a) {
			t.Fatalf("not symmetric for %q / %q", a, b)
		}
		if vault.DetectConflict(a, a) {
			t.Fatalf("%q contradicts itself", a)
		}
	})
}

// canon renders nodes and edges in id order (the export's order) as JSON.
func canon(t *testing.T, nodes []vault.Node, edges []vault.Edge) string {
	nodes, edges = slices.Clone(nodes), slices.Clone(edges)
	slices.SortFunc(nodes, func(a, b vault.Node) int { return cmp.Compare(a.ID, b.ID) })
	slices.SortFunc(edges, func(a, b vault.Edge) int { return cmp.Compare(a.ID, b.ID) })
	for i := range nodes {
		nodes[i].HasBody = false
		if nodes[i].Tags == nil {
			nodes[i].Tags = []string{}
		}
	}
	b, err := json.Marshal(struct {
		N []vault.Node
		E []vault.Edge
	}{nodes, edges})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// FuzzParseBundle feeds arbitrary bytes to the wisdom-bundle parser: it must
// never panic, refuse with ErrInvalid, and what it accepts must import and
// carry a valid author id.
func FuzzParseBundle(f *testing.F) {
	f.Add([]byte(`{"format":"nova.wisdom/1","author":"u-0123456789abcdef","createdAt":"2026-01-01T00:00:00Z","patterns":[{"type":"Pattern","content":"Keep it small","confidence":0.9,"tags":["go"]}]}`))
	f.Add([]byte(`{"format":"nova.wisdom/1","author":"u-0123456789abcdef","patterns":[{"content":"x","harm":"broke it","confidence":0.5}]}`))
	f.Add([]byte(`{"format":"nova.wisdom/1","author":"me@example.org","patterns":[]}`))
	f.Add([]byte("{\"format\":\"nova.wisdom/1\",\"patterns\":[{\"content\":\"\\u0000\"}]}\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := vault.ParseBundle(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, vault.ErrInvalid) {
				t.Fatalf("refusal without ErrInvalid: %v", err)
			}
			return
		}
		if !strings.HasPrefix(b.Author, "u-") || len(b.Author) != 18 {
			t.Fatalf("accepted author %q", b.Author)
		}
		if len(b.Patterns) > 10 {
			return
		}
		e := newEnv(t)
		if _, err := e.v.Wisdom().ImportBundle(t.Context(), bytes.NewReader(data)); err != nil {
			t.Fatalf("parsed but did not import: %v", err)
		}
	})
}
