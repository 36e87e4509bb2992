package ace_test

import (
	"testing"

	"github.com/nova-dev/nova/engine/ace"
)

func FuzzParseDeltas(f *testing.F) {
	for _, s := range []string{
		sevenDeltas,
		`[{"op":"add","content":"x","confidence":0.5}]`,
		"```json\n{\"deltas\":[{\"op\":\"remove\",\"ruleId\":\"r1\",\"confidence\":1}]}\n```",
		`{"deltas":[{"op":"update","ruleId":"r2","confidence":NaN}]}`,
		`{"deltas":[{"op":"add","content":"\u0000\u0007","confidence":-1,"tags":[1,2]}]}`,
		"<think>{</think>[[[[", "", "null", `{"deltas":null}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ds, err := ace.ParseDeltas(s)
		if err != nil && len(ds) > 0 {
			t.Fatalf("deltas with an error: %v", err)
		}
		for _, d := range ds {
			if d.Confidence < 0 || d.Confidence > 1 || d.Helpful < 0 || d.Helpful > 1 || d.Harmful < 0 || d.Harmful > 1 {
				t.Fatalf("out of range: %+v", d)
			}
			switch d.Op {
			case ace.OpAdd:
				if d.Content == "" {
					t.Fatalf("add without content: %+v", d)
				}
			case ace.OpUpdate, ace.OpRemove:
				if d.RuleID == "" {
					t.Fatalf("%s without rule id: %+v", d.Op, d)
				}
			default:
				t.Fatalf("bad op: %+v", d)
			}
			_ = d.Score()
		}
		_ = ace.FilterDeltas(ds)
	})
}
