package vault

import (
	"slices"
	"strconv"

	"github.com/nova-dev/nova/storage"
)

// marshalNodeRecord returns nodeCodec's encoding of n: the codec header, then exactly the
// bytes json.Marshal writes for n (FuzzNodeRecord checks it), without reflection. Why
// hand-written: json.Marshal's reflection and buffer growth were 4 % of a 100k-node import's
// CPU and 7 % of its allocations (issue 16); the stored bytes, and so the file format, do not
// change. What it does not handle the way encoding/json does (a value json.Marshal
// rejects, such as a NaN confidence or a time outside years 0–9999) goes to nodeCodec.
func marshalNodeRecord(n *Node) ([]byte, error) {
	if out, ok := appendNodeRecord(make([]byte, 0, nodeRecordSize(n)), n); ok {
		return out, nil
	}
	return nodeCodec.Marshal(*n)
}

// nodeRecordSize is an upper bound of the record's size when no string needs escapes.
func nodeRecordSize(n *Node) int {
	size := 2 + 330 + len(n.Type) + len(n.Title) + len(n.Content) + len(n.Body) + len(n.UserID) + len(n.Language) + len(n.Source)
	for _, t := range n.Tags {
		size += len(t) + 3
	}
	for k, v := range n.Meta {
		size += len(k) + len(v) + 6
	}
	return size
}

func appendNodeRecord(b []byte, n *Node) ([]byte, bool) {
	b = append(b, 'n', nodeCodec.Version)
	b = append(b, `{"id":`...)
	b = strconv.AppendUint(b, n.ID, 10)
	b = append(b, `,"type":`...)
	b = storage.AppendJSONString(b, string(n.Type))
	if n.Title != "" {
		b = append(b, `,"title":`...)
		b = storage.AppendJSONString(b, n.Title)
	}
	b = append(b, `,"content":`...)
	b = storage.AppendJSONString(b, n.Content)
	if n.Body != "" {
		b = append(b, `,"body":`...)
		b = storage.AppendJSONString(b, n.Body)
	}
	if n.HasBody {
		b = append(b, `,"hasBody":true`...)
	}
	b = append(b, `,"confidence":`...)
	var ok bool
	if b, ok = storage.AppendJSONFloat(b, n.Confidence); !ok {
		return nil, false
	}
	b = append(b, `,"helpfulCount":`...)
	b = strconv.AppendInt(b, int64(n.HelpfulCount), 10)
	b = append(b, `,"userId":`...)
	b = storage.AppendJSONString(b, n.UserID)
	b = append(b, `,"isGlobal":`...)
	b = strconv.AppendBool(b, n.IsGlobal)
	b = append(b, `,"globalSuccessCount":`...)
	b = strconv.AppendInt(b, int64(n.GlobalSuccessCount), 10)
	if n.Language != "" {
		b = append(b, `,"language":`...)
		b = storage.AppendJSONString(b, n.Language)
	}
	b = append(b, `,"tags":`...)
	if n.Tags == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, t := range n.Tags {
			if i > 0 {
				b = append(b, ',')
			}
			b = storage.AppendJSONString(b, t)
		}
		b = append(b, ']')
	}
	b = append(b, `,"source":`...)
	b = storage.AppendJSONString(b, n.Source)
	var err error
	b = append(b, `,"createdAt":"`...)
	if b, err = n.CreatedAt.AppendText(b); err != nil {
		return nil, false
	}
	b = append(b, `","updatedAt":"`...)
	if b, err = n.UpdatedAt.AppendText(b); err != nil {
		return nil, false
	}
	b = append(b, '"')
	if len(n.Meta) > 0 {
		b = append(b, `,"meta":{`...)
		keys := make([]string, 0, len(n.Meta))
		for k := range n.Meta {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = storage.AppendJSONString(b, k)
			b = append(b, ':')
			b = storage.AppendJSONString(b, n.Meta[k])
		}
		b = append(b, '}')
	}
	return append(b, '}'), true
}

// marshalEdgeRecord returns edgeCodec's encoding of e, the bytes json.Marshal writes after
// the codec header (FuzzEdgeRecord checks it), without reflection: an import threads an edge
// per file. What it does not handle as encoding/json does goes to edgeCodec.
func marshalEdgeRecord(e *Edge) ([]byte, error) {
	b := make([]byte, 0, 120+len(e.Relation))
	b = append(b, 'n', edgeCodec.Version)
	b = append(b, `{"id":`...)
	b = strconv.AppendUint(b, e.ID, 10)
	b = append(b, `,"from":`...)
	b = strconv.AppendUint(b, e.From, 10)
	b = append(b, `,"to":`...)
	b = strconv.AppendUint(b, e.To, 10)
	b = append(b, `,"relation":`...)
	b = storage.AppendJSONString(b, string(e.Relation))
	b = append(b, `,"strength":`...)
	var ok bool
	if b, ok = storage.AppendJSONFloat(b, e.Strength); !ok {
		return edgeCodec.Marshal(*e)
	}
	b = append(b, `,"createdAt":"`...)
	var err error
	if b, err = e.CreatedAt.AppendText(b); err != nil {
		return edgeCodec.Marshal(*e)
	}
	return append(b, `"}`...), nil
}
