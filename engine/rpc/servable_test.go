package rpc_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/nova-dev/nova/engine/rpc"
)

type halfText int

func (halfText) MarshalText() ([]byte, error) { return []byte("x"), nil }

type fullJSON struct{ hidden int }

func (f fullJSON) MarshalJSON() ([]byte, error)  { return json.Marshal(f.hidden) }
func (f *fullJSON) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, &f.hidden) }

type withUnexported struct {
	Name string
	n    int
}

type tagged struct {
	Name  string
	Extra any `json:"-"`
	_     struct{}
}

type recursive struct {
	Name     string
	Children []recursive
	Parent   *recursive
}

type textKey struct{ A, B string }

func (k textKey) MarshalText() ([]byte, error)  { return []byte(k.A + "/" + k.B), nil }
func (k *textKey) UnmarshalText(b []byte) error { k.A = string(b); return nil }
func TestServableRules(t *testing.T) {
	t.Parallel()
	ok := []any{
		true, "s", 1, int8(1), uint64(1), 1.5, float32(1), []byte("x"), [2]int{},
		time.Time{}, time.Duration(0), map[string]int{}, map[int]string{}, map[textKey]int{},
		&struct{ A int }{}, fullJSON{}, tagged{}, recursive{}, []*recursive{},
		map[string]any{}, struct{ Doc map[string]any }{}, // decoded documents
	}
	for _, v := range ok {
		assert.NoError(t, rpc.Servable(reflect.TypeOf(v)), "%T", v)
	}
	bad := []any{
		halfText(0), withUnexported{n: 1}, make(chan int), func() {}, complex(1, 2), uintptr(0),
		map[[2]int]int{}, []any{}, struct{ E error }{}, struct{ F func() }{}, struct{ In halfText }{},
		map[string]error{}, map[string]fmt.Stringer{}, // interfaces with methods never cross
	}
	for _, v := range bad {
		assert.Error(t, rpc.Servable(reflect.TypeOf(v)), "%T", v)
	}
}
