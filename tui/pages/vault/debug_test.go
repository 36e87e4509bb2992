package vault_test

import (
	"fmt"
	"os"
	"testing"
)

func TestDebugDump(t *testing.T) {
	if os.Getenv("VDEBUG") == "" {
		t.Skip()
	}
	ws := newWS(t)
	fill(t, ws.v)
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		m := newApp(t, ws, sz[0], sz[1])
		fmt.Println(plain(m))
		m = press(m, "down", "enter")
		fmt.Println(plain(m))
		m = press(m, "v")
		fmt.Println(plain(m))
		m = press(m, "esc", "c")
		fmt.Println(plain(m))
	}
}
