package secrets

import (
	"bytes"
	"encoding/json"
)

// RedactJSON redacts the secrets in a JSON document (tool arguments) and
// returns valid JSON. Each string is redacted on its own (escapes decoded),
// with its key in front of it for context ({"password":"hunter2"} reads as
// "password: hunter2"); then the document is redacted as a whole where
// that keeps it valid JSON. A document that is not JSON comes back as a
// redacted JSON string. A document with nothing to redact comes back
// unchanged (same bytes). It never panics.
func RedactJSON(raw []byte) []byte {
	if len(bytes.TrimSpace(raw)) == 0 {
		return raw
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if !json.Valid(raw) || dec.Decode(&v) != nil {
		out, _ := json.Marshal(Redact(string(raw))) // a string always marshals
		return out
	}
	changed := false
	v = redactValue("", v, &changed)
	out := raw
	if changed {
		var err error
		if out, err = json.Marshal(v); err != nil {
			out, _ = json.Marshal(Redact(string(raw)))
			return out
		}
	}
	if whole := Redact(string(out)); whole != string(out) && json.Valid([]byte(whole)) {
		return []byte(whole)
	}
	return out
}

func redactValue(key string, v any, changed *bool) any {
	switch x := v.(type) {
	case string:
		r := redactField(key, x)
		*changed = *changed || r != x
		return r
	case []any:
		for i := range x {
			x[i] = redactValue(key, x[i], changed)
		}
		return x
	case map[string]any:
		for k, e := range x {
			x[k] = redactValue(k, e, changed)
		}
		return x
	}
	return v
}

// redactField redacts s, and redacts it whole when its key names a secret
// ("password": "hunter2" reads as "password: hunter2").
func redactField(key, s string) string {
	s = Redact(s)
	if key == "" {
		return s
	}
	prefix := key + ": "
	if r := Redact(prefix + s); r != prefix+s {
		if len(r) >= len(prefix) && r[:len(prefix)] == prefix {
			return r[len(prefix):]
		}
		return Redacted
	}
	return s
}
